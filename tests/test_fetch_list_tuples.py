"""A list or tuple of vars as one fetch_list entry stands for those vars (Paddle's
_check_fetch_list): the program runs whole, its optimizer updates included."""
import numpy as np
import pytest

import fluidc as paddle

paddle.enable_static()


@pytest.mark.parametrize("wrap", [tuple, list])
def test_grouped_fetches_run_the_whole_program(wrap):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [None, 2], "float32")
        y = paddle.static.nn.fc(x, 1, weight_attr="w", bias_attr=False)
        loss = paddle.mean(y)
        paddle.optimizer.SGD(0.5).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        w0 = np.array(paddle.static.global_scope().find_var("w").get_tensor())
        feed = {"x": np.ones((3, 2), "float32")}
        got_loss, got_y = exe.run(main, feed=feed, fetch_list=[wrap((loss, y))])
        w1 = np.array(paddle.static.global_scope().find_var("w").get_tensor())
    np.testing.assert_allclose(got_y, np.ones((3, 2)) @ w0, rtol=1e-6)
    np.testing.assert_allclose(got_loss, got_y.mean(), rtol=1e-6)
    np.testing.assert_allclose(w1, w0 - 0.5, rtol=1e-6)  # d mean(x @ w) / dw = 1 per entry
