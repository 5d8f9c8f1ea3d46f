"""Port of Paddle test/legacy_test/test_pow.py: its static-graph parts.

Kept: TestPowerAPI.test_power's static runs (Tensor ** float / int scalar, int64 ** int,
Tensor ** Tensor in float64 / int64 / int32 / float32, broadcasting; the same seeded data and
np.power reference), TestPowerError.test_errors' static checks (shapes that do not broadcast:
ValueError; numpy x: TypeError; a str exponent: TypeError).
Dropped: the dygraph runs and dygraph error check, test_pir_error (PIR programs through
paddle.pir_utils), TestPowerAPI_ZeroSize (dygraph), the CUDA place.
"""
import unittest

import numpy as np

import fluidc as paddle

Program, program_guard = paddle.static.Program, paddle.static.program_guard


def _run_power(x, y):
    """paddle.pow(x, y) on a static program: x fed, y a number or fed."""
    paddle.enable_static()
    with program_guard(Program(), Program()):
        x_ = paddle.static.data(name="x", shape=x.shape, dtype=x.dtype)
        feed = {'x': x}
        if isinstance(y, (int, float)):
            y_ = y
        else:
            y_ = paddle.static.data(name="y", shape=y.shape, dtype=y.dtype)
            feed['y'] = y
        res = paddle.pow(x_, y_)
        exe = paddle.static.Executor(paddle.CPUPlace())
        outs = exe.run(feed=feed, fetch_list=[res])
        return outs[0]


class TestPowerAPI(unittest.TestCase):
    """TestPowerAPI."""

    def test_power(self):
        """test_power."""
        np.random.seed(7)
        # test 1-d float tensor ** float scalar
        dims = (np.random.randint(200, 300),)
        x = (np.random.rand(*dims) * 10).astype(np.float64)
        y = np.random.rand() * 10
        res = _run_power(x, y)
        np.testing.assert_allclose(res, np.power(x, y), rtol=1e-05)

        # test 1-d float tensor ** int scalar
        dims = (np.random.randint(200, 300),)
        x = (np.random.rand(*dims) * 10).astype(np.float64)
        y = int(np.random.rand() * 10)
        res = _run_power(x, y)
        np.testing.assert_allclose(res, np.power(x, y), rtol=1e-05)

        x = (np.random.rand(*dims) * 10).astype(np.int64)
        y = int(np.random.rand() * 10)
        res = _run_power(x, y)
        np.testing.assert_allclose(res, np.power(x, y), rtol=1e-05)

        # test 1-d float tensor ** 1-d float tensor
        dims = (np.random.randint(200, 300),)
        x = (np.random.rand(*dims) * 10).astype(np.float64)
        y = (np.random.rand(*dims) * 10).astype(np.float64)
        res = _run_power(x, y)
        np.testing.assert_allclose(res, np.power(x, y), rtol=1e-05)

        # test 1-d int tensor ** 1-d int tensor
        dims = (np.random.randint(200, 300),)
        x = (np.random.rand(*dims) * 10).astype(np.int64)
        y = (np.random.rand(*dims) * 10).astype(np.int64)
        res = _run_power(x, y)
        np.testing.assert_allclose(res, np.power(x, y), rtol=1e-05)

        # test 1-d int tensor ** 1-d int tensor
        dims = (np.random.randint(200, 300),)
        x = (np.random.rand(*dims) * 10).astype(np.int32)
        y = (np.random.rand(*dims) * 10).astype(np.int32)
        res = _run_power(x, y)
        np.testing.assert_allclose(res, np.power(x, y), rtol=1e-05)

        # test 1-d int tensor ** 1-d int tensor
        dims = (np.random.randint(200, 300),)
        x = (np.random.rand(*dims) * 10).astype(np.float32)
        y = (np.random.rand(*dims) * 10).astype(np.float32)
        res = _run_power(x, y)
        np.testing.assert_allclose(res, np.power(x, y), rtol=1e-05)

        # test 2-d float tensor ** float scalar
        dims = (np.random.randint(2, 10), np.random.randint(5, 10))
        x = (np.random.rand(*dims) * 10).astype(np.float32)
        y = np.random.rand() * 10
        res = _run_power(x, y)
        np.testing.assert_allclose(res, np.power(x, y), rtol=1e-05)

        # test broadcast
        dims = (
            np.random.randint(1, 10),
            np.random.randint(5, 10),
            np.random.randint(5, 10),
        )
        x = (np.random.rand(*dims) * 10).astype(np.float64)
        y = (np.random.rand(dims[-1]) * 10).astype(np.float64)
        res = _run_power(x, y)
        np.testing.assert_allclose(res, np.power(x, y), rtol=1e-05)


class TestPowerError(unittest.TestCase):
    """TestPowerError."""

    def test_errors(self):
        """test_errors."""
        np.random.seed(7)

        # inputs must be broadcastable
        dims = (
            np.random.randint(1, 10),
            np.random.randint(5, 10),
            np.random.randint(5, 10),
        )
        x = (np.random.rand(*dims) * 10).astype(np.float64)
        y = (np.random.rand(dims[-1] + 1) * 10).astype(np.float64)
        self.assertRaises(ValueError, _run_power, x, y)

        dims = (
            np.random.randint(1, 10),
            np.random.randint(5, 10),
            np.random.randint(5, 10),
        )
        x = (np.random.rand(*dims) * 10).astype(np.float64)
        y = (np.random.rand(dims[-1] + 1) * 10).astype(np.int8)
        self.assertRaises(TypeError, paddle.pow, x, y)

        # test 1-d float tensor ** int string
        dims = (np.random.randint(200, 300),)
        x = (np.random.rand(*dims) * 10).astype(np.float64)
        y = int(np.random.rand() * 10)
        self.assertRaises(TypeError, paddle.pow, x, str(y))


if __name__ == '__main__':
    unittest.main()
