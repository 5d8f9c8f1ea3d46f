"""pad3d through nn.Pad2D / F.pad (4-D: unsqueeze2 + pad3d + squeeze2, as Paddle appends it)
and 5-D F.pad: every mode, channels first and last, float32 / float64, fused, unfused and on
the reference executor against numpy's pad (constant, reflect, edge, wrap); the grad by the
adjoint identity <pad(x), w> = <x, dx> and against the reference; argument errors."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import FluidcError

from op_harness import fused_unfused_reference

paddle.enable_static()
NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
           "circular": "wrap"}


@pytest.mark.parametrize("seed", range(8))
def test_pad_and_grad_match_numpy(seed):
    rng = np.random.default_rng(seed)
    mode = ("constant", "reflect", "replicate", "circular")[seed % 4]
    dtype = ("float32", "float64")[seed % 2]
    five = seed >= 6
    fmt = (("NCDHW", "NDHWC") if five else ("NCHW", "NHWC"))[(seed // 2) % 2]
    spatial = [int(d) for d in rng.integers(2, 5, 3 if five else 2)]
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    shape = [n, c] + spatial if fmt.startswith("NC") else [n] + spatial + [c]
    pads = [int(p) for p in rng.integers(0, 2 if mode == "reflect" else 3, 2 * len(spatial))]
    value = float(rng.uniform(-2, 2))
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", shape, dtype)
        x.stop_gradient = False
        out = (paddle.nn.functional.pad(x, pads, mode=mode, value=value, data_format=fmt)
               if five or seed % 3 == 0 else
               paddle.nn.Pad2D(pads, mode=mode, value=value, data_format=fmt)(x))
        w = paddle.static.data("w", list(out.shape), dtype)
        (dx,) = paddle.static.gradients([paddle.sum(out * w)], [x])
    # numpy: pads are given innermost spatial dim first, (before, after) each
    first = 2 if fmt.startswith("NC") else 1
    np_pads = [(0, 0)] * len(shape)
    for i in range(len(spatial)):
        np_pads[first + len(spatial) - 1 - i] = (pads[2 * i], pads[2 * i + 1])
    xs = rng.standard_normal(shape).astype(dtype)
    kw = {"constant_values": np.float32(value).astype(dtype)} if mode == "constant" else {}
    want = np.pad(xs, np_pads, mode=NP_MODE[mode], **kw)
    ws = rng.standard_normal(want.shape).astype(dtype)
    feed = {"x": xs, "w": ws}
    runs = fused_unfused_reference(main, feed, [out, dx])
    rtol = 1e-5 if dtype == "float32" else 1e-12
    # <pad(x), w> less the padded constant's share (pad is affine in constant mode)
    inner = np.sum(want.astype(np.float64) * ws)
    if mode == "constant":
        inner -= np.sum(np.pad(np.zeros_like(xs), np_pads, **kw).astype(np.float64) * ws)
    for which, (got, got_dx) in runs.items():
        np.testing.assert_array_equal(got, want, err_msg=which)
        np.testing.assert_allclose(np.sum(xs.astype(np.float64) * got_dx), inner, rtol=rtol,
                                   err_msg=f"{which}: <pad(x), w> != <x, dx>")
        np.testing.assert_allclose(got_dx, runs["reference"][1], rtol=rtol, err_msg=which)


def test_pad_argument_errors():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [1, 2, 3, 3], "float32")
        with pytest.raises(AssertionError, match="mode"):  # Paddle's asserts
            paddle.nn.functional.pad(x, [1, 1, 1, 1], mode="wrap")
        with pytest.raises(ValueError, match="takes 4 values"):
            paddle.nn.functional.pad(x, [1, 1], mode="reflect")
        with pytest.raises(AssertionError, match="data format"):
            paddle.nn.functional.pad(x, [1, 1, 1, 1], data_format="NCDHW")
        with pytest.raises(FluidcError, match="reflect padding 3"):
            paddle.nn.Pad2D([3, 0, 0, 0], mode="reflect")(x)
