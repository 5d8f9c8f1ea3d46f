"""Port of Paddle test/legacy_test/test_assign_op.py.

Kept: the forward (`test_forward`) of TestAssignOp, TestAssignOpComplex64 / Complex128 and
TestAssignOp_ZeroDim via paddle.assign on a static program (exact copies: dtype and values);
TestAssignOpWithLoDTensorArray and TestAssignOApi.test_assign_LoDTensorArray (assign of a tensor
array, x's gradient through array_read); TestAssignOpError; TestAssignOApi's dygraph cases
(numpy arrays into an existing tensor, a list, Python scalars, paddle.clone with its gradient and
in a static program); TestAssignOpErrorApi (legacy-program half of test_with_pir_api).
Dropped: the OpTests' check_grad (numeric gradients through core.*), the FP16 / BF16 classes
(CUDA only), TestAssignDoubleGradCheck / TestAssignTripleGradCheck (gradient_checker's
double / triple grad checks through core.* internals).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from .op_forward import run_forward

append_backward = fluid.backward.append_backward
Program, program_guard = fluid.Program, fluid.program_guard


class TestAssignOp(unittest.TestCase):
    dtype = 'float64'

    def setUp(self):
        self.init_input_configs()
        x = np.random.random(size=self.shape).astype(self.dtype)
        self.inputs = {'X': x}
        self.outputs = {'Out': x}

    def init_input_configs(self):
        self.shape = (100, 10)

    def test_forward(self):
        paddle.enable_static()
        out = run_forward(paddle.assign, {'x': self.inputs['X']})
        self.assertEqual(out.dtype, self.outputs['Out'].dtype)
        self.assertEqual(out.shape, self.outputs['Out'].shape)
        np.testing.assert_array_equal(out, self.outputs['Out'])


class TestAssignOpComplex64(TestAssignOp):
    dtype = 'complex64'


class TestAssignOpComplex128(TestAssignOp):
    dtype = 'complex128'


class TestAssignOp_ZeroDim(TestAssignOp):
    def init_input_configs(self):
        self.shape = ()


def run_assign_lod_tensor_array(self):
    paddle.enable_static()
    main_program = Program()
    startup_program = Program()
    with program_guard(main_program):
        x = paddle.static.data(name='x', shape=[100, 10], dtype='float32')
        x.stop_gradient = False
        y = paddle.tensor.fill_constant(
            shape=[100, 10], dtype='float32', value=1
        )
        z = paddle.add(x=x, y=y)
        i = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=0)
        init_array = paddle.tensor.array_write(x=z, i=i)
        array = paddle.assign(init_array)
        sums = paddle.tensor.array_read(array=init_array, i=i)
        mean = paddle.mean(sums)
        append_backward(mean)

    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    feed_x = np.random.random(size=(100, 10)).astype('float32')
    ones = np.ones((100, 10)).astype('float32')
    feed_add = feed_x + ones
    res = exe.run(
        main_program,
        feed={'x': feed_x},
        fetch_list=[sums.name, x.grad_name],
    )
    np.testing.assert_allclose(res[0], feed_add, rtol=1e-05)
    np.testing.assert_allclose(res[1], ones / 1000.0, rtol=1e-05)
    paddle.disable_static()


class TestAssignOpWithLoDTensorArray(unittest.TestCase):
    def test_assign_LoDTensorArray(self):
        run_assign_lod_tensor_array(self)


class TestAssignOpError(unittest.TestCase):
    def test_errors(self):
        paddle.enable_static()
        with program_guard(Program(), Program()):
            # The type of input must be Variable or numpy.ndarray.
            x1 = fluid.create_lod_tensor(
                np.array([[-1]]), [[1]], fluid.CPUPlace()
            )
            self.assertRaises(TypeError, paddle.assign, x1)
            # When the type of input is numpy.ndarray, the dtype of input must be float32, int32.
            x2 = np.array([[2.5, 2.5]], dtype='uint8')
            self.assertRaises(TypeError, paddle.assign, x2)
        paddle.disable_static()


class TestAssignOApi(unittest.TestCase):
    # Paddle runs these in dygraph, its default mode (the static cases above switch back to it)
    def setUp(self):
        paddle.disable_static()

    def tearDown(self):
        paddle.enable_static()

    def test_assign_LoDTensorArray(self):
        run_assign_lod_tensor_array(self)

    def test_assign_NumpyArray(self):
        for dtype in [np.bool_, np.float32, np.int32, np.int64]:
            with fluid.dygraph.guard():
                array = np.random.random(size=(100, 10)).astype(dtype)
                result1 = paddle.zeros(shape=[3, 3], dtype='float32')
                paddle.assign(array, result1)
            np.testing.assert_allclose(result1.numpy(), array, rtol=1e-05)

    def test_assign_List(self):
        l = [1, 2, 3]
        result = paddle.assign(l)
        np.testing.assert_allclose(result.numpy(), np.array(l), rtol=1e-05)

    def test_assign_BasicTypes(self):
        result1 = paddle.assign(2)
        result2 = paddle.assign(3.0)
        result3 = paddle.assign(True)
        np.testing.assert_allclose(result1.numpy(), np.array([2]), rtol=1e-05)
        np.testing.assert_allclose(result2.numpy(), np.array([3.0]), rtol=1e-05)
        np.testing.assert_allclose(result3.numpy(), np.array([1]), rtol=1e-05)

    def test_clone(self):
        self.python_api = paddle.clone

        x = paddle.ones([2])
        x.stop_gradient = False
        x.retain_grads()
        clone_x = paddle.clone(x)
        clone_x.retain_grads()

        y = clone_x**3
        y.backward()

        np.testing.assert_array_equal(x, [1, 1])
        np.testing.assert_array_equal(clone_x.grad.numpy(), [3, 3])
        np.testing.assert_array_equal(x.grad.numpy(), [3, 3])
        paddle.enable_static()

        with program_guard(Program(), Program()):
            x_np = np.random.randn(2, 3).astype('float32')
            x = paddle.static.data("X", shape=[2, 3])
            clone_x = paddle.clone(x)
            exe = paddle.static.Executor()
            y_np = exe.run(
                paddle.static.default_main_program(),
                feed={'X': x_np},
                fetch_list=[clone_x],
            )[0]

        np.testing.assert_array_equal(y_np, x_np)
        paddle.disable_static()


class TestAssignOpErrorApi(unittest.TestCase):
    def test_errors(self):
        paddle.enable_static()
        with paddle.static.program_guard(
            paddle.static.Program(), paddle.static.Program()
        ):
            # The type of input must be Variable or numpy.ndarray.
            x1 = fluid.create_lod_tensor(
                np.array([[-1]]), [[1]], fluid.CPUPlace()
            )
            self.assertRaises(TypeError, paddle.assign, x1)
            # When the type of input is numpy.ndarray, the dtype of input must be float32, int32.
            x2 = np.array([[2.5, 2.5]], dtype='uint8')
            self.assertRaises(TypeError, paddle.assign, x2)
        paddle.disable_static()

    def test_type_error(self):
        paddle.enable_static()
        with paddle.static.program_guard(
            paddle.static.Program(), paddle.static.Program()
        ):
            x = [paddle.randn([3, 3]), paddle.randn([3, 3])]
            # not support to assign list(var)
            self.assertRaises(TypeError, paddle.assign, x)
        paddle.disable_static()


if __name__ == '__main__':
    unittest.main()
