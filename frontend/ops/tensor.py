"""Tensor ops: creation (fill_constant, the random fills), views and copies (reshape2,
transpose2, concat) and the matrix products (mul, matmul, matmul_v2), with their grads.

assign lives in math.py (a pointwise identity)."""
from __future__ import annotations

import math

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import convert_dtype, dtype_name, to_numpy_dtype
from ..errors import OpError, ShapeError
from . import scalar_values
from .define import as_shape, broadcast_shape, grad_like, present
from .matmul_double_grad import grad_of_matmul_v2_grad
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots


def _define(type, kind, inputs, outputs, attrs, infer, run, reference, grad=None,
            stateful=False, **more):
    register(OpDef(type, slots(*inputs), slots(*outputs), attrs, infer, kind,
                   reference=reference, grad=grad, run=run, stateful=stateful, **more))


def _known(shape) -> bool:
    return all(d >= 0 for d in shape)


def _numel(shape) -> int:
    return math.prod(shape)


# ---------------------------------------------------------------------------------------------
# Creation ops. Their shape may come from tensors, as Paddle lets them: ShapeTensor (one 1-D int
# tensor) over ShapeTensorList (one 1-value int tensor per dim) over the `shape` attribute; these
# are shape inputs, folded into `shape` before shape inference (passes/shape_inputs.py).

CREATION_SHAPE_INPUTS = ("ShapeTensor", "ShapeTensorList")


def _creation_fold(a, values):
    if values.get("ShapeTensor"):
        return {**a, "shape": [int(d) for d in np.asarray(values["ShapeTensor"][0]).reshape(-1)]}
    if values.get("ShapeTensorList"):
        dims = [np.asarray(v).reshape(-1) for v in values["ShapeTensorList"]]
        if any(d.size != 1 for d in dims):
            raise ShapeError(f"each ShapeTensorList tensor must hold one value, got sizes "
                             f"{[d.size for d in dims]}")
        return {**a, "shape": [int(d[0]) for d in dims]}
    return a


def _folding(reference):
    """A creation op's reference, folding its shape inputs first (the reference executor runs
    programs unfolded)."""
    def ref(ins, a):
        return reference(ins, _creation_fold(a, ins))
    return ref


def _filled_infer(ins, a):
    # With shape inputs the dims are known when the program runs (the pipeline folds them).
    if ins.get("ShapeTensor"):
        given = tuple(ins["ShapeTensor"][0].shape)
        if len(given) != 1 or given[0] < 0:
            raise ShapeError(f"the ShapeTensor input must be 1-D of known length, got shape "
                             f"{list(given)}")
        shape = (-1,) * given[0]
    elif ins.get("ShapeTensorList"):
        shape = (-1,) * len(ins["ShapeTensorList"])
    else:
        shape = as_shape(a["shape"])
    return {"Out": [VarInfo(shape, convert_dtype(a["dtype"]))]}


def fill_constant_attrs(shape, dtype, value) -> dict:
    """fill_constant's attributes for `value`, as Paddle writes them: `value` is a float32
    attribute, so `str_value` carries the exact value (a float64, an int64; for complex
    dtypes the real part, as Paddle writes it, or a complex number where the imaginary part is
    not 0, which Paddle's fill_constant cannot hold)."""
    dtype = convert_dtype(dtype)
    name = dtype_name(dtype)
    if name.startswith("complex"):
        value = complex(value)
        return {"shape": [int(d) for d in shape], "dtype": int(dtype), "value": value.real,
                "str_value": str(value) if value.imag else str(value.real)}
    exact = str(int(value)) if name.startswith(("int", "uint")) else str(float(value))
    return {"shape": [int(d) for d in shape], "dtype": int(dtype), "value": float(value),
            "str_value": exact}


def fill_value(a):
    """fill_constant's value: str_value, when set, carries what a float attr cannot (inf, int64,
    a complex number)."""
    s = a["str_value"]
    if not s:
        return a["value"]
    for parse in (int, float):
        try:
            return parse(s)
        except ValueError:
            pass
    return complex(s)


def _fill_ref(ins, a):
    value = ins["ValueTensor"][0].reshape(-1)[0] if ins.get("ValueTensor") else fill_value(a)
    return {"Out": [np.full(as_shape(a["shape"]), value, to_numpy_dtype(a["dtype"]))]}


def _fill_run(ins, outs, a, rng):
    if ins.get("ValueTensor"):
        outs["Out"][0].copy_(ins["ValueTensor"][0].reshape(-1)[0])
    else:
        outs["Out"][0].fill_(fill_value(a))


_define("fill_constant", "extern", ["ValueTensor?", "ShapeTensor?", "ShapeTensorList*?"],
        ["Out"], {"shape": [], "value": 0.0, "dtype": 5, "str_value": "", "force_cpu": False,
                  "place_type": -1}, _filled_infer, _fill_run, _folding(_fill_ref),
        shape_inputs=CREATION_SHAPE_INPUTS, fold=_creation_fold)


def _draw(out, a, rng, fill) -> None:
    """fill(tensor, generator) into out; a nonzero seed attr repeats its values on every run."""
    gen = torch.Generator(device=out.device).manual_seed(int(a["seed"])) if a["seed"] else rng
    if gen is None or gen.device == out.device:
        fill(out, gen)
    else:  # the runtime's generator lives on another device: draw there, then copy
        tmp = torch.empty(out.shape, dtype=out.dtype, device=gen.device)
        fill(tmp, gen)
        out.copy_(tmp)


def _np_rng(a):
    return np.random.default_rng(a["seed"] if a["seed"] else None)


def _diagonal_positions(a, numel: int, op: str = "uniform_random"):
    """The flat positions uniform_random's diagonal overwrites with diag_val, as Paddle's
    kernel: diag_num values diag_step + 1 apart from 0, the last inside the tensor."""
    num, step = int(a["diag_num"]), int(a["diag_step"])
    if num <= 0:
        return None
    last = (num - 1) * (step + 1)
    if not numel > last:
        raise ShapeError(f"op '{op}': diag_num {num} with diag_step {step} writes position "
                         f"{last}, which needs more than the output's {numel} elements")
    return np.arange(num) * (step + 1)


def _uniform_run(ins, outs, a, rng):
    out = outs["Out"][0]
    _draw(out, a, rng, lambda t, g: t.uniform_(a["min"], a["max"], generator=g))
    diagonal = _diagonal_positions(a, out.numel())
    if diagonal is not None:
        out.view(-1)[torch.as_tensor(diagonal, device=out.device)] = a["diag_val"]


def _uniform_ref(ins, a):
    shape, dtype = as_shape(a["shape"]), to_numpy_dtype(a["dtype"])
    out = _np_rng(a).uniform(a["min"], a["max"], shape).astype(dtype)
    diagonal = _diagonal_positions(a, out.size)
    if diagonal is not None:
        out.reshape(-1)[diagonal] = a["diag_val"]
    return {"Out": [out]}


def _gaussian_run(ins, outs, a, rng):
    _draw(outs["Out"][0], a, rng, lambda t, g: t.normal_(a["mean"], a["std"], generator=g))


def _gaussian_ref(ins, a):
    shape, dtype = as_shape(a["shape"]), to_numpy_dtype(a["dtype"])
    return {"Out": [_np_rng(a).normal(a["mean"], a["std"], shape).astype(dtype)]}


def _truncated_bounds(a) -> tuple[float, float]:
    """The normal CDF at Paddle's cutoffs a and b (values, not multiples of std)."""
    lo, hi = ((v - a["mean"]) / (a["std"] * math.sqrt(2)) for v in (a["a"], a["b"]))
    return 0.5 * (1 + math.erf(lo)), 0.5 * (1 + math.erf(hi))


def _truncated_run(ins, outs, a, rng):
    """Inverse-CDF sampling, as Paddle's kernel: u uniform in [FLT_MIN, 1) mapped into
    [cdf(a), cdf(b)], through the normal quantile, clamped to [a, b]."""
    lo, hi = _truncated_bounds(a)

    def fill(t, g):
        u = torch.empty(t.shape, dtype=torch.float64, device=t.device)
        u.uniform_(float(np.finfo(np.float32).tiny), 1.0, generator=g)
        p = lo + (hi - lo) * u
        t.copy_((torch.special.erfinv(2 * p - 1) * (math.sqrt(2) * a["std"]) + a["mean"])
                .clamp_(a["a"], a["b"]))
    _draw(outs["Out"][0], a, rng, fill)


def _truncated_ref(ins, a):
    """The same distribution by rejection: normal draws outside [a, b] are drawn again."""
    shape, dtype = as_shape(a["shape"]), to_numpy_dtype(a["dtype"])
    gen = _np_rng(a)
    out = gen.normal(a["mean"], a["std"], shape)
    bad = (out < a["a"]) | (out > a["b"])
    while bad.any():
        out[bad] = gen.normal(a["mean"], a["std"], int(bad.sum()))
        bad = (out < a["a"]) | (out > a["b"])
    return {"Out": [out.astype(dtype)]}


# diag_*: a diagonal of fixed values written over the drawn values (UniformInitializer's)
UNIFORM_DIAGONAL = {"diag_num": 0, "diag_step": 0, "diag_val": 1.0}
_define("uniform_random", "extern", ["ShapeTensor?", "ShapeTensorList*?"], ["Out"],
        {"shape": [], "min": -1.0, "max": 1.0, "seed": 0, "dtype": 5, **UNIFORM_DIAGONAL},
        _filled_infer, _uniform_run,
        _folding(_uniform_ref), stateful=True, shape_inputs=CREATION_SHAPE_INPUTS,
        fold=_creation_fold)
_define("gaussian_random", "extern", ["ShapeTensor?", "ShapeTensorList*?"], ["Out"],
        {"shape": [], "mean": 0.0, "std": 1.0, "seed": 0, "dtype": 5},
        _filled_infer, _gaussian_run, _folding(_gaussian_ref), stateful=True,
        shape_inputs=CREATION_SHAPE_INPUTS, fold=_creation_fold)

def _randint_run(ins, outs, a, rng):
    _draw(outs["Out"][0], a, rng, lambda t, g: t.random_(a["low"], a["high"], generator=g))


def _randint_ref(ins, a):
    shape, dtype = as_shape(a["shape"]), to_numpy_dtype(a["dtype"])
    return {"Out": [_np_rng(a).integers(a["low"], a["high"], shape).astype(dtype)]}


def _randint_infer(ins, a):
    if not a["low"] < a["high"]:
        raise OpError(f"op 'randint': low {a['low']} must be less than high {a['high']}")
    return _filled_infer(ins, a)


# randint: ints drawn uniformly from [low, high); dtype 3 is int64
_define("randint", "extern", ["ShapeTensor?", "ShapeTensorList*?"], ["Out"],
        {"shape": [], "low": 0, "high": 0, "seed": 0, "dtype": 3}, _randint_infer, _randint_run,
        _folding(_randint_ref), stateful=True, shape_inputs=CREATION_SHAPE_INPUTS,
        fold=_creation_fold)
# Paddle 3.x: a and b are the cutoff values themselves (default [-2, 2]); its initializer
# TruncatedNormal(mean, std) keeps those defaults, whatever std is.
_define("truncated_gaussian_random", "extern", [], ["Out"],
        {"shape": [], "mean": 0.0, "std": 1.0, "seed": 0, "a": -2.0, "b": 2.0, "dtype": 5},
        _filled_infer, _truncated_run, _truncated_ref, stateful=True)


# ---------------------------------------------------------------------------------------------
# reshape2: a view. XShape ([0] + X's shape, no data) carries X's shape to the grad.

def reshape_target(x_shape, target, op: str = "reshape2") -> tuple[int, ...]:
    """Paddle's reshape rule: 0 copies X's dim at that index, one -1 takes what is left."""
    out = []
    for i, d in enumerate(target):
        if d == 0:
            if i >= len(x_shape):
                raise ShapeError(f"op '{op}': shape {list(target)} copies dim {i} of "
                                 f"X {list(x_shape)}, which has no such dim")
            out.append(x_shape[i])
        elif d >= -1:
            out.append(d)
        else:
            raise ShapeError(f"op '{op}': shape {list(target)} has a negative dim other than -1")
    if list(target).count(-1) > 1:
        raise ShapeError(f"op '{op}': shape {list(target)} has more than one -1")
    # Dims copied by 0 cancel out, so an unknown batch dim copied through still lets -1 resolve.
    copied = {i for i, d in enumerate(target) if d == 0}
    x_rest = [d for i, d in enumerate(x_shape) if i not in copied]
    out_rest = [d for i, d in enumerate(out) if i not in copied and target[i] != -1]
    if _known(x_rest):
        have, want = _numel(x_rest), _numel(out_rest)
        if -1 in target:
            if want == 0 or have % want:
                raise ShapeError(f"op '{op}': cannot reshape X {list(x_shape)} to {list(target)}")
            out[list(target).index(-1)] = have // want
        elif have != want:
            raise ShapeError(f"op '{op}': cannot reshape X {list(x_shape)} ({have} elements "
                             f"besides copied dims) to {list(target)}")
    return tuple(out)


def _reshape_fold(a, values):
    """reshape2's target as Paddle picks it: ShapeTensor (one 1-value tensor per dim) over Shape
    (one 1-D tensor) over the attribute."""
    if values.get("ShapeTensor"):
        dims = [np.asarray(v).reshape(-1) for v in values["ShapeTensor"]]
        if any(d.size != 1 for d in dims):
            raise ShapeError(f"op 'reshape2': each ShapeTensor must hold one value, got sizes "
                             f"{[d.size for d in dims]}")
        return {**a, "shape": [int(d[0]) for d in dims]}
    if values.get("Shape"):
        return {**a, "shape": [int(d) for d in np.asarray(values["Shape"][0]).reshape(-1)]}
    return a


def _reshape_infer(ins, a):
    x = ins["X"][0]
    # With shape inputs the dims are known when the program runs (the pipeline folds them).
    if ins.get("ShapeTensor"):
        out = (-1,) * len(ins["ShapeTensor"])
    elif ins.get("Shape"):
        given = tuple(ins["Shape"][0].shape)
        if len(given) != 1 or given[0] < 0:
            raise ShapeError(f"op 'reshape2': the Shape input must be 1-D of known length, got "
                             f"shape {list(given)}")
        out = (-1,) * given[0]
    else:
        out = reshape_target(x.shape, a["shape"])
    return {"Out": [VarInfo(out, x.dtype, x.lod_level)],
            "XShape": [VarInfo((0,) + tuple(x.shape), x.dtype, x.lod_level)]}


def _reshape_ref(ins, a):
    x = np.asarray(ins["X"][0])
    a = _reshape_fold(a, ins)
    return {"Out": [x.reshape(reshape_target(x.shape, a["shape"])).copy()],
            "XShape": [np.zeros((0,) + x.shape, x.dtype)]}


def _reshape_run(ins, outs, a, rng):
    out = outs["Out"][0]
    if out.data_ptr() != ins["X"][0].data_ptr():  # the runtime may have aliased them already
        out.copy_(ins["X"][0].reshape(out.shape))


def _reshape_grad(op: OpDesc) -> list[OpDesc]:
    if not present(op.output("XShape")):
        raise OpError(f"op 'reshape2' needs its XShape output to be differentiated "
                      f"(X {op.input('X')})")
    return [OpDesc("reshape2_grad", {"XShape": op.output("XShape"),
                                     "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _from_xshape(ins, a):
    xs = ins["XShape"][0]
    return {"X@GRAD": [VarInfo(tuple(xs.shape[1:]), ins["Out@GRAD"][0].dtype, xs.lod_level)]}


def _reshape_grad_ref(ins, a):
    shape = np.asarray(ins["XShape"][0]).shape[1:]
    return {"X@GRAD": [np.asarray(ins["Out@GRAD"][0]).reshape(shape).copy()]}


def _reshape_grad_run(ins, outs, a, rng):
    dx = outs["X@GRAD"][0]
    if dx.data_ptr() != ins["Out@GRAD"][0].data_ptr():
        dx.copy_(ins["Out@GRAD"][0].reshape(dx.shape))


RESHAPE_ATTRS = {"shape": [], "use_quantizer": False}
_define("reshape2", "view", ["X", "Shape?", "ShapeTensor*?"], ["Out", "XShape?"], RESHAPE_ATTRS,
        _reshape_infer, _reshape_run, _reshape_ref, _reshape_grad,
        shape_inputs=("Shape", "ShapeTensor"), fold=_reshape_fold)
_define("reshape2_grad", "view", ["XShape", "Out@GRAD"], ["X@GRAD?"], RESHAPE_ATTRS,
        _from_xshape, _reshape_grad_run, _reshape_grad_ref)


# ---------------------------------------------------------------------------------------------
# transpose2

def _check_perm(perm, rank: int) -> tuple[int, ...]:
    if sorted(p % max(rank, 1) for p in perm) != list(range(rank)) or len(perm) != rank:
        raise ShapeError(f"op 'transpose2': axis {list(perm)} is not a permutation of "
                         f"{rank} dims")
    return tuple(p % rank for p in perm)


def _inverse(perm) -> list[int]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return inv


def _transpose_infer(ins, a):
    x = ins["X"][0]
    perm = _check_perm(a["axis"], len(x.shape))
    return {"Out": [VarInfo(tuple(x.shape[p] for p in perm), x.dtype, x.lod_level)],
            "XShape": [VarInfo((0,) + tuple(x.shape), x.dtype, x.lod_level)]}


def _transpose_ref(ins, a):
    x = np.asarray(ins["X"][0])
    perm = _check_perm(a["axis"], x.ndim)
    return {"Out": [np.ascontiguousarray(x.transpose(perm))],
            "XShape": [np.zeros((0,) + x.shape, x.dtype)]}


def _transpose_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("transpose2_grad", {"XShape": op.output("XShape"),
                                       "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _transpose_grad_ref(ins, a):
    d = np.asarray(ins["Out@GRAD"][0])
    return {"X@GRAD": [np.ascontiguousarray(d.transpose(_inverse(_check_perm(a["axis"],
                                                                             d.ndim))))]}


TRANSPOSE_ATTRS = {"axis": [], "data_format": "AnyLayout", "use_quantizer": False}
_define("transpose2", "extern", ["X"], ["Out", "XShape?"], TRANSPOSE_ATTRS, _transpose_infer,
        lambda ins, outs, a, rng: outs["Out"][0].copy_(ins["X"][0].permute(a["axis"])),
        _transpose_ref, _transpose_grad)
_define("transpose2_grad", "extern", ["XShape", "Out@GRAD"], ["X@GRAD?"], TRANSPOSE_ATTRS,
        _from_xshape,
        lambda ins, outs, a, rng: outs["X@GRAD"][0].copy_(
            ins["Out@GRAD"][0].permute(_inverse(_check_perm(a["axis"], ins["Out@GRAD"][0].dim())))),
        _transpose_grad_ref)


# ---------------------------------------------------------------------------------------------
# concat and its grad (a split of Out@GRAD back into the inputs' sizes along axis)

def _concat_fold(a, values):
    """concat's axis from AxisTensor (one int), which Paddle prefers to the attribute."""
    axis = np.asarray(values["AxisTensor"][0]).reshape(-1)
    if axis.size != 1:
        raise ShapeError(f"op 'concat': AxisTensor must hold one value, got {axis.size}")
    return {**a, "axis": int(axis[0])}


def _concat_infer(ins, a):
    xs = ins["X"]
    rank = len(xs[0].shape)
    if ins.get("AxisTensor"):  # read when the program runs: every dim -1 until then, as Paddle's
        return {"Out": [VarInfo((-1,) * rank, xs[0].dtype, xs[0].lod_level)]}
    axis = a["axis"]
    if not -rank <= axis < rank:
        raise ShapeError(f"op 'concat': axis {axis} is out of range for rank {rank}")
    axis %= rank
    out = list(xs[0].shape)
    for x in xs[1:]:
        if len(x.shape) != rank:
            raise ShapeError(f"op 'concat': inputs of ranks {[len(v.shape) for v in xs]} differ")
        for i, d in enumerate(x.shape):
            if i == axis:
                out[i] = -1 if -1 in (out[i], d) else out[i] + d
            elif out[i] == -1:
                out[i] = d
            elif d not in (-1, out[i]):
                raise ShapeError(f"op 'concat': shapes {[list(v.shape) for v in xs]} differ "
                                 f"outside axis {axis}")
    return {"Out": [VarInfo(tuple(out), xs[0].dtype, xs[0].lod_level)]}


def _concat_grad(op: OpDesc) -> list[OpDesc]:
    axis = {"AxisTensor": op.input("AxisTensor")} if op.input("AxisTensor") else {}
    return [OpDesc("concat_grad", {"X": op.input("X"), **axis,
                                   "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   grad_like(op, "X"), dict(op.attrs))]


def _concat_grad_infer(ins, a):
    return {"X@GRAD": list(ins["X"])}


def _concat_ref(ins, a):
    if ins.get("AxisTensor"):
        a = _concat_fold(a, ins)
    return {"Out": [np.concatenate([np.asarray(x) for x in ins["X"]], axis=a["axis"])]}


def _concat_grad_ref(ins, a):
    if ins.get("AxisTensor"):
        a = _concat_fold(a, ins)
    d = np.asarray(ins["Out@GRAD"][0])
    axis = a["axis"] % d.ndim
    sizes = np.cumsum([np.asarray(x).shape[axis] for x in ins["X"]])[:-1]
    return {"X@GRAD": [p.copy() for p in np.split(d, sizes, axis=axis)]}


def _concat_grad_run(ins, outs, a, rng):
    d = ins["Out@GRAD"][0]
    axis = a["axis"] % d.dim()
    # Dropped grads arrive as None (or the list is absent); their slices are skipped.
    targets = outs.get("X@GRAD", [])
    parts = torch.split(d, [x.shape[axis] for x in ins["X"]], dim=axis)
    for t, p in zip(targets, parts):
        if t is not None:
            t.copy_(p)


CONCAT_ATTRS = {"axis": 0, "use_quantizer": False}
_define("concat", "extern", ["X*", "AxisTensor?"], ["Out"], CONCAT_ATTRS, _concat_infer,
        lambda ins, outs, a, rng: torch.cat(ins["X"], dim=a["axis"], out=outs["Out"][0]),
        _concat_ref, _concat_grad, shape_inputs=("AxisTensor",), fold=_concat_fold)
_define("concat_grad", "extern", ["X*", "AxisTensor?", "Out@GRAD"], ["X@GRAD*?"], CONCAT_ATTRS,
        _concat_grad_infer, _concat_grad_run, _concat_grad_ref, shape_inputs=("AxisTensor",),
        fold=_concat_fold)


# ---------------------------------------------------------------------------------------------
# mul: X flattened to 2-D at x_num_col_dims, Y at y_num_col_dims, then a matrix product.

MUL_ATTRS = {"x_num_col_dims": 1, "y_num_col_dims": 1}


def _flat(shape, n: int) -> tuple[int, int]:
    """shape flattened to 2-D: the first n dims, then the rest (-1 when any is unknown)."""
    def prod(ds):
        return -1 if any(d < 0 for d in ds) else _numel(ds)
    return prod(shape[:n]), prod(shape[n:])


def _mul_infer(ins, a):
    x, y = ins["X"][0], ins["Y"][0]
    xn, yn = a["x_num_col_dims"], a["y_num_col_dims"]
    if not (0 < xn < len(x.shape) and 0 < yn < len(y.shape)):
        raise ShapeError(f"op 'mul': x_num_col_dims={xn} / y_num_col_dims={yn} do not fit "
                         f"X {list(x.shape)} and Y {list(y.shape)}")
    k1, k2 = _flat(x.shape, xn)[1], _flat(y.shape, yn)[0]
    if -1 not in (k1, k2) and k1 != k2:
        raise ShapeError(f"op 'mul': X {list(x.shape)} flattened at {xn} and Y "
                         f"{list(y.shape)} flattened at {yn} do not multiply ({k1} vs {k2})")
    return {"Out": [VarInfo(tuple(x.shape[:xn]) + tuple(y.shape[yn:]), x.dtype, x.lod_level)]}


def _mul_2d(x, y, a):
    """X and Y as the 2-D matrices mul multiplies (numpy or torch)."""
    xn, yn = a["x_num_col_dims"], a["y_num_col_dims"]
    return (x.reshape(_numel(x.shape[:xn]), _numel(x.shape[xn:])),
            y.reshape(_numel(y.shape[:yn]), _numel(y.shape[yn:])))


def _mul_ref(ins, a):
    x, y = np.asarray(ins["X"][0]), np.asarray(ins["Y"][0])
    x2, y2 = _mul_2d(x, y, a)
    out_shape = x.shape[:a["x_num_col_dims"]] + y.shape[a["y_num_col_dims"]:]
    return {"Out": [(x2 @ y2).reshape(out_shape)]}


def _mul_run(ins, outs, a, rng):
    x2, y2 = _mul_2d(ins["X"][0], ins["Y"][0], a)
    torch.mm(x2, y2, out=outs["Out"][0].view(x2.shape[0], y2.shape[1]))


def _matmul_grad_maker(op_type: str):
    def grad(op: OpDesc) -> list[OpDesc]:
        return [OpDesc(op_type, {"X": op.input("X"), "Y": op.input("Y"),
                                 "Out@GRAD": [grad_name(op.output("Out")[0])]},
                       grad_like(op, "X", "Y"), dict(op.attrs))]
    return grad


def _mul_grads(x, y, d, a):
    """(dX, dY) of mul for numpy or torch arrays."""
    x2, y2 = _mul_2d(x, y, a)
    d2 = d.reshape(x2.shape[0], y2.shape[1])
    return (d2 @ y2.T).reshape(x.shape), (x2.T @ d2).reshape(y.shape)


def _xy_grad_infer(ins, a):
    return {"X@GRAD": [ins["X"][0]], "Y@GRAD": [ins["Y"][0]]}


def _grads_ref(fn):
    def reference(ins, a):
        x, y, d = (np.asarray(ins[s][0]) for s in ("X", "Y", "Out@GRAD"))
        dx, dy = fn(x, y, d, a)
        return {"X@GRAD": [np.ascontiguousarray(dx, x.dtype)],
                "Y@GRAD": [np.ascontiguousarray(dy, y.dtype)]}
    return reference


def _grads_run(fn):
    def run(ins, outs, a, rng):
        dx, dy = fn(ins["X"][0], ins["Y"][0], ins["Out@GRAD"][0], a)
        for slot, v in (("X@GRAD", dx), ("Y@GRAD", dy)):
            if outs.get(slot) and outs[slot][0] is not None:
                outs[slot][0].copy_(v)
    return run


_define("mul", "extern", ["X", "Y"], ["Out"], MUL_ATTRS, _mul_infer, _mul_run, _mul_ref,
        _matmul_grad_maker("mul_grad"))
def _mul_grad_run(ins, outs, a, rng):
    # Only the grads asked for, each one matrix product straight into its output.
    x2, y2 = _mul_2d(ins["X"][0], ins["Y"][0], a)
    d2 = ins["Out@GRAD"][0].view(x2.shape[0], y2.shape[1])
    if outs.get("X@GRAD"):
        torch.mm(d2, y2.t(), out=outs["X@GRAD"][0].view(x2.shape))
    if outs.get("Y@GRAD"):
        torch.mm(x2.t(), d2, out=outs["Y@GRAD"][0].view(y2.shape))


def _mul_bias_run(ins, outs, a, rng):
    x2, y2 = _mul_2d(ins["X"][0], ins["Y"][0], a)
    torch.addmm(ins["Bias"][0], x2, y2, out=outs["Out"][0].view(x2.shape[0], y2.shape[1]))


def _mul_bias_ref(ins, a):
    out = _mul_ref(ins, a)["Out"][0]
    return {"Out": [(out + np.asarray(ins["Bias"][0])).astype(out.dtype)]}


# mul + bias as one library call (the matmul epilogue fuse pass writes it; never in a Program).
_define("mul_bias", "extern", ["X", "Y", "Bias"], ["Out"], MUL_ATTRS, _mul_infer, _mul_bias_run,
        _mul_bias_ref)
_define("mul_grad", "extern", ["X", "Y", "Out@GRAD"], ["X@GRAD?", "Y@GRAD?"], MUL_ATTRS,
        _xy_grad_infer, _mul_grad_run, _grads_ref(_mul_grads))


# ---------------------------------------------------------------------------------------------
# matmul (1.x: transpose_X/transpose_Y/alpha) and matmul_v2 (2.x: trans_x/trans_y).
# Both broadcast batch dims numpy-style; a 1-D X is a row vector, a 1-D Y a column vector, and
# their unit dims are dropped from Out (an all-dropped result is 0-d for matmul_v2, as in Paddle
# 3.x, and [1] for 1.x's matmul).

def _mm_flags(a) -> tuple[bool, bool, float]:
    if "trans_x" in a:
        return bool(a["trans_x"]), bool(a["trans_y"]), 1.0
    return bool(a["transpose_X"]), bool(a["transpose_Y"]), float(a["alpha"])


def _mm_shapes(op: str, xs, ys, tx: bool, ty: bool):
    """(x as >=2-D, y as >=2-D, out shape) for matmul's operand shapes."""
    x2 = (1,) + tuple(xs) if len(xs) == 1 else tuple(xs)
    y2 = tuple(ys) + (1,) if len(ys) == 1 else tuple(ys)
    if len(xs) > 1 and tx:
        x2 = x2[:-2] + (x2[-1], x2[-2])
    if len(ys) > 1 and ty:
        y2 = y2[:-2] + (y2[-1], y2[-2])
    if not len(xs) or not len(ys):
        raise ShapeError(f"op '{op}': operands must have rank >= 1, got X {list(xs)}, "
                         f"Y {list(ys)}")
    if -1 not in (x2[-1], y2[-2]) and x2[-1] != y2[-2]:
        raise ShapeError(f"op '{op}': X {list(xs)} and Y {list(ys)} do not multiply "
                         f"(transpose X={tx}, Y={ty}: {x2[-1]} vs {y2[-2]})")
    batch = broadcast_shape(x2[:-2], y2[:-2], op)
    out = batch + ((x2[-2],) if len(xs) > 1 else ()) + ((y2[-1],) if len(ys) > 1 else ())
    return out or ((1,) if op == "matmul" else ())


def _matmul_infer_fn(op: str):
    def infer(ins, a):
        x, y = ins["X"][0], ins["Y"][0]
        tx, ty, _ = _mm_flags(a)
        return {"Out": [VarInfo(_mm_shapes(op, x.shape, y.shape, tx, ty), x.dtype, x.lod_level)]}
    return infer


def _mt(t):
    """Swap the last two axes (numpy or torch)."""
    return t.swapaxes(-1, -2)


def _as_matrices(x, y, tx: bool, ty: bool):
    """x and y promoted to >= 2-D and transposed as the flags say (views)."""
    x2 = x.reshape(1, -1) if x.ndim == 1 else (_mt(x) if tx else x)
    y2 = y.reshape(-1, 1) if y.ndim == 1 else (_mt(y) if ty else y)
    return x2, y2


def _matmul_fwd(x, y, a):
    tx, ty, alpha = _mm_flags(a)
    x2, y2 = _as_matrices(x, y, tx, ty)
    out = x2 @ y2
    return out * alpha if alpha != 1.0 else out


def _unbroadcast(g, shape):
    """Sum g over the leading and size-1 dims broadcasting added to reach it from `shape`."""
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(axis=tuple(range(lead)))
    dims = tuple(i for i, d in enumerate(shape) if d == 1 and g.shape[i] != 1)
    return g.sum(axis=dims, keepdims=True) if dims else g


def _matmul_grads(x, y, d, a):
    """(dX, dY) of matmul/matmul_v2 for numpy or torch arrays."""
    tx, ty, alpha = _mm_flags(a)
    x2, y2 = _as_matrices(x, y, tx, ty)
    batch = tuple(np.broadcast_shapes(tuple(x2.shape[:-2]), tuple(y2.shape[:-2])))
    d2 = d.reshape(batch + (x2.shape[-2], y2.shape[-1]))
    if alpha != 1.0:
        d2 = d2 * alpha
    dx2, dy2 = d2 @ _mt(y2), _mt(x2) @ d2  # grads of the promoted, transposed operands
    dx2 = _unbroadcast(dx2, tuple(x2.shape))
    dy2 = _unbroadcast(dy2, tuple(y2.shape))
    dx = dx2.reshape(x.shape) if x.ndim == 1 else (_mt(dx2) if tx else dx2)
    dy = dy2.reshape(y.shape) if y.ndim == 1 else (_mt(dy2) if ty else dy2)
    return dx, dy


def _matmul_grad_run(ins, outs, a, rng):
    """Each grad asked for as one product straight into its output, when no operand was
    broadcast or promoted from 1-D; otherwise through _matmul_grads and a copy."""
    x, y, d = ins["X"][0], ins["Y"][0], ins["Out@GRAD"][0]
    tx, ty, alpha = _mm_flags(a)
    if x.ndim > 2 and y.ndim == 2 and not tx:
        # [..., M, K] x [K, N]: x's leading dims fold into rows, one GEMM per grad (the
        # batched product then a sum over the batch costs far more).
        x, d = x.reshape(-1, x.shape[-1]), d.reshape(-1, d.shape[-1])
        outs = {s: [v[0].view(-1, v[0].shape[-1]) if s == "X@GRAD" else v[0]]
                for s, v in outs.items() if v and v[0] is not None}
    if x.ndim < 2 or y.ndim < 2 or x.shape[:-2] != y.shape[:-2]:
        return _grads_run(_matmul_grads)(ins, outs, a, rng)
    x2, y2 = _as_matrices(x, y, tx, ty)
    d2 = d.reshape(x.shape[:-2] + (x2.shape[-2], y2.shape[-1]))
    for slot, left, right in (("X@GRAD", *((y2, _mt(d2)) if tx else (d2, _mt(y2)))),
                              ("Y@GRAD", *((_mt(d2), x2) if ty else (_mt(x2), d2)))):
        out = outs[slot][0] if outs.get(slot) else None
        if out is not None:
            torch.matmul(left, right, out=out)
            if alpha != 1.0:
                out.mul_(alpha)


def _matmul_ref(ins, a):
    x, y = np.asarray(ins["X"][0]), np.asarray(ins["Y"][0])
    out = np.array(_matmul_fwd(x, y, a), dtype=x.dtype, order="C")
    op = "matmul_v2" if "trans_x" in a else "matmul"
    return {"Out": [out.reshape(_mm_shapes(op, x.shape, y.shape, *_mm_flags(a)[:2]))]}


def _matmul_run(ins, outs, a, rng):
    tx, ty, alpha = _mm_flags(a)
    x2, y2 = _as_matrices(ins["X"][0], ins["Y"][0], tx, ty)
    out = outs["Out"][0]
    # Out less its dropped unit dims is contiguous, so the product can land in a view of it.
    # (numpy's broadcast_shapes: torch's imports sympy on its first call, 0.5 s.)
    full = np.broadcast_shapes(tuple(x2.shape[:-2]), tuple(y2.shape[:-2])) + \
        (x2.shape[-2], y2.shape[-1])
    torch.matmul(x2, y2, out=out.view(full))
    if alpha != 1.0:
        out.mul_(alpha)


MATMUL_ATTRS = {"transpose_X": False, "transpose_Y": False, "alpha": 1.0}
MATMUL_V2_ATTRS = {"trans_x": False, "trans_y": False}
for _type, _attrs in (("matmul", MATMUL_ATTRS), ("matmul_v2", MATMUL_V2_ATTRS)):
    _define(_type, "extern", ["X", "Y"], ["Out"], _attrs, _matmul_infer_fn(_type), _matmul_run,
            _matmul_ref, _matmul_grad_maker(_type + "_grad"))
    _define(_type + "_grad", "extern", ["X", "Y", "Out@GRAD"], ["X@GRAD?", "Y@GRAD?"], _attrs,
            _xy_grad_infer, _matmul_grad_run, _grads_ref(_matmul_grads),
            grad=grad_of_matmul_v2_grad if _type == "matmul_v2" else None)


# ---------------------------------------------------------------------------------------------
# assign_value: a constant tensor written into the program; feed/fetch: the executor's own ops.

# Paddle 3.x writes `values` (scalars of any kind); older Paddle one list per dtype.
_VALUE_KEYS = ("values", "fp32_values", "fp64_values", "int32_values", "int64_values", "bool_values")


def _assign_value_ref(ins, a):
    values = scalar_values.as_array(a, to_numpy_dtype(a["dtype"]))
    return {"Out": [values.reshape(as_shape(a["shape"]))]}


def _assign_value_run(ins, outs, a, rng):
    outs["Out"][0].copy_(torch.from_numpy(_assign_value_ref(ins, a)["Out"][0]))


_define("assign_value", "extern", [], ["Out"],
        {"shape": [], "dtype": 5, **{k: [] for k in _VALUE_KEYS}}, _filled_infer,
        _assign_value_run, _assign_value_ref)


def _keep_declared(ins, a):
    return {}  # the fed / fetched var keeps the shape the program declares


for _t, _ins, _outs in (("feed", "X", "Out"), ("fetch", "X", "Out")):
    register(OpDef(_t, slots(_ins), slots(_outs), {"col": 0}, _keep_declared, _t))
