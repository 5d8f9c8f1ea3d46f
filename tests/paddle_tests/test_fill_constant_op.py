"""Port of Paddle test/legacy_test/test_fill_constant_op.py: its static-graph parts.

Kept: the forward output of the OpTest cases through paddle.tensor.fill_constant with the same
shapes, dtypes and values, exact against np.full: a list shape (float64 0, float32 3.8, int64
1e10, int32 3), ShapeTensorList (fed [1] int32 dims where Paddle's `shape` attribute has -1),
ShapeTensor (a fed int32 shape), ValueTensor (a fed float32 / int32 value with a fed shape);
TestFillConstantAPI; TestFillConstantOpError (errors1, errors2).
Dropped: fp16 / bf16 OpTests (fluidc's C backend has no float16 type; bf16 is CUDA / oneDNN),
TestFillConstantOpWithSelectedRows (core.Scope / Operator internals), TestFillConstantImperative
(dygraph), test_pir_errors (its check is commented out in Paddle: nothing asserted), and
`paddle_static_guard` (an op_test helper: these tests run static anyway).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

paddle.enable_static()


def _fill(shape, value, dtype, feed):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        out = paddle.tensor.fill_constant(shape=shape(), dtype=dtype, value=value())
        (res,) = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[out])
    return res


# Situation 1: Attr(shape) is a list(without tensor)
class TestFillConstantOp(unittest.TestCase):
    def init_dtype(self):
        self.dtype = np.float64

    def init_shape(self):
        self.shape = [123, 92]

    def init_value(self):
        self.value = 0.0

    def test_check_output(self):
        self.init_dtype()
        self.init_shape()
        self.init_value()
        res = _fill(lambda: self.shape, lambda: self.value, self.dtype, {})
        np.testing.assert_array_equal(res, np.full(self.shape, self.value, self.dtype))
        self.assertEqual(res.dtype, self.dtype)


class TestFillConstantFP32Op(TestFillConstantOp):
    def init_dtype(self):
        self.dtype = np.float32

    def init_value(self):
        self.value = 3.8


class TestFillConstantINT64Op(TestFillConstantOp):
    def init_dtype(self):
        self.dtype = np.int64

    def init_value(self):
        self.value = 10000000000


class TestFillConstantINT32Op(TestFillConstantOp):
    def init_dtype(self):
        self.dtype = np.int32

    def init_value(self):
        self.value = 3


# Situation 2: Attr(shape) is a list(with tensor)
class TestFillConstantOp1_ShapeTensorList(unittest.TestCase):
    def init_data(self):
        self.shape = [123, 92]
        self.infer_shape = [-1, 92]
        self.value = 3.8

    def test_check_output(self):
        self.init_data()
        feed = {'x' + str(i): np.ones(1).astype('int32') * d
                for i, (d, known) in enumerate(zip(self.shape, self.infer_shape)) if known == -1}

        def shape():
            return [paddle.static.data('x' + str(i), [1], 'int32') if known == -1 else d
                    for i, (d, known) in enumerate(zip(self.shape, self.infer_shape))]
        res = _fill(shape, lambda: getattr(self, 'value', 0.0), 'float32', feed)
        np.testing.assert_array_equal(
            res, np.full(self.shape, getattr(self, 'value', 0.0), 'float32'))


class TestFillConstantOp2_ShapeTensorList(TestFillConstantOp1_ShapeTensorList):
    def init_data(self):
        self.shape = [123, 92]
        self.infer_shape = [-1, -1]


class TestFillConstantOp3_ShapeTensorList(TestFillConstantOp1_ShapeTensorList):
    def init_data(self):
        self.shape = [123, 92]
        self.infer_shape = [123, -1]
        self.value = 10000000000


class TestFillConstantOp4_ShapeTensorList(TestFillConstantOp1_ShapeTensorList):
    def init_data(self):
        self.shape = [123, 92]
        self.infer_shape = [123, -1]
        self.value = 3


# Situation 3: shape is a tensor
class TestFillConstantOp1_ShapeTensor(unittest.TestCase):
    def init_data(self):
        self.shape = [123, 92]
        self.value = 3.8

    def test_check_output(self):
        self.init_data()
        res = _fill(lambda: paddle.static.data('shape', [2], 'int32'), lambda: self.value,
                    'float32', {'shape': np.array(self.shape).astype('int32')})
        np.testing.assert_array_equal(res, np.full(self.shape, self.value, 'float32'))


# Situation 4: value is a tensor
class TestFillConstantOp1_ValueTensor(unittest.TestCase):
    def init_data(self):
        self.shape = [123, 92]
        self.value = 3.8
        self.dtype = np.float32

    def test_check_output(self):
        self.init_data()
        value = np.array([self.value]).astype(self.dtype)
        res = _fill(lambda: paddle.static.data('shape', [2], 'int32'),
                    lambda: paddle.static.data('value', [1], str(value.dtype)), self.dtype,
                    {'shape': np.array(self.shape).astype('int32'), 'value': value})
        np.testing.assert_array_equal(res, np.full(self.shape, self.value, self.dtype))


# Situation 5: value is a tensor
class TestFillConstantOp2_ValueTensor(TestFillConstantOp1_ValueTensor):
    def init_data(self):
        self.shape = [123, 92]
        self.value = 3
        self.dtype = np.int32


# Test python API
class TestFillConstantAPI(unittest.TestCase):
    def test_api(self):
        paddle.enable_static()
        positive_2_int32 = paddle.tensor.fill_constant([1], "int32", 2)
        positive_2_int64 = paddle.tensor.fill_constant([1], "int64", 2)

        shape_tensor_int32 = paddle.static.data(
            name="shape_tensor_int32", shape=[2], dtype="int32"
        )
        shape_tensor_int64 = paddle.static.data(
            name="shape_tensor_int64", shape=[2], dtype="int64"
        )

        out_1 = paddle.tensor.fill_constant(
            shape=[1, 2], dtype="float32", value=1.1
        )

        out_2 = paddle.tensor.fill_constant(
            shape=[1, positive_2_int32], dtype="float32", value=1.1
        )

        out_3 = paddle.tensor.fill_constant(
            shape=[1, positive_2_int64], dtype="float32", value=1.1
        )

        out_4 = paddle.tensor.fill_constant(
            shape=shape_tensor_int32, dtype="float32", value=1.1
        )

        out_5 = paddle.tensor.fill_constant(
            shape=shape_tensor_int64, dtype="float32", value=1.1
        )

        out_6 = paddle.tensor.fill_constant(
            shape=shape_tensor_int64, dtype=np.float32, value=1.1
        )

        val1 = paddle.tensor.fill_constant(
            shape=[1], dtype=np.float32, value=1.1
        )
        val2 = paddle.tensor.fill_constant(
            shape=[1], dtype=np.float64, value=1.1
        )
        out_7 = paddle.tensor.fill_constant(
            shape=shape_tensor_int64, dtype=np.float32, value=val1
        )

        out_8 = paddle.tensor.fill_constant(
            shape=shape_tensor_int64, dtype=np.float32, value=val2
        )

        exe = fluid.Executor(place=fluid.CPUPlace())
        res_1, res_2, res_3, res_4, res_5, res_6, res_7, res_8 = exe.run(
            paddle.static.default_main_program(),
            feed={
                "shape_tensor_int32": np.array([1, 2]).astype("int32"),
                "shape_tensor_int64": np.array([1, 2]).astype("int64"),
            },
            fetch_list=[out_1, out_2, out_3, out_4, out_5, out_6, out_7, out_8],
        )

        for res in (res_1, res_2, res_3, res_4, res_5, res_6, res_7, res_8):
            np.testing.assert_array_equal(
                res, np.full([1, 2], 1.1, dtype="float32")
            )


class TestFillConstantOpError(unittest.TestCase):
    def test_errors1(self):
        with paddle.static.program_guard(
            paddle.static.Program(), paddle.static.Program()
        ):
            # for ci coverage
            x1 = paddle.static.data(name='x1', shape=[-1, 1], dtype="int16")
            self.assertRaises(
                TypeError,
                paddle.tensor.fill_constant,
                shape=[1],
                value=5,
                dtype='uint4',
            )

            self.assertRaises(
                TypeError,
                paddle.tensor.fill_constant,
                shape=[1.1],
                value=5,
                dtype='float32',
                out=x1,
            )

            x3 = np.random.randn(100, 100).astype('int32')
            self.assertRaises(
                TypeError,
                paddle.tensor.fill_constant,
                shape=[100, 100],
                value=5,
                dtype='float64',
                out=x3,
            )

    def test_errors2(self):
        with paddle.static.program_guard(
            paddle.static.Program(), paddle.static.Program()
        ):
            # The argument dtype of fill_constant_op must be one of bool, float16,
            # float32, float64, uint8, int16, int32 or int64
            x2 = paddle.static.data(name='x2', shape=[-1, 1], dtype="int32")
            self.assertRaises(
                TypeError,
                paddle.tensor.fill_constant,
                shape=[1],
                value=5,
                dtype='float64',
                out=x2,
            )

            # The shape dtype of fill_constant_op must be int32 or int64.
            def test_shape_tensor_dtype():
                shape = paddle.static.data(
                    name="shape_tensor", shape=[2], dtype="float32"
                )
                paddle.tensor.fill_constant(
                    shape=shape, dtype="float32", value=1
                )

            self.assertRaises(TypeError, test_shape_tensor_dtype)

            def test_shape_tensor_list_dtype():
                shape = paddle.static.data(
                    name="shape_tensor_list", shape=[1], dtype="bool"
                )
                paddle.tensor.fill_constant(
                    shape=[shape, 2], dtype="float32", value=1
                )

            self.assertRaises(TypeError, test_shape_tensor_list_dtype)


if __name__ == "__main__":
    paddle.enable_static()
    unittest.main()
