"""Tensor.retain_grads: a non-leaf tensor gets its gradient in .grad on backward, as Paddle
3.3.1's (numbers checked there): intermediates through a chain, a retaining target (its seed);
over two backwards a leaf's grad accumulates, a retained one holds the last backward's; tensors
that did not retain get none, nor one off the path."""
import numpy as np

import fluidc as paddle


def test_retained_intermediates_get_their_gradients():
    paddle.disable_static()
    xv = np.array([0.1, -0.4, 0.3], "float32")
    x = paddle.to_tensor(xv, stop_gradient=False)
    a = x * 2
    a.retain_grads()
    b = a ** 2
    b.retain_grads()
    kept_out = paddle.tanh(b)  # not retained: no grad
    y = kept_out.sum()
    y.retain_grads()
    off_path = x * 3
    off_path.retain_grads()
    y.backward()
    x64 = xv.astype("float64")
    db = 1 - np.tanh((2 * x64) ** 2) ** 2
    np.testing.assert_allclose(b.grad.numpy(), db, rtol=1e-5)
    np.testing.assert_allclose(a.grad.numpy(), db * 2 * (2 * x64), rtol=1e-5)
    np.testing.assert_allclose(x.grad.numpy(), db * 8 * x64, rtol=1e-5)
    np.testing.assert_array_equal(y.grad.numpy(), np.float32(1))
    assert kept_out.grad is None and off_path.grad is None


def test_leaf_grads_accumulate_retained_ones_hold_the_last():
    paddle.disable_static()
    x = paddle.to_tensor(np.array([1., 2.], "float32"), stop_gradient=False)
    c = paddle.clone(x)
    c.retain_grads()
    y = c ** 3
    y.retain_grads()
    y.backward(paddle.to_tensor(np.array([1., 0.5], "float32")), retain_graph=True)
    np.testing.assert_allclose(c.grad.numpy(), [3., 6.], rtol=1e-6)
    np.testing.assert_array_equal(y.grad.numpy(), [1., 0.5])
    y.backward(paddle.to_tensor(np.array([1., 0.5], "float32")))
    np.testing.assert_allclose(c.grad.numpy(), [3., 6.], rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), [6., 12.], rtol=1e-6)
    np.testing.assert_array_equal(y.grad.numpy(), [1., 0.5])
