"""Port of Paddle test/legacy_test/test_batch_norm_op_v2.py: its static classes.

Paddle 3.3.1's file keeps these classes commented out; they are ported from its 2.x version
(python/paddle/fluid/tests/unittests/test_batch_norm_op_v2.py), the 1.x names in their 2.x form
(`fluid.dygraph.BatchNorm` -> paddle.nn.BatchNorm, `fluid.data` -> paddle.static.data).
Kept: TestBatchNorm.test_static (nn.BatchNorm vs nn.BatchNorm2D in training, same output) and
TestBatchNorm.test_error, whose six dygraph cases (a 4-D input to BatchNorm1D, 3-D to
BatchNorm2D, 4-D to BatchNorm3D, and a wrong data_format for each) run here in static programs
(paddle.static.data of the same shape instead of paddle.to_tensor): each must raise ValueError.
Dropped: the dygraph-only tests (test_name, test_large_batch, test_eager_api, test_dygraph,
TestBatchNormChannelLast, TestBatchNormUseGlobalStats*: paddle.randn / to_tensor / .backward /
layer weight sharing in dygraph), the CUDA place.
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

paddle.enable_static()


class TestBatchNorm(unittest.TestCase):
    def test_error(self):
        def build(layer, shape):
            with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
                layer(paddle.static.data('x', shape, 'float32'))

        def error1d_dataformat():
            build(paddle.nn.BatchNorm1D(1, data_format='NCDHW'), [2, 1, 3, 3])

        def error2d_dataformat():
            build(paddle.nn.BatchNorm2D(1, data_format='NCDHW'), [2, 1, 3])

        def error3d_dataformat():
            build(paddle.nn.BatchNorm3D(1, data_format='NCL'), [2, 1, 3, 3])

        def error1d():
            build(paddle.nn.BatchNorm1D(1), [2, 1, 3, 3])

        def error2d():
            build(paddle.nn.BatchNorm2D(1), [2, 1, 3])

        def error3d():
            build(paddle.nn.BatchNorm3D(1), [2, 1, 3, 3])

        self.assertRaises(ValueError, error1d)
        self.assertRaises(ValueError, error2d)
        self.assertRaises(ValueError, error3d)
        self.assertRaises(ValueError, error1d_dataformat)
        self.assertRaises(ValueError, error2d_dataformat)
        self.assertRaises(ValueError, error3d_dataformat)

    def test_static(self):
        places = [fluid.CPUPlace()]
        for p in places:
            exe = fluid.Executor(p)
            shape = [4, 10, 16, 16]

            def compute_v1(x_np, is_test, trainable_statistics):
                with fluid.program_guard(fluid.Program(), fluid.Program()):
                    bn = paddle.nn.BatchNorm(shape[1], is_test=is_test,
                                             trainable_statistics=trainable_statistics)
                    x = paddle.static.data(name='x', shape=x_np.shape, dtype=x_np.dtype)
                    y = bn(x)
                    exe.run(fluid.default_startup_program())
                    r = exe.run(feed={'x': x_np}, fetch_list=[y])[0]
                return r

            def compute_v2(x_np):
                with fluid.program_guard(fluid.Program(), fluid.Program()):
                    bn = paddle.nn.BatchNorm2D(shape[1])
                    x = paddle.static.data(name='x', shape=x_np.shape, dtype=x_np.dtype)
                    y = bn(x)
                    exe.run(fluid.default_startup_program())
                    r = exe.run(feed={'x': x_np}, fetch_list=[y])[0]
                return r

            x = np.random.randn(*shape).astype("float32")
            y1 = compute_v1(x, False, False)
            y2 = compute_v2(x)
            np.testing.assert_allclose(y1, y2, rtol=1e-05)


if __name__ == '__main__':
    unittest.main()
