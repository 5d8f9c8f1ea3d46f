"""Port of Paddle test/legacy_test/test_spectral_norm_op.py.

The OpTest cases (power_iters 5 / 10 without gradient checks, 0 with one) append the
spectral_norm op with the case's Weight, U and V by Block.append_op (op_append.run_op: the
public paddle.static.nn.spectral_norm draws U and V itself; the file's python_api is
_C_ops.spectral_norm), against the file's numpy spectral_norm at OpTest's float64 tolerance.
TestSpectralNormOp / 2's test_check_grad_ignore_uv is kept as Weight's gradient of mean(Out)
through paddle.static.gradients against central differences of the reference (power_iters 0:
U and V are fixed, as the file's skip_check_grad_ci reason says). TestSpectralNormOpError's
test_static_errors and test_nn_api_errors and TestDygraphSpectralNormOpError are Paddle's.
"""
import unittest

import numpy as np

import fluidc as paddle

from .op_append import numeric_grad, run_op

paddle.enable_static()
Program, program_guard = paddle.static.Program, paddle.static.program_guard


def spectral_norm(weight, u, v, dim, power_iters, eps):
    shape = weight.shape
    weight_mat = weight.copy()
    h = shape[dim]
    w = np.prod(shape) // h
    if dim != 0:
        perm = [dim] + [d for d in range(len(shape)) if d != dim]
        weight_mat = weight_mat.transpose(perm)
    weight_mat = weight_mat.reshape((h, w))

    u = u.reshape((h, 1))
    v = v.reshape((w, 1))
    for i in range(power_iters):
        v = np.matmul(weight_mat.T, u)
        v_norm = np.sqrt((v * v).sum())
        v = v / (v_norm + eps)
        u = np.matmul(weight_mat, v)
        u_norm = np.sqrt((u * u).sum())
        u = u / (u_norm + eps)

    sigma = (u * np.matmul(weight_mat, v)).sum()
    return weight / sigma


class TestSpectralNormOpNoGrad(unittest.TestCase):
    def setUp(self):
        self.initTestCase()
        weight = np.random.random(self.weight_shape).astype('float64')
        u = np.random.normal(0.0, 1.0, self.u_shape).astype('float64')
        v = np.random.normal(0.0, 1.0, self.v_shape).astype('float64')

        self.attrs = {
            "dim": self.dim,
            "power_iters": self.power_iters,
            "eps": self.eps,
        }

        self.inputs = {
            "Weight": weight,
            "U": u,
            "V": v,
        }

        output = spectral_norm(weight, u, v, self.dim, self.power_iters, self.eps)
        self.outputs = {"Out": output}

    def test_check_output(self):
        got = run_op('spectral_norm', self.inputs, {'Out': 'float64'}, self.attrs)['Out']
        np.testing.assert_allclose(got, self.outputs['Out'], rtol=1e-7, atol=1e-7)

    def initTestCase(self):
        self.weight_shape = (10, 12)
        self.u_shape = (10,)
        self.v_shape = (12,)
        self.dim = 0
        self.power_iters = 5
        self.eps = 1e-12


class TestSpectralNormOpNoGrad2(TestSpectralNormOpNoGrad):
    def initTestCase(self):
        self.weight_shape = (2, 3, 3, 3)
        self.u_shape = (3,)
        self.v_shape = (18,)
        self.dim = 1
        self.power_iters = 10
        self.eps = 1e-12


class TestSpectralNormOp(TestSpectralNormOpNoGrad):
    def test_check_grad_ignore_uv(self):
        got = run_op('spectral_norm', self.inputs, {'Out': 'float64'}, self.attrs,
                     grad_inputs=('Weight',))['Weight@GRAD']

        def fn(Weight, U, V):
            return spectral_norm(Weight, U, V, self.dim, self.power_iters, self.eps)
        want = numeric_grad(fn, self.inputs, 'Weight', delta=1e-5)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-8)

    def initTestCase(self):
        self.weight_shape = (10, 12)
        self.u_shape = (10,)
        self.v_shape = (12,)
        self.dim = 0
        self.power_iters = 0
        self.eps = 1e-12


class TestSpectralNormOp2(TestSpectralNormOp):
    def initTestCase(self):
        self.weight_shape = (2, 6, 3, 3)
        self.u_shape = (6,)
        self.v_shape = (18,)
        self.dim = 1
        self.power_iters = 0
        self.eps = 1e-12


class TestSpectralNormOpError(unittest.TestCase):
    def test_static_errors(self):
        with program_guard(Program(), Program()):

            def test_Variable():
                weight_1 = np.random.random((2, 4)).astype("float32")
                paddle.static.nn.spectral_norm(weight_1, dim=1, power_iters=2)

            # the weight type of spectral_norm must be Variable
            self.assertRaises(TypeError, test_Variable)

            def test_weight_dtype():
                weight_2 = np.random.random((2, 4)).astype("int32")
                paddle.static.nn.spectral_norm(weight_2, dim=1, power_iters=2)

            # the data type of type must be float32 or float64
            self.assertRaises(TypeError, test_weight_dtype)

            def test_dim_out_of_range_1():
                weight_3 = np.random.random((2, 4)).astype("float32")
                tensor_3 = paddle.to_tensor(weight_3)
                paddle.static.nn.spectral_norm(tensor_3, dim=1382376303, power_iters=2)

            # the dim must be 0 or 1
            self.assertRaises(ValueError, test_dim_out_of_range_1)

            def test_dim_out_of_range_2():
                weight_4 = np.random.random((2, 4)).astype("float32")
                tensor_4 = paddle.to_tensor(weight_4)
                paddle.static.nn.spectral_norm(tensor_4, dim=-1, power_iters=2)

            # the dim must be 0 or 1
            self.assertRaises(ValueError, test_dim_out_of_range_2)

    def test_nn_api_errors(self):
        with program_guard(Program(), Program()):

            def test_Variable():
                weight_1 = np.random.random((2, 4)).astype("float32")
                paddle.nn.SpectralNorm(weight_1.shape, dim=1, power_iters=2)(weight_1)

            # the weight type of spectral_norm must be Variable
            self.assertRaises(TypeError, test_Variable)

            def test_weight_dtype():
                weight_2 = np.random.random((2, 4)).astype("int32")
                paddle.nn.SpectralNorm(weight_2.shape, dim=1, power_iters=2, dtype="int32")(
                    weight_2)

            # the data type of type must be float32 or float64
            self.assertRaises(TypeError, test_weight_dtype)

            def test_dim_out_of_range_1():
                weight_3 = np.random.random((2, 4)).astype("float32")
                tensor_3 = paddle.to_tensor(weight_3)
                paddle.nn.SpectralNorm(weight_3.shape, dim=1382376303, power_iters=2)(tensor_3)

            # the dim must be 0 or 1
            self.assertRaises(AssertionError, test_dim_out_of_range_1)

            def test_dim_out_of_range_2():
                weight_4 = np.random.random((2, 4)).astype("float32")
                tensor_4 = paddle.to_tensor(weight_4)
                paddle.nn.SpectralNorm(weight_4.shape, dim=-1, power_iters=2)(tensor_4)

            # the dim must be 0 or 1
            self.assertRaises(ValueError, test_dim_out_of_range_2)


class TestDygraphSpectralNormOpError(unittest.TestCase):
    def test_errors(self):
        with program_guard(Program(), Program()):
            shape = (2, 4)
            spectralNorm = paddle.nn.SpectralNorm(shape, dim=1, power_iters=2)

            def test_Variable():
                weight_1 = np.random.random((2, 4)).astype("float32")
                spectralNorm(weight_1)

            # the weight type of SpectralNorm must be Variable
            self.assertRaises(TypeError, test_Variable)

            def test_weight_dtype():
                weight_2 = np.random.random((2, 4)).astype("int32")
                spectralNorm(weight_2)

            # the data type of type must be float32 or float64
            self.assertRaises(TypeError, test_weight_dtype)


if __name__ == "__main__":
    unittest.main()
