"""Port of Paddle test/legacy_test/test_activation_op.py: the static API classes.

run-on-paddle: pir

Kept, for relu, relu6, tanh, leaky_relu, elu, gelu (exact and tanh-approximate), softplus
(beta=2, threshold=15), hardsigmoid, hardswish, silu, swish, log_sigmoid, softsign, selu: each
class's test_static_api (the functional form and the nn layer, on static data of Paddle's shape /
range / dtype, against Paddle's numpy reference, rtol 1e-05) and its test_errors (TypeError for a
non-Variable input and for int32 data).
Dropped: the OpTest classes (check_output / check_grad through core.*), test_dygraph_api, the
inplace `F.relu_` / `Tensor.*_` variants (dygraph-only), fp16/bf16/CUDA/oneDNN variants (incl. test_errors' CUDA-only float16 check).
Paddle 3.3.1 builds paddle.tanh / F.gelu / F.softplus only on PIR programs: the file runs with
PIR on there.
"""
import math
import unittest

import numpy as np

import fluidc as paddle

F = paddle.nn.functional
paddle.enable_static()


def ref_relu6(x, threshold=6.0):
    return np.minimum(np.maximum(x, 0), threshold)


def ref_leaky_relu(x, alpha=0.01):
    out = np.copy(x)
    out[out < 0] *= alpha
    return out


def ref_elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * (np.exp(x) - 1))


def ref_gelu(x, approximate):
    if approximate:
        return 0.5 * x * (1.0 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * np.power(x, 3))))
    erf = np.vectorize(math.erf)
    return (0.5 * x * (1 + erf(x / np.sqrt(2)))).astype(x.dtype)


def ref_softplus(x, beta=1, threshold=20):
    x_beta = beta * x
    return np.select([x_beta <= threshold, x_beta > threshold],
                     [np.log(1 + np.exp(x_beta)) / beta, x])


def ref_hardsigmoid(x, slope=0.166666666666667, offset=0.5):
    return np.maximum(np.minimum(x * slope + offset, 1.0), 0.0).astype(x.dtype)


def ref_hardswish(x, threshold=6.0, scale=6.0, offset=3.0):
    return (x * np.minimum(np.maximum(x + offset, 0.0), threshold) / scale).astype(x.dtype)


def ref_silu(x):
    return x / (1 + np.exp(-x))


def ref_log_sigmoid(x):
    return np.log(1 / (1 + np.exp(-x)))


def ref_softsign(x):
    return x / (1 + np.abs(x))


def ref_selu(x, scale=1.0507009873554804934193349852946,
             alpha=1.6732632423543772848170429916717):
    return np.where(x > 0, scale * x, scale * alpha * (np.exp(x) - 1))


class _ActivationAPI(unittest.TestCase):
    """One API class: functional + layer (named, looked up when run) on static data, then the
    error checks."""
    shape, low, high, dtype = [10, 12], -1.0, 1.0, 'float32'
    functional = layer = None

    def setUp(self):
        np.random.seed(1024)
        self.x_np = np.random.uniform(self.low, self.high, self.shape).astype(self.dtype)
        self.place = paddle.CPUPlace()

    def reference(self, x):
        raise NotImplementedError

    def fn(self):
        return getattr(F, self.functional)

    def build(self, x):
        return [self.fn()(x), getattr(paddle.nn, self.layer)()(x)]

    def test_static_api(self):
        if type(self) is _ActivationAPI:
            return
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data('X', self.x_np.shape, self.x_np.dtype)
            outs = self.build(x)
            exe = paddle.static.Executor(self.place)
            res = exe.run(feed={'X': self.x_np}, fetch_list=outs)
        out_ref = self.reference(self.x_np)
        for r in res:
            np.testing.assert_allclose(out_ref, r, rtol=1e-05)

    def test_errors(self):
        if type(self) is _ActivationAPI:
            return
        fn = self.fn()
        with paddle.static.program_guard(paddle.static.Program()):
            # the input must be a Variable
            self.assertRaises(TypeError, fn, 1)
            # of a float dtype
            x_int32 = paddle.static.data(name='x_int32', shape=[12, 10], dtype='int32')
            self.assertRaises(TypeError, fn, x_int32)
            # (Paddle's float16 check runs only when compiled with CUDA: dropped)


class TestReluAPI(_ActivationAPI):
    functional, layer = 'relu', 'ReLU'

    def reference(self, x):
        return np.maximum(x, 0)


class TestRelu6API(_ActivationAPI):
    low, high, dtype = -1.0, 10.0, 'float64'
    functional, layer = 'relu6', 'ReLU6'

    def setUp(self):
        super().setUp()
        self.x_np[np.abs(self.x_np) < 0.005] = 0.02

    def reference(self, x):
        return ref_relu6(x)


class TestTanhAPI(_ActivationAPI):
    functional, layer = 'tanh', 'Tanh'

    def build(self, x):
        return [paddle.tanh(x), F.tanh(x), paddle.nn.Tanh()(x)]

    def reference(self, x):
        return np.tanh(x)

    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program()):
            self.assertRaises(TypeError, F.tanh, 1)
            # (Paddle 3.3.1 accepts int32 data in tanh on PIR: that check is dropped here)


class TestLeakyReluAPI(_ActivationAPI):
    functional, layer = 'leaky_relu', 'LeakyReLU'

    def reference(self, x):
        return ref_leaky_relu(x)


class TestELUAPI(_ActivationAPI):
    low, high = -3.0, 3.0
    functional, layer = 'elu', 'ELU'

    def reference(self, x):
        return ref_elu(x)


class TestGELUAPI(_ActivationAPI):
    shape = [11, 17]
    functional, layer = 'gelu', 'GELU'

    def build(self, x):
        return [F.gelu(x), paddle.nn.GELU()(x)]

    def reference(self, x):
        return ref_gelu(x, False)


class TestGELUAPIApproximate(TestGELUAPI):
    def build(self, x):
        return [F.gelu(x, approximate=True), paddle.nn.GELU(approximate=True)(x)]

    def reference(self, x):
        return ref_gelu(x, True)


class TestSoftplusAPI(_ActivationAPI):
    dtype = 'float64'
    functional, layer = 'softplus', 'Softplus'

    def build(self, x):
        return [F.softplus(x, 2, 15), paddle.nn.Softplus(2, 15)(x)]

    def reference(self, x):
        return ref_softplus(x, 2, 15)


class TestHardsigmoidAPI(_ActivationAPI):
    functional, layer = 'hardsigmoid', 'Hardsigmoid'

    def reference(self, x):
        return ref_hardsigmoid(x)


class TestHardswishAPI(_ActivationAPI):
    low, high, shape, dtype = -1.0, 1.0, [10, 12], 'float64'
    functional, layer = 'hardswish', 'Hardswish'

    def reference(self, x):
        return ref_hardswish(x)


class TestSiluAPI(_ActivationAPI):
    shape = [11, 17]
    functional, layer = 'silu', 'Silu'

    def reference(self, x):
        return ref_silu(x)


class TestSwishAPI(_ActivationAPI):
    shape = [11, 17]
    functional, layer = 'swish', 'Swish'

    def reference(self, x):
        return ref_silu(x)  # swish(x) = x * sigmoid(x)


class TestLogSigmoidAPI(_ActivationAPI):
    shape = [11, 17]
    functional, layer = 'log_sigmoid', 'LogSigmoid'

    def reference(self, x):
        return ref_log_sigmoid(x)


class TestSoftsignAPI(_ActivationAPI):
    dtype = 'float64'
    functional, layer = 'softsign', 'Softsign'

    def reference(self, x):
        return ref_softsign(x)


class TestSeluAPI(_ActivationAPI):
    # float64: in float32, scale * alpha * (exp(x) - 1) near 0 loses digits against rtol 1e-05
    shape, low, high, dtype = [3, 5, 5, 10], -2.0, 2.0, 'float64'
    functional, layer = 'selu', 'SELU'

    def reference(self, x):
        return ref_selu(x)


if __name__ == '__main__':
    unittest.main()
