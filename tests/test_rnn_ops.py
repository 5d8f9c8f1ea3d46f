"""lstm, gru and gru_unit (frontend/ops/rnn.py) and their layers (frontend/layers/rnn.py).

- Paddle's numbers: tests/fixtures/make_rnn_fixtures.py ran each op in real Paddle 3.3.1 (legacy
  static programs); fluidc's compiled run matches every output (Batch* included) and every
  input gradient at rtol 1e-5 (float32) / 1e-10 (float64).
- Paddle's test_lstm_op.py / test_gru_op.py / test_gru_unit_op.py: their numpy references and
  cases, ported (outputs at their atol 1e-8; their gradient checks use OpTest's relative error
  with their max_relative_error, 5e-4 for lstm and 0.005 otherwise, against central finite
  differences — with D cut to 5 for gru, whose D = 40 makes finite differences slow).
- The torch run (extern) against the numpy reference over random LoDs, attributes and dtypes.
- The layers: parameters, attributes, errors of Paddle's types, training, and a saved Paddle
  inference model holding lstm and gru.
"""
import json
import math
import os

import numpy as np
import pytest
import torch

import fluidc as fluid
from fluidc.frontend.dtypes import VarType
from fluidc.frontend.errors import OpError, ShapeError
from fluidc.frontend.ops import VarInfo, get_op_def
from fluidc.frontend.ops.registry import LOD_ATTR

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "paddle")
with np.load(os.path.join(FIXTURES, "rnn.npz")) as _f:
    PADDLE = {k: _f[k] for k in _f.files}
CASES = sorted({k.split("/")[0] for k in PADDLE})
RNG = np.random.default_rng(17)


def _offsets(lengths):
    return tuple(int(v) for v in np.concatenate([[0], np.cumsum(lengths)]))


def _attrs(op, attrs, lengths=None):
    a = get_op_def(op).complete_attrs(attrs)
    if lengths is not None:
        a[LOD_ATTR] = {"Input": [(_offsets(lengths),)]}
    return a


def _grad_op(op):
    return {"lstm": "lstm_grad", "gru": "gru_grad", "gru_unit": "gru_unit_grad"}[op]


# --- Paddle's numbers ------------------------------------------------------------------------

def _case(case):
    prefix = f"{case}/"
    part = {k[len(prefix):]: v for k, v in PADDLE.items() if k.startswith(prefix)}
    sub = lambda p: {k[len(p):]: v for k, v in part.items() if k.startswith(p)}  # noqa: E731
    lengths = part["lod"].tolist() if "lod" in part else None
    return (str(part["op"]), json.loads(str(part["attrs"])), lengths, sub("in/"), sub("out/"),
            part["dout"], sub("grad/"))


def _run_program(op, attrs, lengths, ins, dout):
    """One op in a fluidc program built like the fixture's; its outputs and input grads."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        block = main.global_block()
        vars_ = {}
        for slot, value in ins.items():
            rows = list(value.shape[:1]) if slot in ("Weight", "Bias") else [-1]
            v = fluid.data(slot.lower(), rows + list(value.shape[1:]), str(value.dtype),
                           lod_level=1 if slot == "Input" and lengths is not None else 0)
            v.stop_gradient = False
            vars_[slot] = v
        dtype = str(ins["Input"].dtype)
        outs = {s.name: block.create_var(name=f"out.{s.name}", dtype=dtype)
                for s in get_op_def(op).outputs}
        block.append_op(op, {k: [v] for k, v in vars_.items()},
                        {k: [v] for k, v in outs.items()}, attrs)
        g = fluid.data("dout", [-1, dout.shape[1]], dtype)
        grads = fluid.gradients([outs["Hidden"]], list(vars_.values()), target_gradients=[g])
    feed = {slot.lower(): fluid.create_lod_tensor(v, [lengths], fluid.CPUPlace())
            if slot == "Input" and lengths is not None else v for slot, v in ins.items()}
    feed["dout"] = dout
    exe = fluid.Executor(fluid.CPUPlace())
    got = [np.asarray(t) for t in  # LoD results: fetched as tensors, as Paddle requires
           exe.run(main, feed=feed, fetch_list=list(outs.values()) + grads, return_numpy=False)]
    return dict(zip(outs, got[:len(outs)])), dict(zip(vars_, got[len(outs):]))


def _tol(dtype):
    return {"rtol": 1e-5, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-10,
                                                                     "atol": 1e-12}


@pytest.mark.parametrize("case", CASES)
def test_matches_paddle(case):
    op, attrs, lengths, ins, outs, dout, grads = _case(case)
    got, got_grads = _run_program(op, attrs, lengths, ins, dout)
    tol = _tol(ins["Input"].dtype)
    assert set(got) == set(outs)
    for slot, want in outs.items():
        np.testing.assert_allclose(got[slot], want, err_msg=f"{case} {slot}", **tol)
    assert set(got_grads) == set(grads)
    for slot, want in grads.items():
        np.testing.assert_allclose(got_grads[slot], want, err_msg=f"{case} {slot}@GRAD", **tol)


@pytest.mark.parametrize("case", CASES)
def test_reference_matches_paddle(case):
    op, attrs, lengths, ins, outs, dout, grads = _case(case)
    a = _attrs(op, attrs, lengths)
    ref = get_op_def(op).reference({k: [v] for k, v in ins.items()}, a)
    tol = _tol(ins["Input"].dtype)
    for slot, want in outs.items():
        np.testing.assert_allclose(ref[slot][0], want, err_msg=slot, **tol)
    gins = {**{k: [v] for k, v in ins.items()}, **{k: [v] for k, v in outs.items()},
            "Hidden@GRAD": [dout]}
    gref = get_op_def(_grad_op(op)).reference(gins, a)
    for slot, want in grads.items():
        np.testing.assert_allclose(gref[slot + "@GRAD"][0], want, err_msg=slot, **tol)


# --- Paddle's numpy references (test_lstm_op.py, test_gru_op.py, test_gru_unit_op.py) ---------

def _p_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.clip(x, -40.0, 13.0)))


def _p_tanh(x):
    return 2.0 / (1.0 + np.exp(np.minimum(-2.0 * x, 40.0))) - 1.0


P_ACTS = {"identity": lambda x: x, "sigmoid": _p_sigmoid, "tanh": _p_tanh,
          "relu": lambda x: np.maximum(x, 0)}


def paddle_lstm(x, lod, h0, c0, w_h, w_b, w_c, is_reverse, act_gate, act_cell, act_cand):
    """test_lstm_op.py's lstm(): sequence by sequence, step by step."""
    offset = _offsets(lod[0])
    d = w_h.shape[0]

    def rev(a):
        out = a.copy()
        for b, e in zip(offset, offset[1:]):
            out[b:e] = a[b:e][::-1]
        return out
    xs = (rev(x) if is_reverse else x) + w_b
    hidden, cell = np.zeros((len(x), d)), np.zeros((len(x), d))
    for i, (b, e) in enumerate(zip(offset, offset[1:])):
        h, c = h0[i], c0[i]
        for t in range(b, e):
            g = xs[t] + h @ w_h
            cand, gi, gf, go = np.split(g, 4)
            if w_c is not None:
                gi, gf = gi + w_c[0, :d] * c, gf + w_c[0, d:2 * d] * c
            c = act_gate(gf) * c + act_gate(gi) * act_cand(cand)
            go = go + (w_c[0, 2 * d:] * c if w_c is not None else 0)
            h = act_gate(go) * act_cell(c)
            hidden[t], cell[t] = h, c
    return (rev(hidden), rev(cell)) if is_reverse else (hidden, cell)


def paddle_gru(x, lod, h0, w, b, is_reverse, act_state, act_gate, origin_mode):
    """test_gru_op.py's gru(): sequence by sequence here (the outputs in Input order)."""
    d = w.shape[0]
    w_ur, w_c = w.flatten()[:2 * d * d].reshape(d, 2 * d), w.flatten()[2 * d * d:].reshape(d, d)
    hidden = np.zeros((len(x), d))
    offset = _offsets(lod[0])
    for i, (s, e) in enumerate(zip(offset, offset[1:])):
        h = h0[i]
        for t in (range(e - 1, s - 1, -1) if is_reverse else range(s, e)):
            g = x[t] + b[0]
            ur = act_gate(h @ w_ur + g[:2 * d])
            u, r = ur[:d], ur[d:]
            c = act_state((r * h) @ w_c + g[2 * d:])
            h = (1 - u) * c + u * h if origin_mode else u * c + (1 - u) * h
            hidden[t] = h
    return hidden


def paddle_gru_unit(x, h_p, w, b, act, act_gate, origin_mode):
    """test_gru_unit_op.py's set_outputs: (Gate, ResetHiddenPrev, Hidden)."""
    d = w.shape[0]
    g = x + b
    u_r = act_gate(h_p @ w.flatten()[:2 * d * d].reshape(d, 2 * d) + g[:, :2 * d])
    u, r = u_r[:, :d], u_r[:, d:]
    c = act((r * h_p) @ w.flatten()[2 * d * d:].reshape(d, d) + g[:, 2 * d:])
    h = (1 - u) * c + u * h_p if origin_mode else u * c + (1 - u) * h_p
    return np.hstack([u_r, c]), r * h_p, h


def _hidden_loss(op, a, ins, dout):
    return float((get_op_def(op).reference({k: [v] for k, v in ins.items()}, a)["Hidden"][0]
                  * dout).sum())


def check_grad_fd(op, a, ins, wrt, max_relative_error, eps=1e-6):
    """OpTest.check_grad's comparison: central differences of sum(Hidden * dout) against the
    grad op, |analytic - numeric| / max(|numeric|, 1e-3 -> 1) <= max_relative_error."""
    ref = get_op_def(op).reference({k: [v] for k, v in ins.items()}, a)
    dout = RNG.standard_normal(ref["Hidden"][0].shape)
    gins = {**{k: [v] for k, v in ins.items()}, **ref, "Hidden@GRAD": [dout]}
    grads = get_op_def(_grad_op(op)).reference(gins, a)
    for slot in wrt:
        num = np.zeros_like(ins[slot])
        for i in np.ndindex(num.shape):
            p = {**ins, slot: ins[slot].copy()}
            p[slot][i] += eps
            m = {**ins, slot: ins[slot].copy()}
            m[slot][i] -= eps
            num[i] = (_hidden_loss(op, a, p, dout) - _hidden_loss(op, a, m, dout)) / (2 * eps)
        scale = np.abs(num)
        scale[scale < 1e-3] = 1
        diff = np.abs(grads[slot + "@GRAD"][0] - num) / scale
        assert diff.max() <= max_relative_error, (slot, diff.max())


LSTM_CASES = {"TestLstmOp": [[2, 3, 2]], "TestLstmOpCase1": [[0, 3, 2]],
              "TestLstmOpCase2": [[0, 3, 0]], "TestLstmOpCase3": [[2, 0, 4]]}


@pytest.mark.parametrize("name", sorted(LSTM_CASES))
@pytest.mark.parametrize("is_test", [False, True])
def test_paddle_lstm_op_cases(name, is_test):
    lod, d = LSTM_CASES[name], 16
    t, n = sum(lod[0]), len(lod[0])
    x = RNG.normal(size=(t, 4 * d))
    h0 = c0 = np.zeros((n, d))
    w = RNG.normal(size=(d, 4 * d))
    b = RNG.normal(size=(1, 7 * d))
    h, c = paddle_lstm(x, lod, h0, c0, w, b[:, :4 * d], b[:, 4 * d:], False, _p_sigmoid,
                       _p_tanh, _p_tanh)
    a = _attrs("lstm", {"is_test": is_test}, lod[0])
    got = get_op_def("lstm").reference({"Input": [x], "Weight": [w], "Bias": [b]}, a)
    np.testing.assert_allclose(got["Hidden"][0], h, atol=1e-8, rtol=0)
    np.testing.assert_allclose(got["Cell"][0], c, atol=1e-8, rtol=0)
    if not is_test:  # TestLstmOpInference skips the gradient check
        small = {"Input": RNG.normal(size=(t, 16)),
                 "Weight": RNG.normal(size=(4, 16)), "Bias": RNG.normal(size=(1, 28))}
        check_grad_fd("lstm", a, small, ["Input", "Weight", "Bias"], 5e-4)


@pytest.mark.parametrize("is_reverse,use_peepholes,acts", [
    (True, True, ("sigmoid", "tanh", "tanh")), (True, False, ("sigmoid", "tanh", "tanh")),
    (False, True, ("tanh", "relu", "identity"))])
def test_paddle_lstm_reference_more_attrs(is_reverse, use_peepholes, acts):
    """Paddle's commented-out cases (reverse, no peepholes, initial state) and other
    activations, against the same numpy reference, gradients of every input included."""
    lod, d = [[2, 3, 1]], 4
    t, n = sum(lod[0]), len(lod[0])
    x, w = RNG.normal(size=(t, 4 * d)), RNG.normal(size=(d, 4 * d)) * 0.5
    b = RNG.normal(size=(1, (7 if use_peepholes else 4) * d))
    h0, c0 = RNG.normal(size=(n, d)), RNG.normal(size=(n, d))
    h, c = paddle_lstm(x, lod, h0, c0, w, b[:, :4 * d], b[:, 4 * d:] if use_peepholes else None,
                       is_reverse, *(P_ACTS[k] for k in acts))
    attrs = {"is_reverse": is_reverse, "use_peepholes": use_peepholes,
             **dict(zip(("gate_activation", "cell_activation", "candidate_activation"), acts))}
    a = _attrs("lstm", attrs, lod[0])
    ins = {"Input": x, "Weight": w, "Bias": b, "H0": h0, "C0": c0}
    got = get_op_def("lstm").reference({k: [v] for k, v in ins.items()}, a)
    np.testing.assert_allclose(got["Hidden"][0], h, atol=1e-8, rtol=0)
    np.testing.assert_allclose(got["Cell"][0], c, atol=1e-8, rtol=0)
    x[np.abs(x) < 0.05] += 0.1  # keep relu's kink away from finite differences
    check_grad_fd("lstm", a, ins, list(ins), 5e-4)


GRU_CASES = {  # name: (lod, origin_mode, is_reverse, with_h0, with_bias)
    "TestGRUOp": ([[2, 4, 3]], False, False, True, True),
    "TestGRUOriginMode": ([[2, 4, 3]], True, False, True, True),
    "TestGRUOp2Len0": ([[2, 0, 4]], False, False, True, True),
    "TestGRUOp2OriginModeLen0": ([[0, 3, 4]], True, False, True, True),
    "TestGRUOp2OriginModeLastLen0": ([[0, 3, 0]], True, False, True, True),
    "TestGRUOpNoInitial": ([[2, 4, 3]], False, False, False, True),
    "TestGRUOpNoBias": ([[2, 4, 3]], False, False, True, False),
    "TestGRUOpReverse": ([[2, 4, 3]], False, True, True, True),
    "TestGRUOpReverseOriginMode": ([[2, 4, 3]], True, True, True, True),
}


def _gru_inputs(lod, d, with_h0, with_bias):
    t, n = sum(lod[0]), len(lod[0])
    ins = {"Input": RNG.random((t, 3 * d)), "Weight": RNG.random((d, 3 * d))}
    b = RNG.random((1, 3 * d)) if with_bias else np.zeros((1, 3 * d))
    h0 = RNG.random((n, d)) if with_h0 else np.zeros((n, d))
    if with_bias:
        ins["Bias"] = b
    if with_h0:
        ins["H0"] = h0
    return ins, b, h0


@pytest.mark.parametrize("name", sorted(GRU_CASES))
def test_paddle_gru_op_cases(name):
    lod, origin, reverse, with_h0, with_bias = GRU_CASES[name]
    attrs = {"origin_mode": origin, "is_reverse": reverse}
    a = _attrs("gru", attrs, lod[0])
    ins, b, h0 = _gru_inputs(lod, 40, with_h0, with_bias)
    want = paddle_gru(ins["Input"], lod, h0, ins["Weight"], b, reverse, _p_tanh, _p_sigmoid,
                      origin)
    got = get_op_def("gru").reference({k: [v] for k, v in ins.items()}, a)["Hidden"][0]
    np.testing.assert_allclose(got, want, atol=1e-8, rtol=0)
    small, _, _ = _gru_inputs(lod, 5, with_h0, with_bias)
    check_grad_fd("gru", a, small, list(small), 0.005)


@pytest.mark.parametrize("origin_mode", [False, True])
@pytest.mark.parametrize("with_bias", [False, True])
def test_paddle_gru_unit_op_cases(origin_mode, with_bias):
    batch, d = 5, 40
    ins = {"Input": RNG.uniform(-0.1, 0.1, (batch, 3 * d)),
           "HiddenPrev": RNG.uniform(-0.1, 0.1, (batch, d)),
           "Weight": RNG.uniform(-d ** -0.5, d ** -0.5, (d, 3 * d))}
    act = 0 if with_bias else 2  # TestGRUUnitOpWithBias uses identity
    b = np.zeros((1, 3 * d))
    if with_bias:
        ins["Bias"] = b = RNG.uniform(-0.1, 0.1, (1, 3 * d))
    a = _attrs("gru_unit", {"activation": act, "gate_activation": 1,
                            "origin_mode": origin_mode})
    plain = {0: lambda x: x, 2: np.tanh}[act]
    want = paddle_gru_unit(ins["Input"], ins["HiddenPrev"], ins["Weight"], b, plain,
                           lambda x: 1 / (1 + np.exp(-x)), origin_mode)
    got = get_op_def("gru_unit").reference({k: [v] for k, v in ins.items()}, a)
    for slot, w in zip(("Gate", "ResetHiddenPrev", "Hidden"), want):
        np.testing.assert_allclose(got[slot][0], w, atol=1e-8, rtol=0)
    d = 4
    small = {"Input": ins["Input"][:, :3 * d], "HiddenPrev": ins["HiddenPrev"][:, :d],
             "Weight": RNG.uniform(-0.5, 0.5, (d, 3 * d))}
    if with_bias:
        small["Bias"] = ins["Bias"][:, :3 * d]
    check_grad_fd("gru_unit", a, small, list(small), 0.005)


# --- the torch run against the numpy reference -----------------------------------------------

def _run_extern(op, ins, a):
    d = get_op_def(op)
    ref = d.reference({k: [v] for k, v in ins.items()}, a)
    outs = {k: [torch.full(v[0].shape, math.nan, dtype=torch.from_numpy(v[0]).dtype)]
            for k, v in ref.items()}
    d.run({k: [torch.from_numpy(v)] for k, v in ins.items()}, outs, a, None)
    return ref, {k: v[0].numpy() for k, v in outs.items()}


def _random_case(op, seed):
    rng = np.random.default_rng(seed)
    dtype = rng.choice([np.float32, np.float64])
    d = int(rng.integers(1, 6))
    lengths = rng.integers(0, 5, int(rng.integers(1, 6))).tolist()
    t, n = sum(lengths), len(lengths)
    acts = ["identity", "sigmoid", "tanh", "relu"]
    if op == "lstm":
        peep = bool(rng.integers(2))
        attrs = {"use_peepholes": peep, "is_reverse": bool(rng.integers(2)),
                 **{k: str(rng.choice(acts)) for k in ("gate_activation", "cell_activation",
                                                       "candidate_activation")}}
        ins = {"Input": rng.normal(size=(t, 4 * d)), "Weight": rng.normal(size=(d, 4 * d)),
               "Bias": rng.normal(size=(1, (7 if peep else 4) * d))}
        if rng.integers(2):
            ins["C0"] = rng.normal(size=(n, d))
            if rng.integers(2):
                ins["H0"] = rng.normal(size=(n, d))
    elif op == "gru":
        attrs = {"is_reverse": bool(rng.integers(2)), "origin_mode": bool(rng.integers(2)),
                 "activation": str(rng.choice(acts)), "gate_activation": str(rng.choice(acts))}
        ins = {"Input": rng.normal(size=(t, 3 * d)), "Weight": rng.normal(size=(d, 3 * d))}
        for slot, shape in (("H0", (n, d)), ("Bias", (1, 3 * d))):
            if rng.integers(2):
                ins[slot] = rng.normal(size=shape)
    else:
        lengths = None
        attrs = {"activation": int(rng.integers(4)), "gate_activation": int(rng.integers(4)),
                 "origin_mode": bool(rng.integers(2))}
        ins = {"Input": rng.normal(size=(n, 3 * d)), "HiddenPrev": rng.normal(size=(n, d)),
               "Weight": rng.normal(size=(d, 3 * d))}
        if rng.integers(2):
            ins["Bias"] = rng.normal(size=(1, 3 * d))
    return attrs, lengths, {k: v.astype(dtype) for k, v in ins.items()}


@pytest.mark.parametrize("op", ["lstm", "gru", "gru_unit"])
@pytest.mark.parametrize("seed", range(8))
def test_extern_run_matches_reference(op, seed):
    attrs, lengths, ins = _random_case(op, seed)
    a = _attrs(op, attrs, lengths)
    ref, got = _run_extern(op, ins, a)
    tol = _tol(ins["Input"].dtype)
    for slot in ref:
        assert ref[slot][0].dtype == ins["Input"].dtype, slot
        np.testing.assert_allclose(got[slot], ref[slot][0], err_msg=slot, **tol)
    dout = np.random.default_rng(seed).standard_normal(ref["Hidden"][0].shape)
    gins = {**ins, **{k: v[0] for k, v in ref.items()},
            "Hidden@GRAD": dout.astype(ins["Input"].dtype)}
    gref, ggot = _run_extern(_grad_op(op), gins, a)
    for slot in gref:
        if slot[:-len("@GRAD")] in ins:
            assert gref[slot][0].dtype == ins["Input"].dtype, slot
            np.testing.assert_allclose(ggot[slot], gref[slot][0], err_msg=slot, **tol)


def test_batch_order_is_longest_first_with_ties_in_input_order():
    from fluidc.frontend.ops.rnn import _schedule
    order, steps, rows = _schedule((0, 2, 2, 5, 7), False)
    assert order.tolist() == [2, 0, 3] and steps == (3, 3, 1)
    assert rows.tolist() == [2, 0, 5, 3, 1, 6, 4]
    assert _schedule((0, 2, 2, 5, 7), True)[2].tolist() == [4, 1, 6, 3, 0, 5, 2]


# --- layers ----------------------------------------------------------------------------------

def test_dynamic_lstm_layer_builds_paddles_op():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 12], "float32", lod_level=1)
        h, c = fluid.layers.dynamic_lstm(x, size=12, use_peepholes=True, is_reverse=True)
        h2, _ = fluid.layers.dynamic_lstm(x, size=12, use_peepholes=False)
    ops = [op for op in main.global_block().ops if op.type == "lstm"]
    assert [op.input("Bias")[0] for op in ops] and \
        [main.global_block().var(op.input("Bias")[0]).shape for op in ops] == [(1, 21), (1, 12)]
    assert main.global_block().var(ops[0].input("Weight")[0]).shape == (3, 12)
    assert sorted(ops[0].desc.outputs) == ["BatchCellPreAct", "BatchGate", "Cell", "Hidden"]
    assert ops[0].attr("is_reverse") and not ops[1].attr("use_peepholes")
    assert h.shape == (-1, 3) and c.shape == (-1, 3) and h.lod_level == 1


def test_gru_layers_build_paddles_ops():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 12], "float32", lod_level=1)
        h = fluid.layers.dynamic_gru(x, size=4, origin_mode=True, candidate_activation="relu")
        step = fluid.data("step", [-1, 12], "float32")
        prev = fluid.data("prev", [-1, 4], "float32")
        hidden, reset, gate = fluid.layers.gru_unit(step, prev, size=12, activation="relu")
    gru = next(op for op in main.global_block().ops if op.type == "gru")
    assert gru.attr("activation") == "relu" and gru.attr("origin_mode")
    assert sorted(gru.desc.outputs) == ["BatchGate", "BatchHidden", "BatchResetHiddenPrev",
                                        "Hidden"]
    unit = next(op for op in main.global_block().ops if op.type == "gru_unit")
    # Paddle's gru_unit layer checks its activation names but always asks for tanh/sigmoid
    assert (unit.attr("activation"), unit.attr("gate_activation")) == (2, 1)
    assert h.shape == (-1, 4) and hidden.shape == (-1, 4) and gate.shape == (-1, 12)


def test_layer_errors_have_paddles_types():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 12], "float32", lod_level=1)
        with pytest.raises(AssertionError, match="bias_attr"):
            fluid.layers.dynamic_lstm(x, size=12, bias_attr=False)
        with pytest.raises(TypeError, match="input"):
            fluid.layers.dynamic_gru(fluid.data("i", [-1, 12], "int64"), size=4)
        with pytest.raises(TypeError, match="h_0"):
            fluid.layers.dynamic_gru(x, size=4, h_0=np.zeros((2, 4)))
        with pytest.raises(OpError, match="gate_activation.*'softmax'"):
            fluid.layers.dynamic_lstm(x, size=12, gate_activation="softmax")
        with pytest.raises(ShapeError, match=r"Input must be \[-1, 12\]"):
            fluid.layers.dynamic_gru(fluid.data("y", [-1, 10], "float32", lod_level=1), size=4)
        with pytest.raises(KeyError):
            fluid.layers.gru_unit(x, fluid.data("p", [-1, 4], "float32"), 12,
                                  activation="softmax")
        h0 = fluid.data("h0", [-1, 3], "float32")
        with pytest.raises(RuntimeError, match="C0 is not"):
            fluid.layers.dynamic_lstm(x, size=12, h_0=h0)
        x64 = fluid.data("x64", [-1, 12], "float64", lod_level=1)
        with pytest.raises(OpError, match="Weight is float32 but Input is float64"):
            fluid.layers.dynamic_lstm(x64, size=12)  # its parameters take dtype='float32'


def test_lstm_needs_a_lod():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 8], "float32")
        h, _ = fluid.layers.dynamic_lstm(x, size=8)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    with pytest.raises(OpError, match="needs a LoD on input Input"):
        exe.run(main, feed={"x": np.ones((3, 8), "float32")}, fetch_list=[h])


def test_lstm_h0_rows_must_match_the_sequences():
    a = _attrs("lstm", {}, [2, 1])
    d = get_op_def("lstm")
    info = lambda shape: VarInfo(shape, VarType.FP32)  # noqa: E731
    with pytest.raises(ShapeError, match="one row per sequence"):
        d.infer({"Input": [info((3, 8))], "Weight": [info((2, 8))], "Bias": [info((1, 14))],
                 "H0": [info((3, 2))], "C0": [info((3, 2))]}, a)


def test_lstm_refuses_a_two_level_lod():
    a = {**_attrs("lstm", {}), LOD_ATTR: {"Input": [((0, 1, 2), (0, 2, 3))]}}
    info = lambda shape: VarInfo(shape, VarType.FP32)  # noqa: E731
    with pytest.raises(OpError, match="one-level LoD"):
        get_op_def("lstm").infer({"Input": [info((3, 8))], "Weight": [info((2, 8))],
                                  "Bias": [info((1, 14))]}, a)


@pytest.mark.parametrize("op", ["lstm", "gru"])
def test_all_sequences_empty(op):
    k = 4 if op == "lstm" else 3
    ins = {"Input": np.zeros((0, k * 2)), "Weight": RNG.normal(size=(2, k * 2)),
           "Bias": RNG.normal(size=(1, (7 if op == "lstm" else 3) * 2)),
           "H0": RNG.normal(size=(2, 2))}
    if op == "lstm":
        ins["C0"] = RNG.normal(size=(2, 2))
    a = _attrs(op, {}, [0, 0])
    ref, got = _run_extern(op, ins, a)
    assert got["Hidden"].shape == (0, 2)
    gins = {**ins, **{s: v[0] for s, v in ref.items()}, "Hidden@GRAD": np.zeros((0, 2))}
    gref, ggot = _run_extern(_grad_op(op), gins, a)
    np.testing.assert_array_equal(ggot["Weight@GRAD"], np.zeros((2, k * 2)))
    np.testing.assert_array_equal(ggot["H0@GRAD"], np.zeros((2, 2)))


def _sentiment_net(words, label, vocab):
    emb = fluid.layers.embedding(words, size=[vocab, 8])
    fc = fluid.layers.fc(emb, size=16)
    lstm, _ = fluid.layers.dynamic_lstm(fc, size=16)
    gru = fluid.layers.dynamic_gru(fluid.layers.fc([fc, lstm], size=12), size=4,
                                   is_reverse=True)
    pooled = fluid.layers.sequence_pool(gru, "max")
    pred = fluid.layers.fc(pooled, size=2, act="softmax")
    return fluid.layers.mean(fluid.layers.cross_entropy(pred, label)), pred


def test_lstm_and_gru_train_a_classifier():
    rng = np.random.default_rng(1)
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup):
        words = fluid.data("words", [-1, 1], "int64", lod_level=1)
        label = fluid.data("label", [-1, 1], "int64")
        loss, _ = _sentiment_net(words, label, 10)
        fluid.optimizer.Adam(0.05).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    lengths = [3, 5, 2, 4, 1, 3]
    labels = rng.integers(0, 2, (6, 1))
    # class 1 sentences use words 5..9, class 0 words 0..4
    value = np.concatenate([rng.integers(0, 5, (n, 1)) + 5 * int(c)
                            for n, c in zip(lengths, labels[:, 0])]).astype(np.int64)
    feed = {"words": fluid.create_lod_tensor(value, [lengths], fluid.CPUPlace()),
            "label": labels.astype(np.int64)}
    losses = [float(exe.run(main, feed=feed, fetch_list=[loss])[0][0]) for _ in range(30)]
    assert losses[-1] < 0.1 * losses[0], losses


def test_paddle_saved_model_with_lstm_and_gru_loads_and_matches():
    folder = os.path.join(FIXTURES, "rnn_model")
    data = np.load(os.path.join(folder, "rnn_model.npz"))
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        program, feeds, fetches = fluid.static.load_inference_model(
            os.path.join(folder, "rnn"), exe)
        types = {op.type for op in program.global_block().ops}
        assert {"lstm", "gru"} <= types
        words = fluid.create_lod_tensor(data["words"], [data["lengths"].tolist()],
                                        fluid.CPUPlace())
        out, = exe.run(program, feed={feeds[0]: words}, fetch_list=fetches)
    np.testing.assert_allclose(out, data["out0"], rtol=1e-5, atol=1e-6)
