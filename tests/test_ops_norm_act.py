"""layer_norm (composite: lowered into reductions and pointwise ops) and the activations hard_swish,
swish, silu, clip: inference, references against torch, lowering and C runs against the
references, grads against finite differences; matmul_v2 batching; a transformer-ish block
(matmul_v2, layer_norm, gelu, softmax, transpose2, reshape2) through the C executor vs numpy."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import fluidc as fluid
from fluidc.frontend.errors import ShapeError
from fluidc.frontend.ops.registry import get_op_def

from op_harness import assert_same, one_op_program, reference_op, run_c
from ref_harness import _info, check_grad, check_run, infer, make_fwd, run_ops

RNG = np.random.default_rng(11)
PRIMITIVE = {"pointwise", "reduction", "extern", "view"}


# --- layer_norm --------------------------------------------------------------------------------

def test_layer_norm_infer():
    out = infer("layer_norm", {"X": [((-1, 8, 16), 5)], "Scale": [((16,), 5)],
                               "Bias": [((16,), 5)]}, {"begin_norm_axis": 2})
    assert out["Y"][0].shape == (-1, 8, 16) and out["Mean"][0].shape == (-1,)
    out = infer("layer_norm", {"X": [((4, 3, 5), 6)], "Scale": [((15,), 6)]})
    assert out["Variance"][0].shape == (4,) and out["Y"][0].dtype == 6
    with pytest.raises(ShapeError, match="layer_norm.*Scale"):
        infer("layer_norm", {"X": [((4, 3, 5), 5)], "Scale": [((5,), 5)]})
    with pytest.raises(ShapeError, match="begin_norm_axis"):
        infer("layer_norm", {"X": [((4, 3), 5)]}, {"begin_norm_axis": 2})


def _ln_inputs(shape, ax, scale=True, bias=True, dtype=np.float64):
    right = math.prod(shape[ax:])
    ins = {"X": RNG.standard_normal(shape).astype(dtype)}
    if scale:
        ins["Scale"] = RNG.uniform(0.5, 1.5, right).astype(dtype)
    if bias:
        ins["Bias"] = RNG.standard_normal(right).astype(dtype)
    return ins


@pytest.mark.parametrize("shape,ax,scale,bias", [((4, 6), 1, True, True),
                                                  ((2, 3, 8), 2, True, True),
                                                  ((2, 3, 4), 1, True, False),
                                                  ((3, 5), 1, False, True),
                                                  ((2, 3), 0, False, False)])
def test_layer_norm_reference_and_lowering(shape, ax, scale, bias):
    ins = _ln_inputs(shape, ax, scale, bias, np.float32)
    a = {"begin_norm_axis": ax, "epsilon": 1e-3}
    d = get_op_def("layer_norm")
    ref = d.reference({k: [v] for k, v in ins.items()}, d.complete_attrs(a))
    norm = tuple(shape[ax:])
    want = F.layer_norm(torch.from_numpy(ins["X"]), norm,
                        torch.from_numpy(ins["Scale"].reshape(norm)) if scale else None,
                        torch.from_numpy(ins["Bias"].reshape(norm)) if bias else None, 1e-3)
    np.testing.assert_allclose(ref["Y"][0], want.numpy(), rtol=1e-5, atol=1e-5)
    rows = ins["X"].reshape(math.prod(shape[:ax]), -1)
    np.testing.assert_allclose(ref["Mean"][0], rows.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ref["Variance"][0], rows.var(1), rtol=1e-5, atol=1e-6)
    fwd, env = make_fwd("layer_norm", ins, a)
    lowered = run_ops([fwd], env)
    for s in ("Y", "Mean", "Variance"):
        np.testing.assert_allclose(lowered[f"out_{s}"], ref[s][0], rtol=1e-5, atol=1e-5)
    infos = {n: _info(v) for n, v in env.items()}
    types = [op.type for op in d.lower(fwd, infos, lambda vi: f"t{len(infos)}")]
    assert "reduce_sum" in types and "rsqrt" in types
    assert all(get_op_def(t).kind in PRIMITIVE for t in types)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("shape,ax,scale,bias", [((3, 4), 1, True, True),
                                                  ((2, 2, 3), 2, True, True),
                                                  ((2, 3, 2), 1, False, True)])
def test_layer_norm_grad(lower, shape, ax, scale, bias):
    wrt = ["X"] + (["Scale"] if scale else []) + (["Bias"] if bias else [])
    check_grad("layer_norm", _ln_inputs(shape, ax, scale, bias), {"begin_norm_axis": ax},
               wrt, outs=("Y",), lower=lower, tol=1e-5)


def test_layer_norm_on_the_c_executor():
    ins = _ln_inputs((6, 5, 33), 2, dtype=np.float32)
    program, feed, names, desc = one_op_program("layer_norm", ins, {"begin_norm_axis": 2})
    fetch = [names[s] for s in ("Y", "Mean", "Variance")]
    want = reference_op(desc, feed)
    for n, g in zip(fetch, run_c(program, feed, fetch)):
        assert_same(g, want[n], n, tol=(1e-5, 1e-5))


# --- activations -------------------------------------------------------------------------------

def _torch_act(op, x, a):
    t = torch.from_numpy(x)
    if op == "hard_swish":
        return (t * torch.clamp(t + a.get("offset", 3.0), 0, a.get("threshold", 6.0))
                / a.get("scale", 6.0)).numpy()
    if op == "swish":
        return (t * torch.sigmoid(a.get("beta", 1.0) * t)).numpy()
    if op == "silu":
        return F.silu(t).numpy()
    return torch.clamp(t, a["min"], a["max"]).numpy()


ACTS = [("hard_swish", {}), ("hard_swish", {"threshold": 4.0, "scale": 5.0, "offset": 2.0}),
        ("swish", {}), ("swish", {"beta": 1.7}), ("silu", {}), ("clip", {"min": -0.5, "max": 0.8})]


@pytest.mark.parametrize("op,a", ACTS)
def test_activation_reference_grad_and_c(op, a):
    assert infer(op, {"X": [((-1, 7), 5)]}, a)["Out"][0].shape == (-1, 7)
    x = RNG.uniform(-7, 7, (5, 9)).astype(np.float32)
    d = get_op_def(op)
    got = d.reference({"X": [x]}, d.complete_attrs(a))["Out"][0]
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, _torch_act(op, x, a), rtol=1e-5, atol=1e-6)
    if op == "hard_swish" and not a:
        np.testing.assert_allclose(got, F.hardswish(torch.from_numpy(x)).numpy(), rtol=1e-5,
                                   atol=1e-6)
    # grads away from the kinks (hard_swish at -offset and threshold - offset, clip's bounds)
    xs = RNG.uniform(-6, 6, (4, 5))
    kinks = [-a.get("offset", 3.0), a.get("threshold", 6.0) - a.get("offset", 3.0),
             a.get("min", 99), a.get("max", 99)]
    for k in kinks:
        xs[np.abs(xs - k) < 1e-3] += 0.01
    check_grad(op, {"X": xs}, a, ["X"])
    for dt in ("float32", "float64"):
        program, feed, names, desc = one_op_program(op, {"X": x.astype(dt)}, a)
        got_c = run_c(program, feed, [names["Out"]])[0]
        assert_same(got_c, reference_op(desc, feed)[names["Out"]], f"{op} {dt}")


def test_clip_min_max_tensors():
    x = RNG.uniform(-3, 3, (4, 6))
    lo, hi = np.array([-1.0]), np.array([0.5])
    ins = {"X": [x], "Min": [lo], "Max": [hi]}
    got = get_op_def("clip").reference(ins, get_op_def("clip").complete_attrs({"min": -9.0}))
    np.testing.assert_allclose(got["Out"][0], np.clip(x, -1.0, 0.5))
    program, feed, names, desc = one_op_program("clip", {"X": x, "Min": lo, "Max": hi})
    np.testing.assert_allclose(run_c(program, feed, [names["Out"]])[0], np.clip(x, -1.0, 0.5))
    for k in (-1.0, 0.5):  # away from the kinks
        x[np.abs(x - k) < 1e-3] += 0.01
    check_grad("clip", {"X": x, "Min": lo, "Max": hi}, {}, ["X"])


def test_clip_keeps_nan():
    d = get_op_def("clip")
    got = d.reference({"X": [np.array([np.nan, 5.0, -5.0])]}, d.complete_attrs({"min": -1.0,
                                                                               "max": 1.0}))
    np.testing.assert_array_equal(got["Out"][0], [np.nan, 1.0, -1.0])


# --- matmul_v2 batching (defined in tensor.py; the transformer block needs it) ----------------

@pytest.mark.parametrize("xs,ys,tx,ty", [((2, 3, 4, 5), (5, 6), False, False),
                                         ((2, 1, 4, 5), (3, 6, 5), False, True),
                                         ((2, 3, 5, 4), (2, 3, 5, 6), True, False),
                                         ((4, 5), (2, 3, 5, 6), False, False)])
def test_matmul_v2_batched(xs, ys, tx, ty):
    x, y = RNG.standard_normal(xs), RNG.standard_normal(ys)
    a = {"trans_x": tx, "trans_y": ty}
    got = check_run("matmul_v2", {"X": [x], "Y": [y]}, a, rtol=1e-10, atol=1e-10)["Out"][0]
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    want = torch.matmul(xt.transpose(-1, -2) if tx else xt, yt.transpose(-1, -2) if ty else yt)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-10)
    check_grad("matmul_v2", {"X": x, "Y": y}, a, ["X", "Y"])


# --- a transformer-ish block end to end --------------------------------------------------------

def _np_block(x, p, heads):
    def ln(v, g, b):
        m, var = v.mean(-1, keepdims=True), v.var(-1, keepdims=True)
        return (v - m) / np.sqrt(var + 1e-5) * g + b
    bsz, seq, hid = x.shape
    qkv = x @ p["w_qkv"]
    q, k, v = (qkv[..., i * hid:(i + 1) * hid].reshape(bsz, seq, heads, -1).transpose(0, 2, 1, 3)
               for i in range(3))
    s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hid // heads)
    e = np.exp(s - s.max(-1, keepdims=True))
    att = (e / e.sum(-1, keepdims=True)) @ v
    h = ln(x + att.transpose(0, 2, 1, 3).reshape(bsz, seq, hid), p["ln1_g"], p["ln1_b"])
    f = h @ p["w1"]
    f = 0.5 * f * (1 + np.vectorize(math.erf)(f / math.sqrt(2)))
    return ln(h + f @ p["w2"], p["ln2_g"], p["ln2_b"])


def test_transformer_block_end_to_end():
    bsz, seq, hid, heads = 2, 5, 8, 2
    L = fluid.layers
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [-1, seq, hid])
        names = {}

        def param(name, shape):
            names[name] = shape
            return fluid.layers.create_parameter(shape, "float32", name=name)
        qkv = fluid.matmul(x, param("w_qkv", [hid, 3 * hid]))
        q, k, v = L.split(qkv, 3, dim=-1)
        q, k, v = (L.transpose(L.reshape(t, [0, 0, heads, hid // heads]), [0, 2, 1, 3])
                   for t in (q, k, v))
        s = L.scale(fluid.matmul(q, k, transpose_y=True), 1 / math.sqrt(hid // heads))
        att = fluid.matmul(L.softmax(s), v)
        att = L.reshape(L.transpose(att, [0, 2, 1, 3]), [0, 0, hid])
        h = L.layer_norm(L.elementwise_add(x, att), begin_norm_axis=2,
                         param_attr=fluid.ParamAttr(name="ln1_g"),
                         bias_attr=fluid.ParamAttr(name="ln1_b"))
        f = fluid.matmul(L.gelu(fluid.matmul(h, param("w1", [hid, 16]))), param("w2", [16, hid]))
        y = L.layer_norm(L.elementwise_add(h, f), begin_norm_axis=2,
                         param_attr=fluid.ParamAttr(name="ln2_g"),
                         bias_attr=fluid.ParamAttr(name="ln2_b"))
    types = {op.type for op in main.global_block().ops}
    assert {"matmul_v2", "layer_norm", "gelu", "softmax", "transpose2", "reshape2",
            "split"} <= types
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    scope = fluid.global_scope()
    params = {}
    for n, shape in {**names, "ln1_g": [hid], "ln1_b": [hid], "ln2_g": [hid],
                     "ln2_b": [hid]}.items():
        params[n] = (RNG.standard_normal(shape) / 2).astype(np.float32)
        scope.var(n).get_tensor().set(params[n], fluid.CPUPlace())
    xv = RNG.standard_normal((bsz, seq, hid)).astype(np.float32)
    got, = exe.run(main, feed={"x": xv}, fetch_list=[y])
    np.testing.assert_allclose(got, _np_block(xv.astype(np.float64),
                                              {k: v.astype(np.float64) for k, v in params.items()},
                                              heads), rtol=1e-4, atol=1e-4)
