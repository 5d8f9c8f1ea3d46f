"""Helper of the per-op ports: an OpTest case's forward output through the public API.

Paddle's OpTest runs an op on numpy inputs and compares its output with a numpy reference; the
ports keep that comparison but build the op the way a user does, with the public API on a
static program fed the same arrays.
"""
import numpy as np

import fluidc as paddle


def run_forward(api, inputs, **kwargs):
    """`api(*vars, **kwargs)` on a fresh static program, one data var per array of `inputs`
    (name -> array, in argument order), fed those arrays: the fetched output (a list of them
    where api returns several)."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        args = [paddle.static.data(n, list(a.shape), str(a.dtype)) for n, a in inputs.items()]
        out = api(*args, **kwargs)
        several = isinstance(out, (list, tuple))
        res = paddle.static.Executor(paddle.CPUPlace()).run(
            main, feed=inputs, fetch_list=list(out) if several else [out])
    return res if several else res[0]


def apart(x, shape, low, high):
    """x plus or minus low..high (Paddle's data for max / min: y is never close to x, where
    the op is not differentiable); broadcasts as numpy does."""
    sgn = np.random.choice([-1, 1], shape).astype(x.dtype)
    return x + sgn * np.random.uniform(low, high, shape).astype(x.dtype)


def assert_grad_close(numeric, analytic, max_relative_error):
    """OpTest's _assert_is_close: |numeric - analytic| relative to |numeric|, or absolute where
    |numeric| < 1e-3, at most max_relative_error."""
    scale = np.abs(numeric)
    scale[scale < 1e-3] = 1
    diff = np.max(np.abs(numeric - analytic) / scale)
    assert diff <= max_relative_error, \
        f"max gradient diff {diff} over limit {max_relative_error}"
