"""A kernel step's structure with its var names left out: steps of equal structure (the layers
of a deep model repeat) render to the same code, so a module renders each structure once.

The structure is everything a renderer may read: the step's kind and every field (ops with
their slots and attributes, shapes, flags, the vars it names), each var's VarInfo, which vars
share a storage and each storage's VarInfo. Vars are numbered in the order the walk meets them;
a string that names no var is kept as it is. Two steps of one structure differ only in names,
and renderers use names only to tell vars (and storages) apart, so a second step takes the
first's code with its own storages in the first's buffers' places (`Structure.buffers`)."""
from __future__ import annotations

import dataclasses
from typing import Callable

from ..frontend.ops import OpDesc, VarInfo
from ..frontend.ops.registry import Unkeyed, attr_key


@dataclasses.dataclass
class Structure:
    key: tuple
    storages: list[str]  # the step's storages, in the walk's order

    def buffers(self, first: "Structure", buffers: list[str]) -> list[str] | None:
        """The first step's `buffers` (its storages, in parameter order) as this step's; None
        where one is not a storage of the first step's vars (then render this step too)."""
        mine = dict(zip(first.storages, self.storages))
        out = [mine.get(b) for b in buffers]
        return None if None in out else out


def structure(step, infos: dict[str, VarInfo], storage: Callable[[str], str],
              *extra) -> Structure | None:
    """The structure of `step` (a Fused kernel of any kind) with `extra` values in its key;
    None where a field is of a kind the walk does not know."""
    names: dict[str, int] = {}
    storages: dict[str, int] = {}

    def var(n: str) -> tuple:
        i = names.get(n)
        if i is None:
            i = names[n] = len(names)
            storages.setdefault(storage(n), len(storages))
        return ("v", i)

    def slots(vars: dict[str, list[str]]) -> tuple:
        return tuple((slot, *(var(n) if n in infos else n for n in ns))
                     for slot, ns in vars.items())

    def walk(x):
        if isinstance(x, str):
            return var(x) if x in infos else x
        if x is None or isinstance(x, (bool, int)):  # typed (enums too): True == 1 as a key
            return (type(x).__name__, x)
        if isinstance(x, float):  # repr: -0.0 == 0.0 as a key
            return ("float", repr(x))
        if isinstance(x, (list, tuple)):
            return (type(x).__name__, *map(walk, x))
        if isinstance(x, dict):
            return ("dict", *((walk(k), walk(v)) for k, v in x.items()))
        if isinstance(x, OpDesc):  # callsite and origin reach comments; attrs name no vars
            return ("op", x.type, slots(x.inputs), slots(x.outputs),
                    tuple((k, attr_key(v)) for k, v in x.attrs.items()))
        if dataclasses.is_dataclass(x) and not isinstance(x, type):
            return (type(x).__name__,
                    *(walk(getattr(x, f.name)) for f in dataclasses.fields(x)))
        raise Unkeyed(type(x).__name__)

    try:
        body = walk(step)
    except Unkeyed:
        return None
    var_infos = tuple((_info(infos[n]), storages[storage(n)]) for n in names)
    storage_infos = tuple(_info(infos.get(s)) for s in storages)  # in their numbers' order
    return Structure((body, var_infos, storage_infos, extra), list(storages))


def _info(info: VarInfo | None) -> tuple | None:
    return None if info is None else (tuple(info.shape), int(info.dtype), info.lod_level)

