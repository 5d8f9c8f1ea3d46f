"""matmul grads with a batched X and a plain 2-D Y (a Linear on [b, s, d]) fold X's leading
dims into rows: randomized against torch autograd, every flag and grad subset."""
import numpy as np
import pytest
import torch

from fluidc.frontend.ops.tensor import _matmul_grad_run


@pytest.mark.parametrize("seed", range(6))
def test_folded_matmul_grads_match_autograd(seed):
    rng = np.random.default_rng(seed)
    lead = tuple(int(n) for n in rng.integers(1, 4, rng.integers(1, 3)))
    m, k, n = (int(v) for v in rng.integers(1, 7, 3))
    tx, ty = bool(rng.integers(2)) and seed % 2 == 0, bool(rng.integers(2))
    alpha = float(rng.choice([1.0, 0.5, 3.0]))
    xs = lead + ((k, m) if tx else (m, k))
    ys = (n, k) if ty else (k, n)
    x = torch.tensor(rng.standard_normal(xs), dtype=torch.float32, requires_grad=True)
    y = torch.tensor(rng.standard_normal(ys), dtype=torch.float32, requires_grad=True)
    out = torch.matmul(x.transpose(-1, -2) if tx else x, y.transpose(-1, -2) if ty else y)
    d = torch.tensor(rng.standard_normal(out.shape), dtype=torch.float32)
    (out * alpha).backward(d)
    attrs = {"trans_x": tx, "trans_y": ty} if alpha == 1.0 else \
        {"transpose_X": tx, "transpose_Y": ty, "alpha": alpha}
    ins = {"X": [x.detach()], "Y": [y.detach()], "Out@GRAD": [d]}
    for want in (("X@GRAD", "Y@GRAD"), ("X@GRAD",), ("Y@GRAD",)):
        got = {"X@GRAD": torch.full(xs, np.nan), "Y@GRAD": torch.full(ys, np.nan)}
        _matmul_grad_run(ins, {s: [got[s] if s in want else None] for s in got}, attrs, None)
        for slot, ref in (("X@GRAD", x.grad), ("Y@GRAD", y.grad)):
            if slot in want:
                torch.testing.assert_close(got[slot], ref, rtol=1e-5, atol=1e-5)
            else:
                assert torch.isnan(got[slot]).all()
