"""Paddle's `rnn` op: a stack of num_layers recurrent layers (RNN_TANH, RNN_RELU, LSTM or GRU),
each forward or bidirectional, over a padded time-major Input [T, B, I], and its grad `rnn_grad`.
paddle.nn.SimpleRNN / LSTM / GRU emit it (frontend/layers/api2/rnn.py), as Paddle's do.

Semantics of Paddle's CPU kernel (phi rnn_kernel.cc, rnn_functor.h):
- WeightList holds every weight, then every bias: [W_ih, W_hh] per (layer, direction) in that
  order, then [b_ih, b_hh] likewise; W_ih [G*H, in], W_hh [G*H, H], biases [G*H] with G gates:
  LSTM [input, forget, cell, output], GRU [reset, update, candidate] (c = tanh(x_c + b_ic +
  r * (h W_hc^T + b_hc)), h = (h_prev - c) * z + c), one for the simple RNNs.
- PreState: [h0] ([h0, c0] for LSTM), each [L*D, B, H], row l*D + d for layer l, direction d;
  State holds the final states in the same layout. Out is [T, B, D*H], the directions' outputs
  joined on the last axis; the backward direction walks time from T-1 down to 0.
- SequenceLength [B]: at a step t >= length a sequence keeps its states and its output is 0
  (the backward direction starts at each sequence's last step, from the initial state).
- dropout_prob (training only): the input of every layer past the first is multiplied by one
  uint8 keep mask of Out's shape, drawn once per run and kept in DropoutState, over 1 - p
  (all zeros for p = 1); `seed` nonzero draws the same mask on every run.
- Reserve is Paddle's workspace for its grad kernel; rnn_grad here recomputes what it needs
  from the inputs and DropoutState, so Reserve is one unused byte.

The network is written once as a loop over time steps over an array module (numpy: the
reference; torch: the run where the library cannot). The extern run calls torch's recurrent
kernels (torch.lstm / gru / rnn_tanh / rnn_relu, one call per layer, sequences packed by
length), whose loop over time is C++ (a Python loop of torch ops per step was slower than the
network unrolled into a program: docs/architecture.md). rnn_grad runs the same torch
network again under autograd (torch's recurrent backward) with the forward's dropout mask;
its reference, autograd through the step loop.
"""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType, dtype_name
from ..errors import OpError, ShapeError
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
RNN_ATTRS = {"dropout_prob": 0.0, "is_bidirec": False, "input_size": 10, "hidden_size": 100,
             "num_layers": 1, "mode": "RNN_TANH", "seed": 0, "is_test": False}


def _mode(op: str, a) -> str:
    if a["mode"] not in GATES:
        raise OpError(f"op '{op}' attribute 'mode' = {a['mode']!r}: must be one of "
                      f"{sorted(GATES)}")
    return a["mode"]


def _states_count(mode: str) -> int:
    return 2 if mode == "LSTM" else 1


# ---------------------------------------------------------------------------------------------
# the network over an array module


class _Numpy:
    @staticmethod
    def sigmoid(x):
        return 1.0 / (1.0 + np.exp(-x))

    tanh = staticmethod(np.tanh)
    where = staticmethod(np.where)
    stack = staticmethod(np.stack)

    @staticmethod
    def relu(x):
        return np.maximum(x, 0)

    @staticmethod
    def cat(xs):
        return np.concatenate(xs, -1)


class _Torch:
    sigmoid = staticmethod(lambda x: torch.sigmoid(x))
    tanh = staticmethod(lambda x: torch.tanh(x))
    relu = staticmethod(lambda x: torch.relu(x))
    where = staticmethod(lambda c, x, y: torch.where(c, x, y))
    stack = staticmethod(lambda xs: torch.stack(xs))
    cat = staticmethod(lambda xs: torch.cat(xs, -1))


def _step(mode: str, gx, h, c, w_hh, b_hh, xp):
    """One step of one direction: gx = x_t W_ih^T + b_ih (+ b_hh but for GRU's candidate)."""
    gh = h @ w_hh.T
    hidden = h.shape[-1]
    if mode == "LSTM":
        g = gx + gh
        i, f = xp.sigmoid(g[:, :hidden]), xp.sigmoid(g[:, hidden:2 * hidden])
        cand, o = xp.tanh(g[:, 2 * hidden:3 * hidden]), xp.sigmoid(g[:, 3 * hidden:])
        c = f * c + i * cand
        return o * xp.tanh(c), c
    if mode == "GRU":
        rz = xp.sigmoid(gx[:, :2 * hidden] + gh[:, :2 * hidden])
        r, z = rz[:, :hidden], rz[:, hidden:]
        cand = xp.tanh(gx[:, 2 * hidden:] + r * (gh[:, 2 * hidden:] + b_hh[2 * hidden:]))
        return (h - cand) * z + cand, None
    act = xp.tanh if mode == "RNN_TANH" else xp.relu
    return act(gx + gh), None


def _direction(mode, x, h, c, weights, alive, reverse: bool, xp):
    """(outputs [T, B, H], final h, final c) of one direction over x [T, B, in]."""
    w_ih, w_hh, b_ih, b_hh = weights
    bias = b_ih + b_hh
    if mode == "GRU":  # the candidate's b_hh is added inside r * (...)
        bias = xp.cat([bias[:2 * h.shape[-1]], b_ih[2 * h.shape[-1]:]])
    gx = x @ w_ih.T + bias
    steps = x.shape[0]
    outs = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        new_h, new_c = _step(mode, gx[t], h, c, w_hh, b_hh, xp)
        if alive is None:
            outs[t], h, c = new_h, new_h, new_c
        else:
            m = alive[t]
            outs[t] = xp.where(m, new_h, new_h * 0)
            h = xp.where(m, new_h, h)
            c = None if c is None else xp.where(m, new_c, c)
    return xp.stack(outs), h, c


def network(mode: str, x, pre_states, weights, alive, a, keep, xp):
    """(Out, [final states]) of the rnn op. alive: [T, B, 1] bools (t < length) or None; keep:
    the dropout mask of Out's shape applied to the inputs of layers past the first, or None."""
    layers, dirs = int(a["num_layers"]), 2 if a["is_bidirec"] else 1
    h0 = pre_states[0]
    c0 = pre_states[1] if mode == "LSTM" else None
    finals_h, finals_c = [], []
    for layer in range(layers):
        if layer and keep is not None:
            p = float(a["dropout_prob"])
            x = x * 0 if p == 1.0 else x * keep / (1.0 - p)
        outs = []
        params = _layer_params(weights, layer, dirs)
        for d in range(dirs):
            k = layer * dirs + d
            out, h, c = _direction(mode, x, h0[k], None if c0 is None else c0[k],
                                   params[4 * d:4 * d + 4], alive, d == 1, xp)
            outs.append(out)
            finals_h.append(h)
            finals_c.append(c)
        x = outs[0] if dirs == 1 else xp.cat(outs)
    states = [xp.stack(finals_h)] + ([xp.stack(finals_c)] if mode == "LSTM" else [])
    return x, states


def _layer_params(weights, layer: int, dirs: int) -> list:
    """[W_ih, W_hh, b_ih, b_hh] of each direction of a layer, forward first."""
    half = len(weights) // 2
    return [w for k in range(layer * dirs, (layer + 1) * dirs)
            for w in (weights[2 * k], weights[2 * k + 1], weights[half + 2 * k],
                      weights[half + 2 * k + 1])]


_TORCH_RNNS = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu"}


def library_network(mode: str, x, pre_states, weights, lengths, a, keep):
    """network() on torch's recurrent kernels (torch.lstm / gru / rnn_tanh / rnn_relu: the same
    gate layouts and formulas), one call per layer, sequences of lengths >= 1 packed as
    torch.nn.utils.rnn packs them: a packed sequence's reverse direction starts at its last
    step and its outputs past its length are 0, the rnn op's semantics. None where it cannot
    run (a length below 1: the step loop takes those)."""
    from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence
    steps, layers, dirs = x.shape[0], int(a["num_layers"]), 2 if a["is_bidirec"] else 1
    if lengths is not None:
        lengths = lengths.to(torch.int64).clamp(max=steps).cpu()
        if steps == 0 or int(lengths.min()) < 1:
            return None
    run = getattr(torch, _TORCH_RNNS[mode])
    finals = [[] for _ in pre_states]
    for layer in range(layers):
        if layer and keep is not None:
            p = float(a["dropout_prob"])
            x = x * 0 if p == 1.0 else x * keep / (1.0 - p)
        rows = slice(layer * dirs, (layer + 1) * dirs)
        hx = [s[rows] for s in pre_states]
        params = _layer_params(weights, layer, dirs)
        if lengths is None:
            out, *states = run(x, hx if mode == "LSTM" else hx[0], params, True, 1, 0.0, False,
                               dirs == 2, False)
        else:
            packed = pack_padded_sequence(x, lengths, enforce_sorted=False)
            order, back = packed.sorted_indices, packed.unsorted_indices
            hx = [h.index_select(1, order) for h in hx]
            data, *states = run(packed.data, packed.batch_sizes, hx if mode == "LSTM" else hx[0],
                                params, True, 1, 0.0, False, dirs == 2)
            out = pad_packed_sequence(PackedSequence(data, packed.batch_sizes, order, back),
                                      total_length=steps)[0]
            states = [h.index_select(1, back) for h in states]
        for dst, h in zip(finals, states):
            dst.append(h)
        x = out
    return x, [torch.cat(f) for f in finals]


def _alive(lengths, steps: int, xp):
    """[T, B, 1] bools: t < length."""
    if lengths is None:
        return None
    if xp is torch:
        t = torch.arange(steps, device=lengths.device)
        return (t[:, None] < lengths[None, :].to(torch.int64))[:, :, None]
    return (np.arange(steps)[:, None] < np.asarray(lengths, np.int64)[None, :])[:, :, None]


def _lengths(ins):
    return ins["SequenceLength"][0] if ins.get("SequenceLength") else None


def _draws_dropout(a) -> bool:
    return not a["is_test"] and float(a["dropout_prob"]) > 0 and int(a["num_layers"]) > 1


def _loop_network(mode, x, pre_states, weights, lengths, a, keep):
    """network() as the step loop on torch, from sequence lengths."""
    return network(mode, x, pre_states, weights, _alive(lengths, x.shape[0], torch), a, keep,
                   _Torch)


def _torch_network(mode, x, pre_states, weights, lengths, a, keep):
    """The network on torch: its recurrent kernels, else the step loop."""
    got = library_network(mode, x, pre_states, weights, lengths, a, keep)
    return _loop_network(mode, x, pre_states, weights, lengths, a, keep) if got is None else got


# ---------------------------------------------------------------------------------------------
# rnn


def _run(ins, outs, a, rng):
    mode = _mode("rnn", a)
    x = ins["Input"][0]
    keep_out = outs.get("DropoutState", [None])[0]
    keep = None
    if _draws_dropout(a):
        gen = torch.Generator(device=x.device).manual_seed(int(a["seed"])) if a["seed"] \
            else rng
        shape = outs["Out"][0].shape
        keep = (torch.rand(shape, generator=gen, dtype=torch.float32, device=x.device)
                >= float(a["dropout_prob"])).to(torch.uint8)
    if keep_out is not None:
        if keep is None:
            keep_out.fill_(1)
        else:
            keep_out.copy_(keep)
    with torch.no_grad():
        out, states = _torch_network(mode, x, ins["PreState"], ins["WeightList"],
                                     _lengths(ins), a, None if keep is None else keep.to(x.dtype))
    outs["Out"][0].copy_(out)
    for dst, s in zip(outs["State"], states):
        dst.copy_(s)


def _reference(ins, a):
    mode = _mode("rnn", a)
    x = np.asarray(ins["Input"][0])
    shape_out = (x.shape[0], x.shape[1],
                 (2 if a["is_bidirec"] else 1) * int(a["hidden_size"]))
    keep = None
    if _draws_dropout(a):
        rng = np.random.default_rng(int(a["seed"]) or None)
        keep = (rng.random(shape_out) >= float(a["dropout_prob"])).astype(np.uint8)
    out, states = network(mode, x, [np.asarray(s) for s in ins["PreState"]],
                          [np.asarray(w) for w in ins["WeightList"]],
                          _alive(_lengths(ins), x.shape[0], np), a,
                          None if keep is None else keep.astype(x.dtype), _Numpy)
    return {"Out": [out.astype(x.dtype)], "State": [s.astype(x.dtype) for s in states],
            "Reserve": [np.zeros((), np.uint8)],
            "DropoutState": [np.ones(shape_out, np.uint8) if keep is None else keep]}


def _check_float(op: str, slot: str, info: VarInfo, dtype) -> None:
    if info.dtype != dtype:
        raise OpError(f"op '{op}': {slot} must be {dtype_name(dtype)} as Input, got "
                      f"{dtype_name(info.dtype)}")


def _shape_is(op: str, what: str, shape, want) -> None:
    if len(shape) != len(want) or any(s != w and s >= 0 and w >= 0 for s, w in zip(shape, want)):
        raise ShapeError(f"op '{op}': {what} must be {list(want)}, got {list(shape)}")


def _infer(ins, a):
    mode = _mode("rnn", a)
    x = ins["Input"][0]
    if x.dtype not in (VarType.FP32, VarType.FP64):
        raise OpError(f"op 'rnn': Input must be float32 or float64, got {dtype_name(x.dtype)}")
    if len(x.shape) != 3:
        raise ShapeError(f"op 'rnn': Input must be [time, batch, input_size], got "
                         f"{list(x.shape)}")
    layers, dirs, hidden = int(a["num_layers"]), 2 if a["is_bidirec"] else 1, \
        int(a["hidden_size"])
    if layers < 1 or hidden < 1:
        raise OpError(f"op 'rnn': num_layers ({layers}) and hidden_size ({hidden}) must be "
                      f"positive")
    if x.shape[2] >= 0 and x.shape[2] != a["input_size"]:
        raise ShapeError(f"op 'rnn': Input {list(x.shape)} does not end in input_size "
                         f"{a['input_size']}")
    weights = ins["WeightList"]
    if len(weights) != 4 * layers * dirs:
        raise OpError(f"op 'rnn': WeightList must hold 4 * num_layers * directions = "
                      f"{4 * layers * dirs} tensors, got {len(weights)}")
    rows, half = GATES[mode] * hidden, len(weights) // 2
    for layer in range(layers):
        for d in range(dirs):
            k = layer * dirs + d
            width = x.shape[2] if layer == 0 else dirs * hidden
            for i, want in ((2 * k, (rows, width)), (2 * k + 1, (rows, hidden)),
                            (half + 2 * k, (rows,)), (half + 2 * k + 1, (rows,))):
                _check_float("rnn", f"WeightList[{i}]", weights[i], x.dtype)
                _shape_is("rnn", f"WeightList[{i}] (layer {layer}, direction {d})",
                          weights[i].shape, want)
    pre = ins["PreState"]
    if len(pre) != _states_count(mode):
        raise OpError(f"op 'rnn': mode {mode} takes {_states_count(mode)} PreState tensors, "
                      f"got {len(pre)}")
    for i, s in enumerate(pre):
        _check_float("rnn", f"PreState[{i}]", s, x.dtype)
        _shape_is("rnn", f"PreState[{i}]", s.shape, (layers * dirs, x.shape[1], hidden))
    if ins.get("SequenceLength"):
        n = ins["SequenceLength"][0]
        if n.dtype not in (VarType.INT32, VarType.INT64):
            raise OpError(f"op 'rnn': SequenceLength must be int32 or int64, got "
                          f"{dtype_name(n.dtype)}")
        _shape_is("rnn", "SequenceLength", n.shape, (x.shape[1],))
    out = (x.shape[0], x.shape[1], dirs * hidden)
    return {"Out": [VarInfo(out, x.dtype)],
            "State": [VarInfo((layers * dirs, x.shape[1], hidden), x.dtype) for _ in pre],
            "Reserve": [VarInfo((), VarType.UINT8)],
            "DropoutState": [VarInfo(out, VarType.UINT8)]}


def _grad(op: OpDesc) -> list[OpDesc]:
    ins = {s: op.input(s) for s in ("Input", "PreState", "WeightList", "SequenceLength")}
    ins.update({s: op.output(s) for s in ("Out", "DropoutState", "Reserve")})
    ins["Out@GRAD"] = [grad_name(op.output("Out")[0])]
    ins["State@GRAD"] = [grad_name(n) for n in op.output("State")]
    outs = {s + "@GRAD": [grad_name(n) for n in op.input(s)]
            for s in ("Input", "PreState", "WeightList")}
    return [OpDesc("rnn_grad", ins, outs, dict(op.attrs))]


register(OpDef("rnn", slots("Input", "PreState*", "WeightList*", "SequenceLength?"),
               slots("Out", "State*", "Reserve?", "DropoutState?"), RNN_ATTRS, _infer, "extern",
               reference=_reference, grad=_grad, run=_run, stateful=True))


# ---------------------------------------------------------------------------------------------
# rnn_grad: the network again under torch's autograd, with the forward's dropout mask


def _backward(ins, a, run_network):
    """{slot@GRAD: [torch tensors]} of rnn_grad's inputs (torch tensors), by autograd through
    run_network (the library's kernels, or the step loop for the reference)."""
    mode = _mode("rnn_grad", a)
    x = ins["Input"][0]
    leaves = {s: [t.detach().clone().requires_grad_(True) for t in ins[s]]
              for s in ("Input", "PreState", "WeightList")}
    keep = ins["DropoutState"][0].to(x.dtype) if _draws_dropout(a) else None
    with torch.enable_grad():
        out, states = run_network(mode, leaves["Input"][0], leaves["PreState"],
                                  leaves["WeightList"], _lengths(ins), a, keep)
        targets, seeds = [out], [ins["Out@GRAD"][0]]
        for s, g in zip(states, ins.get("State@GRAD") or ()):
            if g is not None:
                targets.append(s)
                seeds.append(g)
        wrt = [t for s in ("Input", "PreState", "WeightList") for t in leaves[s]]
        grads = torch.autograd.grad(targets, wrt, seeds, allow_unused=True)
    grads = [torch.zeros_like(w) if g is None else g for w, g in zip(wrt, grads)]
    result, i = {}, 0
    for s in ("Input", "PreState", "WeightList"):
        n = len(leaves[s])
        result[s + "@GRAD"] = grads[i:i + n]
        i += n
    return result


def _grad_run(ins, outs, a, rng):
    for slot, values in _backward(ins, a, _torch_network).items():
        for dst, v in zip(outs.get(slot) or (), values):
            if dst is not None:
                dst.copy_(v)


def _grad_reference(ins, a):
    tensors = {s: [None if v is None else torch.from_numpy(np.ascontiguousarray(v))
                   for v in vs] for s, vs in ins.items()}
    return {s: [g.numpy() for g in gs]
            for s, gs in _backward(tensors, a, _loop_network).items()}


def _grad_infer(ins, a):
    _mode("rnn_grad", a)
    return {s + "@GRAD": [VarInfo(tuple(v.shape), v.dtype) for v in ins[s]]
            for s in ("Input", "PreState", "WeightList")}


register(OpDef("rnn_grad", slots("Input", "PreState*", "WeightList*", "SequenceLength?", "Out",
                                  "DropoutState", "Reserve?", "Out@GRAD", "State@GRAD*?"),
               slots("Input@GRAD?", "PreState@GRAD*?", "WeightList@GRAD*?"), RNN_ATTRS,
               _grad_infer, "extern", reference=_grad_reference, run=_grad_run))
