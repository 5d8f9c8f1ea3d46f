"""matmul_v2's double gradient, as Paddle defines it: matmul_v2_grad_grad takes X, Y, DOut and
DDX/DDY (the grads of the first grad's X@GRAD/Y@GRAD) and gives DDOut (the grad of DOut) and
DX/DY (the grads of X/Y through the first grad). With A = op(X), B = op(Y) (op: transposed
when trans_x/trans_y) and Out = A B: DDOut = DDA B + A DDB, dA = DOut DDB^T, dB = DDA^T DOut.
Lowered into matmul_v2 (the transposes as its flags) and elementwise_add; operands of two or
more dims with equal batch dims (no broadcast batch, no 1-D operand)."""
from __future__ import annotations

from ..errors import OpError
from .define import present
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

ATTRS = {"trans_x": False, "trans_y": False}


def grad_of_matmul_v2_grad(op: OpDesc) -> list[OpDesc]:
    """The grad maker of matmul_v2_grad (op)."""
    dout = op.input("Out@GRAD")
    ins = {"X": op.input("X"), "Y": op.input("Y"), "DOut": dout}
    for side in ("X", "Y"):
        if present(op.output(side + "@GRAD")):
            ins["DD" + side] = [grad_name(op.output(side + "@GRAD")[0])]
    outs = {"DDOut": [grad_name(dout[0])], "DX": [grad_name(op.input("X")[0])],
            "DY": [grad_name(op.input("Y")[0])]}
    return [OpDesc("matmul_v2_grad_grad", ins, outs, dict(op.attrs))]


def _product_shape(a: VarInfo, b: VarInfo, ta: bool, tb: bool) -> tuple[int, ...]:
    rows = a.shape[-1] if ta else a.shape[-2]
    cols = b.shape[-2] if tb else b.shape[-1]
    return max(tuple(a.shape[:-2]), tuple(b.shape[:-2]), key=len) + (rows, cols)


def _lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    tx, ty = bool(op.attrs["trans_x"]), bool(op.attrs["trans_y"])
    x, y, dout = op.input("X")[0], op.input("Y")[0], op.input("DOut")[0]
    xb, yb = tuple(infos[x].shape[:-2]), tuple(infos[y].shape[:-2])
    if min(len(infos[x].shape), len(infos[y].shape)) < 2 or (xb != yb and xb and yb):
        raise OpError(f"op 'matmul_v2_grad_grad': X {list(infos[x].shape)} and Y "
                      f"{list(infos[y].shape)} need two or more dims and equal batch dims "
                      f"or one operand without (1-D operands and batch dims broadcast "
                      f"against each other have no double gradient in fluidc)")
    dd = {s: op.input("DD" + s)[0] for s in ("X", "Y") if present(op.input("DD" + s))}
    ops: list[OpDesc] = []

    def mm(a: str, b: str, ta: bool, tb: bool, out: str | None = None) -> str:
        """a op b into `out` (new if None); summed over the batch dims `out` lacks (the
        grad of an operand without batch dims)."""
        shape = _product_shape(infos[a], infos[b], ta, tb)
        lead = len(shape) - (len(infos[out].shape) if out is not None else len(shape))
        product = out if out is not None and not lead else new_var(VarInfo(shape,
                                                                           infos[a].dtype))
        ops.append(OpDesc("matmul_v2", {"X": [a], "Y": [b]}, {"Out": [product]},
                          {"trans_x": ta, "trans_y": tb}))
        if lead:
            ops.append(OpDesc("reduce_sum", {"X": [product]}, {"Out": [out]},
                              {"dim": list(range(lead)), "keep_dim": False,
                               "reduce_all": False}))
        return out if out is not None else product

    def zeros(like: str, out: str) -> None:
        ops.append(OpDesc("fill_zeros_like", {"X": [like]}, {"Out": [out]}, {}))

    ddout = op.output("DDOut")
    if present(ddout):
        if len(dd) == 2:
            ops.append(OpDesc("elementwise_add", {"X": [mm(dd["X"], y, tx, ty)],
                                                  "Y": [mm(x, dd["Y"], tx, ty)]},
                              {"Out": ddout}, {"axis": -1}))
        elif "X" in dd:
            mm(dd["X"], y, tx, ty, ddout[0])
        elif "Y" in dd:
            mm(x, dd["Y"], tx, ty, ddout[0])
        else:
            zeros(dout, ddout[0])
    dx = op.output("DX")
    if present(dx):  # dA = DOut DDB^T; X = A^T when trans_x
        if "Y" not in dd:
            zeros(x, dx[0])
        elif tx:
            mm(dd["Y"], dout, ty, True, dx[0])
        else:
            mm(dout, dd["Y"], False, not ty, dx[0])
    dy = op.output("DY")
    if present(dy):  # dB = DDA^T DOut; Y = B^T when trans_y
        if "X" not in dd:
            zeros(y, dy[0])
        elif ty:
            mm(dout, dd["X"], True, tx, dy[0])
        else:
            mm(dd["X"], dout, not tx, False, dy[0])
    return ops


def _infer(ins, a):
    return {"DDOut": [ins["DOut"][0]], "DX": [ins["X"][0]], "DY": [ins["Y"][0]]}


register(OpDef("matmul_v2_grad_grad", slots("X", "Y", "DOut", "DDX?", "DDY?"),
               slots("DX?", "DY?", "DDOut?"), ATTRS, _infer, "composite", lower=_lower))
