"""tensor ops: inference (concrete and -1 dims), references against numpy/torch, extern and view
runs against the references, and every grad against central finite differences."""
import numpy as np
import pytest
import torch

from fluidc.frontend.dtypes import VarType
from fluidc.frontend.errors import ShapeError
from fluidc.frontend.ops import math, reduce, tensor  # noqa: F401  (registration)
from fluidc.frontend.ops.registry import VarInfo, get_op_def

from ref_harness import RNG, _info, check_grad, check_run, infer, make_fwd, run_extern, run_ops  # noqa: F401


# --- creation ---

def test_fill_constant():
    out = infer("fill_constant", {}, {"shape": [-1, 3], "dtype": 3, "value": 2.0})["Out"][0]
    assert out == VarInfo((-1, 3), VarType.INT64)
    got = check_run("fill_constant", {}, {"shape": [2, 3], "value": 1.5})["Out"][0]
    assert got.dtype == np.float32 and (got == 1.5).all()
    big = check_run("fill_constant", {}, {"shape": [1], "dtype": 3,
                                          "str_value": "9007199254740993"})["Out"][0]
    assert big[0] == 9007199254740993
    inf = check_run("fill_constant", {}, {"shape": [2], "str_value": "-inf"})["Out"][0]
    assert np.isneginf(inf).all()
    vt = check_run("fill_constant", {"ValueTensor": [np.array([4.0], np.float32)]},
                   {"shape": [3]})["Out"][0]
    assert vt.tolist() == [4.0, 4.0, 4.0]


@pytest.mark.parametrize("op,attrs", [("uniform_random", {"min": -2.0, "max": 3.0}),
                                      ("gaussian_random", {"mean": 1.0, "std": 2.0})])
def test_random_fills(op, attrs):
    a = {"shape": [100, 100], **attrs}
    assert infer(op, {}, {"shape": [-1, 4], "dtype": 6})["Out"][0] == VarInfo((-1, 4), VarType.FP64)
    d = get_op_def(op)
    assert d.stateful
    seeded = {**a, "seed": 5}  # the statistics below, on fixed draws: never a flaky tail
    for out in (run_extern(op, {}, seeded)["Out"][0],
                d.reference({}, d.complete_attrs(seeded))["Out"][0]):
        assert out.dtype == np.float32 and out.shape == (100, 100)
        if op == "uniform_random":
            assert out.min() >= -2.0 and out.max() < 3.0 and abs(out.mean() - 0.5) < 0.05
        else:
            assert abs(out.mean() - 1.0) < 0.05 and abs(out.std() - 2.0) < 0.05
    draws = [run_extern(op, {}, a, torch.Generator().manual_seed(s))["Out"][0] for s in (1, 2)]
    assert (draws[0] != draws[1]).any()
    # A nonzero seed attr gives the same values every run, whatever the runtime's generator.
    fixed = [run_extern(op, {}, {**a, "seed": 9}, torch.Generator().manual_seed(s))["Out"][0]
             for s in (1, 2)]
    np.testing.assert_array_equal(*fixed)
    refs = [d.reference({}, d.complete_attrs({**a, "seed": 9}))["Out"][0] for _ in range(2)]
    np.testing.assert_array_equal(*refs)


# --- reshape2 ---

@pytest.mark.parametrize("x,target,want", [
    ((6, 4), (3, -1), (3, 8)), ((6, 4), (0, 2, 2), (6, 2, 2)), ((-1, 4), (0, 2, 2), (-1, 2, 2)),
    ((-1, 4), (-1, 2), (-1, 2)), ((-1, 4, 3), (0, -1), (-1, 12)), ((2, 3, 4), (-1,), (24,))])
def test_reshape2_infer(x, target, want):
    out = infer("reshape2", {"X": [(x, 5)]}, {"shape": list(target)})
    assert out["Out"][0].shape == want
    assert out["XShape"][0].shape == (0,) + x


@pytest.mark.parametrize("x,target", [((6, 4), (5, -1)), ((6, 4), (5, 5)), ((6,), (0, 0, 6)),
                                      ((6, 4), (-1, -1)), ((6, 4), (-2, 12))])
def test_reshape2_errors(x, target):
    with pytest.raises(ShapeError, match="reshape2"):
        infer("reshape2", {"X": [(x, 5)]}, {"shape": list(target)})


def test_reshape2_run_and_grad():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    got = check_run("reshape2", {"X": [x]}, {"shape": [0, -1]})
    np.testing.assert_array_equal(got["Out"][0], x.reshape(2, 12))
    assert got["XShape"][0].shape == (0, 2, 3, 4)
    assert get_op_def("reshape2").kind == get_op_def("reshape2_grad").kind == "view"
    fwd, _ = check_grad("reshape2", {"X": RNG.standard_normal((2, 3))}, {"shape": [3, 2]}, ["X"])
    assert get_op_def("reshape2").grad(fwd)[0].input("XShape") == ["out_XShape"]
    assert infer("reshape2_grad", {"XShape": [((0, -1, 3), 5)], "Out@GRAD": [((-1,), 5)]})[
        "X@GRAD"][0].shape == (-1, 3)
    check_run("reshape2_grad", {"XShape": [np.zeros((0, 2, 3), np.float32)],
                                "Out@GRAD": [x.reshape(-1)[:6]]}, {"shape": [6]})


# --- transpose2 ---

def test_transpose2():
    out = infer("transpose2", {"X": [((-1, 3, 5), 5)]}, {"axis": [2, 0, 1]})
    assert out["Out"][0].shape == (5, -1, 3) and out["XShape"][0].shape == (0, -1, 3, 5)
    with pytest.raises(ShapeError, match="transpose2"):
        infer("transpose2", {"X": [((2, 3), 5)]}, {"axis": [0, 0]})
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    got = check_run("transpose2", {"X": [x]}, {"axis": [1, 2, 0]})["Out"][0]
    np.testing.assert_array_equal(got, torch.from_numpy(x).permute(1, 2, 0).numpy())
    check_grad("transpose2", {"X": RNG.standard_normal((2, 3, 2))}, {"axis": [2, 0, 1]}, ["X"])
    check_run("transpose2_grad", {"XShape": [np.zeros((0, 2, 3, 4), np.float32)],
                                  "Out@GRAD": [got]}, {"axis": [1, 2, 0]})


# --- concat ---

def test_concat_infer():
    ins = {"X": [((-1, 3), 5), ((-1, 4), 5)]}
    assert infer("concat", ins, {"axis": 1})["Out"][0].shape == (-1, 7)
    assert infer("concat", ins, {"axis": -1})["Out"][0].shape == (-1, 7)
    assert infer("concat", {"X": [((2, 3), 5), ((-1, 3), 5)]})["Out"][0].shape == (-1, 3)
    assert infer("concat", {"X": [((-1, 3), 5), ((5, 3), 5)]}, {"axis": 1})["Out"][0].shape \
        == (5, 6)
    with pytest.raises(ShapeError, match="concat"):
        infer("concat", {"X": [((2, 3), 5), ((2, 4), 5)]}, {"axis": 0})


def test_concat_run_and_grad():
    xs = [RNG.standard_normal((2, k)).astype(np.float32) for k in (1, 3, 2)]
    got = check_run("concat", {"X": xs}, {"axis": -1})["Out"][0]
    np.testing.assert_array_equal(got, torch.cat([torch.from_numpy(x) for x in xs], 1).numpy())
    check_grad("concat", {"X": [RNG.standard_normal((2, k)) for k in (1, 3)]}, {"axis": 1}, ["X"])
    check_run("concat_grad", {"X": xs, "Out@GRAD": [got]}, {"axis": 1})
    # A dropped grad is skipped.
    d = get_op_def("concat_grad")
    dx = torch.zeros(2, 2)
    d.run({"X": [torch.from_numpy(x) for x in xs], "Out@GRAD": [torch.from_numpy(got)]},
          {"X@GRAD": [None, None, dx]}, d.complete_attrs({"axis": 1}), None)
    np.testing.assert_array_equal(dx.numpy(), xs[2])


# --- mul ---

@pytest.mark.parametrize("x,y,xn,yn,want", [
    ((-1, 4), (4, 5), 1, 1, (-1, 5)), ((1, 4, 1), (4, 3), 1, 1, (1, 3)),
    ((2, 3, 4), (4, 5), 2, 1, (2, 3, 5)), ((-1, 3, 4), (12, 5), 1, 1, (-1, 5)),
    ((6, 4), (2, 2, 3), 1, 2, (6, 3))])
def test_mul_infer(x, y, xn, yn, want):
    a = {"x_num_col_dims": xn, "y_num_col_dims": yn}
    assert infer("mul", {"X": [(x, 5)], "Y": [(y, 5)]}, a)["Out"][0].shape == want


def test_mul_errors():
    with pytest.raises(ShapeError, match="mul"):
        infer("mul", {"X": [((2, 3), 5)], "Y": [((4, 5), 5)]})
    with pytest.raises(ShapeError, match="mul"):
        infer("mul", {"X": [((2, 3), 5)], "Y": [((3, 5), 5)]}, {"x_num_col_dims": 2})


@pytest.mark.parametrize("x,y,xn,yn", [((3, 4), (4, 5), 1, 1), ((1, 4, 1), (4, 3), 1, 1),
                                       ((2, 3, 2), (2, 5), 2, 1), ((2, 6), (3, 2, 2), 1, 2)])
def test_mul(x, y, xn, yn):
    a = {"x_num_col_dims": xn, "y_num_col_dims": yn}
    xv, yv = RNG.standard_normal(x).astype(np.float32), RNG.standard_normal(y).astype(np.float32)
    got = check_run("mul", {"X": [xv], "Y": [yv]}, a)["Out"][0]
    want = (torch.from_numpy(xv).flatten(xn).reshape(int(np.prod(x[:xn])), -1)
            @ torch.from_numpy(yv).reshape(int(np.prod(y[:yn])), -1)).numpy()
    np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-5, atol=1e-5)
    check_grad("mul", {"X": RNG.standard_normal(x), "Y": RNG.standard_normal(y)}, a, ["X", "Y"])
    d = RNG.standard_normal(got.shape).astype(np.float32)
    check_run("mul_grad", {"X": [xv], "Y": [yv], "Out@GRAD": [d]}, a)


# --- matmul / matmul_v2 ---

MM_CASES = [((3, 4), (4, 5), False, False), ((4, 3), (4, 5), True, False),
            ((3, 4), (5, 4), False, True), ((2, 3, 4), (4, 5), False, False),
            ((2, 1, 3, 4), (3, 5, 4), False, True), ((4,), (2, 4, 3), False, False),
            ((2, 3, 4), (4,), False, False), ((4,), (4,), False, False), ((4,), (4,), True, True),
            ((3, 4), (4, 3), True, True)]


def _mm_attrs(op, tx, ty, alpha=1.0):
    if op == "matmul":
        return {"transpose_X": tx, "transpose_Y": ty, "alpha": alpha}
    return {"trans_x": tx, "trans_y": ty}


def _torch_mm(x, y, tx, ty):
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    x = x.transpose(-1, -2) if tx and x.dim() > 1 else x
    y = y.transpose(-1, -2) if ty and y.dim() > 1 else y
    return torch.matmul(x, y).numpy()


def test_matmul_infer():
    for op in ("matmul", "matmul_v2"):
        f = lambda x, y, tx=False, ty=False: infer(op, {"X": [(x, 5)], "Y": [(y, 5)]},
                                                    _mm_attrs(op, tx, ty))["Out"][0].shape
        assert f((-1, 4), (4, 5)) == (-1, 5)
        assert f((-1, 3, 4), (-1, 5, 4), False, True) == (-1, 3, 5)
        assert f((-1, 3, 4), (4, 5)) == (-1, 3, 5)
        assert f((4,), (4,)) == ((1,) if op == "matmul" else ())  # 0-d in 2.x, as Paddle 3
        assert f((4,), (-1, 4, 2)) == (-1, 2)
        assert f((-1, 3, 4), (4,)) == (-1, 3)
        assert f((4, -1), (4, 6), True) == (-1, 6)
        with pytest.raises(ShapeError, match=op):
            f((3, 4), (5, 6))
        with pytest.raises(ShapeError, match=op):
            f((2, 3, 4), (3, 4, 5))


@pytest.mark.parametrize("op", ["matmul", "matmul_v2"])
@pytest.mark.parametrize("x,y,tx,ty", MM_CASES)
def test_matmul(op, x, y, tx, ty):
    a = _mm_attrs(op, tx, ty)
    xv, yv = RNG.standard_normal(x).astype(np.float32), RNG.standard_normal(y).astype(np.float32)
    got = check_run(op, {"X": [xv], "Y": [yv]}, a, rtol=1e-5, atol=1e-5)["Out"][0]
    want = _torch_mm(xv, yv, tx, ty)
    np.testing.assert_allclose(got, want.reshape(got.shape), rtol=1e-5, atol=1e-5)
    assert got.shape == (want.shape or ((1,) if op == "matmul" else ()))
    check_grad(op, {"X": RNG.standard_normal(x), "Y": RNG.standard_normal(y)}, a, ["X", "Y"])
    d = RNG.standard_normal(got.shape).astype(np.float32)
    check_run(op + "_grad", {"X": [xv], "Y": [yv], "Out@GRAD": [d]}, a, rtol=1e-5, atol=1e-5)


def test_matmul_alpha():
    a = _mm_attrs("matmul", False, True, alpha=0.5)
    x, y = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 5, 4))
    got = check_run("matmul", {"X": [x], "Y": [y]}, a)["Out"][0]
    np.testing.assert_allclose(got, 0.5 * _torch_mm(x, y, False, True), rtol=1e-6)
    check_grad("matmul", {"X": x, "Y": y}, a, ["X", "Y"])


def test_matmul_grad_drops_unneeded_output():
    d = get_op_def("matmul_v2_grad")
    x, y = torch.randn(3, 4), torch.randn(4, 5)
    dy = torch.zeros(4, 5)
    d.run({"X": [x], "Y": [y], "Out@GRAD": [torch.ones(3, 5)]}, {"Y@GRAD": [dy]},
          d.complete_attrs({}), None)
    np.testing.assert_allclose(dy.numpy(), (x.T @ torch.ones(3, 5)).numpy(), rtol=1e-6)
