"""prepack_weights: in a plan that writes no persistable (inference), each generated product's
W is packed once per binding of the plan instead of on every run.

A generated product packs W into panels of NR columns (KC rows at a time) before its register
tiles read them; for a batch of 64 rows that pack is 8-12% of a layer's product. Here a
PackKernel packs the whole of W into a var of its own (`W@PACKED`, its storage pinned), which
the products read instead: the runtime runs the pack kernels when it binds the plan to a scope
and again whenever a packed weight may have changed (runtime/plan.py: another plan's run that
wrote persistables, a torch write to the weight, a new tensor in the scope).
"""
from __future__ import annotations

import dataclasses
import math

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.ops import OpDesc, VarInfo
from .fuse import MatmulKernel, PackKernel, Step
from .matmul import gemm_layout
from .scheduler import step_accesses

# The widest panel a product takes, in bytes of a row: four vectors of 64 bytes (module.c.j2's
# FLUIDC_NV and FLUIDC_VEC_BYTES at their largest). A packed W holds whole panels, so it takes
# K rows of N rounded up to this; the pack kernel asserts its panels fit (pack.c.j2).
PANEL_MAX_BYTES = 256


def packed_size(k: int, n: int, itemsize: int) -> int:
    """Elements of a packed [k, n] W: whole panels of the widest kind."""
    width = PANEL_MAX_BYTES // itemsize
    return k * math.ceil(n / width) * width


def prepack_weights(steps: list[Step], infos: dict[str, VarInfo], state: set[str],
                    storage) -> tuple[list[Step], set[str]]:
    """(steps, the packed vars): the pack kernels first, then `steps` with each generated
    2-D product over a weight in `state` reading the weight's packed var. Nothing changes where
    any step writes a persistable (a training step: its weights change every run)."""
    if any(storage(n) in state for s in steps for n in step_accesses(s)[1]):
        return steps, set()
    packs: dict[str, PackKernel] = {}
    out = []
    for step in steps:
        if type(step) is MatmulKernel:
            layout = gemm_layout(step.matmul, infos)
            w = layout.w
            pack = packs.get(w)
            plain = w in state and layout.batch == 1 and layout.x != w and step.held(w) == (w, 1)
            if plain and pack is None and f"{w}@PACKED" not in infos:
                pack = packs[w] = _pack_kernel(layout, infos)
            if plain and pack is not None and pack.ops[0].attrs == _pack_attrs(layout):
                packed = pack.outputs[0]
                step = dataclasses.replace(
                    step, inputs=[packed if n == w else n for n in step.inputs], packed=packed)
        out.append(step)
    return list(packs.values()) + out, {p.outputs[0] for p in packs.values()}


def _pack_kernel(layout, infos: dict[str, VarInfo]) -> PackKernel:
    """The kernel packing the product's W into a new var (added to `infos`)."""
    w, packed = layout.w, f"{layout.w}@PACKED"
    dtype = infos[w].dtype
    infos[packed] = VarInfo((packed_size(layout.k, layout.n, to_numpy_dtype(dtype).itemsize),),
                            dtype)
    op = OpDesc("pack_weight", {"W": [w]}, {"Out": [packed]}, _pack_attrs(layout))
    return PackKernel([op], (layout.k, layout.n), [w], [packed])


def _pack_attrs(layout) -> dict:
    """What the packed W depends on besides W (a product reading W otherwise packs it itself)."""
    return {"k": layout.k, "n": layout.n, "transposed": layout.w_strides != (layout.n, 1)}
