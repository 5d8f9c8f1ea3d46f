"""Port of Paddle test/legacy_test/test_array_read_write_op.py: tensor arrays (array_write /
array_read) forward and backward.

Kept: TestArrayReadWrite.test_read_write (its static half), TestArrayReadWriteOpError,
TestPirArrayOp.test_array_backward (its legacy-program branch, which also fetches the array's
grad), with Paddle's assertions.
Dropped: the dygraph halves (base.dygraph.guard, TestArrayReadWriteApi), TestPirArrayOp.test_array
and the PIR branch of test_array_backward (PIR programs only; @test_with_pir_api, a Paddle
test utility choosing the program kind).
Renamed: base.backward.append_backward -> paddle.static.append_backward, core.CPUPlace /
core.Scope -> base.CPUPlace / base.core.Scope, base.executor.Executor -> base.Executor,
base.framework.default_main_program -> paddle.static.default_main_program.
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

base = fluid  # Paddle's `from paddle import base`
core = base.core
Program, program_guard = base.Program, base.program_guard
append_backward = paddle.static.append_backward
Executor = base.Executor
default_main_program = paddle.static.default_main_program


def _test_read_write(x):
    i = paddle.zeros(shape=[1], dtype='int64')
    i.stop_gradient = False
    arr = paddle.tensor.array_write(x=x[0], i=i)
    i = paddle.increment(x=i)
    arr = paddle.tensor.array_write(x=x[1], i=i, array=arr)
    i = paddle.increment(x=i)
    arr = paddle.tensor.array_write(x=x[2], i=i, array=arr)

    i = paddle.zeros(shape=[1], dtype='int64')
    i.stop_gradient = False
    a0 = paddle.tensor.array_read(array=arr, i=i)
    i = paddle.increment(x=i)
    a1 = paddle.tensor.array_read(array=arr, i=i)
    i = paddle.increment(x=i)
    a2 = paddle.tensor.array_read(array=arr, i=i)

    mean_a0 = paddle.mean(a0)
    mean_a1 = paddle.mean(a1)
    mean_a2 = paddle.mean(a2)

    a_sum = paddle.add_n([mean_a0, mean_a1, mean_a2])

    mean_x0 = paddle.mean(x[0])
    mean_x1 = paddle.mean(x[1])
    mean_x2 = paddle.mean(x[2])

    x_sum = paddle.add_n([mean_x0, mean_x1, mean_x2])

    return a_sum, x_sum


class TestArrayReadWrite(unittest.TestCase):
    def test_read_write(self):
        paddle.enable_static()
        x = [
            paddle.static.data(name='x0', shape=[-1, 100]),
            paddle.static.data(name='x1', shape=[-1, 100]),
            paddle.static.data(name='x2', shape=[-1, 100]),
        ]
        for each_x in x:
            each_x.stop_gradient = False

        tensor = np.random.random(size=(100, 100)).astype('float32')
        a_sum, x_sum = _test_read_write(x)

        place = base.CPUPlace()
        exe = Executor(place)
        outs = exe.run(
            feed={'x0': tensor, 'x1': tensor, 'x2': tensor},
            fetch_list=[a_sum, x_sum],
            scope=core.Scope(),
        )
        self.assertEqual(outs[0], outs[1])

        total_sum = paddle.add_n([a_sum, x_sum])
        total_sum_scaled = paddle.scale(x=total_sum, scale=1 / 6.0)

        append_backward(total_sum_scaled)

        g_vars = list(
            map(
                default_main_program().global_block().var,
                [each_x.name + "@GRAD" for each_x in x],
            )
        )
        g_out = [
            item.sum()
            for item in exe.run(
                feed={'x0': tensor, 'x1': tensor, 'x2': tensor},
                fetch_list=g_vars,
            )
        ]
        g_out_sum = np.array(g_out).sum()

        # since our final gradient is 1 and the neural network are all linear
        # with mean_op.
        # the input gradient should also be 1
        self.assertAlmostEqual(1.0, g_out_sum, delta=0.1)


class TestArrayReadWriteOpError(unittest.TestCase):
    def test_errors(self):
        with program_guard(Program(), Program()):
            x1 = np.random.randn(2, 4).astype('int32')
            x2 = paddle.ones(shape=[1], dtype='int32')
            x3 = np.random.randn(2, 4).astype('int32')

            self.assertRaises(
                TypeError, paddle.tensor.array_read, array=x1, i=x2
            )
            self.assertRaises(
                TypeError, paddle.tensor.array_write, array=x1, i=x2, out=x3
            )


class TestPirArrayOp(unittest.TestCase):
    def test_array_backward(self):
        np.random.seed(2013)
        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            d0 = paddle.static.data(name='d0', shape=[10], dtype='float32')
            d0.stop_gradient = False
            d0.persistable = True
            i = paddle.zeros(shape=[1], dtype='int64')
            mem_array = paddle.tensor.array_write(x=d0, i=i)
            mem_array.stop_gradient = False
            mem_array.persistable = True
            out = paddle.tensor.array_read(array=mem_array, i=i)
            mean = paddle.mean(out)
            append_backward(mean)

            place = base.CPUPlace()
            d = np.random.random(size=[10]).astype('float32')
            exe = base.Executor(place)

            res = exe.run(
                main_program,
                feed={'d0': d},
                fetch_list=[mean.name, d0.grad_name, mem_array.grad_name],
            )
            np.testing.assert_allclose(res[2], [[0.1] * 10], rtol=1e-05)

            mean = 0.6097253
            x_grad = [0.1] * 10
            np.testing.assert_allclose(res[0], mean, rtol=1e-05)
            np.testing.assert_allclose(res[1], x_grad, rtol=1e-05)


if __name__ == '__main__':
    unittest.main()
