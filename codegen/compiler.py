"""Compile generated code once and cache it on disk by a hash of source, flags and target.

C becomes a shared library loaded with ctypes; Triton source is a Python module imported from
the cache dir (Triton's jit reads the kernels' source from that file).

The cache directory is shared by processes (and, through a shared home directory, by machines),
so nothing in it is trusted: a library is loaded only after its size and SHA-256 match the
sidecar written when it was built (`k_<key>.meta`), and any mismatch or load failure rebuilds
it. Keys hold the compiler's identity and the instruction set `-march=native` resolves to here,
so machines with different CPUs never load each other's code. The directory is kept under
FLUIDC_CACHE_MAX_MB (least recently used entries go first), and build directories left behind
by killed compiles are removed once stale.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
import weakref
from pathlib import Path
from types import ModuleType

from ..frontend.env import env_number
from ..frontend.errors import CompileError
from ..frontend.logs import logger

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

# Bumped whenever what a cache entry holds changes, so old entries are never read as new ones.
CACHE_FORMAT = "2"
# The disk cache's bound, in MiB (FLUIDC_CACHE_MAX_MB; 0 or less: unbounded).
DEFAULT_CACHE_MAX_MB = 512
# Build directories and temp files untouched this long belong to compiles that were killed.
STALE_SECONDS = 30 * 60
# Trimming leaves the cache at this fraction of its bound, so not every build rescans it.
_TRIM_TO = 0.9
# A process rescans the directory after this many entries of its own even under the bound
# (other processes write to it too).
_RESCAN_EVERY = 32

# key -> library or module, while anything (a plan) still uses it; a library nothing uses is
# closed (dlclose), so dropped plans give their mappings back.
_log = logger("cache")
_loaded: weakref.WeakValueDictionary[str, ctypes.CDLL | ModuleType] = weakref.WeakValueDictionary()
_lock = threading.RLock()  # loads and builds; the in-process hit path takes no lock
_pinned: list[ctypes.CDLL] = []  # the OpenMP runtime, never unloaded once a kernel used it
_OPENMP_RUNTIMES = ("libgomp.so.1", "libomp.so", "libomp.so.5", "libiomp5.so")
_trim_state: dict[str, list] = {}  # cache dir -> [estimated bytes or None, entries written]

# Kernel libraries (k_: .so, its .c and sidecar), Triton modules (t_), plans (p_: the lowered
# program and module of runtime/plan_cache.py, and its sidecar), measured product choices (m_:
# codegen/product_choice.py), the product helpers' objects (o_: cached_object).
_ENTRY = re.compile(r"^(k_[0-9a-f]{32})\.(?:so|c|meta)$|^(t_[0-9a-f]{32})\.py$"
                    r"|^(p_[0-9a-f]{32})\.(?:pkl|meta)$|^(m_[0-9a-f]{32})\.json$"
                    r"|^(o_[0-9a-f]{32})\.(?:o|meta)$")
_BUILD_DIR = re.compile(r"^build_[a-z0-9_]{8}$")  # tempfile.mkdtemp(prefix="build_")
_TEMP_FILE = re.compile(r"^\.[ktpmo]_[0-9a-f]{32}\.(?:so|c|meta|py|pkl|json|o)\.[a-z0-9_]{8}\.tmp$")


def cache_dir() -> Path:
    """FLUIDC_CACHE_DIR, or fluidc/ under the user's cache directory."""
    root = os.environ.get("FLUIDC_CACHE_DIR")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fluidc"


def cache_max_bytes() -> int | None:
    """The disk cache's bound: FLUIDC_CACHE_MAX_MB (MiB; fractions allowed), None if unbounded."""
    mb = env_number("FLUIDC_CACHE_MAX_MB", DEFAULT_CACHE_MAX_MB, "MiB")
    return int(mb * 1024 * 1024) if mb > 0 else None


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


# -- what the key holds besides the source ------------------------------------------------------
@functools.lru_cache(maxsize=None)
def compiler_id(cc: str) -> str:
    """The compiler's resolved path and version line; asked once per process."""
    path = os.path.realpath(shutil.which(cc) or cc)
    try:
        version = subprocess.run([cc, "--version"], capture_output=True, text=True, check=False,
                                 timeout=120).stdout.split("\n")[0]
    except (OSError, subprocess.SubprocessError):
        version = ""
    return f"{path} {version}"


@functools.lru_cache(maxsize=None)
def target_isa(cc: str) -> str:
    """The instruction set this machine's kernels are built for: the target flags the compiler
    resolves `-march=native` (and the rest of COMPILE_FLAGS) to here, from its `-###` driver
    output (gcc: -march=znver3 -mavx2 ... --param l1-cache-size=...; clang: -target-cpu and
    -target-feature), else the CPU's flags from /proc/cpuinfo. Asked once per process."""
    try:
        r = subprocess.run([cc, *COMPILE_FLAGS, "-###", "-x", "c", "-c", os.devnull,
                            "-o", os.devnull], capture_output=True, text=True, check=False,
                           timeout=120)
        flags = target_flags(r.stderr)
    except (OSError, subprocess.SubprocessError):
        flags = ""
    return flags or "cpuinfo " + _cpuinfo()


def target_flags(driver_output: str) -> str:
    """The machine flags of the compiler proper's command line in `cc -###` output."""
    for line in driver_output.splitlines():
        try:
            toks = shlex.split(line)
        except ValueError:
            continue
        if not toks or not (os.path.basename(toks[0]).startswith("cc1") or "-cc1" in toks):
            continue
        kept, it = [], iter(toks[1:])
        for t in it:
            if t in ("--param", "-target-cpu", "-target-feature", "-tune-cpu", "-target-abi"):
                kept.append(f"{t}={next(it, '')}")
            elif t.startswith(("-m", "--param=")):
                kept.append(t)
        return " ".join(kept)
    return ""


def _cpuinfo() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            lines = f.read().splitlines()
    except OSError:
        import platform
        return platform.machine() + " " + platform.processor()
    keep = ("flags", "Features", "model name", "vendor_id", "CPU part", "CPU implementer")
    seen: dict[str, str] = {}
    for line in lines:
        k, _, v = line.partition(":")
        k = k.strip()
        if k in keep and k not in seen:
            seen[k] = " ".join(sorted(v.split())) if k in ("flags", "Features") else v.strip()
    return "; ".join(f"{k}: {v}" for k, v in sorted(seen.items()))


def c_key(source: str, cc: str, units: tuple[str, ...] = ()) -> str:
    """The cache key of a C library: source (and the units it is compiled as), compiler, target
    instruction set, flags."""
    return source_key(source, *units, cc, compiler_id(cc), target_isa(cc), *COMPILE_FLAGS,
                      *LINK_FLAGS, CACHE_FORMAT)


# -- C libraries ---------------------------------------------------------------------------------
def load_c(source: str, units: tuple[str, ...] = ()) -> ctypes.CDLL:
    """The library built from `source`: from this process, from the disk cache (verified), or
    compiled now, from `units` (translation units compiled concurrently, then linked) if
    given, else from `source` as one unit."""
    cc = find_compiler()
    if cc is None:
        raise CompileError("no C compiler found (set CC, or install gcc)")
    key = c_key(source, cc, units)

    def make(d: Path) -> ctypes.CDLL:
        so = d / f"k_{key}.so"
        if verify_entry(so, key):
            try:
                lib = _open(so)
            except OSError:
                pass  # verified but unloadable (another process evicted it): rebuild
            else:
                _touch(so)
                _log.debug("found %s on disk", so)
                return lib
        start = time.perf_counter()
        size = _build(cc, source, units or (source,), d, so, key)
        _log.debug("built %s: %d lines of C in %d units compiled in %.2f s", so,
                   source.count("\n"), max(1, len(units)), time.perf_counter() - start)
        try:
            lib = _open(so)
        except OSError as e:
            raise CompileError(f"the kernel library just built cannot be loaded: {e}") from e
        wrote(d, size, keep=so.stem)
        return lib
    return _once(key, make)


def is_built(source: str, units: tuple[str, ...] = ()) -> bool:
    """Whether load_c(source, units) has its library without compiling (loaded, or on disk)."""
    cc = find_compiler()
    if cc is None:
        return False
    key = c_key(source, cc, units)
    return key in _loaded or verify_entry(cache_dir() / f"k_{key}.so", key)


def _once(key: str, make):
    """The object loaded under `key` in this process, made by make(cache dir) once (threads
    asking together wait for the first)."""
    hit = _loaded.get(key)
    if hit is not None:
        return hit
    with _lock:
        hit = _loaded.get(key)
        if hit is None:
            d = cache_dir()
            d.mkdir(parents=True, exist_ok=True)
            hit = _loaded[key] = make(d)
        return hit


def verify_entry(so: Path, key: str) -> bool:
    """Whether `so` is what was built under `key`: its sidecar names the key, and the file has
    the size and SHA-256 recorded there. Empty, truncated, garbage or swapped files fail."""
    return verified_bytes(so, key) is not None


def verified_bytes(path: Path, key: str) -> bytes | None:
    """The bytes of the entry file `path` if they are what was written under `key` (see
    verify_entry), else None."""
    try:
        meta = json.loads(path.with_suffix(".meta").read_text())
        data = path.read_bytes()
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    ok = (isinstance(meta, dict) and meta.get("key") == key and meta.get("size") == len(data)
          and meta.get("sha256") == hashlib.sha256(data).hexdigest())
    return data if ok else None


def write_sidecar(path: Path, key: str, data: bytes) -> str:
    """Write the sidecar verified_bytes checks `path`'s bytes `data` against; its text."""
    meta = json.dumps({"key": key, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    atomic_write(path.with_suffix(".meta"), meta)
    return meta


def _open(so: Path) -> ctypes.CDLL:
    # torch first: it ships its own libgomp.so.1, and the first OpenMP runtime of that name
    # loaded is the one the kernels and torch share (the one torch is tested with).
    importlib.import_module("torch")
    lib = ctypes.CDLL(str(so))
    if not _pinned:
        _pin_openmp()
    # Closed once nothing refers to it: ctypes function pointers keep their library alive, so
    # no code of it can run after this.
    weakref.finalize(lib, _dlclose, lib._handle).atexit = False
    return lib


def _pin_openmp() -> None:
    """Keep the OpenMP runtime the kernels use loaded for good: closing the last kernel that
    linked it must not unload it under its idle worker threads."""
    for name in _OPENMP_RUNTIMES:
        try:
            _pinned.append(ctypes.CDLL(name, mode=os.RTLD_NOLOAD | os.RTLD_LAZY))
            return
        except (OSError, AttributeError):
            continue


def _dlclose(handle: int) -> None:
    try:
        import _ctypes
        _ctypes.dlclose(handle)
    except Exception:  # noqa: BLE001 - at worst the mapping stays
        pass


def _build(cc: str, source: str, units: tuple[str, ...], d: Path, so: Path, key: str) -> int:
    """Compile `units` (all at once, a compiler process each; a helpers unit's object from the
    cache: cached_object) and link them into `so`, with `source` and the sidecar beside it;
    returns the bytes the entry takes."""
    with tempfile.TemporaryDirectory(dir=d, prefix="build_") as tmp:
        objs, procs = [], []
        try:
            for i, unit in enumerate(units):
                src, obj = Path(tmp) / f"k{i}.c", Path(tmp) / f"k{i}.o"
                objs.append(str(obj))
                if unit.startswith(HELPERS_MARK):
                    continue
                src.write_text(unit)
                cmd = [cc, *COMPILE_FLAGS, "-c", str(src), "-o", str(obj)]
                procs.append((cmd, subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                                    stderr=subprocess.PIPE, text=True)))
            for unit, obj in zip(units, objs):  # while the others compile
                if unit.startswith(HELPERS_MARK):
                    Path(obj).write_bytes(cached_object(cc, unit, d))
            for cmd, p in procs:
                _, err = p.communicate()
                if p.returncode != 0:
                    raise CompileError(f"compiling generated C failed ({' '.join(cmd[:2])} "
                                       f"...):\n{err[-4000:]}")
        finally:
            for _, p in procs:  # a failed unit's siblings are not left running
                if p.poll() is None:
                    p.kill()
                    p.wait()
        out = Path(tmp) / "k.so"
        cmd = [cc, *objs, "-o", str(out), *LINK_FLAGS]
        r = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if r.returncode != 0:
            raise CompileError(f"linking generated C failed ({' '.join(cmd[:2])} ...):\n"
                               f"{r.stderr[-4000:]}")
        with open(out, "rb") as f:
            data = f.read()
            os.fsync(f.fileno())  # on disk before it is renamed into place
        os.chmod(out, 0o755)
        atomic_write(d / f"{so.stem}.c", source)
        os.replace(out, so)  # atomic: other processes see no kernel or a whole one
        meta = write_sidecar(so, key, data)
    return sum(_on_disk(n) for n in (len(data), len(source.encode()), len(meta)))


# A unit opening with this line (c_matmul.helpers_unit) has the same text in every library that
# calls the product helpers: its object is compiled once into the cache (o_ entries) and linked
# into each such library.
HELPERS_MARK = "/* fluidc: the product helpers, an object of their own in the kernel cache */\n"
_objects_lock = threading.Lock()  # one compile of a cached object at a time in a process
_prefetching: set[str] = set()  # units whose objects a background thread is building
_prefetching_lock = threading.Lock()


def _object_path(cc: str, unit: str, d: Path) -> tuple[str, Path]:
    key = source_key(unit, cc, compiler_id(cc), target_isa(cc), *COMPILE_FLAGS, CACHE_FORMAT)
    return key, d / f"o_{key}.o"


def cached_object(cc: str, unit: str, d: Path) -> bytes:
    """The object file of `unit`, from the cache dir (verified) or compiled into it now."""
    key, path = _object_path(cc, unit, d)
    with _objects_lock:
        data = verified_bytes(path, key)
        if data is not None:
            _touch(path)
            return data
        start = time.perf_counter()
        with tempfile.TemporaryDirectory(dir=d, prefix="build_") as tmp:
            src, obj = Path(tmp) / "h.c", Path(tmp) / "h.o"
            src.write_text(unit)
            r = subprocess.run([cc, *COMPILE_FLAGS, "-c", str(src), "-o", str(obj)],
                               capture_output=True, text=True, check=False)
            if r.returncode != 0:
                raise CompileError(f"compiling the product helpers failed ({cc} ...):\n"
                                   f"{r.stderr[-4000:]}")
            data = obj.read_bytes()
        atomic_write(path, data)
        meta = write_sidecar(path, key, data)
        _log.debug("built %s in %.2f s", path, time.perf_counter() - start)
    # (outside the objects' lock: a build holding the cache's lock may be waiting for it)
    wrote(d, _on_disk(len(data)) + _on_disk(len(meta)), keep=path.stem)
    return data


def prefetch_object(unit: str) -> None:
    """Build the cached object of `unit` in a background thread (the compiler runs while the
    caller goes on lowering a program), unless one is under way; nothing where it is cached."""
    cc, d = find_compiler(), cache_dir()
    if cc is None or _object_path(cc, unit, d)[1].exists():
        return
    with _prefetching_lock:
        if unit in _prefetching:
            return
        _prefetching.add(unit)

    def build() -> None:
        try:
            d.mkdir(parents=True, exist_ok=True)
            cached_object(cc, unit, d)
        except (CompileError, OSError) as e:  # the build that needs it says so
            _log.debug("prefetching the product helpers failed: %s", e)
        finally:
            with _prefetching_lock:
                _prefetching.discard(unit)
    # (not a daemon, as tiered.Build's compile thread: a process ending meanwhile waits for it)
    threading.Thread(target=build, name="fluidc-helpers").start()


def _on_disk(nbytes: int) -> int:
    """Bytes a file of `nbytes` takes, in whole 4 KiB blocks (what `du` counts)."""
    return -(-nbytes // 4096) * 4096


# -- Triton modules ------------------------------------------------------------------------------
def load_py(source: str) -> ModuleType:
    """The module of generated Python `source`: from this process, or from the cache dir, whose
    file is rewritten unless it holds exactly `source`, and executed from there (no bytecode
    cache: what runs is always what was compared)."""
    key = source_key(source, "py")

    def make(d: Path) -> ModuleType:
        path = d / f"t_{key}.py"
        data = source.encode()
        try:
            ok = path.read_bytes() == data
        except OSError:
            ok = False
        if ok:
            _touch(path)
        else:
            atomic_write(path, data)
        _log.debug("%s %s (Triton module)", "found" if ok else "wrote", path)
        spec = importlib.util.spec_from_file_location(f"fluidc_generated_{key}", path)
        mod = importlib.util.module_from_spec(spec)
        exec(compile(source, str(path), "exec"), mod.__dict__)  # noqa: S102 - our own codegen
        if not ok:
            wrote(d, _on_disk(len(data)), keep=path.stem)
        return mod
    return _once(key, make)


# -- keeping the directory bounded ---------------------------------------------------------------
def _touch(path: Path) -> None:
    """Mark an entry used now (its mtime: atime is not updated on most mounts)."""
    try:
        os.utime(path)
    except OSError:
        pass


def wrote(d: Path, nbytes: int, keep: str) -> None:
    """Count a new entry (of `nbytes` on disk, its stem `keep`); rescan and trim the directory
    when it may be over its bound. Under the cache's lock: plans are written by compile threads
    too (runtime/tiered.py)."""
    limit = cache_max_bytes()
    with _lock:
        state = _trim_state.setdefault(str(d), [None, 0])
        state[1] += 1
        if state[0] is not None:
            state[0] += nbytes
        if state[0] is None or state[1] >= _RESCAN_EVERY or (limit is not None
                                                             and state[0] > limit):
            try:
                state[0] = trim_cache(d, limit, keep=(keep,))
            except OSError:
                state[0] = None
            state[1] = 0


def trim_cache(d: Path | None = None, limit: int | None = None, keep=()) -> int:
    """Remove stale build directories and temp files, then, above `limit` bytes (of disk space,
    as `du` counts), the least recently used entries (all files of a key) down to 90% of it;
    returns the bytes left.
    Only names of the cache's own patterns are touched; entries named in `keep` stay."""
    d = Path(d) if d is not None else cache_dir()
    now = time.time()
    entries: dict[str, list] = {}  # stem -> [bytes, last use, paths]
    for e in os.scandir(d):
        name = e.name
        if _BUILD_DIR.match(name) or _TEMP_FILE.match(name):
            _remove_if_stale(e, now)
            continue
        m = _ENTRY.match(name)
        if m is None or not e.is_file(follow_symlinks=False):
            continue
        try:
            st = e.stat(follow_symlinks=False)
        except OSError:
            continue
        g = entries.setdefault(next(x for x in m.groups() if x), [0, 0.0, []])
        g[0] += file_bytes(st)
        g[1] = max(g[1], st.st_mtime, st.st_atime)
        g[2].append(e.path)
    total = sum(g[0] for g in entries.values())
    if limit is None or total <= limit:
        return total
    for stem, (size, _, paths) in sorted(entries.items(), key=lambda kv: kv[1][1]):
        if total <= limit * _TRIM_TO:
            break
        if stem in keep:
            continue
        for p in sorted(paths, key=lambda p: not p.endswith(".meta")):  # sidecar first
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass
        total -= size
    return total


def file_bytes(st: os.stat_result) -> int:
    """The disk space a file takes (its allocated blocks; at least its size)."""
    return max(st.st_size, getattr(st, "st_blocks", 0) * 512)


def _remove_if_stale(e: os.DirEntry, now: float) -> None:
    try:
        if e.is_dir(follow_symlinks=False):
            newest = max([e.stat(follow_symlinks=False).st_mtime]
                         + [c.stat(follow_symlinks=False).st_mtime for c in os.scandir(e.path)])
            if now - newest > STALE_SECONDS:
                shutil.rmtree(e.path, ignore_errors=True)
        elif e.is_file(follow_symlinks=False):
            if now - e.stat(follow_symlinks=False).st_mtime > STALE_SECONDS:
                os.unlink(e.path)
    except OSError:
        pass
