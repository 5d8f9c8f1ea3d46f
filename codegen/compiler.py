"""Compile generated code once and cache it on disk by a hash of source and flags.

C becomes a shared library loaded with ctypes; Triton source is a Python module imported from
the cache dir (Triton's jit reads the kernels' source from that file).
"""
from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import ModuleType

from ..frontend.errors import CompileError

# -fno-math-errno/-fno-trapping-math let gcc vectorize the math calls; -ffinite-math-only is
# never used, so NaN and Inf behave as in numpy. Linking is done without any fast-math flag:
# gcc would otherwise link crtfastmath.o, which flushes denormals for the whole process.
COMPILE_FLAGS = ["-O3", "-march=native", "-fopenmp", "-fPIC", "-fno-math-errno",
                 "-fno-trapping-math", "-std=c11"]


def _has_avx512() -> bool:
    try:
        with open("/proc/cpuinfo") as f:
            return " avx512f" in f.read()
    except OSError:
        return False


# gcc keeps to 256-bit vectors on AVX-512 machines unless asked; the 16-wide libmvec routines
# then make the transcendental-heavy loops about 1.6x faster (measured on this project's CPUs).
if _has_avx512():
    COMPILE_FLAGS.append("-mprefer-vector-width=512")
LINK_FLAGS = ["-shared", "-fopenmp", "-lm"]

_loaded: dict[str, ctypes.CDLL | ModuleType] = {}


def cache_dir() -> Path:
    """FLUIDC_CACHE_DIR, or fluidc/ under the user's cache directory."""
    root = os.environ.get("FLUIDC_CACHE_DIR")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fluidc"


def source_key(*parts: str) -> str:
    """The cache key of generated code: a hash of its source and whatever else shapes the build."""
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def atomic_write(path: str | Path, data: bytes | str) -> None:
    """Write through a temp file in the target dir: fsync, then rename, so readers (and other
    processes) see the old file or the whole new one, never a part."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would surprise whoever ships or shares the file
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def find_compiler() -> str | None:
    """The system C compiler ($CC, cc, gcc), or None when there is none."""
    for cand in (os.environ.get("CC"), "cc", "gcc"):
        if cand and shutil.which(cand):
            return cand
    return None


def _compiler_id(cc: str) -> str:
    try:
        return subprocess.run([cc, "--version"], capture_output=True, text=True,
                              check=False).stdout.split("\n")[0]
    except OSError:
        return cc


def load_c(source: str) -> ctypes.CDLL:
    """The library built from `source`: from this process, from the disk cache, or compiled now."""
    cc = find_compiler()
    if cc is None:
        raise CompileError("no C compiler found (set CC, or install gcc)")
    key = source_key(source, cc, _compiler_id(cc), *COMPILE_FLAGS, *LINK_FLAGS)
    lib = _loaded.get(key)
    if lib is not None:
        return lib
    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    so = d / f"k_{key}.so"
    if not so.exists():
        _build(cc, source, d, so)
    lib = ctypes.CDLL(str(so))
    _loaded[key] = lib
    return lib


def _build(cc: str, source: str, d: Path, so: Path) -> None:
    with tempfile.TemporaryDirectory(dir=d, prefix="build_") as tmp:
        src, obj, out = Path(tmp) / "k.c", Path(tmp) / "k.o", Path(tmp) / "k.so"
        src.write_text(source)
        for cmd in ([cc, *COMPILE_FLAGS, "-c", str(src), "-o", str(obj)],
                    [cc, str(obj), "-o", str(out), *LINK_FLAGS]):
            r = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if r.returncode != 0:
                raise CompileError(f"compiling generated C failed ({' '.join(cmd[:2])} ...):\n"
                                   f"{r.stderr[-4000:]}")
        atomic_write(d / f"{so.stem}.c", source)
        os.replace(out, so)  # atomic: other processes see no kernel or a whole one


def load_py(source: str) -> ModuleType:
    """The module of generated Python `source`: from this process, or written to the cache dir
    (once per source hash) and imported from there."""
    key = source_key(source, "py")
    mod = _loaded.get(key)
    if mod is not None:
        return mod
    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"t_{key}.py"
    if not path.exists():
        atomic_write(path, source)
    spec = importlib.util.spec_from_file_location(f"fluidc_generated_{key}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _loaded[key] = mod
    return mod
