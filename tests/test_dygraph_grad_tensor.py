"""A parameter's grad tensor behaves as Paddle 3.3.1's (checked there): a `p.grad` held across
a second backward sees the sum (accumulated in place), clear_grad zeroes it in place, and the
backward after a clear makes a new grad tensor (the held one stays zero). A grad the user set
is never changed."""
import numpy as np

import fluidc as paddle


def _setup():
    paddle.disable_static()
    paddle.seed(0)
    lin = paddle.nn.Linear(3, 2)
    x = paddle.to_tensor(np.arange(12, dtype="float32").reshape(4, 3))
    return lin, lambda: lin(x).sum().backward()


def test_held_grad_accumulates_and_clears_in_place():
    lin, backward = _setup()
    backward()
    held = lin.weight.grad
    first = held.numpy()
    backward()
    assert lin.weight.grad is held
    np.testing.assert_array_equal(held.numpy(), 2 * first)
    lin.clear_gradients()
    np.testing.assert_array_equal(held.numpy(), np.zeros_like(first))
    assert not any(held.value().strides)  # a cleared grad holds no memory
    backward()
    np.testing.assert_array_equal(held.numpy(), np.zeros_like(first))
    np.testing.assert_array_equal(lin.weight.grad.numpy(), first)
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=lin.parameters())
    w = lin.weight.numpy()
    opt.step()
    np.testing.assert_allclose(lin.weight.numpy(), w - 0.5 * first, rtol=1e-6)
    opt.clear_grad()
    backward()
    np.testing.assert_array_equal(lin.weight.grad.numpy(), first)


def test_a_grad_the_user_set_is_never_changed():
    lin, backward = _setup()
    backward()
    first = lin.weight.grad.numpy()
    mine = paddle.to_tensor(np.ones((3, 2), "float32"))
    lin.weight.grad = mine
    backward()
    np.testing.assert_array_equal(mine.numpy(), np.ones((3, 2)))
    np.testing.assert_allclose(lin.weight.grad.numpy(), first + 1, rtol=1e-6)
    lin.weight.grad = mine
    lin.weight.clear_grad()
    np.testing.assert_array_equal(mine.numpy(), np.ones((3, 2)))
    np.testing.assert_array_equal(lin.weight.grad.numpy(), np.zeros((3, 2)))


def test_backward_is_seeded_with_the_grad_tensor():
    """y.backward(g) starts from g: a several-element g, and a one-element zero g (not taken
    for "no seed", which would be ones)."""
    paddle.disable_static()
    x = paddle.to_tensor(np.array([1.0, 2.0], "float32"), stop_gradient=False)
    (x * 3).backward(paddle.to_tensor(np.array([0.0, 2.0], "float32")))
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 6.0])
    z = paddle.to_tensor(np.array([1.5], "float32"), stop_gradient=False)
    (z * z).backward(paddle.to_tensor(np.array([0.0], "float32")))
    np.testing.assert_array_equal(z.grad.numpy(), [0.0])
