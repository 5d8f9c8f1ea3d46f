"""Port of Paddle test/legacy_test/test_softmax_op.py: its static-graph API classes.

Kept: TestSoftmaxAPI.test_static_check / test_error, TestSoftmaxAPI_ZeroDim.test_static, and
TestSoftmaxInplaceAPI (the same checks through F.softmax_).
Dropped: the OpTest classes (TestSoftmaxOp*, fp16/bf16/cuDNN), the dygraph checks
(test_dygraph_check, TestSoftmaxAPI_ZeroDim.test_dygraph), the CUDA-only fp16 call in test_error.
"""
import unittest

import numpy as np

import fluidc as paddle

F = paddle.nn.functional
paddle.enable_static()


def ref_softmax(x, axis=-1, dtype=None):
    x = x.astype(dtype) if dtype is not None else x
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


class TestSoftmaxAPI(unittest.TestCase):
    def setUp(self):
        self.place = paddle.CPUPlace()
        self.x_np = np.random.uniform(-1.0, 1.0, [2, 3, 4, 5]).astype('float32')
        self.executed_api()

    def executed_api(self):
        self.softmax = F.softmax

    def test_static_check(self):
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data('X', self.x_np.shape, 'float32')
            out1 = self.softmax(x)
            out2 = paddle.nn.Softmax()(x)
            exe = paddle.static.Executor(self.place)
            res = exe.run(feed={'X': self.x_np}, fetch_list=[out1, out2])
        out_ref = ref_softmax(self.x_np, axis=-1, dtype=None)
        for r in res:
            np.testing.assert_allclose(out_ref, r, rtol=1e-05)

    def test_error(self):
        with paddle.static.program_guard(paddle.static.Program()):
            # the input must be a Variable
            self.assertRaises(TypeError, self.softmax, 1)
            # of a float dtype
            x_int32 = paddle.static.data(name='x_int32', shape=[2, 3], dtype='int32')
            self.assertRaises(TypeError, self.softmax, x_int32)


class TestSoftmaxAPI_ZeroDim(unittest.TestCase):
    def test_static(self):
        main_prog = paddle.static.Program()
        with paddle.static.program_guard(main_prog, paddle.static.Program()):
            x = paddle.rand([])
            x.stop_gradient = False
            out = paddle.nn.functional.softmax(x)
            # compile-time shapes
            self.assertEqual(tuple(x.shape), ())
            self.assertEqual(tuple(out.shape), ())
            exe = paddle.static.Executor()
            result = exe.run(main_prog, fetch_list=[x, out])
            # run-time shapes
            self.assertEqual(tuple(result[0].shape), ())
            self.assertEqual(tuple(result[1].shape), ())


class TestSoftmaxInplaceAPI(TestSoftmaxAPI):
    def executed_api(self):
        self.softmax = F.softmax_


if __name__ == "__main__":
    unittest.main()
