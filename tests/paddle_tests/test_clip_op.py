"""Port of Paddle test/legacy_test/test_clip_op.py: the static API classes.

run-on-paddle: pir

Kept: TestClipOpError, TestClipAPI.test_clip (the cases Paddle itself runs: float min/max, only min,
only max, none, float64, int32/int64; its Variable-min/max cases are commented out in Paddle too)
and test_errors (int16 / int8 data).
Dropped: OpTest classes (clip / clip_tensor ops through core.*), fp16/bf16/CUDA variants, dygraph
tests (test_clip_dygraph*, check_dygraph_api, check_inplace_api) and TestInplaceClipAPI
(x.clip_ in static mode is Paddle's inplace alias; its static test is the same as TestClipAPI's),
and TestClipTensorAPI / TestClipTensorCase* (min/max as multi-element tensors: written for a later
Paddle's clip_tensor op; Paddle 3.3.1 rejects them, 'The Scalar only supports Tensor with 1
element').
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class TestClipOpError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            input_data = np.random.random((2, 4)).astype('float32')
            self.assertRaises(TypeError, lambda: paddle.clip(x=input_data, min=-1.0, max=1.0))


class TestClipAPI(unittest.TestCase):
    def _executed_api(self, x, min=None, max=None):
        return paddle.clip(x, min, max)

    def test_clip(self):
        data_shape = [1, 9, 9, 4]
        data = np.random.random(data_shape).astype('float32')
        exe = paddle.static.Executor(paddle.CPUPlace())
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            images = paddle.static.data(name='image', shape=data_shape, dtype='float32')
            paddle.static.data(name='min', shape=[1], dtype='float32')
            paddle.static.data(name='max', shape=[1], dtype='float32')
            outs = [
                self._executed_api(images, min=0.2, max=0.9),
                self._executed_api(images, min=0.3),
                self._executed_api(images, max=0.7),
                self._executed_api(images, max=-1.0),
                self._executed_api(images),
                self._executed_api(paddle.cast(images, 'float64'), min=0.2, max=0.9),
                self._executed_api(paddle.cast(images * 10, 'int32'), min=2, max=8),
                self._executed_api(paddle.cast(images * 10, 'int64'), min=2, max=8),
            ]
        res2, res3, res4, res7, res8, res9, res10, res11 = exe.run(
            main, feed={'image': data, 'min': np.array([0.2]).astype('float32'),
                        'max': np.array([0.8]).astype('float32')},
            fetch_list=outs)
        np.testing.assert_allclose(res2, data.clip(0.2, 0.9), rtol=1e-05)
        np.testing.assert_allclose(res3, data.clip(min=0.3), rtol=1e-05)
        np.testing.assert_allclose(res4, data.clip(max=0.7), rtol=1e-05)
        np.testing.assert_allclose(res7, data.clip(max=-1), rtol=1e-05)
        np.testing.assert_allclose(res8, data, rtol=1e-05)
        np.testing.assert_allclose(res9, data.astype(np.float64).clip(0.2, 0.9), rtol=1e-05)
        np.testing.assert_allclose(res10, (data * 10).astype(np.int32).clip(2, 8), rtol=1e-05)
        np.testing.assert_allclose(res11, (data * 10).astype(np.int64).clip(2, 8), rtol=1e-05)

    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x1 = paddle.static.data(name='x1', shape=[1], dtype='int16')
            x2 = paddle.static.data(name='x2', shape=[1], dtype='int8')
            self.assertRaises(TypeError, paddle.clip, x=x1, min=0.2, max=0.8)
            self.assertRaises(TypeError, paddle.clip, x=x2, min=0.2, max=0.8)


if __name__ == '__main__':
    unittest.main()
