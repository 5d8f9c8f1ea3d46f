"""C for generated attention (templates/c/attention.c.j2, passes/attention.py's
AttentionKernel): q, k, v, the mask and the output are addressed through strides, so the
transposes splitting heads off (and merging them back) are only other strides."""
from __future__ import annotations

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.ops import VarInfo
from ..frontend.ops.nn import SOFTMAX_FLOOR
from ..passes.attention import AttentionKernel
from .c import _ENV, c_literal, c_type
from .c_matmul import PARALLEL_MIN_FMAS, SUFFIX, MatmulSpec
from .dynamic_batch import BATCH
from .kernel import Storage, contiguous_strides


def _head_strides(shape: tuple[int, ...], heads_second: bool) -> list[int]:
    """(batch, head, row) strides of a contiguous [b, h, s, d] var, or of a [b, s, h, d] one."""
    st = contiguous_strides(tuple(shape))
    return [st[0], st[2], st[1]] if heads_second else st[:3]


def render_attention(step: AttentionKernel, infos: dict[str, VarInfo], name: str,
                     storage: Storage = str) -> MatmulSpec:
    """The C function computing `step`: params are its distinct storages, q, k, v, [the mask,]
    then the output."""
    dtype = to_numpy_dtype(infos[step.q].dtype)
    T = c_type(dtype)
    roles = [step.q, step.k, step.v] + ([step.mask] if step.mask else []) + [step.stored]
    buffers = list(dict.fromkeys(storage(n) for n in roles))
    ref = {n: f"b{buffers.index(storage(n))}" for n in roles}
    written = [b == storage(step.stored) for b in buffers]
    params = [f"const int64_t {BATCH}"] + [f"{T} *restrict b{i}" if w else
                                           f"const {T} *restrict b{i}"
                                           for i, w in enumerate(written)]
    b, h, sq, dk = (infos[step.q].shape[i] for i in ((0, 2, 1, 3) if step.heads_second[0]
                                                     else (0, 1, 2, 3)))
    sk = infos[step.k].shape[1 if step.heads_second[1] else 2]
    dv = infos[step.v].shape[3]
    ms = []
    if step.mask:  # strides of the aligned mask, 0 where it broadcasts
        st = contiguous_strides(step.mask_shape)
        ms = [0 if d == 1 else s for d, s in zip(step.mask_shape, st)]
    source = _ENV.get_template("attention.c.j2").render(
        name=name, params=params, s=SUFFIX[dtype.name], T=T, b=b, h=h, sq=sq, sk=sk, dk=dk,
        dv=dv, q=ref[step.q], k=ref[step.k], v=ref[step.v], out=ref[step.stored],
        mask=ref.get(step.mask, ""),
        qs=_head_strides(infos[step.q].shape, step.heads_second[0]),
        ks=_head_strides(infos[step.k].shape, step.heads_second[1]),
        vs=_head_strides(infos[step.v].shape, step.heads_second[2]),
        os=_head_strides(infos[step.stored].shape, step.out_heads_second), ms=ms,
        score_ops=[(op[0], op[1], c_literal(op[1], dtype)) if op[0] == "scale" else op
                   for op in step.score_ops],
        weight_scales=[c_literal(c, dtype) for c in step.weight_scales],
        q_scale=c_literal(step.q_scale, dtype) if step.q_scale is not None else "",
        floor=c_literal(SOFTMAX_FLOOR, dtype), exp="expf" if T == "float" else "exp",
        parallel=int(b * h * sq * sk * (dk + dv) >= PARALLEL_MIN_FMAS))
    return MatmulSpec(buffers, [dtype] * len(buffers), written, dtype, source)
