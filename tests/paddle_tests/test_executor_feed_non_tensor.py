"""Port of Paddle test/legacy_test/test_executor_feed_non_tensor.py: class TestExecutor (feeding
a Python float / int / nested list to Executor.run, plain and through CompiledProgram).

Dropped: class TestAsLodTensor (it tests the private fluid.executor._as_lodtensor). The dtype
checks `_lr._dtype() == lr.dtype == VarDesc.VarType.FP32` use private tensor/desc API; they are
kept as the public equivalent: the fetched tensor, as numpy, is float32 like the declared var.
Adam(learning_rate=lr) with the fed lr variable became Adam(learning_rate=0.01): Paddle 3.3.1
rejects a Variable learning rate; lr is still fed (as float, int) and fetched.
"""
import unittest

import numpy

import fluidc as paddle

paddle.enable_static()


class TestExecutor(unittest.TestCase):
    def net(self):
        lr = paddle.static.data(name="lr", shape=[], dtype='float32')
        x = paddle.static.data(name="x", shape=[None, 1], dtype='float32')
        y = paddle.static.data(name="y", shape=[None, 1], dtype='float32')
        y_predict = paddle.static.nn.fc(x, size=1)
        cost = paddle.nn.functional.square_error_cost(input=y_predict, label=y)
        avg_cost = paddle.mean(cost)
        # Paddle 3.3.1's Adam rejects a Variable learning rate (float or LRScheduler only), so
        # the fed lr is fetched but the optimizer uses a constant
        opt = paddle.optimizer.Adam(learning_rate=0.01)
        opt.minimize(avg_cost)
        return lr, avg_cost

    def _run(self, train_data, y_true, a, compiled=False):
        main_program, startup_program = paddle.static.Program(), paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.program_guard(main_program, startup_program):
            with paddle.static.scope_guard(scope):
                exe = paddle.static.Executor(paddle.CPUPlace())
                lr, cost = self.net()
                exe.run(startup_program)
                prog = paddle.static.CompiledProgram(main_program) if compiled else main_program
                _lr, _ = exe.run(prog, feed={'x': train_data, 'y': y_true, 'lr': a},
                                 fetch_list=[lr, cost], return_numpy=False)
                self.assertEqual(numpy.array(_lr).dtype, numpy.float32)
                self.assertEqual(lr.dtype, paddle.float32)
                numpy.testing.assert_allclose(numpy.array(_lr), a, rtol=1e-6)

    def test_program_feed_float(self):
        train_data = numpy.array([[1.0], [2.0], [3.0], [4.0]]).astype('float32')
        y_true = numpy.array([[2.0], [4.0], [6.0], [8.0]]).astype('float32')
        a = 0.01
        self._run(train_data, y_true, a)
        self.assertEqual(type(a), float)

    def test_program_feed_int(self):
        train_data = numpy.array([[1.0], [2.0], [3.0], [4.0]]).astype('float32')
        y_true = numpy.array([[2.0], [4.0], [6.0], [8.0]]).astype('float32')
        a = 0
        self._run(train_data, y_true, a)
        self.assertEqual(type(a), int)

    def test_program_feed_list(self):
        train_data = [[1.0], [2.0], [3.0], [4.0]]
        y_true = [[2.0], [4.0], [6.0], [8.0]]
        a = 0
        self._run(train_data, y_true, a)
        self.assertEqual(type(y_true), list)

    def test_compiled_program_feed_scalar(self):
        train_data = numpy.array([[1.0], [2.0], [3.0], [4.0]]).astype('float32')
        y_true = numpy.array([[2.0], [4.0], [6.0], [8.0]]).astype('float32')
        a = 0.01
        self._run(train_data, y_true, a, compiled=True)
        self.assertEqual(type(a), float)


if __name__ == '__main__':
    unittest.main()
