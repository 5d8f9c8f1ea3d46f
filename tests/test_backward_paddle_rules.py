"""Which grads append_backward makes, by Paddle 3.3.1's rules (checked against its legacy
backward): a var on the loss's path whose stop_gradient the user cleared gets a grad even with
no parameter behind it; a grad op none of whose input grads is made is dropped, so a loss on
lstm's Cell alone gives its parameters no grads (lstm_grad reads Hidden@GRAD only)."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.frontend.errors import FetchError

RNG = np.random.default_rng(7)


def _cleared_intermediate(clear: bool):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3, 4], "float32")
        y = paddle.static.data("y", [3, 4], "float32")
        out = paddle.maximum(x, y) * 2.0
        if clear:
            out.stop_gradient = False
        loss = paddle.mean(out * out)
        assert paddle.static.append_backward(loss) == []
    return main, out


def test_a_cleared_var_gets_its_grad_without_parameters():
    main, out = _cleared_intermediate(True)
    xv, yv = RNG.uniform(-1, 1, (2, 3, 4)).astype("float32")
    got, g = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed={"x": xv, "y": yv}, fetch_list=[out, out.grad_name])
    np.testing.assert_allclose(got, np.maximum(xv, yv) * 2, rtol=1e-6)
    np.testing.assert_allclose(g, 2 * got / got.size, rtol=1e-6)  # d mean(o^2) / do
    assert not any(op.type == "elementwise_max_grad" for op in main.global_block().ops)


def test_a_var_left_as_made_gets_no_grad():
    main, out = _cleared_intermediate(False)
    assert not main.global_block().has_var(out.grad_name)
    feed = {"x": np.ones((3, 4), "float32"), "y": np.ones((3, 4), "float32")}
    with pytest.raises(FetchError):
        paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed,
                                                      fetch_list=[out.grad_name])


def _lstm(loss_on):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 8], "float32", lod_level=1)
        h, c = fluid.layers.dynamic_lstm(x, size=8, use_peepholes=True)
        loss = fluid.layers.mean({"cell": c, "both": h + c}[loss_on])
        grads = fluid.backward.append_backward(loss)
    return main, startup, loss, grads


def test_loss_on_lstm_cell_alone_gives_no_parameter_grads():
    main, _, _, grads = _lstm("cell")
    assert grads == []
    assert "lstm_grad" not in [op.type for op in main.global_block().ops]


def test_loss_on_hidden_and_cell_trains_the_lstm():
    main, startup, loss, grads = _lstm("both")
    assert sorted(p.name for p, _ in grads) == ["lstm_0.b_0", "lstm_0.w_0"]
    x = fluid.create_lod_tensor(RNG.uniform(-1, 1, (5, 8)).astype("float32"), [[2, 3]],
                                fluid.CPUPlace())
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    out = exe.run(main, feed={"x": x}, fetch_list=[g for _, g in grads])
    assert all(np.abs(g).sum() > 0 for g in out)
