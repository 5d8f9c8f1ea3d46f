"""DataFeeder: a minibatch of sample tuples -> the feed dict of its vars, LoD from the lengths
of variable-length fields."""
from __future__ import annotations

import itertools
import math
from typing import Any, Iterable

import numpy as np

from ..frontend.dtypes import dtype_name, to_numpy_dtype
from ..frontend.errors import FeedError
from ..frontend.framework import Program, Variable, default_main_program
from .tensor import LoDTensor, to_torch


class FieldConverter:
    """Turns one field of every sample of a batch into the LoDTensor of one var."""

    def __init__(self, var: Variable, index: int) -> None:
        self.name, self.index = var.name, index
        self.dtype = np.dtype(to_numpy_dtype(var.dtype))
        self.lod_level = int(var.lod_level)
        self.row_shape = tuple(var.shape[1:])  # per sample (lod_level 0) or per row (LoD)
        known = all(d >= 0 for d in self.row_shape)
        self.row_size = math.prod(self.row_shape) if known else None
        self.declared = f"{dtype_name(var.dtype)} {list(var.shape)}"

    def __call__(self, samples: list) -> LoDTensor:
        data, offsets = self.convert(samples)
        return LoDTensor(to_torch(data), offsets)

    def convert(self, samples: list) -> tuple[np.ndarray, list | None]:
        """(data, LoD offsets or None): plain numpy, so worker processes can send it."""
        if self.lod_level == 0:
            return self._shape(self._array([s[self.index] for s in samples], samples), samples,
                               "sample"), None
        lens: list[list[int]] = [[] for _ in range(self.lod_level)]
        chunks, owner = [], []
        for i, s in enumerate(samples):
            try:
                self._flatten(s[self.index], 0, lens, chunks)
            except TypeError as e:
                raise FeedError(f"sample {i}: field {self.index} (var '{self.name}', lod_level "
                                f"{self.lod_level}) must be nested sequences {self.lod_level} "
                                f"deep: {e}") from None
            owner.append(len(chunks))
        data = self._array(chunks, samples, owner) if chunks else np.zeros(
            (0,) + tuple(d if d >= 0 else 0 for d in self.row_shape), self.dtype)
        data = self._shape(data, samples, "row", owner)
        return data, [[0] + list(itertools.accumulate(level)) for level in lens]

    def _flatten(self, x, depth: int, lens: list, chunks: list) -> None:
        if depth == self.lod_level - 1:
            arr = np.asarray(x)
            if arr.ndim == 0:
                raise TypeError(f"got a scalar {x!r} where a sequence was expected")
            lens[depth].append(len(arr))
            chunks.append(arr)
            return
        lens[depth].append(len(x))
        for sub in x:
            self._flatten(sub, depth + 1, lens, chunks)

    def _sample_of(self, k: int, owner: list | None) -> int:
        """The sample the k-th item (a chunk, when owner maps chunks to samples) came from."""
        return k if owner is None else next(i for i, end in enumerate(owner) if k < end)

    def _array(self, items: list, samples: list, owner: list | None = None) -> np.ndarray:
        """The items stacked (or, for LoD, concatenated) in the var's dtype, naming a bad one."""
        try:
            arr = np.concatenate(items) if owner is not None else np.asarray(items)
        except ValueError:
            arr = None
        if arr is not None and arr.dtype != object and self._castable(arr.dtype):
            return arr.astype(self.dtype, copy=False)
        fixed, ref = [], None
        for k, item in enumerate(items):  # one by one: fit each to the var, or name the culprit
            a = np.asarray(item)
            where = f"sample {self._sample_of(k, owner)}: field {self.index} (var '{self.name}'," \
                    f" declared {self.declared})"
            if a.dtype == object or not self._castable(a.dtype):
                raise FeedError(f"{where} has dtype {a.dtype}, which does not convert to "
                                f"{self.dtype} safely")
            if self.row_size:  # Paddle reshapes what has the declared size
                per = a.size if owner is None else (a.size // len(a) if len(a) else self.row_size)
                if per == self.row_size and (owner is None or a.size % self.row_size == 0):
                    a = a.reshape(self.row_shape if owner is None else (-1,) + self.row_shape)
            tail = a.shape if owner is None else a.shape[1:]
            if ref is not None and tail != ref:
                raise FeedError(f"{where} has shape {list(a.shape)}, unlike the samples before "
                                f"it ({list(ref)} per {'sample' if owner is None else 'row'})")
            ref = tail
            fixed.append(a)
        arr = np.concatenate(fixed) if owner is not None else np.stack(fixed)
        return arr.astype(self.dtype, copy=False)

    def _castable(self, dt: np.dtype) -> bool:
        return dt.kind in "biuf" and np.can_cast(dt, self.dtype, "same_kind")

    def _shape(self, arr: np.ndarray, samples: list, unit: str,
               owner: list | None = None) -> np.ndarray:
        """arr as (rows,) + the declared row shape: reshaped when sizes agree, else an error."""
        got = arr.shape[1:]
        if self.row_size is not None:
            if math.prod(got) == self.row_size:
                return arr.reshape((arr.shape[0],) + self.row_shape)
        elif len(got) == len(self.row_shape) and all(
                d < 0 or d == g for d, g in zip(self.row_shape, got)):
            return arr
        k = 0 if owner is None else self._sample_of(0, owner)
        raise FeedError(f"sample {k}: field {self.index} (var '{self.name}', declared "
                        f"{self.declared}) has {list(got)} per {unit}, but the var takes "
                        f"{list(self.row_shape)}")


class DataFeeder:
    """Converts minibatches (lists of sample tuples, one field per feed var) into feed dicts."""

    def __init__(self, feed_list: list, place=None, program: Program | None = None) -> None:
        program = program if program is not None else default_main_program()
        block = program.global_block()
        self.place = place
        self.feed_vars: list[Variable] = []
        for v in feed_list:
            if isinstance(v, str):
                v = block.var(v)
            if not isinstance(v, Variable):
                raise TypeError(f"DataFeeder's feed_list holds Variables or names, got "
                                f"{type(v).__name__}")
            self.feed_vars.append(v)
        self.feed_names = [v.name for v in self.feed_vars]
        self._fields = [FieldConverter(v, i) for i, v in enumerate(self.feed_vars)]

    def feed(self, iterable: Iterable[Any]) -> dict[str, LoDTensor]:
        """The feed dict of one minibatch: a LoDTensor per var (without a LoD for lod_level 0),
        as Paddle's."""
        samples = list(iterable)
        return {f.name: f(samples) for f in self._check(samples)}

    def _check(self, samples: list) -> list[FieldConverter]:
        """The field converters, once every sample has one field per var."""
        n = len(self._fields)
        for i, s in enumerate(samples):
            if not isinstance(s, (tuple, list)) or len(s) != n:
                got = len(s) if isinstance(s, (tuple, list)) else type(s).__name__
                raise FeedError(f"sample {i} has {got} fields, but the feeder feeds {n} vars "
                                f"{self.feed_names}")
        return self._fields

    def convert(self, samples: list) -> dict[str, tuple[np.ndarray, list | None]]:
        """Like feed, as (data, offsets) pairs of plain numpy and lists."""
        return {f.name: f.convert(samples) for f in self._check(samples)}

    def decorate_reader(self, reader, multi_devices: bool = False, num_places=None,
                        drop_last: bool = True):
        """A reader of feed dicts from a reader of minibatches."""
        return lambda: (self.feed(b) for b in reader())
