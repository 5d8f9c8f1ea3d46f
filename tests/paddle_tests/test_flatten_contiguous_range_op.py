"""Port of Paddle test/legacy_test/test_flatten_contiguous_range_op.py: paddle.flatten (the
flatten_contiguous_range op) and Tensor.flatten_.

Kept: the forward (Out; XShape is not checked, as in Paddle) of TestFlattenOp and _1 .. _5,
_ZeroDim and SixDims, float64 and their FP32 twins, through the op's python_api paddle.flatten
in a static program; TestFlatten2OpError and TestFlatten0DTensorOpError (the ValueErrors for
axes out of order, out of range, not ints and a numpy input), TestStaticFlattenPythonAPI,
TestStaticFlattenInferShapePythonAPI, TestStaticInplaceFlattenPythonAPI, TestFlattenPython and
TestDygraphInplaceFlattenPython.
Added (fluidc): each case's X gradient for a random Out gradient (a reshape: the same values).
Dropped: the float16 / bfloat16 classes (CUDA), check_grad's numeric / prim checks (OpTest).
"""
import unittest

import numpy as np

import fluidc as paddle


class TestFlattenOp(unittest.TestCase):
    def setUp(self):
        self.python_api = paddle.flatten
        self.op_type = "flatten_contiguous_range"
        self.start_axis = 0
        self.stop_axis = -1
        self.init_test_case()
        self.init_test_dtype()
        self.init_input_data()
        self.init_attrs()
        self.outputs = {
            "Out": self.inputs["X"].reshape(self.new_shape),
        }

    def run_op(self):
        paddle.enable_static()
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.in_shape), self.dtype)
            x.stop_gradient = False
            out = self.python_api(x, self.attrs['start_axis'], self.attrs['stop_axis'])
            dout = np.random.RandomState(2).random_sample(
                self.outputs['Out'].shape).astype(self.dtype)
            (dx,) = paddle.static.gradients([out], [x], target_gradients=[paddle.assign(dout)])
            got = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'x': self.inputs['X']}, fetch_list=[out, dx])
        return got, dout

    def test_check_output(self):
        (out, _), _ = self.run_op()
        self.assertEqual(out.dtype, np.dtype(self.dtype))
        np.testing.assert_array_equal(out, self.outputs['Out'])

    def test_check_grad(self):
        (_, dx), dout = self.run_op()
        np.testing.assert_array_equal(dx, dout.reshape(self.in_shape))

    def init_test_case(self):
        self.in_shape = (3, 2, 5, 4)
        self.start_axis = 0
        self.stop_axis = -1
        self.new_shape = 120

    def init_attrs(self):
        self.attrs = {
            "start_axis": self.start_axis,
            "stop_axis": self.stop_axis,
        }

    def init_test_dtype(self):
        self.dtype = "float64"

    def init_input_data(self):
        x = np.random.random(self.in_shape).astype(self.dtype)
        self.inputs = {"X": x}


class TestFlattenFP32Op(TestFlattenOp):
    def init_test_dtype(self):
        self.dtype = "float32"


class TestFlattenOp_1(TestFlattenOp):
    def init_test_case(self):
        self.in_shape = (3, 2, 5, 4)
        self.start_axis = 1
        self.stop_axis = 2
        self.new_shape = (3, 10, 4)


class TestFlattenFP32Op_1(TestFlattenOp_1):
    def init_test_dtype(self):
        self.dtype = "float32"


class TestFlattenOp_2(TestFlattenOp):
    def init_test_case(self):
        self.in_shape = (3, 2, 5, 4)
        self.start_axis = 0
        self.stop_axis = 1
        self.new_shape = (6, 5, 4)


class TestFlattenFP32Op_2(TestFlattenOp_2):
    def init_test_dtype(self):
        self.dtype = "float32"


class TestFlattenOp_3(TestFlattenOp):
    def init_test_case(self):
        self.in_shape = (3, 2, 5, 4)
        self.start_axis = 0
        self.stop_axis = 2
        self.new_shape = (30, 4)


class TestFlattenFP32Op_3(TestFlattenOp_3):
    def init_test_dtype(self):
        self.dtype = "float32"


class TestFlattenOp_4(TestFlattenOp):
    def init_test_case(self):
        self.in_shape = (3, 2, 5, 4)
        self.start_axis = -2
        self.stop_axis = -1
        self.new_shape = (3, 2, 20)


class TestFlattenFP32Op_4(TestFlattenOp_4):
    def init_test_dtype(self):
        self.dtype = "float32"


class TestFlattenOp_5(TestFlattenOp):
    def init_test_case(self):
        self.in_shape = (3, 2, 5, 4)
        self.start_axis = 2
        self.stop_axis = 2
        self.new_shape = (3, 2, 5, 4)


class TestFlattenFP32Op_5(TestFlattenOp_5):
    def init_test_dtype(self):
        self.dtype = "float32"


class TestFlattenOp_ZeroDim(TestFlattenOp):
    def init_test_case(self):
        self.in_shape = ()
        self.start_axis = 0
        self.stop_axis = -1
        self.new_shape = (1,)


class TestFlattenFP32Op_ZeroDim(TestFlattenOp_ZeroDim):
    def init_test_dtype(self):
        self.dtype = "float32"


class TestFlattenOpSixDims(TestFlattenOp):
    def init_test_case(self):
        self.in_shape = (3, 2, 3, 2, 4, 4)
        self.start_axis = 3
        self.stop_axis = 5
        self.new_shape = (3, 2, 3, 32)


class TestFlattenFP32OpSixDims(TestFlattenOpSixDims):
    def init_test_dtype(self):
        self.dtype = "float32"


class TestFlatten2OpError(unittest.TestCase):
    def test_errors(self):
        image_shape = (2, 3, 4, 4)
        x = (
            np.arange(
                image_shape[0]
                * image_shape[1]
                * image_shape[2]
                * image_shape[3]
            ).reshape(image_shape)
            / 100.0
        )
        x = x.astype('float32')

        def test_ValueError1():
            x_var = paddle.static.data(
                name="x", shape=image_shape, dtype='float32'
            )
            out = paddle.flatten(x_var, start_axis=3, stop_axis=1)

        self.assertRaises(ValueError, test_ValueError1)

        def test_ValueError2():
            x_var = paddle.static.data(
                name="x", shape=image_shape, dtype='float32'
            )
            paddle.flatten(x_var, start_axis=10, stop_axis=1)

        self.assertRaises(ValueError, test_ValueError2)

        def test_ValueError3():
            x_var = paddle.static.data(
                name="x", shape=image_shape, dtype='float32'
            )
            paddle.flatten(x_var, start_axis=2, stop_axis=10)

        self.assertRaises(ValueError, test_ValueError3)

        def test_ValueError4():
            x_var = paddle.static.data(
                name="x", shape=image_shape, dtype='float32'
            )
            paddle.flatten(x_var, start_axis=2.0, stop_axis=10)

        self.assertRaises(ValueError, test_ValueError4)

        def test_ValueError5():
            x_var = paddle.static.data(
                name="x", shape=image_shape, dtype='float32'
            )
            paddle.flatten(x_var, start_axis=2, stop_axis=10.0)

        self.assertRaises(ValueError, test_ValueError5)

        def test_InputError():
            out = paddle.flatten(x)

        self.assertRaises(ValueError, test_InputError)


class TestStaticFlattenPythonAPI(unittest.TestCase):
    def execute_api(self, x, start_axis=0, stop_axis=-1):
        return paddle.flatten(x, start_axis, stop_axis)

    def test_static_api(self):
        paddle.enable_static()
        np_x = np.random.rand(2, 3, 4, 4).astype('float32')

        main_prog = paddle.static.Program()
        with paddle.static.program_guard(main_prog, paddle.static.Program()):
            x = paddle.static.data(
                name="x", shape=[2, 3, 4, 4], dtype='float32'
            )
            out = self.execute_api(x, start_axis=-2, stop_axis=-1)

        exe = paddle.static.Executor(place=paddle.CPUPlace())
        fetch_out = exe.run(main_prog, feed={"x": np_x}, fetch_list=[out])
        self.assertTrue((2, 3, 16) == fetch_out[0].shape)


class TestStaticFlattenInferShapePythonAPI(unittest.TestCase):
    def execute_api(self, x, start_axis=0, stop_axis=-1):
        return paddle.flatten(x, start_axis, stop_axis)

    def test_static_api(self):
        paddle.enable_static()
        main_prog = paddle.static.Program()
        with paddle.static.program_guard(main_prog, paddle.static.Program()):
            x = paddle.static.data(
                name="x", shape=[-1, 3, -1, -1], dtype='float32'
            )
            out = self.execute_api(x, start_axis=2, stop_axis=3)
        self.assertTrue((-1, 3, -1) == out.shape)


class TestStaticInplaceFlattenPythonAPI(TestStaticFlattenPythonAPI):
    def execute_api(self, x, start_axis=0, stop_axis=-1):
        return x.flatten_(start_axis, stop_axis)


class TestFlattenPython(unittest.TestCase):
    def test_python_api(self):
        image_shape = (2, 3, 4, 4)
        x = (
            np.arange(
                image_shape[0]
                * image_shape[1]
                * image_shape[2]
                * image_shape[3]
            ).reshape(image_shape)
            / 100.0
        )
        x = x.astype('float32')

        def test_InputError():
            out = paddle.flatten(x)

        self.assertRaises(ValueError, test_InputError)

        def test_Negative():
            paddle.disable_static()
            img = paddle.to_tensor(x)
            out = paddle.flatten(img, start_axis=-2, stop_axis=-1)
            return out.numpy().shape

        res_shape = test_Negative()
        self.assertTrue((2, 3, 16) == res_shape)
        paddle.enable_static()


class TestDygraphInplaceFlattenPython(unittest.TestCase):
    def test_python_api(self):
        image_shape = (2, 3, 4, 4)
        x = (
            np.arange(
                image_shape[0]
                * image_shape[1]
                * image_shape[2]
                * image_shape[3]
            ).reshape(image_shape)
            / 100.0
        )
        x = x.astype('float32')

        def test_Negative():
            paddle.disable_static()
            img = paddle.to_tensor(x)
            out = img.flatten_(start_axis=-2, stop_axis=-1)
            return out.numpy().shape

        res_shape = test_Negative()
        self.assertTrue((2, 3, 16) == res_shape)
        paddle.enable_static()


class TestFlatten0DTensorOpError(unittest.TestCase):
    def test_errors(self):
        image_shape = ()
        x = np.random.uniform(-1.0, 1.0, []).astype('float32')

        def test_ValueError1():
            x_var = paddle.static.data(
                name="x", shape=image_shape, dtype='float32'
            )
            out = paddle.flatten(x_var, start_axis=10, stop_axis=0)

        self.assertRaises(ValueError, test_ValueError1)

        def test_ValueError2():
            x_var = paddle.static.data(
                name="x", shape=image_shape, dtype='float32'
            )
            out = paddle.flatten(x_var, start_axis=0, stop_axis=10)

        self.assertRaises(ValueError, test_ValueError2)


if __name__ == '__main__':
    unittest.main()
