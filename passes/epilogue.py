"""Matmul epilogues for library products: `mul` followed by a bias add over its last dim
becomes one library call (addmm), so the product is written once with the bias already in it.
Products the C backend generates itself take their epilogues in the kernel (fuse.py)."""
from __future__ import annotations

from ..frontend.ops import OpDesc, VarInfo


def fuse_matmul_bias(ops: list[OpDesc], infos: dict[str, VarInfo], keep: set[str],
                     leave: set[str] = frozenset()) -> list[OpDesc]:
    """mul(X, W) -> T; elementwise_add(T, b) -> O  ==>  mul_bias(X, W, b) -> O, when only the
    add reads T, T is not kept (fetched, persistable), and b is 1-D over T's last dim; with
    products writing a var in `leave` (generated kernels take their own epilogues) untouched."""
    readers: dict[str, int] = {}
    for op in ops:
        for n in op.input_arg_names:
            readers[n] = readers.get(n, 0) + 1
    out: list[OpDesc] = []
    skip: set[int] = set()
    for i, op in enumerate(ops):
        if i in skip:
            continue
        nxt = ops[i + 1] if i + 1 < len(ops) else None
        if op.type == "mul" and nxt is not None and nxt.type == "elementwise_add" \
                and op.output("Out")[0] not in leave:
            t = op.output("Out")[0]
            bias = nxt.input("Y")[0]
            rank = len(infos[t].shape)
            fits = (nxt.input("X") == [t] and readers.get(t) == 1 and t not in keep
                    and len(infos[bias].shape) == 1 and infos[bias].shape[0] == infos[t].shape[-1]
                    and nxt.attrs.get("axis", -1) in (-1, rank - 1)
                    and op.attrs.get("x_num_col_dims", 1) == rank - 1
                    and infos[bias].dtype == infos[t].dtype)
            if fits:
                out.append(OpDesc("mul_bias", {"X": op.input("X"), "Y": op.input("Y"),
                                               "Bias": [bias]}, {"Out": nxt.output("Out")},
                                  dict(op.attrs)))
                skip.add(i + 1)
                continue
        out.append(op)
    return out
