"""Port of Paddle 2.x's test_py_reader_using_executor.py
(python/paddle/fluid/tests/unittests/; not in test/legacy_test any more).

A non-iterable reader feeds an fc net trained with Adam through Executor.run with no feed: every
batch the program reads must be the batch the generator made (same shapes; same values), and the
reader ends the pass with EOFException.
Kept: use_double_buffer False / True with the feed-list reader fed by a paddle.batch sample-list
generator (Paddle's use_feed_list + use_decorate_paddle_reader case), on the CPU place. The 1.x
fluid.layers.create_py_reader_by_data(capacity, use_double_buffer, feed_list) + read_file is
written as its 2.x form fluid.io.PyReader(feed_list, capacity, use_double_buffer,
iterable=False), decorate_paddle_reader as decorate_sample_list_generator, and
py_reader.exited / py_reader.thread.join() (internals) as py_reader.reset().
Dropped: the CUDA place; use_parallel_executor (CompiledProgram.with_data_parallel, removed from
Paddle); use_feed_list=False (fluid.layers.py_reader from shapes / dtypes, no 2.x form); the
hand-fed queue (py_reader.queue.push of core LoDTensorArrays, internals).
fluid.layers.fc / cross_entropy / fluid.optimizer.Adam are written paddle.static.nn.fc /
paddle.nn.functional.cross_entropy(reduction='none', use_softmax=False) /
paddle.optimizer.Adam; numpy 2 has no random_integers (randint(0, class_num) draws the same
range).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


def as_numpy(tensor_or_numpy):
    return tensor_or_numpy if isinstance(tensor_or_numpy, np.ndarray) \
        else np.array(tensor_or_numpy)


def simple_fc_net(in_size, class_num, hidden_sizes, batch_size, queue_capacity,
                  use_double_buffer=False):
    in_data = paddle.static.data(name="data", dtype='float32', shape=[-1, in_size])
    label = paddle.static.data(name='label', dtype='int64', shape=[-1, 1])
    py_reader = fluid.io.PyReader(feed_list=[in_data, label], capacity=queue_capacity,
                                  use_double_buffer=use_double_buffer, iterable=False)

    hidden = in_data
    for hidden_size in hidden_sizes:
        hidden = paddle.static.nn.fc(
            hidden, size=hidden_size, activation='tanh',
            bias_attr=fluid.ParamAttr(initializer=paddle.nn.initializer.Constant(value=1.0)))

    predict_label = paddle.static.nn.fc(hidden, size=class_num, activation='softmax')
    loss = paddle.mean(paddle.nn.functional.cross_entropy(input=predict_label, label=label,
                                                          reduction='none', use_softmax=False))

    optimizer = paddle.optimizer.Adam()
    optimizer.minimize(loss)
    return in_data, label, loss, optimizer, py_reader


class TestPyReaderUsingExecutor(unittest.TestCase):
    def setUp(self):
        self.in_size = 1000
        self.hidden_sizes = [50, 30, 20]
        self.class_num = 10
        self.batch_size = 32
        self.iterations = 10
        self.queue_capacity = 50

    def test(self):
        for use_double_buffer in [False, True]:
            self.main(use_double_buffer)

    def tensor_reader(self):
        def reader():
            for sample_id in range(self.batch_size * self.iterations * self.batch_size_times):
                in_data = np.random.uniform(low=0, high=1, size=(self.in_size,)) \
                    .astype('float32')
                label = np.random.randint(low=0, high=self.class_num, size=(1,)).astype('int64')

                reshaped_in_data = np.reshape(in_data, [1, -1])
                reshaped_label = np.reshape(label, [1, -1])
                if sample_id % (self.batch_size * self.batch_size_times) == 0:
                    self.inputs.append([reshaped_in_data, reshaped_label])
                else:
                    self.inputs[-1][0] = np.concatenate((self.inputs[-1][0], reshaped_in_data),
                                                        axis=0)
                    self.inputs[-1][1] = np.concatenate((self.inputs[-1][1], reshaped_label),
                                                        axis=0)

                yield in_data, label

        return reader

    def main(self, use_double_buffer=False):
        self.use_double_buffer = use_double_buffer

        startup_program = fluid.Program()
        main_program = fluid.Program()

        with fluid.program_guard(main_program, startup_program):
            in_data, label, loss, optimizer, py_reader = simple_fc_net(
                in_size=self.in_size, class_num=self.class_num, hidden_sizes=self.hidden_sizes,
                batch_size=self.batch_size, queue_capacity=self.queue_capacity,
                use_double_buffer=self.use_double_buffer)

            place = fluid.CPUPlace()

            exe = fluid.Executor(place)
            exe.run(startup_program)

            train_cp = main_program
            self.batch_size_times = 1

            reader = self.tensor_reader()
            batch_reader = paddle.batch(reader, batch_size=self.batch_size)

            self.inputs = []
            self.outputs = []

            py_reader.decorate_sample_list_generator(batch_reader)
            py_reader.start()

            try:
                while True:
                    fetches = exe.run(train_cp, fetch_list=[in_data.name, label.name])
                    fetches = [as_numpy(fetch) for fetch in fetches]
                    self.outputs.append(fetches)
            except fluid.core.EOFException:
                pass

            py_reader.reset()
            self.validate()

    def validate(self):
        if not self.use_double_buffer:
            self.assertEqual(len(self.inputs), len(self.outputs))
        else:
            self.assertTrue(len(self.inputs) >= len(self.outputs))
        for idx in range(len(self.outputs)):
            batch_in = self.inputs[idx]
            batch_out = self.outputs[idx]
            self.assertEqual(len(batch_in), len(batch_out))
            for in_data, out_data in zip(batch_in, batch_out):
                self.assertEqual(in_data.shape, out_data.shape)
                self.assertTrue((in_data == out_data).all())


if __name__ == '__main__':
    unittest.main()
