"""warpctc (fluid.layers.warpctc, paddle.nn.functional.ctc_loss): the CTC loss of unnormalized
Logits (softmax taken inside) against Label sequences.

Two forms, as Paddle's: LoD (Logits [sum T, C] and Label [sum L, 1] int32, sequences by their
LoDs; Loss [num_seq, 1]) and padded (Logits [max_T, B, C] time-major, Label [B, max_L],
LogitsLength / LabelLength [B] int64). Loss[b] = -log p(label_b | logits_b) over the CTC
alignments with `blank`; a sequence too short for any alignment (fewer steps than labels plus
adjacent repeats) gets loss 0 and gradient 0, as Paddle's warp-ctc gives it. WarpCTCGrad is
d Loss[b] / d Logits (softmax minus the alignment posterior; zero past a sequence's end),
always padded [max_T, B, C]: the forward computes it, the grad op scales it by Loss@GRAD[b]
(and by 1 / T_b with norm_by_times, which only changes the gradient, as in Paddle) and unpads
it for the LoD form.

The compiled kernel is torch's ctc_loss and its autograd (a library call); the numpy reference
is an independent log-space forward-backward (alpha / beta over the blank-extended label)."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import OpError, ShapeError
from .conv import _bound
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots
from .sequence import _known, _need

CTC_ATTRS = {"blank": 0, "norm_by_times": False}


def _padded_form(ins) -> bool:
    return bool(ins.get("LogitsLength"))


def _infer(ins, a):
    x, label = ins["Logits"][0], ins["Label"][0]
    padded = _padded_form(ins)
    if padded != bool(ins.get("LabelLength")):
        raise OpError("op 'warpctc': LogitsLength and LabelLength come together (padded "
                      "input) or not at all (LoD input)")
    if len(x.shape) != (3 if padded else 2):
        want = "[max_T, B, C]" if padded else "[T, C] (LoD)"
        raise ShapeError(f"op 'warpctc': Logits must be {want}, got {list(x.shape)}")
    c = x.shape[-1]
    if c != -1 and not 0 <= a["blank"] < c:
        raise OpError(f"op 'warpctc': blank {a['blank']} must lie in [0, {c}) (the classes "
                      f"of Logits)")
    if padded:
        if len(label.shape) != 2:
            raise ShapeError(f"op 'warpctc': Label must be [B, max_L] with padded Logits, got "
                             f"{list(label.shape)}")
        n, grad_shape = x.shape[1], x.shape
    elif _known(a):
        offs = _need("warpctc", a, "Logits")[-1]
        n = len(offs) - 1
        grad_shape = (int(np.diff(offs).max()) if n else 0, n, c)
    else:
        n, grad_shape = -1, (-1, -1, c)
    return {"Loss": [VarInfo((n, 1), x.dtype)], "WarpCTCGrad": [VarInfo(grad_shape, x.dtype)]}


def _sequences(ins, a):
    """(logits [max_T, B, C] padded, labels: a list of int arrays, logit lengths [B])
    in numpy or torch as the inputs are."""
    x, label = ins["Logits"][0], ins["Label"][0]
    is_np = isinstance(x, np.ndarray)
    if _padded_form(ins):
        t_len = np.asarray(ins["LogitsLength"][0] if is_np else ins["LogitsLength"][0].cpu(),
                           np.int64).reshape(-1)
        l_len = np.asarray(ins["LabelLength"][0] if is_np else ins["LabelLength"][0].cpu(),
                           np.int64).reshape(-1)
        lab = np.asarray(label if is_np else label.cpu(), np.int64)
        return x, [lab[b, :l_len[b]] for b in range(len(l_len))], t_len
    offs = np.asarray(_need("warpctc", a, "Logits")[-1])
    loffs = np.asarray(_need("warpctc", a, "Label")[-1])
    if len(offs) != len(loffs):
        raise OpError(f"op 'warpctc': Logits holds {len(offs) - 1} sequences, Label "
                      f"{len(loffs) - 1}")
    t_len, n = np.diff(offs), len(offs) - 1
    max_t = int(t_len.max()) if n else 0
    lab = np.asarray(label if is_np else label.cpu(), np.int64).reshape(-1)
    rows = np.concatenate([np.arange(o, o + t) for o, t in zip(offs[:-1], t_len)]) \
        if n else np.zeros(0, np.int64)
    cols = np.concatenate([np.full(t, b) for b, t in enumerate(t_len)]) if n else rows
    steps = rows - np.repeat(offs[:-1], t_len)
    if is_np:
        padded = np.zeros((max_t, n, x.shape[1]), x.dtype)
    else:
        padded = torch.zeros((max_t, n, x.shape[1]), dtype=x.dtype, device=x.device)
    padded[steps, cols] = x[rows]
    return padded, [lab[loffs[b]:loffs[b + 1]] for b in range(n)], t_len


def _check_labels(labels, t_len, blank, classes):
    for b, lab in enumerate(labels):
        if lab.size and (lab.min() < 0 or lab.max() >= classes or (lab == blank).any()):
            raise OpError(f"op 'warpctc': the labels of sequence {b} must lie in [0, "
                          f"{classes}) and not be the blank {blank}, got {lab.tolist()}")
        if t_len[b] < 1:
            raise OpError(f"op 'warpctc': sequence {b} has no time steps")


def _feasible(labels, t_len) -> np.ndarray:
    """Whether each sequence has a CTC alignment: T_b >= L_b + its adjacent repeats."""
    return np.array([t >= len(lab) + int((lab[1:] == lab[:-1]).sum())
                     for lab, t in zip(labels, t_len)], bool)


def _log_softmax(z):
    m = z.max(-1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(-1, keepdims=True))


def _later(v, k):
    """v moved k places to higher indices, -inf (log 0) shifted in."""
    k = min(k, len(v))
    return np.concatenate([np.full(k, -np.inf), v[:len(v) - k]])


def _earlier(v, k):
    """v moved k places to lower indices, -inf shifted in."""
    k = min(k, len(v))
    return np.concatenate([v[k:], np.full(k, -np.inf)])


def _ctc_numpy(logits, label, blank):
    """(loss, d loss / d logits) of one sequence: logits [T, C] float64, label [L]."""
    lp = _log_softmax(logits)
    t_steps, s = logits.shape[0], 2 * len(label) + 1
    ext = np.full(s, blank)
    ext[1::2] = label
    # a move from s - 2 skips a blank between two different labels
    skip = np.zeros(s, bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    alpha = np.full((t_steps, s), -np.inf)
    alpha[0, :2] = lp[0, ext[:2]]
    for t in range(1, t_steps):
        prev = alpha[t - 1]
        jump = np.where(skip, _later(prev, 2), -np.inf)
        alpha[t] = np.logaddexp(np.logaddexp(prev, _later(prev, 1)), jump) + lp[t, ext]
    beta = np.full((t_steps, s), -np.inf)
    beta[-1, -2:] = lp[-1, ext[-2:]]
    skip_back = np.zeros(s, bool)  # s -> s + 2 allowed when s + 2 may skip back to s
    skip_back[:s - 2] = skip[2:]
    for t in range(t_steps - 2, -1, -1):
        nxt = beta[t + 1]
        jump = np.where(skip_back, _earlier(nxt, 2), -np.inf)
        beta[t] = np.logaddexp(np.logaddexp(nxt, _earlier(nxt, 1)), jump) + lp[t, ext]
    log_p = np.logaddexp(alpha[-1, -1], alpha[-1, -2]) if s > 1 else alpha[-1, -1]
    # alpha * beta counts lp[t, ext[s]] twice: occupancy of class k at t
    occ = alpha + beta - lp[:, ext]
    post = np.zeros_like(lp)
    for k in np.unique(ext):
        post[:, k] = np.exp(np.logaddexp.reduce(occ[:, ext == k], axis=1) - log_p)
    return -log_p, np.exp(lp) - post


def _ref(ins, a):
    ins = {k: [np.asarray(v[0])] for k, v in ins.items() if v}
    padded, labels, t_len = _sequences(ins, a)
    _check_labels(labels, t_len, a["blank"], padded.shape[-1])
    loss = np.zeros((len(labels), 1), padded.dtype)
    grad = np.zeros_like(padded)
    for b in np.flatnonzero(_feasible(labels, t_len)):
        value, g = _ctc_numpy(padded[:t_len[b], b].astype(np.float64), labels[b], a["blank"])
        loss[b, 0], grad[:t_len[b], b] = value, g
    return {"Loss": [loss], "WarpCTCGrad": [grad]}


def _run(ins, outs, a, rng):
    ins = {k: v for k, v in ins.items() if v}
    padded, labels, t_len = _sequences(ins, a)
    _check_labels(labels, t_len, a["blank"], padded.shape[-1])
    n = len(labels)
    with torch.enable_grad():
        z = padded.detach().requires_grad_(True)
        targets = torch.as_tensor(np.concatenate(labels) if n else np.zeros(0, np.int64),
                                  device=z.device)
        loss = torch.nn.functional.ctc_loss(
            z.log_softmax(-1), targets, torch.as_tensor(t_len),
            torch.as_tensor([len(lab) for lab in labels], dtype=torch.int64),
            blank=a["blank"], reduction="none", zero_infinity=True)
        (grad,) = torch.autograd.grad(loss.sum(), z)
    keep = torch.as_tensor(_feasible(labels, t_len), device=z.device)
    outs["Loss"][0].copy_((loss.detach() * keep).reshape(n, 1))
    outs["WarpCTCGrad"][0].copy_(grad * keep[None, :, None])


def _grad(op: OpDesc) -> list[OpDesc]:
    ins = {"Logits": op.input("Logits"), "WarpCTCGrad": op.output("WarpCTCGrad"),
           "Loss@GRAD": [grad_name(op.output("Loss")[0])]}
    if op.input("LogitsLength"):
        ins["LogitsLength"] = op.input("LogitsLength")
    return [OpDesc("warpctc_grad", ins, {"Logits@GRAD": [grad_name(op.input("Logits")[0])]},
                   dict(op.attrs))]


def _grad_infer(ins, a):
    return {"Logits@GRAD": [ins["Logits"][0]]}


def _scaled(ins, a, xp):
    """WarpCTCGrad times each sequence's Loss@GRAD (/ T_b with norm_by_times), and the
    logit lengths."""
    g, d = ins["WarpCTCGrad"][0], ins["Loss@GRAD"][0]
    n = g.shape[1]
    if _padded_form(ins):
        lens = ins["LogitsLength"][0]
        lens = np.asarray(lens if xp is np else lens.cpu(), np.int64).reshape(-1)
    else:
        lens = np.diff(_need("warpctc_grad", a, "Logits")[-1])
    scale = d.reshape(1, n, 1)
    if a["norm_by_times"]:
        inv = (1.0 / np.maximum(lens, 1)).reshape(1, n, 1)
        scale = scale * (inv.astype(g.dtype) if xp is np else
                         torch.as_tensor(inv, dtype=g.dtype, device=g.device))
    return g * scale, lens


def _unpad(padded, lens):
    """[max_T, B, C] -> the [sum T, C] rows of the LoD form."""
    return [padded[:t, b] for b, t in enumerate(lens)]


def _grad_ref(ins, a):
    ins = {k: [np.asarray(v[0])] for k, v in ins.items() if v}
    g, lens = _scaled(ins, a, np)
    if not _padded_form(ins):
        g = np.concatenate(_unpad(g, lens)) if len(lens) else g.reshape(0, g.shape[-1])
    return {"Logits@GRAD": [g.astype(ins["Logits"][0].dtype)]}


def _grad_run(ins, outs, a, rng):
    ins = {k: v for k, v in ins.items() if v}
    out = _bound(outs, "Logits@GRAD")
    if out is None:
        return
    g, lens = _scaled(ins, a, torch)
    if _padded_form(ins):
        out.copy_(g)
    elif len(lens):
        out.copy_(torch.cat(_unpad(g, lens)))


def _no_lod(lods, a, ins):
    return {"Loss": [None], "WarpCTCGrad": [None]}


def _logits_lod(lods, a, ins):
    return {"Logits@GRAD": [(lods.get("Logits") or [None])[0]]}


register(OpDef("warpctc", slots("Logits", "Label", "LogitsLength?", "LabelLength?"),
               slots("Loss", "WarpCTCGrad"), CTC_ATTRS, _infer, "extern", reference=_ref,
               grad=_grad, run=_run, lod=_no_lod))
register(OpDef("warpctc_grad", slots("Logits", "WarpCTCGrad", "Loss@GRAD", "LogitsLength?"),
               slots("Logits@GRAD?"), CTC_ATTRS, _grad_infer, "extern", reference=_grad_ref,
               run=_grad_run, lod=_logits_lod))
