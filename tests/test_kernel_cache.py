"""The kernel cache on disk and the executor's plan cache: nothing read from the cache directory
is trusted (truncated, empty, garbage or swapped entries are rebuilt, never loaded), keys name
the instruction set, and both caches stay bounded (least recently used go first)."""
import gc
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
import weakref

import numpy as np
import pytest

import fluidc as fluid
from fluidc.codegen import compiler
from fluidc.distributed import comm
from fluidc.runtime import executor as executor_mod


def _source(value: int, tag: str = "") -> str:
    """A one-function library returning `value`, unique to this call (its own cache key)."""
    return f"/* {tag or uuid.uuid4().hex} */\nint f(void) {{ return {value}; }}\n"


def _call(lib) -> int:
    import ctypes
    f = lib.f
    f.restype = ctypes.c_int
    return f()


def _entry_files(d, src: str) -> list:
    key = compiler.c_key(src, compiler.find_compiler())
    return [d / f"k_{key}{ext}" for ext in (".so", ".meta", ".c")]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache dir in use, and a helper that builds a source's entry elsewhere and copies
    it in (so what this process has loaded is never the file a test corrupts)."""
    build, use = tmp_path / "build", tmp_path / "cache"
    use.mkdir()
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(build))

    def put(src: str):
        lib = compiler.load_c(src)
        for f in _entry_files(build, src):
            if f.exists():
                shutil.copy(f, use / f.name)
        return lib

    def switch():
        monkeypatch.setenv("FLUIDC_CACHE_DIR", str(use))
        monkeypatch.setattr(compiler, "_loaded", weakref.WeakValueDictionary())

    put.dir = use
    put.use = switch
    return put


@pytest.mark.parametrize("damage", ["empty", "garbage", "garbage of the same size",
                                    "no sidecar", "sidecar garbage"])
def test_damaged_entries_are_rebuilt_not_loaded(cache, damage):
    src = _source(42)
    cache(src)
    so, meta, _ = _entry_files(cache.dir, src)
    size = so.stat().st_size
    if damage == "empty":
        so.write_bytes(b"")
    elif damage == "garbage":
        so.write_bytes(b"\x7fELF garbage" * 10)
    elif damage == "garbage of the same size":
        so.write_bytes(os.urandom(size))
    elif damage == "no sidecar":
        meta.unlink(missing_ok=True)
    else:
        meta.write_text("{not json")
    cache.use()
    assert _call(compiler.load_c(src)) == 42
    assert compiler.verify_entry(so, compiler.c_key(src, compiler.find_compiler()))
    assert so.stat().st_size == size


@pytest.mark.parametrize("with_sidecar", [False, True])
def test_another_kernels_library_under_a_key_is_not_loaded(cache, with_sidecar):
    one, two = _source(1), _source(2)
    cache(one)
    cache(two)
    so1, meta1, _ = _entry_files(cache.dir, one)
    so2, meta2, _ = _entry_files(cache.dir, two)
    shutil.copy(so2, so1)
    if with_sidecar and meta2.exists():  # the whole entry copied: the sidecar names the other key
        shutil.copy(meta2, meta1)
    cache.use()
    assert _call(compiler.load_c(one)) == 1
    assert _call(compiler.load_c(two)) == 2


_CHILD = """
import ctypes, sys
from fluidc.codegen import compiler
f = compiler.load_c(sys.argv[1]).f
f.restype = ctypes.c_int
print(f())
"""


def test_truncated_library_is_rebuilt_in_a_fresh_process(cache):
    # A truncated ELF maps fine and faults (SIGBUS) when its missing pages are touched, so the
    # load runs in a child process: before the sidecar check it died there.
    src = _source(7) + "".join(f"int g{i}(int x) {{ return x * {i} + {i}; }}\n" for i in range(400))
    cache(src)
    so = _entry_files(cache.dir, src)[0]
    full = so.stat().st_size
    with open(so, "r+b") as f:
        f.truncate(full // 2)
    out = subprocess.run([sys.executable, "-c", _CHILD, src], capture_output=True, text=True,
                         env={**os.environ, "FLUIDC_CACHE_DIR": str(cache.dir)}, timeout=300)
    assert out.returncode == 0, f"child exited {out.returncode}: {out.stderr[-2000:]}"
    assert out.stdout.strip() == "7"
    assert so.stat().st_size == full


def test_library_is_fsynced_before_it_is_renamed_into_place(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(a, b):
        events.append(("replace", str(a), str(b)))
        real_replace(a, b)

    monkeypatch.setattr(compiler.os, "fsync", fsync)
    monkeypatch.setattr(compiler.os, "replace", replace)
    src = _source(3)
    assert _call(compiler.load_c(src)) == 3
    so = _entry_files(tmp_path, src)[0]
    moved = [e for e in events if e[0] == "replace" and e[2] == str(so)]
    assert len(moved) == 1
    synced = [i for i, e in enumerate(events) if e == ("fsync", moved[0][1])]
    assert synced and synced[0] < events.index(moved[0])
    meta = json.loads(so.with_suffix(".meta").read_text())
    assert meta["size"] == so.stat().st_size


def test_python_modules_are_rewritten_unless_they_hold_the_source(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    src = f"# {uuid.uuid4().hex}\ndef value():\n    return 5\n"
    path = tmp_path / f"t_{compiler.source_key(src, 'py')}.py"
    for bad in (b"", b"def value(:\n", b"def value():\n    return 6\n"):
        path.write_bytes(bad)
        monkeypatch.setattr(compiler, "_loaded", weakref.WeakValueDictionary())
        assert compiler.load_py(src).value() == 5
        assert path.read_text() == src
    assert not (tmp_path / "__pycache__").exists()


# -- keys -----------------------------------------------------------------------------------------
def test_key_holds_the_target_instruction_set(monkeypatch):
    cc = compiler.find_compiler()
    monkeypatch.setattr(compiler, "target_isa", lambda cc: "-march=haswell -mavx2")
    a = compiler.c_key("int f;", cc)
    monkeypatch.setattr(compiler, "target_isa", lambda cc: "-march=znver3 -mavx512f")
    b = compiler.c_key("int f;", cc)
    monkeypatch.setattr(compiler, "compiler_id", lambda cc: "gcc 99")
    c = compiler.c_key("int f;", cc)
    assert len({a, b, c}) == 3


def test_target_flags_are_what_march_native_resolves_to():
    gcc = (' /opt/gcc-13/libexec/gcc/x86_64-pc-linux-gnu/13.2.0/cc1 -quiet /dev/null '
           '"-march=znver3" -mmmx -mavx2 -mno-fma4 --param "l1-cache-size=48" "-mtune=znver3" '
           '-quiet -dumpbase null -O3 -o /tmp/ccAbCdEf.s')
    assert compiler.target_flags("COLLECT_GCC=gcc\n" + gcc) == \
        "-march=znver3 -mmmx -mavx2 -mno-fma4 --param=l1-cache-size=48 -mtune=znver3"
    clang = (' "/opt/llvm/bin/clang" "-cc1" "-triple" "x86_64-pc-linux-gnu" "-emit-obj" '
             '"-target-cpu" "skylake" "-target-feature" "+avx2" "-target-feature" "-avx512f" '
             '"-tune-cpu" "generic" "-O3" "-o" "/tmp/x.o"')
    assert compiler.target_flags(clang) == ("-target-cpu=skylake -target-feature=+avx2 "
                                            "-target-feature=-avx512f -tune-cpu=generic")
    isa = compiler.target_isa(compiler.find_compiler())
    assert isa and "native" not in isa


def test_compiler_is_asked_once_per_process(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    src = _source(9)
    lib = compiler.load_c(src)  # identity and target now known in this process
    del lib
    gc.collect()
    calls = []
    real_run = compiler.subprocess.run
    monkeypatch.setattr(compiler.subprocess, "run", lambda *a, **k: calls.append(a) or
                        real_run(*a, **k))
    assert _call(compiler.load_c(src)) == 9  # from disk: verified, not rebuilt
    assert calls == []


# -- disk bound -----------------------------------------------------------------------------------
def _dir_bytes(d) -> int:
    """Disk space of the cache's files, as the bound counts it (allocated blocks)."""
    return sum(compiler.file_bytes(p.stat()) for p in d.iterdir() if p.is_file())


def test_disk_cache_stays_under_its_bound_least_recently_used_first(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    srcs = [_source(i) for i in range(4)]
    for s in srcs:
        compiler.load_c(s)
    entry = _dir_bytes(tmp_path) // 4
    gc.collect()
    # Make the first the most recently used; then allow about three entries and add two more.
    old = time.time() - 3600
    for i, s in enumerate(srcs):
        for f in _entry_files(tmp_path, s):
            os.utime(f, (old + i, old + i))
    monkeypatch.setattr(compiler, "_loaded", weakref.WeakValueDictionary())
    assert _call(compiler.load_c(srcs[0])) == 0
    limit = int(entry * 3.5)
    monkeypatch.setenv("FLUIDC_CACHE_MAX_MB", str(limit / 2**20))
    for i in (4, 5):
        compiler.load_c(_source(i))
        assert _dir_bytes(tmp_path) <= limit
    kept = {s for s in srcs if _entry_files(tmp_path, s)[0].exists()}
    assert srcs[0] in kept and srcs[1] not in kept  # used last is kept; the oldest went first
    assert all(not f.exists() for f in _entry_files(tmp_path, srcs[1]))  # all of an entry


def test_stale_build_directories_are_removed(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    old = time.time() - 2 * compiler.STALE_SECONDS
    stale, fresh, other = tmp_path / "build_ab12cd_9", tmp_path / "build_zz99yy88", \
        tmp_path / "build_mine"
    for d in (stale, fresh, other):
        d.mkdir()
        (d / "k.c").write_text("x")
    temp = tmp_path / f".k_{'0' * 32}.c.abcd1234.tmp"
    temp.write_text("x")
    for p in (stale / "k.c", stale, other / "k.c", other, temp):
        os.utime(p, (old, old))
    compiler.load_c(_source(1))
    assert not stale.exists() and not temp.exists()
    assert fresh.exists() and other.exists()  # too young / not our naming


# -- plan cache -----------------------------------------------------------------------------------
def _tiny_program(bias: float = 1.0):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[3], dtype="float32")
        out = fluid.layers.relu(fluid.layers.scale(x, scale=2.0, bias=bias))
    return main, out.name


def test_plans_and_disk_stay_bounded_over_many_batch_sizes(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(executor_mod, "_MAX_PLANS", 4)
    main, out = _tiny_program()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()

    def run(bs):
        x = np.full((bs, 3), -1.0 + bs, "float32")
        got, = exe.run(main, feed={"x": x}, fetch_list=[out], scope=scope)
        np.testing.assert_allclose(got, np.maximum(2 * x + 1, 0))

    run(1)
    entry = _dir_bytes(tmp_path)
    monkeypatch.setenv("FLUIDC_CACHE_MAX_MB", str(entry * 4.5 / 2**20))
    first = exe._plans[next(iter(exe._plans))]
    for bs in range(2, 13):
        run(bs)
        if bs % 2:
            run(1)  # the batch of one stays recently used
        assert len(exe._plans) <= 4
        assert _dir_bytes(tmp_path) <= entry * 4.5
    assert first in exe._plans.values()
    assert sum(1 for p in tmp_path.iterdir() if p.suffix == ".so") <= 4


def test_close_frees_plans_and_their_libraries(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    # A program of its own: batch sizes of programs with equal code share a library
    # (codegen/dynamic_batch.py), which plans left over by other tests could still hold.
    main, out = _tiny_program(bias=1.25)
    exe = fluid.Executor(fluid.CPUPlace())
    for bs in (1, 2, 3):
        exe.run(main, feed={"x": np.ones((bs, 3), "float32")}, fetch_list=[out])
    plans = [weakref.ref(p) for p in exe._plans.values()]
    libs = [weakref.ref(p.module.lib) for p in exe._plans.values()]
    exe.close()
    gc.collect()
    assert not exe._plans and all(r() is None for r in plans + libs)
    got, = exe.run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[out])
    assert got.tolist() == [[3.25] * 3] * 2  # still usable: plans are built again


def test_plans_go_with_their_program(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    exe = fluid.Executor(fluid.CPUPlace())
    keep, keep_out = _tiny_program()
    exe.run(keep, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[keep_out])
    main, out = _tiny_program()
    exe.run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[out])
    plan = weakref.ref(exe._plans[next(reversed(exe._plans))])
    assert len(exe._plans) == 2
    del main
    gc.collect()
    assert plan() is None and len(exe._plans) == 1
    assert exe.run(keep, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[keep_out])


@pytest.mark.parametrize("name, read", [
    ("FLUIDC_CACHE_MAX_MB", lambda: compiler.cache_max_bytes()),
    ("FLUIDC_COLLECTIVE_TIMEOUT", lambda: comm.timeout_seconds()),
])
def test_malformed_number_in_environment_names_the_variable(monkeypatch, name, read):
    monkeypatch.setenv(name, "ten")
    with pytest.raises(ValueError, match=f"{name} must be a .*number.*'ten'"):
        read()
    monkeypatch.setenv(name, " ")
    assert read() is None or read() > 0  # blank is unset: the default
