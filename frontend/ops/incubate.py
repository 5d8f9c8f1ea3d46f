"""paddle.incubate.layers' ops: partial_sum / partial_concat (the columns [start_index,
start_index + length) of each 2-D input X_i [N, D], summed or concatenated; length -1: to the
end; a negative start_index counts from the end), batch_fc (one fully connected layer per
slot pair: Out[s] = Input[s] @ W[s] + Bias[s], Input [S, N, I], W [S, I, O], Bias [S, O]) and
rank_attention (below)."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .conv import _bound
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

PARTIAL_ATTRS = {"start_index": 0, "length": -1}


def _columns(op: str, width: int, a) -> tuple[int, int]:
    """(start, length) of the column window in inputs of `width` columns."""
    start, length = a["start_index"], a["length"]
    if not -width <= start < width:
        raise OpError(f"op '{op}': start_index {start} must lie in [-{width}, {width})")
    start += width if start < 0 else 0
    if length == -1:
        length = width - start
    if length <= 0 or start + length > width:
        raise OpError(f"op '{op}': length {a['length']} from start_index {a['start_index']} "
                      f"must be positive (or -1) and end within the {width} columns")
    return start, length


def _partial_infer(op: str):
    def infer(ins, a):
        xs = ins["X"]
        shape = xs[0].shape
        if any(len(x.shape) != 2 for x in xs) or any(x.shape != shape for x in xs):
            raise ShapeError(f"op '{op}': every input must be 2-D and of one shape, got "
                             f"{[list(x.shape) for x in xs]}")
        if shape[1] == -1:
            raise ShapeError(f"op '{op}': the inputs' width must be known, got {list(shape)}")
        _, length = _columns(op, shape[1], a)
        width = length * (len(xs) if op == "partial_concat" else 1)
        return {"Out": [VarInfo((shape[0], width), xs[0].dtype)]}
    return infer


def _window(xs, a, op):
    start, length = _columns(op, xs[0].shape[1], a)
    return [x[:, start:start + length] for x in xs]


def _forward(op: str, xs, a):
    parts = _window(xs, a, op)
    if op == "partial_sum":
        return sum(parts[1:], parts[0])
    cat = np.concatenate if isinstance(xs[0], np.ndarray) else torch.cat
    return cat(parts, 1)


def _partial_grads(op: str, xs, d, a):
    """Each X_i's gradient: zeros but the window, which gets dOut (partial_sum) or dOut's i-th
    block of columns (partial_concat)."""
    start, length = _columns(op, xs[0].shape[1], a)
    grads = []
    for i, x in enumerate(xs):
        g = np.zeros_like(x) if isinstance(x, np.ndarray) else torch.zeros_like(x)
        g[:, start:start + length] = d if op == "partial_sum" else \
            d[:, i * length:(i + 1) * length]
        grads.append(g)
    return grads


def _register_partial(op: str) -> None:
    def ref(ins, a):
        return {"Out": [_forward(op, [np.asarray(x) for x in ins["X"]], a)]}

    def run(ins, outs, a, rng):
        outs["Out"][0].copy_(_forward(op, ins["X"], a))

    def grad(fwd: OpDesc) -> list[OpDesc]:
        return [OpDesc(op + "_grad", {"X": fwd.input("X"),
                                      "Out@GRAD": [grad_name(fwd.output("Out")[0])]},
                       {"X@GRAD": [grad_name(n) for n in fwd.input("X")]}, dict(fwd.attrs))]

    def grad_infer(ins, a):
        return {"X@GRAD": list(ins["X"])}

    def grad_ref(ins, a):
        xs = [np.asarray(x) for x in ins["X"]]
        return {"X@GRAD": _partial_grads(op, xs, np.asarray(ins["Out@GRAD"][0]), a)}

    def grad_run(ins, outs, a, rng):
        grads = _partial_grads(op, ins["X"], ins["Out@GRAD"][0], a)
        for out, g in zip(outs.get("X@GRAD") or [], grads):
            if out is not None:
                out.copy_(g)

    register(OpDef(op, slots("X*"), slots("Out"), PARTIAL_ATTRS, _partial_infer(op), "extern",
                   reference=ref, grad=grad, run=run))
    register(OpDef(op + "_grad", slots("X*", "Out@GRAD"), slots("X@GRAD*?"), PARTIAL_ATTRS,
                   grad_infer, "extern", reference=grad_ref, run=grad_run))


_register_partial("partial_sum")
_register_partial("partial_concat")


def _fc_infer(ins, a):
    x, w, b = ins["Input"][0], ins["W"][0], ins["Bias"][0]
    known = all(-1 not in v.shape for v in (x, w, b))
    if len(x.shape) != 3 or len(w.shape) != 3 or len(b.shape) != 2 or (known and (
            x.shape[0] != w.shape[0] or x.shape[2] != w.shape[1]
            or b.shape != (w.shape[0], w.shape[2]))):
        raise ShapeError(f"op 'batch_fc': Input [S, N, I], W [S, I, O] and Bias [S, O] must "
                         f"agree, got Input {list(x.shape)}, W {list(w.shape)}, Bias "
                         f"{list(b.shape)}")
    return {"Out": [VarInfo((x.shape[0], x.shape[1], w.shape[2]), x.dtype)]}


def _fc_ref(ins, a):
    x, w, b = (np.asarray(ins[s][0]) for s in ("Input", "W", "Bias"))
    return {"Out": [(np.matmul(x, w) + b[:, None, :]).astype(x.dtype)]}


def _fc_run(ins, outs, a, rng):
    x, w, b = (ins[s][0] for s in ("Input", "W", "Bias"))
    torch.baddbmm(b[:, None, :], x, w, out=outs["Out"][0])


def _fc_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("batch_fc_grad", {"Input": op.input("Input"), "W": op.input("W"),
                                     "Bias": op.input("Bias"),
                                     "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {f"{s}@GRAD": [grad_name(op.input(s)[0])] for s in ("Input", "W", "Bias")},
                   dict(op.attrs))]


def _fc_grads(x, w, d, transpose):
    return {"Input@GRAD": d @ transpose(w), "W@GRAD": transpose(x) @ d, "Bias@GRAD": d.sum(1)}


def _fc_grad_ref(ins, a):
    x, w, d = (np.asarray(ins[s][0]) for s in ("Input", "W", "Out@GRAD"))
    grads = _fc_grads(x, w, d, lambda t: t.transpose(0, 2, 1))
    return {k: [v.astype(x.dtype)] for k, v in grads.items()}


def _fc_grad_run(ins, outs, a, rng):
    x, w, d = (ins[s][0] for s in ("Input", "W", "Out@GRAD"))
    for slot, g in _fc_grads(x, w, d, lambda t: t.transpose(1, 2)).items():
        out = _bound(outs, slot)
        if out is not None:
            out.copy_(g)


register(OpDef("batch_fc", slots("Input", "W", "Bias"), slots("Out"), {}, _fc_infer, "extern",
               reference=_fc_ref, grad=_fc_grad, run=_fc_run))
register(OpDef("batch_fc_grad", slots("Input", "W", "Bias", "Out@GRAD"),
               slots("Input@GRAD?", "W@GRAD?", "Bias@GRAD?"), {},
               lambda ins, a: {f"{s}@GRAD": [ins[s][0]] for s in ("Input", "W", "Bias")},
               "extern", reference=_fc_grad_ref, run=_fc_grad_run))


# rank_attention: instance i of rank r_i = RankOffset[i, 0] (1-based; <= 0: none) attends to
# the instances of its page view: for k < MaxRank, RankOffset[i, 2k + 1] is a peer's rank f
# (1-based; <= 0: none) and RankOffset[i, 2k + 2] its row in X. Out[i] = sum_k X[peer_k] @
# RankParam block (r_i - 1, f_k - 1), each block D rows of RankParam [MaxRank^2 * D, C].
# InputHelp [max(MaxSize, N), MaxRank * D] holds the gathered peers (zeros where none),
# InsRank [max(MaxSize, N), 1] each row's rank (-1 past N). As Paddle's, the gradient goes to
# RankParam only.
RANK_ATTRS = {"MaxRank": 3, "MaxSize": 0}


def _rank_infer(ins, a):
    x, ro, p = ins["X"][0], ins["RankOffset"][0], ins["RankParam"][0]
    r = a["MaxRank"]
    if len(x.shape) != 2 or len(ro.shape) != 2 or len(p.shape) != 2:
        raise ShapeError(f"op 'rank_attention': X, RankOffset and RankParam must be 2-D, got "
                         f"{list(x.shape)}, {list(ro.shape)}, {list(p.shape)}")
    if ro.shape[1] not in (-1, 2 * r + 1):
        raise ShapeError(f"op 'rank_attention': RankOffset {list(ro.shape)} must have 2 * "
                         f"MaxRank + 1 = {2 * r + 1} columns")
    if -1 not in (x.shape[1], p.shape[0]) and p.shape[0] != r * r * x.shape[1]:
        raise ShapeError(f"op 'rank_attention': RankParam {list(p.shape)} must have MaxRank^2 "
                         f"* D = {r * r * x.shape[1]} rows")
    n = x.shape[0]
    rows = -1 if n == -1 else max(a["MaxSize"], n)
    return {"Out": [VarInfo((n, p.shape[1]), x.dtype)],
            "InputHelp": [VarInfo((rows, r * x.shape[1]), x.dtype)],
            "InsRank": [VarInfo((rows, 1), x.dtype)]}


def _rank_plan(ro, n: int, r: int):
    """(peer rows [N, R], RankParam block of each [N, R], valid mask [N, R]) as numpy."""
    ro = np.asarray(ro, np.int64)
    lower, faster, peer = ro[:, 0] - 1, ro[:, 1:2 * r:2] - 1, ro[:, 2:2 * r + 1:2]
    valid = (lower[:, None] >= 0) & (faster >= 0)
    if valid.any() and (peer[valid].min() < 0 or peer[valid].max() >= n
                        or faster[valid].max() >= r or lower.max() >= r):
        raise OpError(f"op 'rank_attention': RankOffset holds a rank above MaxRank {r} or a "
                      f"peer row outside X's {n} rows")
    return (np.where(valid, peer, 0), np.where(valid, lower[:, None] * r + faster, 0), valid)


def _rank_gather(ins, a, xp):
    """(peers [N, R, D] zeroed where none, blocks [N, R, D, C], blocks' indices, valid)."""
    x, p = ins["X"][0], ins["RankParam"][0]
    r, d = a["MaxRank"], x.shape[1]
    ro = ins["RankOffset"][0]
    peer, block, valid = _rank_plan(ro if xp is np else ro.cpu(), x.shape[0], r)
    if xp is torch:
        peer, block = torch.as_tensor(peer, device=x.device), torch.as_tensor(block,
                                                                            device=x.device)
        valid = torch.as_tensor(valid, device=x.device)
    mask = valid[:, :, None]
    peers = x[peer] * mask
    return peers, p.reshape(r * r, d, -1)[block] * mask[..., None], block, valid


def _rank_outputs(ins, a, xp):
    x, ro = ins["X"][0], ins["RankOffset"][0]
    peers, blocks, _, _ = _rank_gather(ins, a, xp)
    out = (peers[..., None] * blocks).sum((1, 2))
    n, rows = x.shape[0], max(a["MaxSize"], x.shape[0])
    help_ = xp.zeros((rows, peers.shape[1] * peers.shape[2]), dtype=x.dtype) if xp is np else \
        torch.zeros((rows, peers.shape[1] * peers.shape[2]), dtype=x.dtype, device=x.device)
    help_[:n] = peers.reshape(n, -1)
    rank = np.full((rows, 1), -1.0)
    rank[:n, 0] = np.asarray(ro if xp is np else ro.cpu())[:, 0]
    return out, help_, rank


def _rank_ref(ins, a):
    ins = {k: [np.asarray(v[0])] for k, v in ins.items() if v}
    out, help_, rank = _rank_outputs(ins, a, np)
    dtype = ins["X"][0].dtype
    return {"Out": [out.astype(dtype)], "InputHelp": [help_], "InsRank": [rank.astype(dtype)]}


def _rank_run(ins, outs, a, rng):
    out, help_, rank = _rank_outputs(ins, a, torch)
    outs["Out"][0].copy_(out)
    for slot, value in (("InputHelp", help_), ("InsRank", torch.as_tensor(rank))):
        t = _bound(outs, slot)
        if t is not None:
            t.copy_(value)


def _rank_grad(op: OpDesc) -> list[OpDesc]:
    # Paddle's grad op also reads InputHelp / InsRank (its GPU kernel's buffers); the
    # gradient here recomputes what it needs from X and RankOffset
    helpers = {s: op.output(s) for s in ("InputHelp", "InsRank") if op.output(s)}
    return [OpDesc("rank_attention_grad",
                   {s: op.input(s) for s in ("X", "RankOffset", "RankParam")} | helpers |
                   {"Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"RankParam@GRAD": [grad_name(op.input("RankParam")[0])]}, dict(op.attrs))]


def _rank_param_grad(ins, a, xp):
    """dRankParam: each block gets the outer products X[peer] x dOut[i] of its uses."""
    peers, _, block, valid = _rank_gather(ins, a, xp)
    p, d = ins["RankParam"][0], ins["Out@GRAD"][0]
    r, width = a["MaxRank"], peers.shape[2]
    contrib = (peers[..., None] * d[:, None, None, :]).reshape(-1, width, p.shape[1])
    flat = block.reshape(-1)
    if xp is np:
        dp = np.zeros((r * r, width, p.shape[1]), p.dtype)
        np.add.at(dp, flat, contrib)
    else:
        dp = torch.zeros((r * r, width, p.shape[1]), dtype=p.dtype, device=p.device)
        dp.index_add_(0, flat, contrib)
    return dp.reshape(p.shape)


def _rank_grad_ref(ins, a):
    ins = {k: [np.asarray(v[0])] for k, v in ins.items() if v}
    return {"RankParam@GRAD": [_rank_param_grad(ins, a, np)]}


def _rank_grad_run(ins, outs, a, rng):
    out = _bound(outs, "RankParam@GRAD")
    if out is not None:
        out.copy_(_rank_param_grad(ins, a, torch))


register(OpDef("rank_attention", slots("X", "RankOffset", "RankParam"),
               slots("InputHelp?", "Out", "InsRank?"), RANK_ATTRS, _rank_infer, "extern",
               reference=_rank_ref, grad=_rank_grad, run=_rank_run))
register(OpDef("rank_attention_grad", slots("X", "RankOffset", "RankParam", "InputHelp?",
                                            "InsRank?", "Out@GRAD"),
               slots("RankParam@GRAD?"), RANK_ATTRS,
               lambda ins, a: {"RankParam@GRAD": [ins["RankParam"][0]]}, "extern",
               reference=_rank_grad_ref, run=_rank_grad_run))


# shuffle_batch: the rows of X (all dims but the last flattened) in a random order: Out[i] =
# X[j] where ShuffleIdx[j] = i. SeedOut is the first draw of std::minstd_rand0 seeded with the
# Seed input's value, or startup_seed where Seed is not bound or its var holds nothing (as the
# fresh var its layer binds, on each run). The order itself is drawn from the run's
# generator: Paddle's differs from run to run too.
SHUFFLE_ATTRS = {"startup_seed": 0}
_MINSTD_A, _MINSTD_M = 16807, 2147483647


def _shuffle_infer(ins, a):
    x = ins["X"][0]
    if len(x.shape) < 2:
        raise ShapeError(f"op 'shuffle_batch': X must have at least 2 dims, got "
                         f"{list(x.shape)}")
    rows = -1 if -1 in x.shape[:-1] else int(np.prod(x.shape[:-1]))
    return {"Out": [VarInfo(x.shape, x.dtype, x.lod_level)],
            "ShuffleIdx": [VarInfo((rows,), VarType.INT64)],
            "SeedOut": [VarInfo((1,), VarType.INT64)]}


def _next_seed(ins, a) -> np.ndarray:
    seed = ins.get("Seed")
    s = int(np.asarray(seed[0] if isinstance(seed[0], np.ndarray) else seed[0].cpu())
            .reshape(-1)[0]) if seed else int(a["startup_seed"])
    s %= _MINSTD_M
    return np.array([(s or 1) * _MINSTD_A % _MINSTD_M], np.int64)  # a 0 state seeds as 1


def _shuffle_ref(ins, a):
    x = np.asarray(ins["X"][0])
    rows = x.reshape(-1, x.shape[-1])
    idx = a["__rng__"].permutation(len(rows)).astype(np.int64)
    out = np.empty_like(rows)
    out[idx] = rows
    return {"Out": [out.reshape(x.shape)], "ShuffleIdx": [idx],
            "SeedOut": [_next_seed({k: [np.asarray(v[0])] for k, v in ins.items() if v}, a)]}


def _shuffle_run(ins, outs, a, rng):
    x = ins["X"][0]
    rows = x.reshape(-1, x.shape[-1])
    gen = rng if rng is not None and rng.device == rows.device else None
    idx = torch.randperm(len(rows), generator=gen, device=gen.device if gen else rows.device)
    outs["Out"][0].view(-1, x.shape[-1])[idx.to(rows.device)] = rows
    outs["ShuffleIdx"][0].copy_(idx)
    outs["SeedOut"][0].copy_(torch.as_tensor(_next_seed(ins, a)))


def _shuffle_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("shuffle_batch_grad", {"ShuffleIdx": op.output("ShuffleIdx"),
                                          "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _shuffle_grad_ref(ins, a):
    d, idx = np.asarray(ins["Out@GRAD"][0]), np.asarray(ins["ShuffleIdx"][0])
    return {"X@GRAD": [d.reshape(-1, d.shape[-1])[idx].reshape(d.shape)]}


def _shuffle_grad_run(ins, outs, a, rng):
    d, idx = ins["Out@GRAD"][0], ins["ShuffleIdx"][0]
    out = _bound(outs, "X@GRAD")
    if out is not None:
        out.copy_(d.reshape(-1, d.shape[-1])[idx].reshape(d.shape))


register(OpDef("shuffle_batch", slots("X", "Seed?"), slots("Out", "ShuffleIdx", "SeedOut"),
               SHUFFLE_ATTRS, _shuffle_infer, "extern", reference=_shuffle_ref,
               grad=_shuffle_grad, run=_shuffle_run, stateful=True, empty_inputs=("Seed",)))
register(OpDef("shuffle_batch_grad", slots("ShuffleIdx", "Out@GRAD"), slots("X@GRAD?"),
               SHUFFLE_ATTRS,
               lambda ins, a: {"X@GRAD": [ins["Out@GRAD"][0]]}, "extern",
               reference=_shuffle_grad_ref, run=_shuffle_grad_run))
