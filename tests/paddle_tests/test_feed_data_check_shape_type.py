"""Port of Paddle test/legacy_test/test_feed_data_check_shape_type.py: feeding matching shapes,
-1/None dims and LoD tensors runs; a wrong shape or dtype raises ValueError with Paddle's exact
message.

Dropped: the CUDA pass and the CPU_NUM device count (there is one CPU place; the LoD case uses
device_count = 4 as Paddle's CPU_NUM=4 did). fluid.LoDTensor().set(...) +
set_recursive_sequence_lengths -> fluid.create_lod_tensor (the public constructor of the same
tensor).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

paddle.enable_static()
np.random.seed(123)


class TestFeedData(unittest.TestCase):
    def setUp(self):
        self.hidden_sizes = [25, 20, 15]
        self.data_batch_size = 10
        self.class_num = 10
        self.iterations = 5
        self.device_count = 4

    def _simple_fc_net(self, in_size, label_size, class_num, hidden_sizes):
        in_data = paddle.static.data(name="data", dtype='float32', shape=in_size)
        label = paddle.static.data(name='label', dtype='int64', shape=label_size)
        hidden = in_data
        for hidden_size in hidden_sizes:
            hidden = paddle.static.nn.fc(hidden, size=hidden_size)
        predict_label = paddle.static.nn.fc(hidden, size=class_num, activation='softmax')
        loss = paddle.mean(paddle.nn.functional.cross_entropy(
            input=predict_label, label=label, reduction='none', use_softmax=False))
        paddle.optimizer.Adam().minimize(loss)
        return in_data, label, loss

    def test(self):
        self._test_feed_data_match_shape_type()
        self._test_feed_data_contains_neg_one()
        self._test_feed_lod_tensor()

        in_shape_tuple = (-1, 3, 4, 8)
        error_shape_list = [self.data_batch_size, 3, 4, 5]
        with self.assertRaises(ValueError) as shape_mismatch_err:
            self._test_feed_data_shape_mismatch()
        self.assertEqual(
            str(shape_mismatch_err.exception),
            "The fed Variable %r should have dimensions = %r, "
            "shape = %r, but received fed shape %r on each device"
            % ('data', len(in_shape_tuple), in_shape_tuple, error_shape_list))

        with self.assertRaises(ValueError) as dtype_mismatch_err:
            self._test_feed_data_dtype_mismatch()
        self.assertEqual(
            str(dtype_mismatch_err.exception),
            "The data type of fed Variable %r must be 'int64', but received 'float64'" % 'label')

    def _test_feed_data_dtype_mismatch(self):
        in_size = [self.data_batch_size, 3, 4, 5]
        feed_in_data = np.random.uniform(size=[self.data_batch_size, 3, 4, 5]).astype(np.float32)
        label_size = [self.data_batch_size, 1]
        feed_label = np.random.randint(0, self.class_num, size=[self.data_batch_size, 1]) \
            .astype(np.float64)
        self._feed_data_in_executor(in_size, label_size, feed_in_data, feed_label)

    def _test_feed_data_shape_mismatch(self):
        in_size = [None, 3, 4, 8]
        feed_in_data = np.random.uniform(size=[self.data_batch_size, 3, 4, 5]).astype(np.float32)
        label_size = [-1, 1]
        feed_label = np.random.randint(0, self.class_num, size=[self.data_batch_size, 1]) \
            .astype(np.int64)
        self._feed_data_in_executor(in_size, label_size, feed_in_data, feed_label)

    def _test_feed_data_contains_neg_one(self):
        in_size = [-1, 3, 4, 5]
        feed_in_data = np.random.uniform(size=[self.data_batch_size, 3, 4, 5]).astype(np.float32)
        label_size = (None, 1)
        feed_label = np.random.randint(0, self.class_num, size=[self.data_batch_size, 1]) \
            .astype(np.int64)
        self._feed_data_in_executor(in_size, label_size, feed_in_data, feed_label)

    def _test_feed_data_match_shape_type(self):
        in_size = [self.data_batch_size, 3, 4, 5]
        feed_in_data = np.random.uniform(size=[self.data_batch_size, 3, 4, 5]).astype(np.float32)
        label_size = [self.data_batch_size, 1]
        feed_label = np.random.randint(0, self.class_num, size=[self.data_batch_size, 1]) \
            .astype(np.int64)
        self._feed_data_in_executor(in_size, label_size, feed_in_data, feed_label)

    def _test_feed_lod_tensor(self):
        device_count = self.device_count
        in_size = [device_count, 3, 4, 5]
        sequence_lengths = [list(range(1, device_count + 1))]
        sum_length = int((device_count + 1) * device_count / 2)
        feed_in_data = np.random.uniform(size=[sum_length, 3, 4, 5]).astype(np.float32)
        feed_data_tensor = fluid.create_lod_tensor(feed_in_data, sequence_lengths,
                                                   fluid.CPUPlace())
        label_size = [device_count, 1]
        feed_label = np.random.randint(0, self.class_num, size=[sum_length, 1]).astype(np.int64)
        feed_label_tensor = fluid.create_lod_tensor(feed_label, sequence_lengths,
                                                    fluid.CPUPlace())
        self._feed_data_in_executor(in_size, label_size, feed_data_tensor, feed_label_tensor)

    def _feed_data_in_executor(self, in_size, label_size, feed_in_data, feed_label):
        startup_program, main_program = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            in_data, label, loss = self._simple_fc_net(in_size, label_size, self.class_num,
                                                       self.hidden_sizes)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup_program)
        for _ in range(self.iterations):
            exe.run(main_program, feed={in_data.name: feed_in_data, label.name: feed_label},
                    fetch_list=[loss.name])


if __name__ == '__main__':
    unittest.main()
