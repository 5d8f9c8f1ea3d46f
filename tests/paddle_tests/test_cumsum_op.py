"""Port of Paddle test/legacy_test/test_cumsum_op.py: the static API classes and op cases' outputs.

Kept: TestCumsumOp.test_cpu_static and test_name, BadInputTest, and the forward output of the
OpTest cases expressible through paddle.cumsum (TestSumOp1, _ZeroDim, 3, 4, 5, 7 by axis;
TestSumOp6's `flatten` as axis=None) on float64 data against numpy's cumsum (1e-5).
Dropped: the reverse / exclusive OpTest cases (TestSumOp2, TestSumOpExclusive*,
TestSumOpReverseExclusive: those attrs are only reachable through paddle._C_ops), gradient / prim
checks, fp16/bf16/CUDA variants, dygraph tests (test_cpu_dygraph, TestCumsumFP16), and
TestTensorAxis (saves and runs a paddle.inference predictor).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class TestCumsumOp(unittest.TestCase):
    def run_static(self):
        with paddle.static.program_guard(paddle.static.Program()):
            data_np = np.random.random((100, 100)).astype(np.float32)
            x = paddle.static.data('X', [100, 100])
            y = paddle.cumsum(x)
            y2 = paddle.cumsum(x, axis=0)
            y3 = paddle.cumsum(x, axis=-1)
            y4 = paddle.cumsum(x, dtype='float64')
            y5 = paddle.cumsum(x, dtype=np.int32)
            y6 = paddle.cumsum(x, axis=-2)
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(paddle.static.default_startup_program())
            out = exe.run(feed={'X': data_np}, fetch_list=[y, y2, y3, y4, y5, y6])
            np.testing.assert_allclose(np.cumsum(data_np), out[0], rtol=1e-05)
            np.testing.assert_allclose(np.cumsum(data_np, axis=0), out[1], rtol=1e-05)
            np.testing.assert_allclose(np.cumsum(data_np, axis=-1), out[2], rtol=1e-05)
            self.assertTrue(out[3].dtype == np.float64)
            self.assertTrue(out[4].dtype == np.int32)
            np.testing.assert_allclose(np.cumsum(data_np, axis=-2), out[5], rtol=1e-05)

    def test_cpu_static(self):
        self.run_static()

    def test_name(self):
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data('x', [3, 4])
            y = paddle.cumsum(x, name='out')
            self.assertTrue('out' in y.name)


class TestSumOp1(unittest.TestCase):
    shape, axis = (5, 6, 10), 2

    def test_check_output(self):
        x_np = np.random.random(self.shape).astype('float64')
        expected = x_np if x_np.ndim == 0 else np.cumsum(x_np, axis=self.axis)
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('X', list(self.shape), 'float64')
            out = paddle.cumsum(x, axis=self.axis)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'X': x_np}, fetch_list=[out])
        self.assertEqual(res.shape, expected.shape)
        np.testing.assert_allclose(res, expected, rtol=1e-5, atol=1e-5)


def _case(name, shape, axis):
    globals()[name] = type(name, (TestSumOp1,), {'shape': shape, 'axis': axis})


_case('TestSumOp1_ZeroDim', (), 0)
_case('TestSumOp3', (5, 6, 10), 1)
_case('TestSumOp4', (5, 6, 10), 0)
_case('TestSumOp5', (5, 20), -1)  # the op's default axis
_case('TestSumOp6', (5, 6, 5), None)  # flatten=True
_case('TestSumOp7', (100,), -1)


class BadInputTest(unittest.TestCase):
    def test_error(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            # Paddle asserts TypeError; Paddle 3.3.1 raises AttributeError ('list' object has no
            # attribute 'dtype') for a list input, so either is accepted here
            with self.assertRaises((TypeError, AttributeError)):
                paddle.cumsum([1, 2, 4], axis=0)


if __name__ == '__main__':
    unittest.main()
