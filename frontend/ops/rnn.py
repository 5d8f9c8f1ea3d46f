"""Paddle's recurrent ops over LoD sequences: lstm, gru (one recurrence per sequence of the
Input's one-level LoD) and gru_unit (one GRU step over a batch), with their grads.

Like Paddle's kernels, lstm and gru run in "batch order": the non-empty sequences sorted by
length (longest first, ties in input order), step t taking row t of each sequence still running
(row len-1-t with is_reverse), so the sequences alive at a step are a prefix of the previous
step's and each step is one [n_t, D] x [D, k*D] product plus the gate math. BatchGate and friends
hold that order, as Paddle's do, and the grad ops read them back.

Gate layouts (Paddle's): lstm's 4D columns are [candidate, input, forget, output], Bias is
[1, 4D] (+ 3D peephole weights w_ic, w_fc, w_oc with use_peepholes); BatchGate holds the
activated gates and BatchCellPreAct act_cell(c). gru's 3D columns are [update, reset,
candidate]; its Weight [D, 3D] is read flat: the first 2*D*D values are the [D, 2D] update/reset
weights, the last D*D the [D, D] candidate weights. lstm_grad reads Hidden@GRAD only (Paddle's
kernel leaves Cell@GRAD out), so a loss on Cell alone gives no gradients: backward drops a grad
op none of whose input grads is made, as Paddle's does.

The math is written once over an array module (numpy for the reference executor, torch for the
extern run); activations are Paddle's: lstm/gru clamp sigmoid's input to [-40, 13] and tanh's
-2x to <= 40 (phi's detail activations), gru_unit uses the plain functions; derivatives are
taken from the activation's output, as Paddle's are.
"""
from __future__ import annotations

import functools

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import dtype_name
from ..errors import OpError, ShapeError
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots
from .sequence import _check_rows, _known, _need

# ---------------------------------------------------------------------------------------------
# activations: name -> (forward(x, xp), derivative as a function of the output y)


def _sigmoid(x, xp):
    return torch.sigmoid(x) if xp is torch else 1.0 / (1.0 + np.exp(-x))


_GRADS = {"identity": lambda y: y * 0 + 1, "sigmoid": lambda y: y * (1 - y),
          "tanh": lambda y: 1 - y * y, "relu": lambda y: y * 0 + (y > 0)}
PLAIN = {"identity": lambda x, xp: x, "sigmoid": _sigmoid, "tanh": lambda x, xp: xp.tanh(x),
         "relu": lambda x, xp: x.clip(0, None)}
# phi's detail activations: sigmoid of x clamped to [-40, 13]; tanh as 2 / (1 + exp(-2x)) - 1
# with -2x clamped to <= 40, computed that way (near 0 it rounds differently from tanh, which
# float32 gradients show)
CLAMPED = {**PLAIN, "sigmoid": lambda x, xp: _sigmoid(x.clip(-40.0, 13.0), xp),
           "tanh": lambda x, xp: 2.0 / (1.0 + xp.exp((-2.0 * x).clip(None, 40.0))) - 1.0}
GRU_UNIT_ACTS = ("identity", "sigmoid", "tanh", "relu")  # gru_unit's int attribute values


class Act:
    """One activation: forward and derivative from the output."""

    def __init__(self, op: str, attr: str, name, table: dict):
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
            if not 0 <= name < len(GRU_UNIT_ACTS):
                raise OpError(f"op '{op}' attribute '{attr}' = {name}: must be 0 (identity), "
                              f"1 (sigmoid), 2 (tanh) or 3 (relu)")
            name = GRU_UNIT_ACTS[name]
        if name not in table:
            raise OpError(f"op '{op}' attribute '{attr}' = {name!r}: must be one of "
                          f"{sorted(table)}")
        self.fn, self.grad = table[name], _GRADS[name]

    def __call__(self, x, xp):
        return self.fn(x, xp)


# ---------------------------------------------------------------------------------------------
# batch order


@functools.lru_cache(maxsize=512)
def _schedule(offsets: tuple, reverse: bool):
    """(order, steps, rows): the non-empty sequences longest first (a stable sort), the number
    of sequences alive at each step, and for each batch row the Input row it holds."""
    lens = np.diff(np.asarray(offsets, np.int64))
    order = np.argsort(-lens, kind="stable")
    order = order[lens[order] > 0]
    steps = [int((lens[order] > t).sum()) for t in range(int(lens.max(initial=0)))]
    starts = np.asarray(offsets[:-1], np.int64)[order]
    ends = np.asarray(offsets[1:], np.int64)[order]
    rows = [ends[:n] - 1 - t if reverse else starts[:n] + t for t, n in enumerate(steps)]
    return order, tuple(steps), np.concatenate(rows) if rows else np.zeros(0, np.int64)


@functools.lru_cache(maxsize=512)
def _previous(steps: tuple):
    """In [initial state rows; batch rows] (len(order) + T rows), where each step's previous
    rows start, and for each batch row the row holding its previous state."""
    bounds = np.concatenate([[0], np.cumsum(steps)]).astype(int)
    n0 = steps[0] if steps else 0
    starts = [0] + [n0 + int(bounds[k - 1]) for k in range(1, len(steps))]
    index = [np.arange(s, s + n) for s, n in zip(starts, steps)]
    return tuple(starts), np.concatenate(index) if index else np.zeros(0, np.int64)


class Batch:
    """The batch order of one LoD for one array module: index arrays and helpers."""

    def __init__(self, offsets: tuple, reverse: bool, xp):
        order, self.steps, rows = _schedule(offsets, reverse)
        self.prev_starts, prev = _previous(self.steps)
        self.xp = xp
        self.order, self.rows, self.prev = (torch.as_tensor(order), torch.as_tensor(rows),
                                            torch.as_tensor(prev)) \
            if xp is torch else (order, rows, prev)
        self.bounds = np.concatenate([[0], np.cumsum(self.steps)]).astype(int).tolist()
        self.n0 = len(order)

    def zeros(self, like, shape):
        return like.new_zeros(shape) if self.xp is torch else np.zeros(shape, like.dtype)

    def cat(self, parts):
        return self.xp.concatenate(parts, axis=1)

    def stack(self, steps, like, cols):
        """The per-step row blocks as one [T, cols] array."""
        return self.xp.concatenate(steps, axis=0) if steps else self.zeros(like, (0, cols))

    def to_seq(self, batch_rows, like_rows: int):
        """Batch-order rows back to Input order (zeros where no batch row lands)."""
        out = self.zeros(batch_rows, (like_rows, batch_rows.shape[1]))
        out[self.rows] = batch_rows
        return out

    def initial(self, state, width, like):
        """An initial state (H0/C0, [N, D] in input order) reordered to batch order, zeros if
        absent."""
        return state[self.order] if state is not None else self.zeros(like, (self.n0, width))

    def previous(self, batch_values, initial):
        """Each batch row's previous state: the initial state's row at step 0, else the row of
        the same sequence at the step before."""
        return self.xp.concatenate([initial, batch_values])[self.prev]

    def with_initial_grads(self, grads_b):
        """[zeros for the initial state; grads_b]: the previous-state grads of step k go to rows
        prev_starts[k]..., those of the initial state to the first n0 rows."""
        return self.xp.concatenate([self.zeros(grads_b, (self.n0, grads_b.shape[1])), grads_b])

    def to_input_order(self, state_b, n_seqs: int):
        out = self.zeros(state_b, (n_seqs, state_b.shape[1]))
        out[self.order] = state_b
        return out


def _batch(op: str, a: dict, xp) -> Batch:
    return Batch(_need(op, a, "Input")[-1], bool(a.get("is_reverse", False)), xp)


def _opt(ins, slot):
    return ins[slot][0] if ins.get(slot) else None


# ---------------------------------------------------------------------------------------------
# lstm

LSTM_ATTRS = {"use_peepholes": True, "is_reverse": False, "gate_activation": "sigmoid",
              "cell_activation": "tanh", "candidate_activation": "tanh"}


def _lstm_acts(op, a):
    return tuple(Act(op, k, a[k], CLAMPED)
                 for k in ("gate_activation", "cell_activation", "candidate_activation"))


def _peepholes(a, bias, d):
    """The peephole weights (w_ic, w_fc, w_oc) as [1, D] slices of Bias; None without."""
    if not a["use_peepholes"]:
        return None
    return tuple(bias[:, (4 + k) * d:(5 + k) * d] for k in range(3))


def _lstm_forward(ins, a, xp):
    x, w, bias = ins["Input"][0], ins["Weight"][0], ins["Bias"][0]
    act_gate, act_cell, act_cand = _lstm_acts("lstm", a)
    d = w.shape[0]
    b = _batch("lstm", a, xp)
    peep = _peepholes(a, bias, d)
    gates = x[b.rows] + bias[:, :4 * d]
    cells, cell_acts, hiddens = [], [], []
    h = b.initial(_opt(ins, "H0"), d, x)
    c = b.initial(_opt(ins, "C0"), d, x)
    for k, n in enumerate(b.steps):
        lo = b.bounds[k]
        g = gates[lo:lo + n] + h[:n] @ w
        c_prev = c[:n]
        cand = act_cand(g[:, :d], xp)
        ig = act_gate(g[:, d:2 * d] + (peep[0] * c_prev if peep else 0), xp)
        fg = act_gate(g[:, 2 * d:3 * d] + (peep[1] * c_prev if peep else 0), xp)
        c = cand * ig + c_prev * fg
        og = act_gate(g[:, 3 * d:] + (peep[2] * c if peep else 0), xp)
        ca = act_cell(c, xp)
        h = og * ca
        gates[lo:lo + n] = b.cat([cand, ig, fg, og])
        cells.append(c)
        cell_acts.append(ca)
        hiddens.append(h)
    rows = x.shape[0]
    return {"Hidden": [b.to_seq(b.stack(hiddens, x, d), rows)],
            "Cell": [b.to_seq(b.stack(cells, x, d), rows)],
            "BatchGate": [gates], "BatchCellPreAct": [b.stack(cell_acts, x, d)]}


def _lstm_backward(ins, a, xp):
    x, w, bias = ins["Input"][0], ins["Weight"][0], ins["Bias"][0]
    act_gate, act_cell, act_cand = _lstm_acts("lstm_grad", a)
    d = w.shape[0]
    b = _batch("lstm_grad", a, xp)
    peep = _peepholes(a, bias, d)
    gates, cell_acts = ins["BatchGate"][0], ins["BatchCellPreAct"][0]
    cell = ins["Cell"][0][b.rows]
    h_prev = b.previous(ins["Hidden"][0][b.rows], b.initial(_opt(ins, "H0"), d, x))
    c_prev = b.previous(cell, b.initial(_opt(ins, "C0"), d, x))
    dh = b.with_initial_grads(ins["Hidden@GRAD"][0][b.rows])
    dgates = xp.empty_like(gates)
    dc = b.zeros(x, (b.n0, d))  # the cell grad carried to the step before
    for k in range(len(b.steps) - 1, -1, -1):
        n, lo, p = b.steps[k], b.bounds[k], b.prev_starts[k]
        cand, ig, fg, og = (gates[lo:lo + n, j * d:(j + 1) * d] for j in range(4))
        cp, ca = c_prev[lo:lo + n], cell_acts[lo:lo + n]
        dht = dh[b.n0 + lo:b.n0 + lo + n]
        dog = dht * ca * act_gate.grad(og)
        dct = dc[:n] + dht * og * act_cell.grad(ca) + (dog * peep[2] if peep else 0)
        dig = dct * cand * act_gate.grad(ig)
        dfg = dct * cp * act_gate.grad(fg)
        dc[:n] = dct * fg + (dig * peep[0] + dfg * peep[1] if peep else 0)
        dg = b.cat([dct * ig * act_cand.grad(cand), dig, dfg, dog])
        dgates[lo:lo + n] = dg
        dh[p:p + n] = dh[p:p + n] + dg @ w.T
    dbias = dgates.sum(0)[None, :]
    if peep:
        dbias = b.cat([dbias, (dgates[:, d:2 * d] * c_prev).sum(0)[None, :],
                       (dgates[:, 2 * d:3 * d] * c_prev).sum(0)[None, :],
                       (dgates[:, 3 * d:] * cell).sum(0)[None, :]])
    n_seqs = len(_need("lstm_grad", a, "Input")[-1]) - 1
    return {"Input@GRAD": [b.to_seq(dgates, x.shape[0])], "Weight@GRAD": [h_prev.T @ dgates],
            "Bias@GRAD": [dbias], "H0@GRAD": [b.to_input_order(dh[:b.n0], n_seqs)],
            "C0@GRAD": [b.to_input_order(dc, n_seqs)]}


def _check_2d(op, name, info, cols=None):
    if len(info.shape) != 2 or (cols is not None and info.shape[1] not in (-1, cols)):
        want = f"[-1, {cols}]" if cols is not None else "2-D"
        raise ShapeError(f"op '{op}': {name} must be {want}, got {list(info.shape)}")


def _check_state(op, a, ins, slot, d):
    if ins.get(slot):
        s = ins[slot][0]
        _check_2d(op, slot, s, d)
        if _known(a) and s.shape[0] not in (-1, len(_need(op, a, "Input")[-1]) - 1):
            raise ShapeError(f"op '{op}': {slot} {list(s.shape)} must have one row per "
                             f"sequence of Input ({len(_need(op, a, 'Input')[-1]) - 1})")


def _check_dtypes(op, ins):
    """Every float input in Input's dtype (Paddle's kernels take one data type)."""
    want = ins["Input"][0].dtype
    for slot, infos in ins.items():
        if infos and infos[0].dtype != want:
            raise OpError(f"op '{op}': {slot} is {dtype_name(infos[0].dtype)} but Input is "
                          f"{dtype_name(want)}; they must have one dtype")


def _recurrent_infer(op, ins, a, k, bias_k, states):
    """Shared checks of lstm/gru: Input [T, k*D], Weight [D, k*D], Bias [1, bias_k*D]."""
    _check_dtypes(op, ins)
    x, w = ins["Input"][0], ins["Weight"][0]
    _check_2d(op, "Weight", w)
    d = w.shape[0]
    if d < 1 or w.shape[1] != k * d:
        raise ShapeError(f"op '{op}': Weight must be [D, {k} * D], got {list(w.shape)}")
    _check_2d(op, "Input", x, k * d)
    if ins.get("Bias"):
        bshape = list(ins["Bias"][0].shape)
        if bshape != [1, bias_k * d]:
            raise ShapeError(f"op '{op}': Bias must be [1, {bias_k} * D] = [1, {bias_k * d}], "
                             f"got {bshape}")
    for s in states:
        _check_state(op, a, ins, s, d)
    if _known(a):
        lod = _need(op, a, "Input")
        if len(lod) != 1:
            raise OpError(f"op '{op}': Input must have a one-level LoD (one sequence per "
                          f"recurrence, as Paddle's op supports), got {len(lod)} levels")
        _check_rows(op, "Input", lod, x.shape[0])
    return x, d


class MissingStateError(OpError, RuntimeError):
    """lstm given H0 without C0 (Paddle's NotFound error, a RuntimeError)."""


def _lstm_infer(ins, a):
    _lstm_acts("lstm", a)
    if ins.get("H0") and not ins.get("C0"):
        raise MissingStateError("op 'lstm': Input(Cell) and Input(Hidden) of LSTM should not "
                                "be null at the same time: H0 is given, C0 is not")
    x, d = _recurrent_infer("lstm", ins, a, 4, 7 if a["use_peepholes"] else 4, ("H0", "C0"))
    seq = VarInfo((x.shape[0], d), x.dtype, x.lod_level)
    return {"Hidden": [seq], "Cell": [seq],
            "BatchGate": [VarInfo((x.shape[0], 4 * d), x.dtype)],
            "BatchCellPreAct": [VarInfo((x.shape[0], d), x.dtype)]}


# ---------------------------------------------------------------------------------------------
# gru and gru_unit: one step written once


GRU_ATTRS = {"activation": "tanh", "gate_activation": "sigmoid", "is_reverse": False,
             "origin_mode": False}
GRU_UNIT_ATTRS = {"activation": 2, "gate_activation": 1, "origin_mode": False}


def _gru_weights(w):
    d = w.shape[0]
    flat = w.reshape(-1)
    return flat[:2 * d * d].reshape(d, 2 * d), flat[2 * d * d:].reshape(d, d)


def _gru_step(g, hp, w_ur, w_c, acts, origin, xp):
    """One GRU step over rows g (x + bias, [n, 3D]) and previous hidden hp: (gate, r*hp, h)."""
    act, act_gate = acts
    d = hp.shape[1]
    ur = act_gate(g[:, :2 * d] + hp @ w_ur, xp)
    u, r = ur[:, :d], ur[:, d:]
    rhp = r * hp
    c = act(g[:, 2 * d:] + rhp @ w_c, xp)
    h = (1 - u) * c + u * hp if origin else u * c + (1 - u) * hp
    return xp.concatenate([ur, c], axis=1), rhp, h


def _gru_step_grad(dh, gate, hp, w_ur, w_c, acts, origin, xp):
    """A step's grads: (gate pre-activation grads [n, 3D], previous hidden grad)."""
    act, act_gate = acts
    d = hp.shape[1]
    u, r, c = gate[:, :d], gate[:, d:2 * d], gate[:, 2 * d:]
    if origin:
        dc, du, dhp = dh * (1 - u), dh * (hp - c), dh * u
    else:
        dc, du, dhp = dh * u, dh * (c - hp), dh * (1 - u)
    dcp = dc * act.grad(c)
    drhp = dcp @ w_c.T
    dur = xp.concatenate([du * act_gate.grad(u), drhp * hp * act_gate.grad(r)], axis=1)
    return xp.concatenate([dur, dcp], axis=1), dhp + drhp * r + dur @ w_ur.T


def _gru_weight_grad(dgates, hp, rhp, w, xp):
    """The [D, 3D] Weight grad of some rows: the flat parts' grads (hp^T dUR, rhp^T dC), laid
    out as the Weight is read."""
    d = w.shape[0]
    parts = (hp.T @ dgates[:, :2 * d], rhp.T @ dgates[:, 2 * d:])
    return xp.concatenate([p.reshape(-1) for p in parts]).reshape(w.shape)


def _gru_acts(op, a, table):
    return (Act(op, "activation", a["activation"], table),
            Act(op, "gate_activation", a["gate_activation"], table))


def _gru_forward(ins, a, xp):
    x, w = ins["Input"][0], ins["Weight"][0]
    acts = _gru_acts("gru", a, CLAMPED)
    d = w.shape[0]
    b = _batch("gru", a, xp)
    w_ur, w_c = _gru_weights(w)
    gx = x[b.rows]
    if ins.get("Bias"):
        gx = gx + ins["Bias"][0]
    gates, resets, hiddens = [], [], []
    h = b.initial(_opt(ins, "H0"), d, x)
    for k, n in enumerate(b.steps):
        lo = b.bounds[k]
        gate, rhp, h = _gru_step(gx[lo:lo + n], h[:n], w_ur, w_c, acts, a["origin_mode"], xp)
        gates.append(gate)
        resets.append(rhp)
        hiddens.append(h)
    batch_hidden = b.stack(hiddens, x, d)
    return {"BatchGate": [b.stack(gates, x, 3 * d)],
            "BatchResetHiddenPrev": [b.stack(resets, x, d)], "BatchHidden": [batch_hidden],
            "Hidden": [b.to_seq(batch_hidden, x.shape[0])]}


def _gru_backward(ins, a, xp):
    x, w = ins["Input"][0], ins["Weight"][0]
    acts = _gru_acts("gru_grad", a, CLAMPED)
    d = w.shape[0]
    b = _batch("gru_grad", a, xp)
    w_ur, w_c = _gru_weights(w)
    gates = ins["BatchGate"][0]
    hp = b.previous(ins["BatchHidden"][0], b.initial(_opt(ins, "H0"), d, x))
    dh = b.with_initial_grads(ins["Hidden@GRAD"][0][b.rows])
    resets = ins["BatchResetHiddenPrev"][0]
    dgates = xp.empty_like(gates)
    for k in range(len(b.steps) - 1, -1, -1):
        n, lo, p = b.steps[k], b.bounds[k], b.prev_starts[k]
        rows = slice(lo, lo + n)
        dgate, dhp = _gru_step_grad(dh[b.n0 + lo:b.n0 + lo + n], gates[rows], hp[rows], w_ur,
                                    w_c, acts, a["origin_mode"], xp)
        dgates[rows] = dgate
        dh[p:p + n] = dh[p:p + n] + dhp
    n_seqs = len(_need("gru_grad", a, "Input")[-1]) - 1
    return {"Input@GRAD": [b.to_seq(dgates, x.shape[0])],
            "Weight@GRAD": [_gru_weight_grad(dgates, hp, resets, w, xp)],
            "Bias@GRAD": [dgates.sum(0)[None, :]],
            "H0@GRAD": [b.to_input_order(dh[:b.n0], n_seqs)]}


def _gru_infer(ins, a):
    _gru_acts("gru", a, CLAMPED)
    x, d = _recurrent_infer("gru", ins, a, 3, 3, ("H0",))
    t = x.shape[0]
    return {"BatchGate": [VarInfo((t, 3 * d), x.dtype)],
            "BatchResetHiddenPrev": [VarInfo((t, d), x.dtype)],
            "BatchHidden": [VarInfo((t, d), x.dtype)],
            "Hidden": [VarInfo((t, d), x.dtype, x.lod_level)]}


def _gru_unit_forward(ins, a, xp):
    x, hp, w = ins["Input"][0], ins["HiddenPrev"][0], ins["Weight"][0]
    g = x + ins["Bias"][0] if ins.get("Bias") else x
    w_ur, w_c = _gru_weights(w)
    gate, rhp, h = _gru_step(g, hp, w_ur, w_c, _gru_acts("gru_unit", a, PLAIN),
                             a["origin_mode"], xp)
    return {"Gate": [gate], "ResetHiddenPrev": [rhp], "Hidden": [h]}


def _gru_unit_backward(ins, a, xp):
    hp, w = ins["HiddenPrev"][0], ins["Weight"][0]
    w_ur, w_c = _gru_weights(w)
    dgate, dhp = _gru_step_grad(ins["Hidden@GRAD"][0], ins["Gate"][0], hp, w_ur, w_c,
                                _gru_acts("gru_unit_grad", a, PLAIN), a["origin_mode"], xp)
    return {"Input@GRAD": [dgate], "HiddenPrev@GRAD": [dhp],
            "Weight@GRAD": [_gru_weight_grad(dgate, hp, ins["ResetHiddenPrev"][0], w, xp)],
            "Bias@GRAD": [dgate.sum(0)[None, :]]}


def _gru_unit_infer(ins, a):
    _gru_acts("gru_unit", a, PLAIN)
    _check_dtypes("gru_unit", ins)
    x, hp, w = ins["Input"][0], ins["HiddenPrev"][0], ins["Weight"][0]
    _check_2d("gru_unit", "Weight", w)
    d = w.shape[0]
    if w.shape[1] != 3 * d:
        raise ShapeError(f"op 'gru_unit': Weight must be [D, 3 * D], got {list(w.shape)}")
    _check_2d("gru_unit", "Input", x, 3 * d)
    _check_2d("gru_unit", "HiddenPrev", hp, d)
    if ins.get("Bias") and list(ins["Bias"][0].shape) != [1, 3 * d]:
        raise ShapeError(f"op 'gru_unit': Bias must be [1, {3 * d}], got "
                         f"{list(ins['Bias'][0].shape)}")
    rows = x.shape[0] if x.shape[0] != -1 else hp.shape[0]
    if -1 not in (x.shape[0], hp.shape[0]) and x.shape[0] != hp.shape[0]:
        raise ShapeError(f"op 'gru_unit': Input {list(x.shape)} and HiddenPrev "
                         f"{list(hp.shape)} must have the same rows")
    return {"Gate": [VarInfo((rows, 3 * d), x.dtype)],
            "ResetHiddenPrev": [VarInfo((rows, d), x.dtype)],
            "Hidden": [VarInfo((rows, d), x.dtype)]}


# ---------------------------------------------------------------------------------------------
# registration: each computation runs as the reference (numpy) and the extern run (torch)


def _reference(compute):
    def ref(ins, a):
        arrays = {k: [np.asarray(v) for v in vs] for k, vs in ins.items()}
        return compute(arrays, a, np)
    return ref


def _run(compute):
    def run(ins, outs, a, rng):
        for slot, values in compute(ins, a, torch).items():
            if outs.get(slot):
                outs[slot][0].copy_(values[0])
    return run


def _grad_maker(op_type: str, inputs: tuple, reads: tuple):
    """The grad op: the forward's inputs and the outputs it `reads`, Hidden's grad in; a grad
    for each input given."""
    def grad(op: OpDesc) -> list[OpDesc]:
        given = [s for s in inputs if op.input(s)]
        ins = {**{s: op.input(s) for s in given}, **{s: op.output(s) for s in reads},
               "Hidden@GRAD": [grad_name(op.output("Hidden")[0])]}
        outs = {s + "@GRAD": [grad_name(op.input(s)[0])] for s in given}
        return [OpDesc(op_type, ins, outs, dict(op.attrs))]
    return grad


def _grads_like_inputs(ins, a):
    return {s + "@GRAD": [ins[s][0]] for s in ("Input", "H0", "C0", "HiddenPrev", "Weight",
                                                "Bias") if ins.get(s)}


def _seq_lod(*slots_out):
    return lambda lods, a, ins: {s: [(lods.get("Input") or [None])[0]] for s in slots_out}


def _define(op, ins, outs, attrs, infer, compute, grad=None, lod=None):
    register(OpDef(op, slots(*ins), slots(*outs), attrs, infer, "extern",
                   reference=_reference(compute), grad=grad, run=_run(compute), lod=lod))


_define("lstm", ("Input", "H0?", "C0?", "Weight", "Bias"),
        ("Hidden", "Cell", "BatchGate?", "BatchCellPreAct?"), LSTM_ATTRS, _lstm_infer,
        _lstm_forward, _grad_maker("lstm_grad", ("Input", "H0", "C0", "Weight", "Bias"),
                                   ("Hidden", "Cell", "BatchGate", "BatchCellPreAct")),
        _seq_lod("Hidden", "Cell"))
_define("lstm_grad", ("Input", "H0?", "C0?", "Weight", "Bias", "Hidden", "Cell", "BatchGate",
                      "BatchCellPreAct", "Hidden@GRAD"),
        ("Input@GRAD?", "H0@GRAD?", "C0@GRAD?", "Weight@GRAD?", "Bias@GRAD?"), LSTM_ATTRS,
        _grads_like_inputs, _lstm_backward, lod=_seq_lod("Input@GRAD"))
_define("gru", ("Input", "H0?", "Weight", "Bias?"),
        ("BatchGate?", "BatchResetHiddenPrev?", "BatchHidden?", "Hidden"), GRU_ATTRS,
        _gru_infer, _gru_forward,
        _grad_maker("gru_grad", ("Input", "H0", "Weight", "Bias"),
                    ("BatchGate", "BatchResetHiddenPrev", "BatchHidden", "Hidden")),
        _seq_lod("Hidden"))
_define("gru_grad", ("Input", "H0?", "Weight", "Bias?", "BatchGate", "BatchResetHiddenPrev",
                     "BatchHidden", "Hidden", "Hidden@GRAD"),
        ("Input@GRAD?", "H0@GRAD?", "Weight@GRAD?", "Bias@GRAD?"), GRU_ATTRS,
        _grads_like_inputs, _gru_backward, lod=_seq_lod("Input@GRAD"))
_define("gru_unit", ("Input", "HiddenPrev", "Weight", "Bias?"),
        ("Gate?", "ResetHiddenPrev?", "Hidden"), GRU_UNIT_ATTRS, _gru_unit_infer,
        _gru_unit_forward, _grad_maker("gru_unit_grad", ("Input", "HiddenPrev", "Weight", "Bias"),
                                       ("Gate", "ResetHiddenPrev")))
_define("gru_unit_grad", ("Input", "HiddenPrev", "Weight", "Bias?", "Gate", "ResetHiddenPrev",
                          "Hidden@GRAD"),
        ("Input@GRAD?", "HiddenPrev@GRAD?", "Weight@GRAD?", "Bias@GRAD?"), GRU_UNIT_ATTRS,
        _grads_like_inputs, _gru_unit_backward)
