"""`fluidc inspect PATH`: what a saved model or checkpoint holds, for every format fluidc reads."""
from __future__ import annotations

import os

import numpy as np

from ..frontend.dtypes import VarType, dtype_name
from ..frontend.errors import FormatError
from ..frontend.framework import Program
from . import io as rio
from .atomic_files import member_exists, resolve_dir
from .program_desc import parse_program
from .tensor import LoDTensor
from .tensor_io import count_streams, tensor_from_bytes


def _dtype(dt) -> str:
    try:
        return dtype_name(dt)
    except Exception:
        return VarType(dt).name if isinstance(dt, int) else str(dt)


def _row(name: str, shape, dtype, persistable="", size="") -> str:
    shape = shape if isinstance(shape, str) else str(list(shape))
    return f"  {name:<36} {shape:<14} {dtype:<9} {str(persistable):<11} {size}"


_HEADER = _row("name", "shape", "dtype", "persistable", "bytes")


def _nbytes(shape, dtype) -> str:
    if any(d < 0 for d in shape):
        return "?"  # a batch dim fixed by the feed
    return str(int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype_name(dtype)).itemsize)


def _describe_program(program: Program, title: str) -> list[str]:
    lines = [f"{title}: {sum(len(b.ops) for b in program.blocks)} ops in "
             f"{program.num_blocks} block(s)"]
    for b in program.blocks:
        lines += [f" block {b.idx} (parent {b.parent_idx}) vars:", _HEADER]
        for v in b.vars.values():
            if v.type in (VarType.LOD_TENSOR, VarType.SELECTED_ROWS, VarType.LOD_TENSOR_ARRAY):
                lines.append(_row(v.name, v.shape, _dtype(v.dtype), v.persistable,
                                  _nbytes(v.shape, v.dtype)))
            else:
                lines.append(_row(v.name, [], v.type.name, v.persistable))
        lines.append(f" block {b.idx} ops:")
        for i, op in enumerate(b.ops):
            ins = ", ".join(f"{k}={v}" for k, v in op.desc.inputs.items())
            outs = ", ".join(f"{k}={v}" for k, v in op.desc.outputs.items())
            lines.append(f"  {i:>3} {op.type}({ins}) -> {outs}")
    return lines


def _describe_values(values: dict, title: str) -> list[str]:
    lines = [f"{title}: {len(values)} var(s)", _HEADER]
    for name, v in values.items():
        if isinstance(v, LoDTensor):
            v = v.numpy()
        if isinstance(v, np.ndarray):
            lines.append(_row(name, v.shape, v.dtype.name, True, v.nbytes))
        else:
            lines.append(f"  {name:<36} {type(v).__name__}: {v!r:.60}")
    return lines


def _describe_pickle(obj, title: str) -> list[str]:
    if isinstance(obj, dict) and all(isinstance(k, str) for k in obj):
        return _describe_values(obj, title)
    if isinstance(obj, np.ndarray):
        return _describe_values({"(tensor)": obj}, title)
    return [f"{title}: {type(obj).__name__}", f"  {obj!r:.400}"]


def describe(path: str) -> str:
    """A readable listing of a saved model or checkpoint: vars (name, shape, dtype, persistable, size) and ops."""
    path = os.fspath(path)
    if os.path.isdir(resolve_dir(path)):
        path = resolve_dir(path)  # a save killed between its renames: the complete old one
        model = os.path.join(path, "__model__")
        if os.path.isfile(model):
            program = parse_program(rio._read(model, "model"), model)
            lines = _describe_program(program, f"{model} (ProgramDesc)")
            chosen = rio._select(program, None, rio.is_persistable)
            others = sorted(f for f in os.listdir(path) if f != "__model__"
                            and os.path.isfile(os.path.join(path, f)))
            combined = others[0] if len(others) == 1 and not all(
                os.path.isfile(rio.file_name_of(v.name, path)) for v in chosen) else None
            params = rio._read_vars(path, chosen, combined)
            what = f"combined params in {combined}" if combined else "one tensor file per var"
            return "\n".join(lines + _describe_values(params, f"{path} ({what})"))
        return "\n".join(_describe_values(_dir_tensors(path), f"{path} (tensor files)"))
    if not os.path.exists(path):
        for ext in (".pdmodel", ".pdparams"):
            if member_exists(path + ext):
                return _describe_prefix(path)
        raise FormatError(f"{path}: no such file, directory or path prefix")
    data = rio._read(path, "inspect")
    if data[:1] == b"\x80":
        return "\n".join(_describe_pickle(rio._unpickle(data, path, False), f"{path} (pickle)"))
    if data[:4] == b"\0\0\0\0":
        try:
            t = tensor_from_bytes(data, path, os.path.basename(path))
            return "\n".join(_describe_values({os.path.basename(path): t},
                                              f"{path} (LoDTensor, lod {t.lod()})"))
        except FormatError:
            ts = count_streams(data, path)  # several streams: a combined params file
            return "\n".join(_describe_values({f"#{i}": t for i, t in enumerate(ts)},
                                              f"{path} (combined params, names are in the model)"))
    if path.endswith(".pdmodel"):
        return _describe_prefix(path[:-len(".pdmodel")])
    return "\n".join(_describe_program(parse_program(data, path), f"{path} (ProgramDesc)"))


def _dir_tensors(path: str) -> dict:
    """Every tensor in the files of a directory saved without its program: a file per var
    (save_persistables), or a combined file whose streams are shown as file#i (names are in
    the program, which is not there)."""
    out = {}
    for name, file in rio.dir_files(path):
        data = rio._read(file, "tensor file")
        try:
            out[name] = tensor_from_bytes(data, file, name)
        except FormatError:
            out.update({f"{name}#{i}": t for i, t in enumerate(count_streams(data, file))})
    return out


def _describe_prefix(prefix: str) -> str:
    lines = []
    if member_exists(prefix + ".pdmodel"):
        program = parse_program(rio._read(prefix + ".pdmodel", "model"), prefix + ".pdmodel")
        lines += _describe_program(program, f"{prefix}.pdmodel (ProgramDesc)")
        if member_exists(prefix + ".pdiparams"):
            lines += _describe_values(rio.load(prefix), f"{prefix}.pdiparams (combined params)")
    for ext in (".pdparams", ".pdopt"):
        if member_exists(prefix + ext):
            lines += _describe_pickle(rio._unpickle(rio._read(prefix + ext, ext), prefix + ext, False),
                                      f"{prefix}{ext} (pickle)")
    return "\n".join(lines)
