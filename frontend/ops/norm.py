"""layer_norm and its grad: composites lowered to reductions and pointwise ops, so they fuse.

X splits at begin_norm_axis into `left` rows of `right` normalized values; Mean and Variance
hold one value per row ([left]), Scale and Bias one per normalized value ([right])."""
from __future__ import annotations

import math

import numpy as np

from ..errors import OpError, ShapeError
from .define import grad_like, present
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

LN_ATTRS = {"epsilon": 1e-5, "begin_norm_axis": 1, "is_test": False, "use_mkldnn": False,
            "mkldnn_data_type": "float32"}


def _prod(dims) -> int:
    return -1 if any(d < 0 for d in dims) else math.prod(dims)


def _split(op: str, shape, a) -> tuple[int, int, int]:
    """(begin_norm_axis, left, right) of X's shape."""
    ax = a["begin_norm_axis"]
    if not 0 <= ax < len(shape):
        raise ShapeError(f"op '{op}': begin_norm_axis={ax} is out of range for X {list(shape)}")
    return ax, _prod(shape[:ax]), _prod(shape[ax:])


def _ln_infer(ins, a):
    x = ins["X"][0]
    ax, left, right = _split("layer_norm", x.shape, a)
    for s in ("Scale", "Bias"):
        if ins.get(s):
            got = ins[s][0].shape
            if len(got) != 1 or (right >= 0 and got[0] not in (right, -1)):
                raise ShapeError(f"op 'layer_norm': {s} shape {list(got)} does not match the "
                                 f"{right} normalized values of X {list(x.shape)} at "
                                 f"begin_norm_axis={ax}")
    stat = VarInfo((left,), x.dtype)
    return {"Y": [VarInfo(x.shape, x.dtype, x.lod_level)], "Mean": [stat], "Variance": [stat]}


def _ln_np(x, a):
    ax, left, right = _split("layer_norm", x.shape, a)
    rows = x.reshape(left, right)
    mean = rows.mean(1)
    var = ((rows - mean[:, None]) ** 2).mean(1)
    xhat = (rows - mean[:, None]) / np.sqrt(var[:, None] + a["epsilon"])
    return rows, mean, var, xhat


def _ln_ref(ins, a):
    x = np.asarray(ins["X"][0])
    _, mean, var, y = _ln_np(x, a)
    if ins.get("Scale"):
        y = y * np.asarray(ins["Scale"][0])
    if ins.get("Bias"):
        y = y + np.asarray(ins["Bias"][0])
    return {"Y": [y.reshape(x.shape).astype(x.dtype)], "Mean": [mean.astype(x.dtype)],
            "Variance": [var.astype(x.dtype)]}


class _Emit:
    """Appends lowered ops, making their temporaries."""

    def __init__(self, new_var, dtype) -> None:
        self.ops: list[OpDesc] = []
        self.new_var, self.dtype = new_var, dtype

    def __call__(self, type: str, ins: dict, shape, attrs=None, out: str | None = None) -> str:
        out = out or self.new_var(VarInfo(tuple(shape), self.dtype))
        self.ops.append(OpDesc(type, {k: [v] for k, v in ins.items()}, {"Out": [out]},
                               attrs or {}))
        return out

    def reshape(self, x: str, shape, out: str | None = None) -> str:
        return self("reshape2", {"X": x}, shape, {"shape": list(shape)}, out)

    def row_mean(self, x: str, axes, kept, n: int) -> str:
        """mean over `axes` (the normalized ones), kept as size-1 dims."""
        total = self("reduce_sum", {"X": x}, kept, {"dim": list(axes), "keep_dim": True})
        return self("scale", {"X": total}, kept, {"scale": 1.0 / n})

    def column_sum(self, x: str, ax: int, shape, right: int, out: str) -> None:
        """sum over the rows (dims before ax) into the [right] var `out`."""
        if ax > 0:
            x = self("reduce_sum", {"X": x}, shape[ax:], {"dim": list(range(ax)),
                                                           "keep_dim": False})
        self.reshape(x, (right,), out)


def _ln_frame(op: OpDesc, infos: dict[str, VarInfo], new_var):
    """What layer_norm and its grad lower over: X's shape, the attrs, the split (ax, left,
    right), the normalized axes, the kept shape (1 on them) and an emitter."""
    xi = infos[op.input("X")[0]]
    shape = tuple(xi.shape)
    a = {**LN_ATTRS, **op.attrs}
    ax, left, right = _split(op.type, shape, a)
    axes, kept = range(ax, len(shape)), shape[:ax] + (1,) * (len(shape) - ax)
    return shape, a, (ax, left, right), axes, kept, _Emit(new_var, xi.dtype)


def _ln_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    shape, a, (ax, left, right), axes, kept, e = _ln_frame(op, infos, new_var)
    # Scale and Bias reshaped first, so the normalize-scale-shift chain stays one kernel.
    scale, bias = (e.reshape(op.input(s)[0], shape[ax:]) if present(op.input(s)) else None
                   for s in ("Scale", "Bias"))
    x = op.input("X")[0]
    mean = e.row_mean(x, axes, kept, right)
    xc = e("elementwise_sub", {"X": x, "Y": mean}, shape)
    var = e.row_mean(e("square", {"X": xc}, shape), axes, kept, right)
    rstd = e("rsqrt", {"X": e("scale", {"X": var}, kept, {"bias": float(a["epsilon"])})}, kept)
    y = op.output("Y")[0]
    y0 = e("elementwise_mul", {"X": xc, "Y": rstd}, shape, out=None if scale or bias else y)
    if scale:
        y0 = e("elementwise_mul", {"X": y0, "Y": scale}, shape, out=None if bias else y)
    if bias:
        e("elementwise_add", {"X": y0, "Y": bias}, shape, out=y)
    for slot, v in (("Mean", mean), ("Variance", var)):
        if present(op.output(slot)):
            e.reshape(v, (left,), op.output(slot)[0])
    return e.ops


def _ln_grad(op: OpDesc) -> list[OpDesc]:
    if not (present(op.output("Mean")) and present(op.output("Variance"))):
        raise OpError(f"op 'layer_norm' needs its Mean and Variance outputs to be "
                      f"differentiated (X {op.input('X')})")
    ins = {s: op.input(s) for s in ("X", "Scale", "Bias") if op.input(s)}
    ins.update({"Mean": op.output("Mean"), "Variance": op.output("Variance"),
                "Y@GRAD": [grad_name(op.output("Y")[0])]})
    return [OpDesc("layer_norm_grad", ins, grad_like(op, "X", "Scale", "Bias"), dict(op.attrs))]


def _ln_grad_infer(ins, a):
    out = {"X@GRAD": [ins["X"][0]]}
    out.update({s + "@GRAD": [ins[s][0]] for s in ("Scale", "Bias") if ins.get(s)})
    return out


def _ln_grad_ref(ins, a):
    x, dy = np.asarray(ins["X"][0]), np.asarray(ins["Y@GRAD"][0])
    ax, left, right = _split("layer_norm_grad", x.shape, a)
    mean = np.asarray(ins["Mean"][0]).reshape(left, 1)
    rstd = 1.0 / np.sqrt(np.asarray(ins["Variance"][0]).reshape(left, 1) + a["epsilon"])
    xhat = (x.reshape(left, right) - mean) * rstd
    dy = dy.reshape(left, right)
    g = dy * np.asarray(ins["Scale"][0]) if ins.get("Scale") else dy
    dx = rstd * (g - g.mean(1, keepdims=True) - xhat * (g * xhat).mean(1, keepdims=True))
    out = {"X@GRAD": [dx.reshape(x.shape).astype(x.dtype)]}
    if ins.get("Scale"):
        out["Scale@GRAD"] = [(dy * xhat).sum(0).astype(x.dtype)]
    if ins.get("Bias"):
        out["Bias@GRAD"] = [dy.sum(0).astype(x.dtype)]
    return out


def _ln_grad_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    # dX = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dY * Scale, over the normalized axes
    shape, a, (ax, left, right), axes, kept, e = _ln_frame(op, infos, new_var)
    x, dy = op.input("X")[0], op.input("Y@GRAD")[0]
    scale = e.reshape(op.input("Scale")[0], shape[ax:]) if present(op.input("Scale")) else None
    mean = e.reshape(op.input("Mean")[0], kept)
    var = e.reshape(op.input("Variance")[0], kept)
    rstd = e("rsqrt", {"X": e("scale", {"X": var}, kept, {"bias": float(a["epsilon"])})},
             kept)
    xhat = e("elementwise_mul", {"X": e("elementwise_sub", {"X": x, "Y": mean}, shape),
                                 "Y": rstd}, shape)
    if present(op.output("Bias@GRAD")):
        e.column_sum(dy, ax, shape, right, op.output("Bias@GRAD")[0])
    if present(op.output("Scale@GRAD")):
        e.column_sum(e("elementwise_mul", {"X": dy, "Y": xhat}, shape), ax, shape, right,
                     op.output("Scale@GRAD")[0])
    if present(op.output("X@GRAD")):
        g = e("elementwise_mul", {"X": dy, "Y": scale}, shape) if scale else dy
        m1 = e.row_mean(g, axes, kept, right)
        m2 = e.row_mean(e("elementwise_mul", {"X": g, "Y": xhat}, shape), axes, kept, right)
        centered = e("elementwise_sub", {"X": g, "Y": m1}, shape)
        diff = e("elementwise_sub", {"X": centered, "Y": e("elementwise_mul",
                                                            {"X": xhat, "Y": m2}, shape)}, shape)
        e("elementwise_mul", {"X": diff, "Y": rstd}, shape, out=op.output("X@GRAD")[0])
    return e.ops


register(OpDef("layer_norm", slots("X", "Scale?", "Bias?"), slots("Y", "Mean?", "Variance?"),
               LN_ATTRS, _ln_infer, "composite", reference=_ln_ref, grad=_ln_grad,
               lower=_ln_lower))
register(OpDef("layer_norm_grad", slots("X", "Scale?", "Bias?", "Mean", "Variance", "Y@GRAD"),
               slots("X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"), LN_ATTRS, _ln_grad_infer,
               "composite", reference=_ln_grad_ref, lower=_ln_grad_lower))
