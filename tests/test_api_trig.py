"""paddle.sin / cos / tan / asin / acos / atan / sinh / cosh / asinh / acosh / atanh / log1p /
expm1 / log2 / log10 / rsqrt / trunc / round / frac / neg / deg2rad / rad2deg: static programs
(C, fused and unfused, and Triton under its interpreter) against numpy on several shapes and
IEEE special values, Paddle 3.3.1's values (integer inputs too), gradients against finite
differences, and dygraph results."""
from __future__ import annotations

import math

import numpy as np
import pytest

import fluidc as paddle
import fluidc as fluid
from fluidc.frontend.layers.api2 import unary_math as um

from test_api_elementwise_more import both, run
from test_grad_check import GradCase, run_grad_check
from test_triton import GPU

paddle.enable_static()
# The Triton interpreter evaluates every branch of a where (log of negatives, inf - inf): numpy
# warns.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

NAN, INF = np.nan, np.inf
SPECIAL = [0.0, -0.0, INF, -INF, NAN, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994, 1.0, -1.0,
           1e-300, -1e-20, 3e-8, 1e10, -1e10, 25.0, -30.0, 700.0, 710.0, -710.0, 1e300,
           1.0000001, 0.9999999, -0.9999999, 1e20, -1e200]
SHAPES = [(7,), (3, 4), (2, 3, 5)]
TOL = {"float32": 1e-6, "float64": 1e-14}


def _scaled(k):
    """Paddle's scale attribute is a FLOAT (float32) in static programs."""
    return lambda x: x * x.dtype.type(np.float32(k))


def _rint_decimals(d):
    p = 10.0 ** abs(d)
    return lambda x: np.rint(x * x.dtype.type(p)) / x.dtype.type(p) if d > 0 else \
        np.rint(x / x.dtype.type(p)) * x.dtype.type(p)


# name -> (layer, numpy reference, domain of the random values)
FUNCS = {
    "sin": (um.sin, np.sin, (-10, 10)),
    "cos": (um.cos, np.cos, (-10, 10)),
    "tan": (um.tan, np.tan, (-1.5, 1.5)),
    "asin": (um.asin, np.arcsin, (-1, 1)),
    "acos": (um.acos, np.arccos, (-1, 1)),
    "atan": (um.atan, np.arctan, (-20, 20)),
    "sinh": (um.sinh, np.sinh, (-5, 5)),
    "cosh": (um.cosh, np.cosh, (-5, 5)),
    "asinh": (um.asinh, np.arcsinh, (-5, 5)),
    "acosh": (um.acosh, np.arccosh, (1, 6)),
    "atanh": (um.atanh, np.arctanh, (-0.999, 0.999)),
    "log1p": (um.log1p, np.log1p, (-0.99, 5)),
    "expm1": (um.expm1, np.expm1, (-5, 5)),
    "log2": (um.log2, np.log2, (0.01, 100)),
    "log10": (um.log10, np.log10, (0.01, 100)),
    "rsqrt": (um.rsqrt, lambda x: 1 / np.sqrt(x), (0.01, 100)),
    "trunc": (um.trunc, np.trunc, (-10, 10)),
    "round": (um.round, np.rint, (-10, 10)),
    "round_2": (lambda x: um.round(x, decimals=2), _rint_decimals(2), (-10, 10)),
    "round_m1": (lambda x: um.round(x, decimals=-1), _rint_decimals(-1), (-100, 100)),
    "frac": (um.frac, lambda x: x - np.trunc(x), (-10, 10)),
    "neg": (um.neg, np.negative, (-10, 10)),
    "deg2rad": (um.deg2rad, _scaled(math.pi / 180), (-400, 400)),
    "rad2deg": (um.rad2deg, _scaled(180 / math.pi), (-7, 7)),
}
EXACT = {"trunc", "round", "round_2", "round_m1", "frac", "neg", "deg2rad", "rad2deg"}


def _inputs(key, dtype, shape):
    lo, hi = FUNCS[key][2]
    x = np.random.default_rng(len(shape)).uniform(lo, hi, shape)
    if key.startswith("round"):  # halves (ties go to even) among the values
        x.flat[::3] = np.floor(x.flat[::3]) + 0.5
    return x.astype(dtype)


def _special(dtype):
    with np.errstate(over="ignore"):  # 1e300 is inf in float32
        return np.array(SPECIAL, dtype)


def _check(key, x, got):
    with np.errstate(all="ignore"):
        want = FUNCS[key][1](x)
    assert got.dtype == x.dtype and got.shape == x.shape
    if key in EXACT:
        np.testing.assert_array_equal(got, want)
        real = ~np.isnan(want)  # -0.0 kept (a NaN's sign bit is no value's)
        np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(want[real]))
    else:
        np.testing.assert_allclose(got, want, rtol=TOL[x.dtype.name], atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("key", sorted(FUNCS))
def test_static_matches_numpy_fused_and_unfused(key, dtype):
    for x in [_inputs(key, dtype, s) for s in SHAPES] + [_special(dtype)]:
        got, = both(lambda v: [FUNCS[key][0](v["x"])], {"x": x}, tol=TOL[dtype])
        _check(key, x, got)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("key", sorted(FUNCS))
def test_triton_interpreter_matches_numpy(key, dtype):
    x = np.concatenate([_inputs(key, dtype, (20,)), _special(dtype)])
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        out = FUNCS[key][0](paddle.static.data("x", list(x.shape), dtype))
    with fluid.scope_guard(fluid.Scope()):
        got, = fluid.Executor(GPU).run(main, feed={"x": x}, fetch_list=[out])
    _check(key, x, got)


def test_paddle_values():
    names = ["sin", "cos", "tan", "sinh", "cosh", "log1p", "expm1", "trunc", "round", "frac",
             "neg", "rsqrt"]
    x = np.array([-2.5, -0.5, 0.0, 0.5, 1.5, 2.5, 0.49999999999999994])
    got = dict(zip(names, run(lambda v: [getattr(um, n)(v["x"]) for n in names], {"x": x})))
    # Paddle 3.3.1 dygraph, float64
    want = {
        "sin": [-0.5984721441039564, -0.479425538604203, 0.0, 0.479425538604203,
                0.9974949866040544, 0.5984721441039564, 0.47942553860420295],
        "cos": [-0.8011436155469337, 0.8775825618903728, 1.0, 0.8775825618903728,
                0.0707372016677029, -0.8011436155469337, 0.8775825618903728],
        "tan": [0.7470222972386603, -0.5463024898437905, 0.0, 0.5463024898437905,
                14.101419947171719, -0.7470222972386603, 0.5463024898437905],
        "sinh": [-6.0502044810397875, -0.5210953054937474, 0.0, 0.5210953054937474,
                 2.1292794550948173, 6.0502044810397875, 0.5210953054937473],
        "cosh": [6.132289479663686, 1.1276259652063807, 1.0, 1.1276259652063807,
                 2.352409615243247, 6.132289479663686, 1.1276259652063807],
        "log1p": [NAN, -0.6931471805599453, 0.0, 0.4054651081081644, 0.9162907318741551,
                  1.252762968495368, 0.40546510810816433],
        "expm1": [-0.9179150013761013, -0.3934693402873666, 0.0, 0.6487212707001282,
                  3.481689070338065, 11.182493960703473, 0.6487212707001281],
        "rsqrt": [NAN, NAN, INF, 1.414213562373095, 0.8164965809277261, 0.6324555320336759,
                  1.4142135623730951],
    }
    for n, w in want.items():
        np.testing.assert_allclose(got[n], w, rtol=1e-14, atol=0, err_msg=n)
    # exact: Paddle 3.3.1's round is rint (halves to even), trunc and frac keep -0.0
    assert got["trunc"].tolist() == [-2.0, -0.0, 0.0, 0.0, 1.0, 2.0, 0.0]
    assert got["round"].tolist() == [-2.0, -0.0, 0.0, 0.0, 2.0, 2.0, 0.0]
    assert np.signbit(got["round"]).tolist() == [True, True, False, False, False, False, False]
    assert got["frac"].tolist() == [-0.5, -0.5, 0.0, 0.5, 0.5, 0.5, 0.49999999999999994]
    assert got["neg"].tolist() == [2.5, 0.5, -0.0, -0.5, -1.5, -2.5, -0.49999999999999994]

    z = np.array([-0.5, 0.0, 0.3, 0.9, 1.5, 3.0, 1e10])
    asinh, acosh, atanh = run(lambda v: [um.asinh(v["z"]), um.acosh(v["z"]), um.atanh(v["z"])],
                              {"z": z})
    # Paddle 3.3.1 dygraph, float64
    for got_, want_ in (
            (asinh, [-0.48121182505960347, 0.0, 0.29567304756342244, 0.8088669356527824,
                     1.1947632172871094, 1.8184464592320668, 23.7189981105004]),
            (acosh, [NAN, NAN, NAN, NAN, 0.9624236501192069, 1.762747174039086,
                     23.7189981105004]),
            (atanh, [-0.5493061443340548, 0.0, 0.30951960420311175, 1.4722194895832204, NAN,
                     NAN, NAN])):
        np.testing.assert_allclose(got_, want_, rtol=1e-14, atol=0)

    w = np.array([-1.0, -0.5, 0.0, 0.3, 0.9, 1.0, 1.5, 1e10])
    asin, acos, atan = run(lambda v: [um.asin(v["w"]), um.acos(v["w"]), um.atan(v["w"])],
                           {"w": w})
    # Paddle 3.3.1 dygraph, float64
    for got_, want_ in (
            (asin, [-1.5707963267948966, -0.5235987755982989, 0.0, 0.3046926540153975,
                    1.1197695149986342, 1.5707963267948966, NAN, NAN]),
            (acos, [3.141592653589793, 2.0943951023931957, 1.5707963267948966,
                    1.2661036727794992, 0.45102681179626236, 0.0, NAN, NAN]),
            (atan, [-0.7853981633974483, -0.4636476090008061, 0.0, 0.2914567944778671,
                    0.7328151017865066, 0.7853981633974483, 0.982793723247329,
                    1.5707963266948965])):
        np.testing.assert_allclose(got_, want_, rtol=1e-14, atol=0)

    y = np.array([1.0, 2.0, 10.0, 0.3], "float32")
    l2, l10 = run(lambda v: [um.log2(v["y"]), um.log10(v["y"])], {"y": y})
    # Paddle 3.3.1 dygraph, float32
    np.testing.assert_allclose(l2, [0.0, 1.0, 3.321928024291992, -1.736965537071228], rtol=1e-6)
    np.testing.assert_allclose(l10, [0.0, 0.3010300099849701, 1.0, -0.5228787064552307],
                               rtol=1e-6)


def test_integer_inputs_as_paddle():
    names = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
             "atanh", "log1p", "expm1", "log2", "log10", "rsqrt", "trunc", "round", "frac",
             "neg", "deg2rad", "rad2deg"]
    for dtype in ("int32", "int64"):
        x = np.array([1, 2, -3], dtype)
        got = dict(zip(names, run(lambda v: [getattr(um, n)(v["x"]) for n in names], {"x": x})))
        # Paddle 3.3.1 dygraph: float functions autocast to float32; rounding ones keep ints
        want = {
            "sin": [0.8414709568023682, 0.9092974066734314, -0.14112000167369843],
            "cos": [0.5403022766113281, -0.416146844625473, -0.9899924993515015],
            "tan": [1.5574077367782593, -2.185039758682251, 0.14254654943943024],
            "asin": [1.5707963705062866, NAN, NAN],
            "acos": [0.0, NAN, NAN],
            "atan": [0.7853981852531433, 1.1071487665176392, -1.249045729637146],
            "sinh": [1.175201177597046, 3.6268603801727295, -10.017874717712402],
            "cosh": [1.5430805683135986, 3.7621958255767822, 10.067662239074707],
            "asinh": [0.8813735842704773, 1.4436354637145996, -1.8184465169906616],
            "acosh": [0.0, 1.316957950592041, NAN],
            "atanh": [INF, NAN, NAN],
            "log1p": [0.6931471824645996, 1.0986123085021973, NAN],
            "expm1": [1.7182817459106445, 6.389056205749512, -0.9502129554748535],
            "log2": [0.0, 1.0, NAN],
            "log10": [0.0, 0.3010300099849701, NAN],
            "rsqrt": [1.0, 0.7071067690849304, NAN],
            "deg2rad": [0.01745329238474369, 0.03490658476948738, -0.05235987901687622],
            "rad2deg": [57.295780181884766, 114.59156036376953, -171.88734436035156],
        }
        for n, w in want.items():
            assert got[n].dtype == np.float32, n
            np.testing.assert_allclose(got[n], w, rtol=1e-6, atol=0, err_msg=n)
        for n, w in (("trunc", [1, 2, -3]), ("round", [1, 2, -3]), ("frac", [0, 0, 0]),
                     ("neg", [-1, -2, 3])):
            assert got[n].dtype == np.dtype(dtype) and got[n].tolist() == w, n


# --- gradients (float64, central differences) ---------------------------------------------------
R = np.random.default_rng(11)
_OFF_HALVES = R.uniform(0.05, 0.45, (2, 3)) + R.integers(-3, 3, (2, 3))
GRAD_CASES = {
    "sin": GradCase(lambda v: um.sin(v["x"]), {"x": R.uniform(-3, 3, (2, 3))}),
    "cos": GradCase(lambda v: um.cos(v["x"]), {"x": R.uniform(-3, 3, (2, 3))}),
    "tan": GradCase(lambda v: um.tan(v["x"]), {"x": R.uniform(-1.2, 1.2, (2, 3))}),
    "asin": GradCase(lambda v: um.asin(v["x"]), {"x": R.uniform(-0.8, 0.8, (2, 3))}),
    "acos": GradCase(lambda v: um.acos(v["x"]), {"x": R.uniform(-0.8, 0.8, (2, 3))}),
    "atan": GradCase(lambda v: um.atan(v["x"]), {"x": R.uniform(-3, 3, (2, 3))}),
    "sinh": GradCase(lambda v: um.sinh(v["x"]), {"x": R.uniform(-2, 2, (2, 3))}),
    "cosh": GradCase(lambda v: um.cosh(v["x"]), {"x": R.uniform(-2, 2, (2, 3))}),
    "asinh": GradCase(lambda v: um.asinh(v["x"]), {"x": R.uniform(-2, 2, (2, 3))}),
    "acosh": GradCase(lambda v: um.acosh(v["x"]), {"x": R.uniform(1.2, 3, (2, 3))}),
    "atanh": GradCase(lambda v: um.atanh(v["x"]), {"x": R.uniform(-0.8, 0.8, (2, 3))}),
    "log1p": GradCase(lambda v: um.log1p(v["x"]), {"x": R.uniform(-0.5, 2, (2, 3))}),
    "expm1": GradCase(lambda v: um.expm1(v["x"]), {"x": R.uniform(-2, 2, (2, 3))}),
    "log2": GradCase(lambda v: um.log2(v["x"]), {"x": R.uniform(0.3, 3, (2, 3))}),
    "log10": GradCase(lambda v: um.log10(v["x"]), {"x": R.uniform(0.3, 3, (2, 3))}),
    "rsqrt": GradCase(lambda v: um.rsqrt(v["x"]), {"x": R.uniform(0.3, 3, (2, 3))}),
    # off the integers and halves, the rounding functions are flat and frac has slope 1
    "trunc": GradCase(lambda v: um.trunc(v["x"]), {"x": _OFF_HALVES}),
    "round": GradCase(lambda v: um.round(v["x"]), {"x": _OFF_HALVES}),
    "frac": GradCase(lambda v: um.frac(v["x"]), {"x": _OFF_HALVES}),
    "neg": GradCase(lambda v: um.neg(v["x"]), {"x": R.uniform(-2, 2, (2, 3))}),
    "deg2rad": GradCase(lambda v: um.deg2rad(v["x"]), {"x": R.uniform(-90, 90, (2, 3))}),
    "rad2deg": GradCase(lambda v: um.rad2deg(v["x"]), {"x": R.uniform(-2, 2, (2, 3))}),
}


@pytest.mark.parametrize("key", sorted(GRAD_CASES))
def test_gradients_match_finite_differences(key):
    run_grad_check(GRAD_CASES[key], key)


# --- dygraph -------------------------------------------------------------------------------------
def test_dygraph_results_and_paddle_grads():
    paddle.disable_static()
    try:
        x = np.array(SPECIAL)
        for key in ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
                    "acosh", "atanh", "log1p", "expm1", "log2", "log10", "trunc", "round",
                    "frac", "neg"):
            _check(key, x, getattr(paddle, key)(paddle.to_tensor(x)).numpy())
        # Paddle 3.3.1 dygraph: the sum's gradient at [0.3, 0.7] (asin, acos, atan, asinh,
        # atanh: taken at [0.3, -0.7]; their derivatives are even)
        want = {
            "sin": [0.955336489125606, 0.7648421872844885],
            "cos": [-0.29552020666133955, -0.644217687237691],
            "tan": [1.095688915322547, 1.709449715863117],
            "asin": [1.0482848367219182, 1.4002800840280099],
            "acos": [-1.0482848367219182, -1.4002800840280099],
            "atan": [0.9174311926605504, 0.6711409395973155],
            "sinh": [1.0453385141288605, 1.255169005630943],
            "cosh": [0.3045202934471426, 0.7585837018395334],
            "log1p": [0.7692307692307692, 0.5882352941176471],
            "asinh": [0.9578262852211513, 0.8192319205190405],
            "atanh": [1.0989010989010988, 1.9607843137254901],
            "expm1": [1.3498588075760032, 2.013752707470476],
            "log2": [4.808983469629878, 2.060992915555662],
            "log10": [1.4476482730108395, 0.620420688433217],
            "trunc": [0.0, 0.0], "round": [0.0, 0.0], "neg": [-1.0, -1.0], "frac": [1.0, 1.0],
        }
        for key, w in want.items():
            v = paddle.to_tensor(np.array([0.3, 0.7]), stop_gradient=False)
            getattr(paddle, key)(v).sum().backward()
            np.testing.assert_allclose(v.grad.numpy(), w, rtol=1e-14, atol=0, err_msg=key)
        v = paddle.to_tensor(np.array([1.3, 2.7]), stop_gradient=False)
        paddle.acosh(v).sum().backward()
        # Paddle 3.3.1 dygraph
        np.testing.assert_allclose(v.grad.numpy(), [1.203858530857692, 0.39872611141444997],
                                   rtol=1e-14, atol=0)
    finally:
        paddle.enable_static()


def test_bad_input_types():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        b = paddle.static.data("b", [3], "bool")
        for fn in (um.sin, um.trunc, um.round, um.frac, um.deg2rad):
            with pytest.raises(TypeError):
                fn(b)
        with pytest.raises(TypeError):
            um.round(paddle.static.data("x", [3], "float32"), decimals=1.5)
