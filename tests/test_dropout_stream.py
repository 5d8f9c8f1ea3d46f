"""Dropout's keep masks on the CPU (codegen/c_random.py, runtime/random.py): the C stream is
SplitMix64 as its docstring defines it (checked against numpy's uint64 arithmetic), keeps each
element with probability 1 - p, independently, and repeats under a fixed seed."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.codegen import c_random
from fluidc.runtime.random import stream
from fluidc.frontend.lazy_import import torch

pytestmark = pytest.mark.skipif(not c_random.available(), reason="needs a C compiler")

GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def splitmix_mask(n: int, key: int, p: float) -> np.ndarray:
    """The definition, in numpy: draw i is the low / high half of output i // 2 + 1."""
    with np.errstate(over="ignore"):
        z = np.uint64(key) + (np.arange(1, (n + 1) // 2 + 1, dtype=np.uint64) * GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    halves = np.stack([z & np.uint64(0xFFFFFFFF), z >> np.uint64(32)], 1).reshape(-1)[:n]
    return (halves.astype(np.float64) / 2.0**32 >= p).astype(np.uint8)


def c_mask(n: int, key: int, p: float) -> np.ndarray:
    mask = torch.full((n,), 7, dtype=torch.uint8)
    c_random.keep_mask(mask.data_ptr(), n, key, p)
    return mask.numpy()


@pytest.mark.parametrize("n", [1, 2, 7, 64, 1001, 2 ** 17 + 3])  # the last on every core
@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_c_stream_is_splitmix64(n, p):
    for key in (0, 1, 2**63 + 12345, 2**64 - 1):
        np.testing.assert_array_equal(c_mask(n, key, p), splitmix_mask(n, key, p),
                                      err_msg=f"key {key}")


@pytest.mark.parametrize("p", [0.05, 0.1, 0.5, 0.9])
def test_keep_rate_and_independence(p):
    n = 1 << 20
    m = c_mask(n, c_random.seed_key(2024), p).astype(np.float64)
    sigma = np.sqrt(p * (1 - p) / n)
    assert abs(m.mean() - (1 - p)) < 5 * sigma
    for lag in (1, 2, 3, 64):  # neighbours (the two halves of one output too) uncorrelated
        c = np.corrcoef(m[:-lag], m[lag:])[0, 1]
        assert abs(c) < 5 / np.sqrt(n), (lag, c)
    other = c_mask(n, c_random.seed_key(2025), p).astype(np.float64)
    assert abs(np.corrcoef(m, other)[0, 1]) < 5 / np.sqrt(n)


def test_stream_draws_a_new_mask_each_run_and_repeats_a_fixed_seed():
    g = stream("cpu")
    g.manual_seed(5)
    a, b, c = (torch.empty(4097, dtype=torch.uint8) for _ in range(3))
    assert g.keep_mask(a, 0.3, None) and g.keep_mask(b, 0.3, None)
    assert (a != b).any()
    g.manual_seed(5)
    assert g.keep_mask(c, 0.3, None)
    assert torch.equal(a, c)
    fixed = [torch.empty(100, dtype=torch.uint8) for _ in range(2)]
    for t in fixed:
        assert g.keep_mask(t, 0.3, 11)
    assert torch.equal(*fixed)
    # Not a contiguous CPU uint8 tensor: the stream declines (the op then uses torch.rand).
    assert not g.keep_mask(torch.empty(4, 4, dtype=torch.uint8).t(), 0.3, None)
    assert not g.keep_mask(torch.empty(16, dtype=torch.bool), 0.3, None)


def _dropout_program(seed):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = seed
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 300], "float32")
        out = fluid.layers.dropout(x, 0.25, dropout_implementation="upscale_in_train")
    return main, out


@pytest.mark.parametrize("seed", [0, 9])
def test_dropout_program_masks(seed):
    """In a compiled program: kept elements scaled by 1 / (1 - p), about 1 - p of them kept;
    with a program seed two executors repeat each other's masks; without one, runs differ."""
    main, out = _dropout_program(seed)
    x = np.random.default_rng(seed).uniform(1, 2, (64, 300)).astype(np.float32)
    runs = []
    for _ in range(2):
        exe = fluid.Executor(fluid.CPUPlace())
        runs.append([exe.run(main, feed={"x": x}, fetch_list=[out])[0] for _ in range(2)])
    for r in runs[0]:
        kept = r != 0
        np.testing.assert_allclose(r[kept], x[kept] / 0.75, rtol=1e-6)
        assert abs(kept.mean() - 0.75) < 5 * np.sqrt(0.75 * 0.25 / kept.size)
    if seed:
        np.testing.assert_array_equal(runs[0][0], runs[1][0])
    else:
        assert not np.array_equal(runs[0][0], runs[0][1])


def test_fixed_seed_mask_is_the_seeds_stream():
    """With fix_seed, the (split) dropout's mask is the stream keyed by seed_key(seed) and Out
    its arithmetic, on every run."""
    x = np.random.default_rng(3).standard_normal((4, 33, 17)).astype("float32")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        xv = fluid.data("x", list(x.shape), "float32")
        out = fluid.layers.dropout(xv, 0.3, seed=7, dropout_implementation="upscale_in_train")
    mask = main.global_block().ops[-1].output("Mask")[0]
    exe = fluid.Executor(fluid.CPUPlace())
    keep = splitmix_mask(x.size, c_random.seed_key(7), np.float32(0.3)).reshape(x.shape)
    for _ in range(2):
        got_out, got_mask = exe.run(main, feed={"x": x}, fetch_list=[out, mask])
        np.testing.assert_array_equal(got_mask, keep)
        np.testing.assert_array_equal(got_out, x * (keep.astype(np.float32)
                                                    * np.float32(np.float32(1) / np.float32(0.7))))
