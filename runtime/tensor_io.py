"""PaddlePaddle's LoDTensor stream (one per variable file), save_combine (streams back to back)
and the SelectedRows stream (paddle.save(..., use_binary_format=True) of a SelectedRows).

A stream: uint32 version (0), uint64 LoD level count, per level uint64 byte size + uint64 offsets,
uint32 tensor version (0), int32 TensorDesc size, TensorDesc protobuf, raw little-endian data.
"""
from __future__ import annotations

import struct

import numpy as np
from fluidc.frontend.lazy_import import torch
from google.protobuf.message import DecodeError

from ..frontend.dtypes import VarType
from ..frontend.errors import FormatError
from . import proto
from .safe_pickle import checked_numel
from .tensor import ITEMSIZE as _ITEMSIZE, TORCH_DTYPES, LoDTensor


def tensor_to_bytes(t: LoDTensor) -> bytes:
    """One LoDTensor stream."""
    parts = [struct.pack("<IQ", 0, len(t._lod))]
    for level in t._lod:
        parts.append(struct.pack("<Q", 8 * len(level)) + np.asarray(level, "<u8").tobytes())
    return b"".join(parts) + _dense_to_bytes(t)


def _dense_to_bytes(t: LoDTensor) -> bytes:
    """The tensor part of a stream (no LoD): version, TensorDesc, raw data."""
    data = t.tensor.detach().cpu().contiguous()
    desc = proto.TensorDesc(data_type=int(t._dtype()), dims=list(data.shape)).SerializeToString()
    raw = data.reshape(-1).view(torch.uint8).numpy().tobytes() if data.numel() else b""
    return struct.pack("<Ii", 0, len(desc)) + desc + raw


def selected_rows_to_bytes(rows: list[int], height: int, value: LoDTensor) -> bytes:
    """A SelectedRows stream: uint32 version (0), uint64 row count, int64 rows, int64 height,
    then the value's tensor part."""
    return struct.pack("<IQ", 0, len(rows)) + np.asarray(rows, "<i8").tobytes() + \
        struct.pack("<q", height) + _dense_to_bytes(value)


def selected_rows_from_bytes(data: bytes, where: str) -> tuple[list[int], int, LoDTensor]:
    """(rows, height, value) of a file holding exactly one SelectedRows stream."""
    r = _Reader(data, where)
    (version,) = r.unpack("<I", "version", "SelectedRows")
    if version != 0:
        raise FormatError(f"{where}: SelectedRows version {version}, expected 0")
    (count,) = r.unpack("<Q", "row count", "SelectedRows")
    rows = np.frombuffer(r.take(8 * count, "rows", "SelectedRows"), "<i8").tolist()
    (height,) = r.unpack("<q", "height", "SelectedRows")
    value = LoDTensor(_read_dense(r, "SelectedRows"))
    if not r.at_end():
        raise FormatError(f"{where}: {len(r.data) - r.pos} bytes follow the SelectedRows")
    return rows, height, value


class _Reader:
    """Reads fixed-size pieces from a buffer; running out names the file and the var."""

    def __init__(self, data: bytes, where: str) -> None:
        self.data, self.pos, self.where = memoryview(data), 0, where

    def take(self, n: int, what: str, var: str) -> memoryview:
        if n < 0 or self.pos + n > len(self.data):
            raise FormatError(f"{self.where}: truncated while reading the {what} of var '{var}' "
                              f"(needs {n} bytes at offset {self.pos}, file has {len(self.data)})")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str, what: str, var: str):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what, var))

    def at_end(self) -> bool:
        return self.pos == len(self.data)


def read_stream(r: _Reader, var: str) -> LoDTensor:
    """The next LoDTensor stream of `r`, checked piece by piece."""
    (version,) = r.unpack("<I", "version", var)
    if version != 0:
        raise FormatError(f"{r.where}: var '{var}' has LoDTensor version {version}, expected 0 "
                          f"(not a Paddle tensor file?)")
    (levels,) = r.unpack("<Q", "LoD level count", var)
    if levels > 32:
        raise FormatError(f"{r.where}: var '{var}' claims {levels} LoD levels (corrupt file?)")
    lod = []
    for _ in range(levels):
        (size,) = r.unpack("<Q", "LoD level size", var)
        if size % 8:
            raise FormatError(f"{r.where}: var '{var}' has a LoD level of {size} bytes, not whole offsets")
        lod.append(np.frombuffer(r.take(size, "LoD offsets", var), "<u8").astype(int).tolist())
    return LoDTensor(_read_dense(r, var), lod)


def _read_dense(r: _Reader, var: str) -> torch.Tensor:
    """The tensor part of a stream (version, TensorDesc, data), checked."""
    tversion, desc_size = r.unpack("<Ii", "tensor header", var)
    if tversion != 0:
        raise FormatError(f"{r.where}: var '{var}' has tensor version {tversion}, expected 0")
    desc = proto.TensorDesc()
    try:
        desc.ParseFromString(bytes(r.take(desc_size, "TensorDesc", var)))
        dtype = VarType(desc.data_type)
    except (DecodeError, ValueError) as e:
        raise FormatError(f"{r.where}: var '{var}' has an unreadable TensorDesc: {e}") from None
    if dtype not in TORCH_DTYPES:
        raise FormatError(f"{r.where}: var '{var}' has dtype {dtype.name}, which fluidc cannot hold")
    dims = list(desc.dims)
    if any(d < 0 for d in dims):
        raise FormatError(f"{r.where}: var '{var}' has dims {dims}; a saved tensor has no -1 dims")
    # Exact integers: dims whose product overflows int64, or needs more bytes than the file has
    # left, are refused before anything is allocated.
    count = checked_numel(dims, _ITEMSIZE[dtype], len(r.data) - r.pos, r.where, f"var '{var}'")
    raw = r.take(count * _ITEMSIZE[dtype], "data", var)
    return torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(TORCH_DTYPES[dtype]).reshape(dims) \
        if len(raw) else torch.empty(dims, dtype=TORCH_DTYPES[dtype])


def tensor_from_bytes(data: bytes, where: str, var: str) -> LoDTensor:
    """The one LoDTensor stream that makes up a variable file."""
    r = _Reader(data, where)
    t = read_stream(r, var)
    if not r.at_end():
        raise FormatError(f"{where}: {len(r.data) - r.pos} bytes follow the tensor of var '{var}'")
    return t


def combine_to_bytes(tensors: list[LoDTensor]) -> bytes:
    """save_combine: the streams back to back, in the order given (Paddle sorts by name)."""
    return b"".join(tensor_to_bytes(t) for t in tensors)


def combine_from_bytes(data: bytes, where: str, names: list[str]) -> dict[str, LoDTensor]:
    """load_combine: one stream per name, in order; the file must hold exactly that many."""
    r = _Reader(data, where)
    out = {}
    for name in names:
        if r.at_end():
            raise FormatError(f"{where}: ends before var '{name}' ({len(out)} of {len(names)} "
                              f"vars read)")
        out[name] = read_stream(r, name)
    if not r.at_end():
        raise FormatError(f"{where}: {len(r.data) - r.pos} bytes follow the last expected var "
                          f"'{names[-1] if names else ''}' (the file holds more vars than the program)")
    return out


def count_streams(data: bytes, where: str) -> list[LoDTensor]:
    """Every stream of a combined file, when the names are unknown (inspection)."""
    r, out = _Reader(data, where), []
    while not r.at_end():
        out.append(read_stream(r, f"#{len(out)}"))
    return out
