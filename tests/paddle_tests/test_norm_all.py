"""Port of Paddle test/legacy_test/test_norm_all.py (the p_norm op's tests).

The OpTest cases' check_output runs through paddle.norm on a static program:
TestFrobeniusNormOp / 2 (p='fro' over two axes; frobenius_norm) and TestPnormOp 1-6 (p 2, inf,
-inf, 0 over one axis, 2 over every element with asvector; p_norm), against the file's numpy
p_norm / numpy_frobenius_norm at OpTest's tolerance. Their gradient checks are kept as X's
gradient through paddle.static.gradients of sum(Out): the file's calc_gradient (without its
1 / numel, which is OpTest's mean) for p_norm, d||x||_F = x / ||x||_F for frobenius_norm.
API_NormTest.test_basic / test_name / test_errors are Paddle's, less test_basic's nuclear norms
and paddle.vector_norm checks and test_errors' 0-size dygraph input (Paddle 3.3.1 raises no
ValueError for it).
Dropped: test_dygraph (nuclear norms and paddle.vector_norm, which fluidc does not have), the
FP16 / BF16 OpTests (CUDA only).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


def p_norm(x, axis, porder, keepdims=False, reduce_all=False):
    r = []
    if axis is None or reduce_all:
        x = x.flatten()
        if porder == np.inf:
            r = np.amax(np.abs(x), keepdims=keepdims)
        elif porder == -np.inf:
            r = np.amin(np.abs(x), keepdims=keepdims)
        else:
            r = np.linalg.norm(x, ord=porder, keepdims=keepdims)
    elif isinstance(axis, list or tuple) and len(axis) == 2:
        if isinstance(axis, list):
            axis = tuple(axis)
        r = np.linalg.norm(x, ord=porder, axis=axis, keepdims=keepdims)
    else:
        if isinstance(axis, list):
            axis = tuple(axis)
        r = np.linalg.norm(x, ord=porder, axis=axis, keepdims=keepdims)
    r = r.astype(x.dtype)

    return r


def numpy_frobenius_norm(x, axis=None, keepdims=False):
    if isinstance(axis, list):
        axis = tuple(axis)
    if axis is None:
        x = x.reshape(1, x.size)
    r = np.linalg.norm(x, ord='fro', axis=axis, keepdims=keepdims).astype(x.dtype)
    return r


def run_with_grad(x_np, build):
    """build(x) on a static program fed x_np: (Out, d sum(Out) / dX)."""
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data('x', list(x_np.shape), str(x_np.dtype))
        x.stop_gradient = False
        out = build(x)
        (gx,) = paddle.static.gradients([out], [x])
    return paddle.static.Executor(paddle.CPUPlace()).run(main, feed={'x': x_np},
                                                        fetch_list=[out, gx])


def tolerance(dtype):
    return 1e-5 if dtype == 'float32' else 1e-7


class TestFrobeniusNormOp(unittest.TestCase):
    def setUp(self):
        self.init_test_case()
        self.init_dtype()
        self.x = (np.random.random(self.shape) + 1.0).astype(self.dtype)
        self.norm = numpy_frobenius_norm(self.x, self.axis, self.keepdim)

    def run_case(self):
        return run_with_grad(self.x, lambda x: paddle.norm(x, p='fro', axis=list(self.axis),
                                                           keepdim=self.keepdim))

    def test_check_output(self):
        out, _ = self.run_case()
        self.assertEqual(out.shape, self.norm.shape)
        tol = tolerance(self.dtype)
        np.testing.assert_allclose(out, self.norm, rtol=tol, atol=tol)

    def test_check_grad(self):
        _, gx = self.run_case()
        want = self.x / numpy_frobenius_norm(self.x, self.axis, keepdims=True)
        tol = tolerance(self.dtype)
        np.testing.assert_allclose(gx, want, rtol=tol, atol=tol)

    def init_test_case(self):
        self.shape = [2, 3, 4, 5]
        self.axis = (1, 2)
        self.keepdim = False

    def init_dtype(self):
        self.dtype = "float64"


class TestFrobeniusNormOp2(TestFrobeniusNormOp):
    def init_test_case(self):
        self.shape = [5, 5, 5]
        self.axis = (0, 1)
        self.keepdim = True

    def init_dtype(self):
        self.dtype = "float32"


class TestPnormOp(unittest.TestCase):
    def setUp(self):
        self.init_test_case()
        self.init_dtype()
        self.x = (np.random.random(self.shape) + 0.5).astype(self.dtype)
        self.norm = p_norm(self.x, self.axis, self.porder, self.keepdim, self.asvector)

    def run_case(self):
        axis = None if self.asvector else self.axis
        return run_with_grad(self.x, lambda x: paddle.norm(x, p=self.porder, axis=axis,
                                                           keepdim=self.keepdim))

    def test_check_output(self):
        out, _ = self.run_case()
        self.assertEqual(out.shape, self.norm.shape)
        tol = tolerance(self.dtype)
        np.testing.assert_allclose(out, self.norm, rtol=tol, atol=tol)

    def test_check_grad(self):
        _, gx = self.run_case()
        tol = tolerance(self.dtype)
        np.testing.assert_allclose(gx, self.calc_gradient(), rtol=tol, atol=tol)

    def init_test_case(self):
        self.shape = [2, 3, 4, 5]
        self.axis = 1
        self.epsilon = 1e-12
        self.porder = 2.0
        self.keepdim = False
        self.asvector = False

    def init_dtype(self):
        self.dtype = "float64"

    def calc_gradient(self):
        x = self.x
        porder = float(self.porder)
        axis = self.axis
        asvector = self.asvector
        x_dtype = x.dtype
        if porder == 0:
            grad = np.zeros(x.shape).astype(x.dtype)
        elif porder in [float("inf"), float("-inf")]:
            norm = p_norm(x, axis=axis, porder=porder, keepdims=True, reduce_all=asvector)
            x_abs = np.abs(x)
            grad = np.sign(x)
            grad[x_abs != norm] = 0.0
        else:
            norm = p_norm(x, axis=axis, porder=porder, keepdims=True, reduce_all=asvector)
            grad = (
                np.power(norm, 1 - porder)
                * np.power(np.abs(x), porder - 1)
                * np.sign(x)
            )
        return grad.astype(x_dtype)


class TestPnormOp2(TestPnormOp):
    def init_test_case(self):
        self.shape = [3, 20, 3]
        self.axis = 2
        self.epsilon = 1e-12
        self.porder = 2.0
        self.keepdim = True
        self.asvector = False

    def init_dtype(self):
        self.dtype = "float32"


class TestPnormOp3(TestPnormOp2):
    def init_test_case(self):
        self.shape = [3, 20, 3]
        self.axis = 2
        self.epsilon = 1e-12
        self.porder = np.inf
        self.keepdim = True
        self.asvector = False


class TestPnormOp4(TestPnormOp2):
    def init_test_case(self):
        self.shape = [3, 20, 3]
        self.axis = 2
        self.epsilon = 1e-12
        self.porder = -np.inf
        self.keepdim = True
        self.asvector = False


class TestPnormOp5(TestPnormOp2):
    def init_test_case(self):
        self.shape = [3, 20, 3]
        self.axis = 2
        self.epsilon = 1e-12
        self.porder = 0
        self.keepdim = True
        self.asvector = False


class TestPnormOp6(TestPnormOp2):
    def init_test_case(self):
        self.shape = [3, 20, 3]
        self.axis = -1
        self.epsilon = 1e-12
        self.porder = 2
        self.keepdim = False
        self.asvector = True


def run_fro(self, p, axis, shape_x, dtype, keep_dim, check_dim=False):
    with fluid.program_guard(fluid.Program()):
        data = paddle.static.data(name="X", shape=shape_x, dtype=dtype)
        out = paddle.norm(x=data, p=p, axis=axis, keepdim=keep_dim)
        place = fluid.CPUPlace()
        exe = fluid.Executor(place)
        np_input = (np.random.rand(*shape_x) + 1.0).astype(dtype)
        expected_result = numpy_frobenius_norm(np_input, axis=axis, keepdims=keep_dim)
        (result,) = exe.run(feed={"X": np_input}, fetch_list=[out])
    self.assertEqual((np.abs(result - expected_result) < 1e-6).all(), True)
    if keep_dim and check_dim:
        self.assertEqual(
            (np.abs(np.array(result.shape) - np.array(expected_result.shape)) < 1e-6).all(),
            True,
        )


def run_pnorm(self, p, axis, shape_x, dtype, keep_dim, check_dim=False):
    with fluid.program_guard(fluid.Program()):
        data = paddle.static.data(name="X", shape=shape_x, dtype=dtype)
        out = paddle.norm(x=data, p=p, axis=axis, keepdim=keep_dim)
        place = fluid.CPUPlace()
        exe = fluid.Executor(place)
        np_input = (np.random.rand(*shape_x) + 1.0).astype(dtype)
        expected_result = p_norm(np_input, porder=p, axis=axis, keepdims=keep_dim).astype(dtype)
        (result,) = exe.run(feed={"X": np_input}, fetch_list=[out])
    self.assertEqual((np.abs(result - expected_result) < 1e-6).all(), True)
    if keep_dim and check_dim:
        self.assertEqual(
            (np.abs(np.array(result.shape) - np.array(expected_result.shape)) < 1e-6).all(),
            True,
        )


class API_NormTest(unittest.TestCase):
    def test_basic(self):
        paddle.enable_static()
        keep_dims = {False, True}
        for keep in keep_dims:
            run_fro(self, p='fro', axis=None, shape_x=[2, 3, 4], dtype="float32",
                    keep_dim=keep)
            run_fro(self, p='fro', axis=[0, 1], shape_x=[2, 3, 4], dtype="float64",
                    keep_dim=keep, check_dim=True)
            run_pnorm(self, p=2, axis=None, shape_x=[3, 4], dtype="float32", keep_dim=keep)
            run_pnorm(self, p=2, axis=1, shape_x=[3, 4], dtype="float64", keep_dim=keep,
                      check_dim=True)
            run_pnorm(self, p=np.inf, axis=0, shape_x=[2, 3, 4], dtype="float32",
                      keep_dim=keep, check_dim=True)
            run_pnorm(self, p=np.inf, axis=None, shape_x=[2, 3, 4], dtype="float32",
                      keep_dim=keep)
            run_pnorm(self, p=-np.inf, axis=0, shape_x=[2, 3, 4], dtype="float64",
                      keep_dim=keep, check_dim=True)
            run_pnorm(self, p=-np.inf, axis=None, shape_x=[2, 3, 4], dtype="float64",
                      keep_dim=keep)
            run_pnorm(self, p=0, axis=1, shape_x=[3, 4], dtype="float64", keep_dim=keep,
                      check_dim=True)
            run_pnorm(self, p=1, axis=1, shape_x=[3, 4], dtype="float64", keep_dim=keep,
                      check_dim=True)
            run_pnorm(self, p=0, axis=None, shape_x=[3, 4], dtype="float64", keep_dim=keep,
                      check_dim=True)
            run_pnorm(self, p=2, axis=[0, 1], shape_x=[2, 3, 4], dtype="float64",
                      keep_dim=keep, check_dim=True)
            run_pnorm(self, p=2, axis=-1, shape_x=[2, 3, 4], dtype="float64", keep_dim=keep,
                      check_dim=True)
            run_pnorm(self, p=1, axis=[0, 1], shape_x=[2, 3, 4], dtype="float64",
                      keep_dim=keep, check_dim=True)
            run_pnorm(self, p=np.inf, axis=[0, 1], shape_x=[2, 3, 4], dtype="float64",
                      keep_dim=keep, check_dim=True)
            run_pnorm(self, p=-np.inf, axis=[0, 1], shape_x=[2, 3, 4], dtype="float64",
                      keep_dim=keep, check_dim=True)

    def test_name(self):
        paddle.enable_static()
        with fluid.program_guard(fluid.Program()):
            x = paddle.static.data(name="x", shape=[10, 10], dtype="float32")
            y_1 = paddle.norm(x, p='fro', name='frobenius_name')
            y_2 = paddle.norm(x, p=2, name='pnorm_name')
            y_3 = paddle.norm(x, p='fro', axis=[0, 1], name='nuclear_name')
            y_4 = paddle.norm(x, p=2, axis=[0, 1], name='p_matrix_norm_name')
            self.assertEqual(('frobenius_name' in y_1.name), True)
            self.assertEqual(('pnorm_name' in y_2.name), True)
            self.assertEqual(('nuclear_name' in y_3.name), True)
            self.assertEqual(('p_matrix_norm_name' in y_4.name), True)

    def test_errors(self):
        paddle.enable_static()

        with fluid.program_guard(fluid.Program(), fluid.Program()):

            def err_dtype(p, shape_x, xdtype, out=None):
                data = paddle.static.data(shape=shape_x, dtype=xdtype)
                paddle.norm(data, p=p, out=out)

            self.assertRaises(TypeError, err_dtype, "fro", [2, 2], "int64")
            self.assertRaises(ValueError, paddle.norm, "inf", [2], "int64")
            out = paddle.static.data(name="out", shape=[1], dtype="int64")
            self.assertRaises(TypeError, err_dtype, "fro", [2, 2], "float64", out)
            self.assertRaises(TypeError, err_dtype, 2, [10], "int64")
            self.assertRaises(TypeError, err_dtype, 2, [10], "float64", out)

            data = paddle.static.data(name="data_2d", shape=[2, 2], dtype="float64")
            self.assertRaises(ValueError, paddle.norm, data, p="unsupport norm")
            self.assertRaises(ValueError, paddle.norm, data, p=[1])
            self.assertRaises(ValueError, paddle.norm, data, p=[1], axis=-1)
            self.assertRaises(ValueError, paddle.norm, 0, [1, 0], "float64")
            data = paddle.static.data(name="data_3d", shape=[2, 2, 2], dtype="float64")
            self.assertRaises(ValueError, paddle.norm, data, p='unspport', axis=[-3, -2, -1])



if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
