"""Port of Paddle test/legacy_test/test_modelaverage.py, its static part: paddle.incubate.
optimizer.ModelAverage after Momentum on a Linear layer; after 10 steps the bias's window
accumulators hold Paddle's counts (a window of 2 closed on step 10), apply() puts their
average in place and the program run after the block sees the trained bias again.
Dropped: test_model_average_dygraph (fluidc's ModelAverage is static only) and the PIR
branches (fetching by value; here by name, as Paddle's legacy branch). The accumulators'
values step by step are compared with Paddle's in tests/test_averaging.py."""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid


class TestModelAverage(unittest.TestCase):

    def test_model_average_static(self):
        paddle.enable_static()
        place = fluid.CPUPlace()
        shape = [2, 3, 8, 8]
        exe = fluid.Executor(place)
        train_program = paddle.static.Program()
        startup = paddle.static.Program()
        test_program = paddle.static.Program()
        with paddle.static.program_guard(train_program, startup), fluid.unique_name.guard():
            data = paddle.static.data(name='X', shape=[None, 1], dtype='float32')
            hidden = paddle.nn.Linear(in_features=data.shape[1], out_features=10)(data)
            loss = paddle.mean(hidden)
            test_program = train_program.clone()
            optimizer = paddle.optimizer.Momentum(learning_rate=0.2, momentum=0.1)

            optimizer.minimize(loss)
            # build ModelAverage optimizer
            model_average = paddle.incubate.optimizer.ModelAverage(
                0.15, min_average_window=2, max_average_window=10)

        exe.run(startup)
        params_list = [
            'linear_0.b_0',
            'linear_0.b_0_sum_1_0',
            'linear_0.b_0_sum_2_0',
            'linear_0.b_0_sum_3_0',
            'linear_0.b_0_num_accumulates_0',
            'linear_0.b_0_old_num_accumulates_0',
            'linear_0.b_0_num_updates_0',
        ]
        fetch_list = params_list

        for i in range(10):
            x = np.random.random(size=(10, 1)).astype('float32')
            (latest_b, sum_1, sum_2, sum_3, num_accumulates, old_num_accumulates,
             num_updates) = exe.run(program=train_program, feed={'X': x},
                                    fetch_list=fetch_list)
        self.assertTrue(np.equal(sum_1, np.zeros(shape=[10], dtype='float32')).all())
        self.assertTrue(np.equal(sum_2, np.zeros(shape=[10], dtype='float32')).all())
        self.assertTrue(np.equal(num_accumulates, np.array([0], dtype='int64')).all())
        self.assertTrue(np.equal(old_num_accumulates, np.array([2], dtype='int64')).all())
        self.assertTrue(np.equal(num_updates, np.array([10], dtype='int64')).all())

        average_b = (sum_1 + sum_2 + sum_3) / (
            num_accumulates + old_num_accumulates).astype('float32')
        fetch_list = [loss.name, 'linear_0.b_0']
        # apply ModelAverage
        with model_average.apply(exe):
            x = np.random.random(size=(10, 1)).astype('float32')
            outs, b = exe.run(program=test_program, feed={'X': x}, fetch_list=fetch_list)
            self.assertAlmostEqual(np.mean(average_b), np.mean(b))

        x = np.random.random(size=(10, 1)).astype('float32')
        outs, b = exe.run(program=test_program, feed={'X': x}, fetch_list=fetch_list)
        self.assertAlmostEqual(np.mean(latest_b), np.mean(b))


if __name__ == "__main__":
    unittest.main()
