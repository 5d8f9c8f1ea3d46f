"""Port of Paddle test/legacy_test/test_default_dtype.py: paddle.framework.set_default_dtype /
get_default_dtype.

Kept: all of it (TestDefaultType, TestDefaultTypeInLayer, TestRaiseError).
Added (fluidc): the default dtype's reach as Paddle 3.3.1 has it, each checked on Paddle too:
creation ops given no dtype (zeros / ones / full / arange of floats / linspace / static.data /
uniform / rand / randn / gaussian / normal), layers' parameters (Linear, Conv2D, LayerNorm,
BatchNorm2D, Embedding, a Layer's own create_parameter) and what stays (explicit dtypes, ints,
bools, fc's parameters following its input), a float64 Linear trained one SGD step against
numpy, and to_tensor of Python floats and complex numbers in dygraph.
"""
import unittest

import numpy as np

import fluidc as paddle

get_default_dtype = paddle.framework.get_default_dtype
set_default_dtype = paddle.framework.set_default_dtype


class TestDefaultType(unittest.TestCase):
    def check_default(self):
        self.assertEqual("float32", get_default_dtype())

    def test_api(self):
        self.check_default()

        set_default_dtype("float64")
        self.assertEqual("float64", get_default_dtype())

        set_default_dtype("float32")
        self.assertEqual("float32", get_default_dtype())

        set_default_dtype("float16")
        self.assertEqual("float16", get_default_dtype())

        set_default_dtype("bfloat16")
        self.assertEqual("bfloat16", get_default_dtype())

        set_default_dtype(np.float64)
        self.assertEqual("float64", get_default_dtype())

        set_default_dtype(np.float32)
        self.assertEqual("float32", get_default_dtype())

        set_default_dtype(np.float16)
        self.assertEqual("float16", get_default_dtype())

        set_default_dtype(paddle.float64)
        self.assertEqual("float64", get_default_dtype())

        set_default_dtype(paddle.float32)
        self.assertEqual("float32", get_default_dtype())

        set_default_dtype(paddle.float16)
        self.assertEqual("float16", get_default_dtype())

        set_default_dtype(paddle.bfloat16)
        self.assertEqual("bfloat16", get_default_dtype())


class TestDefaultTypeInLayer(unittest.TestCase):
    def test_bfloat16(self):
        set_default_dtype("bfloat16")
        linear = paddle.nn.Linear(10, 20)
        self.assertEqual(linear.weight.dtype, paddle.bfloat16)


class TestRaiseError(unittest.TestCase):
    def test_error(self):
        self.assertRaises(TypeError, set_default_dtype, "int32")
        self.assertRaises(TypeError, set_default_dtype, np.int32)
        self.assertRaises(TypeError, set_default_dtype, paddle.int32)
        self.assertRaises(TypeError, set_default_dtype, "int64")
        self.assertRaises(TypeError, set_default_dtype, np.int64)
        self.assertRaises(TypeError, set_default_dtype, paddle.int64)


class TestDefaultDtypeReach(unittest.TestCase):
    """fluidc addition: what the default dtype changes, as on Paddle 3.3.1."""

    def test_creation_ops(self):
        paddle.enable_static()
        set_default_dtype("float64")
        made = [paddle.zeros([2]), paddle.ones([2]), paddle.full([2], 1),
                paddle.full([2], 1.5), paddle.arange(0, 1.5, 0.5), paddle.linspace(0, 1, 3),
                paddle.static.data('x', [2]), paddle.uniform([2]), paddle.rand([2]),
                paddle.randn([2]), paddle.tensor.random.gaussian([2]),
                paddle.normal(shape=[2])]
        for out in made:
            self.assertEqual(out.dtype, paddle.float64)
        self.assertEqual(paddle.zeros([2], 'float32').dtype, paddle.float32)
        self.assertEqual(paddle.arange(0, 3).dtype, paddle.int64)
        self.assertEqual(paddle.full([2], True).dtype, paddle.bool)
        exe = paddle.static.Executor(paddle.CPUPlace())
        values = exe.run(fetch_list=made[:6])
        for v in values:
            self.assertEqual(v.dtype, np.float64)
        np.testing.assert_array_equal(values[4], [0.0, 0.5, 1.0])

    def test_layer_parameters(self):
        paddle.enable_static()
        set_default_dtype("float64")
        layers = [paddle.nn.Linear(2, 3), paddle.nn.Conv2D(2, 3, 3), paddle.nn.LayerNorm(3),
                  paddle.nn.BatchNorm2D(3), paddle.nn.Embedding(3, 4)]
        for layer in layers:
            for p in layer.parameters():
                self.assertEqual(p.dtype, paddle.float64)

        class Own(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.w = self.create_parameter([2, 2])
        self.assertEqual(Own().w.dtype, paddle.float64)
        # static.nn.fc makes its parameters in its input's dtype
        y = paddle.static.nn.fc(paddle.static.data('y', [2, 3], 'float32'), 4)
        self.assertEqual(y.dtype, paddle.float32)

    def test_float64_training(self):
        paddle.enable_static()
        set_default_dtype("float64")
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data('x', [4, 3])
            linear = paddle.nn.Linear(3, 2)
            loss = paddle.mean(linear(x) ** 2)
            paddle.optimizer.SGD(learning_rate=0.5).minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        w0, b0 = (np.array(paddle.static.global_scope().find_var(p.name).get_tensor())
                  for p in (linear.weight, linear.bias))
        x_np = np.random.RandomState(3).rand(4, 3)
        loss_v, w1 = exe.run(main, feed={'x': x_np}, fetch_list=[loss, linear.weight])
        out = x_np @ w0 + b0
        self.assertEqual(w1.dtype, np.float64)
        np.testing.assert_allclose(loss_v, np.mean(out ** 2), rtol=1e-12)
        grad_w = x_np.T @ (2 * out / out.size)
        np.testing.assert_allclose(w1, w0 - 0.5 * grad_w, rtol=1e-12)

    def test_to_tensor(self):
        paddle.disable_static()
        set_default_dtype("float64")
        self.assertEqual(paddle.to_tensor(1.5).dtype, paddle.float64)
        self.assertEqual(paddle.to_tensor([1 + 2j]).dtype, paddle.complex128)
        self.assertEqual(paddle.to_tensor(np.float32(1.5)).dtype, paddle.float32)
        self.assertEqual(paddle.to_tensor([1, 2]).dtype, paddle.int64)
        set_default_dtype("float32")
        self.assertEqual(paddle.to_tensor([1 + 2j]).dtype, paddle.complex64)
        paddle.enable_static()


if __name__ == '__main__':
    unittest.main()
