"""Port of Paddle test/legacy_test/test_calc_gradient.py.
run-on-paddle: pir   (paddle.matmul / paddle.ones on a legacy Program are broken in Paddle 3.3.1)

base.backward.calc_gradient and base.gradients are the private/1.x spellings of
paddle.static.gradients, used here. Nothing else dropped.
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class TestCalcGradient(unittest.TestCase):
    def test_calc_gradient(self):
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.create_parameter(dtype="float32", shape=[5, 10])
            y = paddle.create_parameter(dtype="float32", shape=[10, 8])
            mul_out = paddle.matmul(x=x, y=y)
            mean_out = paddle.mean(mul_out)
            a = paddle.static.gradients(mean_out, mul_out)
            b = paddle.static.gradients(mean_out, x)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        a_np, b_np = exe.run(main, feed={}, fetch_list=[a, b])
        np.testing.assert_allclose(a_np, np.full([5, 8], 1.0 / 40), rtol=1e-6)
        self.assertEqual(b_np.shape, (5, 10))


class TestDoubleGrad(unittest.TestCase):
    def test1(self):
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            net = lambda x: x * x  # noqa: E731
            x = paddle.create_parameter(name='x', shape=[1], dtype='float32',
                                        default_initializer=paddle.nn.initializer.Constant(3))
            (grad1,) = paddle.static.gradients(net(x), x)  # 2x = 6
            z = net(x - grad1)
            (grad2,) = paddle.static.gradients(z, x)  # gradients((x - 2x)^2) = 2x = 6
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        out = exe.run(main, fetch_list=[grad1, grad2])
        self.assertEqual(6, out[0][0])
        self.assertEqual(6, out[1][0])

    def test2(self):
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.create_parameter(name='x', shape=[1], dtype='float32',
                                        default_initializer=paddle.nn.initializer.Constant(1))
            y = x * x
            (dx1,) = paddle.static.gradients(y, x)
            z = dx1 * dx1 + y * y
            (dx2,) = paddle.static.gradients(z, x)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        (out,) = exe.run(main, fetch_list=[dx2])
        self.assertEqual(12, out[0])


class TestGradientWithPrune(unittest.TestCase):
    def test_prune(self):
        with paddle.static.scope_guard(paddle.static.Scope()):
            x = paddle.static.data(name='x', shape=[3], dtype='float32')
            x.stop_gradient = False
            x1, x2, x3 = paddle.split(x, axis=0, num_or_sections=3)
            y = x1 * 2
            x1_grad = paddle.static.gradients(y, x)
            exe = paddle.static.Executor(paddle.CPUPlace())
            main = paddle.static.default_main_program()
            exe.run(paddle.static.default_startup_program())
            out = exe.run(main, feed={'x': np.ones([3]).astype('float32')},
                          fetch_list=[x1_grad])
            np.testing.assert_array_equal(out[0], [2.0, 0.0, 0.0])


class TestDoubleGradient(unittest.TestCase):
    def build_program(self, two_targets):
        start_prog, main_prog = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main_prog, start_prog):
            x = paddle.static.data('x', shape=[2, 2])
            x.stop_gradient = False
            y = x * x
            v = paddle.ones([2, 2])
            v.stop_gradient = False
            grad_y = paddle.zeros_like(y)
            grad_y.stop_gradient = False
            grad_x = paddle.static.gradients(y, x, grad_y)
            if two_targets:
                y2 = y + x
                grad_x2 = paddle.static.gradients(y2, x, grad_y)
                jvp = paddle.static.gradients([grad_x[0], grad_x2[0]], grad_y, [v, v])
            else:
                jvp = paddle.static.gradients(grad_x, grad_y, v)
        return start_prog, main_prog, [grad_x, jvp]

    def _check(self, two_targets, expected_jvp):
        with paddle.static.scope_guard(paddle.static.Scope()):
            start_prog, main_prog, fetch_list = self.build_program(two_targets)
            exe = paddle.static.Executor()
            exe.run(start_prog)
            ans = exe.run(main_prog, feed={'x': np.ones([2, 2]).astype(np.float32)},
                          fetch_list=fetch_list)
            self.assertEqual(len(ans), 2)
            self.assertListEqual(ans[0].tolist(), [[0.0, 0.0], [0.0, 0.0]])
            self.assertListEqual(ans[1].tolist(), [[expected_jvp] * 2] * 2)

    def test_calc_gradient(self):
        self._check(False, 2.0)

    def test_calc_gradient_multi_targets(self):
        # Paddle's TestDoubleGradient2.test_calc_gradient
        self._check(True, 5.0)


if __name__ == '__main__':
    unittest.main()
