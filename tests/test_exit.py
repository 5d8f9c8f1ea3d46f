"""A process that runs a new program and ends while its kernels compile exits cleanly.

The first run of a new program goes on tier 0 while a thread compiles its library. That thread
once was a daemon: still in torch code when the interpreter finalized, it was unwound through
torch's noexcept C++ frames and about 1 fresh-cache process in 2 aborted at exit ("terminate
called without an active exception") after printing correct results. Each process here has
its own empty kernel cache, so each one exits while its compiler may still be running."""
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SCRIPT = """
import numpy as np
import fluidc as fluid
x = fluid.layers.data(name='x', shape=[4], dtype='float32')
y = fluid.layers.relu(x)
out, = fluid.Executor(fluid.CPUPlace()).run(feed={'x': np.ones((2, 4), 'float32')},
                                           fetch_list=[y])
print(float(out.sum()))
"""


def _fresh_process(cache: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, FLUIDC_CACHE_DIR=str(cache), FLUIDC_TIERED="1")
    return subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=cache,
                          capture_output=True, text=True, timeout=300)


def test_fresh_processes_exit_cleanly_while_compiling(tmp_path):
    caches = [tmp_path / f"cache{i}" for i in range(8)]
    for c in caches:
        c.mkdir()
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(_fresh_process, caches))
    for c, r in zip(caches, done):
        assert (r.returncode, r.stdout.strip()) == (0, "8.0"), r.stderr[-2000:]
        assert "terminate" not in r.stderr
        # The interpreter waited for the compiler: the library is in the cache.
        assert list(c.rglob("*.so")), f"no library in {c}"
