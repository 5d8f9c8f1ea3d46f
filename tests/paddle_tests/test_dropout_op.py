"""Port of Paddle test/legacy_test/test_dropout_op.py: the static API classes.

run-on-paddle: pir

Kept: TestDropoutOpError, TestDropoutFAPI.test_static (F.dropout with p=0 over every axis / mode /
training combination, then p=1 and p=0.7 on axis 1), TestDropoutFAPIError (both), TestDropout2DFAPI /
TestDropout3DFAPI test_static and their Error classes, TestAlphaDropoutFAPI.test_static and
TestAlphaDropoutFAPIError (both).
Dropped: the OpTest classes (raw `dropout` op attrs fix_seed / is_test / seed through core.*),
dygraph tests (test_dygraph, the *CAPI classes, dropout backward, prob-tensor cases that need
paddle.seed determinism across dygraph), CUDA/fp16 variants, and the seed-generator test
(paddle.distributed.fleet internals).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

F = paddle.nn.functional
paddle.enable_static()


def _lod_tensor():
    return fluid.create_lod_tensor(np.array([-1, 3, 5, 5]), [[1, 1, 1, 1]], fluid.CPUPlace())


class TestDropoutOpError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):

            def test_Variable():
                F.dropout(_lod_tensor(), p=0.5)  # input must be a Variable

            self.assertRaises(TypeError, test_Variable)

            def test_dtype():
                x2 = paddle.static.data(name='x2', shape=[-1, 3, 4, 5, 6], dtype='int32')
                F.dropout(x2, p=0.5)  # int32 is not a float type

            self.assertRaises(TypeError, test_dtype)


class TestDropoutFAPI(unittest.TestCase):
    def setUp(self):
        np.random.seed(123)
        self.place = paddle.CPUPlace()

    def check_static_result(self, place):
        main_prog = paddle.static.Program()
        with paddle.static.program_guard(main_prog):
            input = paddle.static.data(name='input', shape=[-1, -1], dtype='float32')
            res_list = [F.dropout(x=input, p=0.0, training=False)]
            for axis in (0, [0, 1]):
                for training in (True, False):
                    for mode in ('upscale_in_train', 'downscale_in_infer'):
                        res_list.append(F.dropout(x=input, p=0.0, axis=axis,
                                                  training=training, mode=mode))
            res_list.append(F.dropout(x=input, p=0.0))
            res_list.append(F.dropout(x=input, p=0.0, axis=(0, 1), training=False,
                                      mode='upscale_in_train'))
            in_np = np.ones([40, 40]).astype('float32')
            exe = paddle.static.Executor(place)
            for res in res_list:
                fetches = exe.run(main_prog, feed={'input': in_np}, fetch_list=[res])
                np.testing.assert_allclose(fetches[0], in_np, rtol=1e-05)

    def check_static_result2(self, place):
        main_prog = paddle.static.Program()
        with paddle.static.program_guard(main_prog):
            input = paddle.static.data(name='input', shape=[-1, -1], dtype='float32')
            res10 = F.dropout(x=input, p=1.0, training=True)
            res13 = F.dropout(x=input, p=0.7, axis=1, training=True, mode='upscale_in_train')
            in_np = np.ones([40, 40]).astype('float32')
            exe = paddle.static.Executor(place)
            fetches2 = exe.run(main_prog, feed={'input': in_np}, fetch_list=[res10, res13])
            np.testing.assert_allclose(fetches2[0], np.zeros_like(in_np), rtol=1e-05)

    def test_static(self):
        self.check_static_result(self.place)
        self.check_static_result2(self.place)


class TestDropoutFAPIError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            self.assertRaises(TypeError, lambda: F.dropout(_lod_tensor(), p=0.5))
            self.assertRaises(TypeError, lambda: F.dropout(_lod_tensor(), p=0.5, axis=0))

            def test_dtype():
                xr = paddle.static.data(name='xr', shape=[3, 4, 5, 6], dtype='int32')
                F.dropout(xr, p=0.5)

            self.assertRaises(TypeError, test_dtype)

    def test_errors2(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):

            def x2():
                return paddle.static.data(name='x2', shape=[3, 4, 5, 6], dtype='float32')

            self.assertRaises(TypeError, lambda: F.dropout(x2(), p='0.5'))  # p int/float
            self.assertRaises(ValueError, lambda: F.dropout(x2(), p=1.2))  # 0 <= p <= 1
            self.assertRaises(ValueError, lambda: F.dropout(x2(), mode='abc'))
            self.assertRaises(TypeError, lambda: F.dropout(x2(), axis=1.2))  # int or list
            self.assertRaises(ValueError, lambda: F.dropout(x2(), axis=[0, 5]))  # < ndim
            self.assertRaises(ValueError, lambda: F.dropout(x2(), axis=[0, -1]))  # >= 0
            self.assertRaises(ValueError, lambda: F.dropout(x2(), axis=[0, 1, 2, 3, 4]))


class TestDropout2DFAPI(unittest.TestCase):
    fn, shape, formats = 'dropout2d', [2, 3, 4, 5], ('NCHW', 'NHWC')

    def test_static(self):
        np.random.seed(123)
        main_prog = paddle.static.Program()
        with paddle.static.program_guard(main_prog, paddle.static.Program()):
            input = paddle.static.data(name='input', shape=self.shape, dtype='float32')
            res_list = [getattr(F, self.fn)(x=input, p=0.0, training=False, data_format=f)
                        for f in self.formats]
            in_np = np.random.random(self.shape).astype('float32')
            exe = paddle.static.Executor(paddle.CPUPlace())
            for res in res_list:
                fetches = exe.run(main_prog, feed={'input': in_np}, fetch_list=[res])
                np.testing.assert_allclose(fetches[0], in_np, rtol=1e-05)


class TestDropout3DFAPI(TestDropout2DFAPI):
    fn, shape, formats = 'dropout3d', [2, 3, 4, 5, 6], ('NCDHW', 'NDHWC')


class TestDropout2DFAPIError(unittest.TestCase):
    fn, bad_shape, shape, bad_format = 'dropout2d', [2, 3, 4, 5, 6], [2, 3, 4, 5], 'CNHW'

    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            fn = getattr(F, self.fn)

            def test_xdim():  # wrong rank
                fn(paddle.static.data(name='x1', shape=self.bad_shape, dtype='int32'))

            self.assertRaises(ValueError, test_xdim)

            def test_dataformat():
                x = paddle.static.data(name='x2', shape=self.shape, dtype='int32')
                fn(x, data_format=self.bad_format)

            self.assertRaises(ValueError, test_dataformat)


class TestDropout3DFAPIError(TestDropout2DFAPIError):
    fn, bad_shape, shape, bad_format = 'dropout3d', [2, 3, 4, 5], [2, 3, 4, 5, 6], 'CNDHW'


class TestAlphaDropoutFAPI(unittest.TestCase):
    def test_static(self):
        np.random.seed(123)
        main_prog = paddle.static.Program()
        with paddle.static.program_guard(main_prog, paddle.static.Program()):
            input = paddle.static.data(name='input', shape=[40, 40], dtype='float32')
            res1 = F.alpha_dropout(x=input, p=0.0)
            res2 = F.alpha_dropout(x=input, p=0.0, training=False)
            res3 = F.alpha_dropout(x=input, p=1.0)
            in_np = np.random.random([40, 40]).astype('float32')
            exe = paddle.static.Executor(paddle.CPUPlace())
            fetches = exe.run(main_prog, feed={'input': in_np}, fetch_list=[res1, res2, res3])
            np.testing.assert_allclose(fetches[0], in_np, rtol=1e-05)
            np.testing.assert_allclose(fetches[1], in_np, rtol=1e-05)
            np.testing.assert_allclose(fetches[2], np.zeros_like(in_np), rtol=1e-05)


class TestAlphaDropoutFAPIError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            self.assertRaises(TypeError, lambda: F.alpha_dropout(_lod_tensor(), p=0.5))

    def test_errors2(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):

            def test_dtype():
                xr = paddle.static.data(name='xr', shape=[3, 4, 5, 6], dtype='int32')
                F.alpha_dropout(xr)

            self.assertRaises(TypeError, test_dtype)

            def x2():
                return paddle.static.data(name='x2', shape=[3, 4, 5, 6], dtype='float32')

            self.assertRaises(TypeError, lambda: F.alpha_dropout(x2(), p='0.5'))
            self.assertRaises(ValueError, lambda: F.alpha_dropout(x2(), p=1.2))


if __name__ == '__main__':
    unittest.main()
