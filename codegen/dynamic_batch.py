"""One compiled C library for many batch sizes.

A plan's C has its shapes as literals. Two plans of one program at batch sizes B1 != B2
render sources that differ only in numbers: the loop bounds and offsets that follow the batch
(`8` and `9`, `1024` and `1152`) and constants made from it (a mean's 1/B). Where every
differing number is an integer line in B (n = a*B + c), or a float holding such an n or its
reciprocal, the source with those numbers printed as expressions of the run-time batch `nb`
is a *template*: compiled once, it computes exactly what each size's own source computes.

Soundness does not rest on the fit: a plan at batch B uses a template only when its own
rendered source, number by number, is the template evaluated at B (same text between the
numbers, every number equal). Anything codegen decides from sizes (a parallel loop above a
threshold, a size-1 loop dropped, a scratch row that fits) changes the text, so such sizes
match no template and get their own library (or a template of their own class, fitted from
two sizes of that class). The first size of a program is compiled as it is (its own best
code); the second size that fits it compiles the template, and later sizes compile nothing.
"""
from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ..frontend.errors import CompileError
from ..frontend.logs import logger
from .compiler import load_c

_log = logger("cache")

# The name of the batch size in generated C: a parameter of every kernel and a local of every
# segment (read from slot 0 of the pointer table).
BATCH = "nb"
# Numbers in generated C: hex floats (c_literal prints every float so) and plain decimal
# integers (not part of a name, a suffixed literal or a decimal float).
_NUMBER = re.compile(r"(0x[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?p[+-]?\d+f?|(?<![\w.])\d+(?![\w.]))")
_MAX_FAMILIES = 256  # sources of distinct text kept, least recently used dropped first
_MAX_SEEDS = 4  # sizes without a template kept per family, to fit one from
# Templates per family (one per class of sizes codegen treats alike). A number that is no
# line of the batch (B*B) fits a new template from every pair of sizes, each serving one size:
# past this many, the family's sizes compile alone.
_MAX_TEMPLATES = 8


@dataclass(frozen=True)
class Line:
    """A number of the source as a function of the batch: n = a*B + c, printed as an integer,
    or as a float (`f` suffix: float32) holding n or 1/n."""

    a: int
    c: int
    kind: str = "int"  # "int", "float" (n) or "recip" (1/n)
    suffix: str = ""

    def at(self, batch: int):
        n = self.a * batch + self.c
        if self.kind == "int":
            return n
        if self.kind == "recip" and n == 0:
            return None
        value = 1.0 / n if self.kind == "recip" else float(n)
        return float(np.float32(value)) if self.suffix == "f" else value

    def c_expr(self) -> str:
        n = f"{self.a}*{BATCH}" if self.a != 1 else BATCH
        if self.c:
            n += f" {'+' if self.c > 0 else '-'} {abs(self.c)}"
        n = f"((int64_t)({n}))"
        if self.kind == "int":
            return n
        value = f"(1.0 / (double){n})" if self.kind == "recip" else f"((double){n})"
        return f"((float){value})" if self.suffix == "f" else value


def split(source: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the text between numbers, the numbers) of a source."""
    parts = _NUMBER.split(source)
    return tuple(parts[0::2]), tuple(parts[1::2])


def _value(token: str):
    """A number token's value: an int, or (float, suffix)."""
    if token.startswith("0x"):
        return float.fromhex(token.rstrip("f")), "f" if token.endswith("f") else ""
    return int(token)


def _fit_ints(n1: int, n2: int, b1: int, b2: int) -> tuple[int, int] | None:
    if (n2 - n1) % (b2 - b1):
        return None
    a = (n2 - n1) // (b2 - b1)
    return a, n1 - a * b1


def _fit(t1: str, t2: str, b1: int, b2: int) -> Line | None:
    """The line through two differing tokens at batches b1, b2, if they are one."""
    v1, v2 = _value(t1), _value(t2)
    if isinstance(v1, int) and isinstance(v2, int):
        ac = _fit_ints(v1, v2, b1, b2)
        return Line(*ac) if ac else None
    if isinstance(v1, int) or isinstance(v2, int) or v1[1] != v2[1]:
        return None
    (f1, suffix), (f2, _) = v1, v2
    for kind, n_of in (("float", lambda f: f), ("recip", lambda f: 1.0 / f if f else 0.0)):
        n1, n2 = round(n_of(f1)), round(n_of(f2))
        ac = _fit_ints(n1, n2, b1, b2)
        if ac is None:
            continue
        line = Line(*ac, kind=kind, suffix=suffix)
        if line.at(b1) == f1 and line.at(b2) == f2:
            return line
    return None


@dataclass
class Template:
    """A source whose numbers are constants or Lines; `source` is its C, compiled once."""

    numbers: tuple  # str (a constant token) or Line, one per number of the family's text
    source: str

    def matches(self, numbers: tuple[str, ...], batch: int) -> bool:
        """Whether the template evaluated at `batch` is exactly these numbers."""
        for want, got in zip(self.numbers, numbers):
            if isinstance(want, str):
                if want != got:
                    return False
            else:
                v = _value(got)
                if want.kind == "int" or isinstance(v, int):
                    if v != want.at(batch):
                        return False
                elif v[1] != want.suffix or v[0] != want.at(batch):
                    return False
        return True


def fit_template(text: tuple[str, ...], first: tuple[int, tuple[str, ...]],
                 second: tuple[int, tuple[str, ...]]) -> Template | None:
    """The template through two sources of one text at different batch sizes, if every
    number that differs is a Line; None if nothing differs (no batch-dependence to share)."""
    (b1, nums1), (b2, nums2) = first, second
    numbers: list = []
    for t1, t2 in zip(nums1, nums2):
        if t1 == t2:
            numbers.append(t1)
            continue
        line = _fit(t1, t2, b1, b2)
        if line is None:
            return None
        numbers.append(line)
    if all(isinstance(n, str) for n in numbers):
        return None
    out = [text[0]]
    for n, t in zip(numbers, text[1:]):
        out += [n if isinstance(n, str) else n.c_expr(), t]
    return Template(tuple(numbers), "".join(out))


@dataclass
class _Family:
    templates: list[Template]
    # (batch, source) of sizes no template serves, split only when a later size is fitted
    seeds: list[tuple[int, str]]
    broken: bool = False  # a template of it did not compile: its sizes compile alone


_families: OrderedDict[str, _Family] = OrderedDict()  # a family's key (family()) -> family
_lock = threading.Lock()


def _digest(text: tuple[str, ...]) -> str:
    return hashlib.sha256("\0".join(text).encode()).hexdigest()


def family(source: str) -> str:
    """The key of a source's family: a digest of its text between numbers (a plan keeps it,
    so a plan found on disk does not split its source again)."""
    return _digest(split(source)[0])


def shared_source(source: str, batch: int, key: str) -> str | None:
    """The template source serving `source` (rendered for batch size `batch`, of family
    `key`), fitting and keeping a new one where a size seen before fits; None: compile
    `source` itself."""
    with _lock:
        fam = _families.get(key)
        if fam is None:
            fam = _families[key] = _Family([], [])
            while len(_families) > _MAX_FAMILIES:
                _families.popitem(last=False)
        _families.move_to_end(key)
        if fam.broken:
            return None
        seeds = [s for s in fam.seeds if s[0] != batch] \
            if len(fam.templates) < _MAX_TEMPLATES else []
        if fam.templates or seeds:
            text, numbers = split(source)
            if _digest(text) != key:  # not of this family (a key kept apart from its source)
                return None
            for t in fam.templates:
                if t.matches(numbers, batch):
                    return t.source
            for seed in reversed(seeds):
                t = fit_template(text, (seed[0], split(seed[1])[1]), (batch, numbers))
                if t is not None and t.matches(numbers, batch):
                    fam.seeds.remove(seed)
                    fam.templates.append(t)
                    _log.debug("a template for batch sizes %d and %d", seed[0], batch)
                    return t.source
        if all(b != batch for b, _ in fam.seeds):
            fam.seeds = fam.seeds[-(_MAX_SEEDS - 1):] + [(batch, source)]
        return None


def _give_up(key: str) -> None:
    """A template of this family does not compile (a batch-dependent number where C wants a
    constant): its sizes compile their own sources from now on."""
    with _lock:
        fam = _families.get(key)
        if fam is not None:
            fam.broken, fam.templates, fam.seeds = True, [], []


def library_source(source: str, batch: int | None, key: str | None, units: tuple[str, ...] = ()
                   ) -> tuple[str, tuple[str, ...]]:
    """What to compile for `source`, rendered for batch size `batch`, of family `key`, as
    load_c's (source, units): a template's source where one serves it, else `source` itself.
    batch None: the plan has no batch dim (nor a family)."""
    if batch is not None and batch > 0:
        template = shared_source(source, batch, key)
        if template is not None:
            return template, ()
    return source, units


def load_library(source: str, batch: int | None, key: str | None, units: tuple[str, ...] = ()):
    """The library for `source` at `batch` (library_source's); a template that does not
    compile gives way to the source's own library."""
    what = library_source(source, batch, key, units)
    if what[0] is not source:
        try:
            return load_c(*what)
        except CompileError as e:
            _log.debug("a batch template does not compile; its sizes compile alone: %s", e)
            _give_up(key)
    return load_c(source, units)
