"""Every forward op through the compiled C backend against its numpy reference: float32 and
float64, odd sizes, Paddle's elementwise axis broadcasting, reductions over various dims.

CASES maps op type -> cases; test_every_forward_op_has_a_case fails when an op is registered
without one. Random ops (RANDOM_OPS) can only be checked statistically, in their own tests."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend.dtypes import VarType
from fluidc.frontend.ops.registry import get_op_def
from fluidc.frontend.ops.distributed import TRAINER_OPS

from op_harness import (assert_same, assert_special_values, forward_op_types,
                        one_op_program, special_values_program,
                        reference_op, run_c, run_reference, seeded)

FLOATS = ("float32", "float64")


# --- input specs: drawn at test time in the case's float dtype ---------------------------------

@dataclass
class F:
    """Uniform floats in [lo, hi) of the case dtype (`signed`: magnitudes in [lo, hi), random signs)."""

    shape: tuple
    lo: float = -2.0
    hi: float = 2.0
    signed: bool = False

    def draw(self, rng, dtype):
        x = rng.uniform(self.lo, self.hi, self.shape)
        if self.signed:
            x *= rng.choice([-1.0, 1.0], self.shape)
        return x.astype(dtype)


@dataclass
class I:
    """Uniform integers in [lo, hi) of a fixed dtype (`nonzero`: zeros replaced by hi - 1)."""

    shape: tuple
    lo: int
    hi: int
    dtype: str = "int64"
    nonzero: bool = False

    def draw(self, rng, _):
        x = rng.integers(self.lo, self.hi, self.shape).astype(self.dtype)
        return np.where(x == 0, self.hi - 1, x).astype(self.dtype) if self.nonzero else x


@dataclass
class P:
    """Rows of probabilities (softmax of normals) along the last axis."""

    shape: tuple

    def draw(self, rng, dtype):
        e = np.exp(rng.normal(size=self.shape))
        return (e / e.sum(-1, keepdims=True)).astype(dtype)


@dataclass
class Const:
    """A fixed value, in the case dtype unless it has its own."""

    value: object
    dtype: str | None = None

    def draw(self, rng, dtype):
        return np.array(self.value, dtype=self.dtype or dtype)


@dataclass
class Case:
    """One op run: inputs (slot -> spec or list of specs), attrs, the dtypes to run it in, the
    output slots to check (default: every non-dispensable one)."""

    ins: dict
    attrs: dict = field(default_factory=dict)
    dtypes: tuple = FLOATS
    outs: tuple | None = None
    label: str = ""
    tol: tuple | None = None  # (rtol, atol) where the float32 reference itself rounds more


def f(*shape, **kw):
    return F(shape, **kw)


S = (3, 5, 7)  # odd sizes, so no vector width divides them
BIG = (64, 1031)  # above PARALLEL_MIN: the OpenMP-parallel kernel paths
POS = dict(lo=0.1, hi=3.0)
AWAY_FROM_0 = dict(lo=0.5, hi=2.0, signed=True)

CASES: dict[str, list[Case]] = {}


def add(op_type: str, *cases: Case) -> None:
    CASES.setdefault(op_type, []).extend(cases)


# --- pointwise -------------------------------------------------------------------------------
for _op, _spec in {"relu": f(*S), "sigmoid": f(*S, lo=-8, hi=8), "tanh": f(*S, lo=-4, hi=4),
                   "exp": f(*S), "log": f(*S, **POS), "sqrt": f(*S, **POS),
                   "rsqrt": f(*S, **POS), "square": f(*S), "abs": f(*S), "sign": f(*S),
                   "floor": f(*S, lo=-5, hi=5), "assign": f(*S),
                   "fill_zeros_like": f(*S), "ceil": f(*S, lo=-5, hi=5),
                   "trunc": f(*S, lo=-5, hi=5), "round": f(*S, lo=-5, hi=5), "erf": f(*S),
                   "reciprocal": f(*S, **AWAY_FROM_0), "sin": f(*S, lo=-7, hi=7),
                   "tan": f(*S, lo=-1.4, hi=1.4), "asin": f(*S, lo=-1, hi=1),
                   "acos": f(*S, lo=-1, hi=1), "atan": f(*S, lo=-9, hi=9),
                   "sinh": f(*S, lo=-5, hi=5), "cosh": f(*S, lo=-5, hi=5),
                   "asinh": f(*S, lo=-9, hi=9), "acosh": f(*S, lo=1, hi=9),
                   "atanh": f(*S, lo=-0.99, hi=0.99), "log1p": f(*S, lo=-0.9, hi=5),
                   "expm1": f(*S, lo=-3, hi=3), "log2": f(*S, **POS), "log10": f(*S, **POS),
                   "isnan_v2": f(*S), "isinf_v2": f(*S), "isfinite_v2": f(*S)}.items():
    add(_op, Case({"X": _spec}))
add("tanh", Case({"X": f(*BIG)}, dtypes=("float32",), label="big"))
add("exp", Case({"X": f(*BIG)}, dtypes=("float64",), label="big"))
add("leaky_relu", Case({"X": f(*S)}, {"alpha": 0.1}))
add("gelu", *[Case({"X": f(*S, lo=-4, hi=4)}, {"approximate": a}) for a in (False, True)])
add("assign", Case({"X": I(S, -9, 9)}, dtypes=("int64",)))

# Y's shape and Paddle's axis, against X [2, 3, 4, 5] unless given as (X, Y).
BROADCASTS = {
    "same": ((3, 5, 7), (3, 5, 7), -1),
    "mid_axis1": ((2, 3, 4, 5), (3, 4), 1),
    "trailing": ((2, 3, 4, 5), (5,), -1),
    "scalar1": ((2, 3, 4, 5), (1,), -1),
    "lead_axis0": ((2, 3, 4, 5), (2, 3), 0),
    "axis2": ((2, 3, 4, 5), (4, 5), 2),
    "y_trailing1_axis1": ((2, 3, 4, 5), (3, 1), 1),
    "x_smaller_axis1": ((3, 4), (2, 3, 4, 5), 1),
    "both_sides_1s": ((2, 1, 4), (3, 1), -1),
    "big_mid": ((64, 33, 31), (33,), 1),
}
_BINARY_DOMAIN = {  # (X spec kwargs, Y spec kwargs)
    "add": ({}, {}), "sub": ({}, {}), "mul": ({}, {}), "max": ({}, {}), "min": ({}, {}),
    "div": ({}, AWAY_FROM_0), "pow": (dict(lo=0.5, hi=2.0), {}),
    "floordiv": (dict(lo=-6, hi=6), AWAY_FROM_0), "mod": (dict(lo=-6, hi=6), AWAY_FROM_0),
}
for _kind, (_xk, _yk) in _BINARY_DOMAIN.items():
    _which = BROADCASTS if _kind in ("add", "mul") else {k: BROADCASTS[k] for k in
                                                         ("same", "mid_axis1", "scalar1")}
    for _label, (_xs, _ys, _axis) in _which.items():
        add(f"elementwise_{_kind}", Case({"X": F(_xs, **_xk), "Y": F(_ys, **_yk)},
                                         {"axis": _axis}, label=_label))
for _kind in ("add", "sub", "mul", "max", "min", "div", "floordiv", "mod"):
    for _dt in ("int32", "int64"):
        add(f"elementwise_{_kind}", Case({"X": I(S, -20, 20, _dt), "Y": I((5, 7), -5, 5, _dt, True)},
                                         dtypes=(_dt,), label="int"))

add("scale", Case({"X": f(*S)}, {"scale": 2.5, "bias": 0.5}),
    Case({"X": f(*S)}, {"scale": -1.5, "bias": 0.25, "bias_after_scale": False}, label="bias_first"),
    Case({"X": f(*S), "ScaleTensor": f(1)}, {"bias": 1.0}, label="tensor"))
_CODES = {"bool": VarType.BOOL, "uint8": VarType.UINT8, "int32": VarType.INT32,
          "int64": VarType.INT64, "float32": VarType.FP32, "float64": VarType.FP64}
for _src, _dst, _spec in (("float32", "float64", f(*S)), ("float64", "float32", f(*S)),
                          ("float32", "int32", f(*S, lo=-50, hi=50)),
                          ("float64", "int64", f(*S, lo=-50, hi=50)),
                          ("float32", "uint8", f(*S, lo=0, hi=250)),
                          ("float32", "bool", I(S, -1, 2, "float32")),
                          ("int64", "float32", I(S, -99, 99)),
                          ("int32", "float64", I(S, -99, 99, "int32"))):
    add("cast", Case({"X": _spec}, {"in_dtype": _CODES[_src], "out_dtype": _CODES[_dst]},
                     dtypes=(_src,), label=f"to_{_dst}"))
add("sum", Case({"X": [f(*S), f(*S), f(*S)]}), Case({"X": [f(*S)]}, label="one"))
# Outside a data-parallel run the gradient all-reduce sums over this one replica
# (tests/test_data_parallel*.py run it over places and trainers).
add("c_allreduce_sum", Case({"X": [f(*S)]}, label="one replica"))
add("c_sync_comm_stream", Case({"X": [f(*S)]}))
for _name in ("equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal"):
    add(_name, Case({"X": I(S, -2, 2, "float32"), "Y": I(S[-2:], -2, 2, "float32")},
                    dtypes=("float32",)),  # small integers as floats: ties happen
        Case({"X": I(S, -2, 2), "Y": I((S[0], 1, 1), -2, 2)}, {"axis": 0}, dtypes=("int64",),
             label="int_axis0"))
_BOOLS = I(S, 0, 2, "bool")
for _t in ("logical_and", "logical_or"):
    add(_t, Case({"X": _BOOLS, "Y": _BOOLS}, dtypes=("float32",)),
        Case({"X": _BOOLS, "Y": I(S[-1:], 0, 2, "bool")}, dtypes=("float32",), label="broadcast"))
add("logical_not", Case({"X": _BOOLS}, dtypes=("float32",)))
add("select_input", Case({"X": [f(*S), f(*S)], "Mask": Const([1], "int32")}),
    Case({"X": [f(*S), f(*S)], "Mask": Const([0], "int32")}, label="first"))
add("where", Case({"X": f(*S), "Y": f(*S), "Condition": I(S, 0, 2, "bool")}),
    Case({"X": f(*S), "Y": f(S[-1]), "Condition": I(S[-1:], 0, 2, "bool")}, label="broadcast"))

# --- reductions --------------------------------------------------------------------------------
REDUCE_ATTRS = {
    "dim0": {"dim": [0]}, "dim1_keep": {"dim": [1], "keep_dim": True}, "last": {"dim": [-1]},
    "dims02_keep": {"dim": [0, 2], "keep_dim": True}, "all": {"reduce_all": True},
    "all_keep": {"reduce_all": True, "keep_dim": True}, "dims_neg": {"dim": [-3, -1]},
}
for _kind in ("sum", "mean", "max", "min", "prod"):
    _which = REDUCE_ATTRS if _kind in ("sum", "mean") else {
        k: REDUCE_ATTRS[k] for k in ("dim1_keep", "dims02_keep", "all")}
    _spec = f(*S, lo=0.6, hi=1.4) if _kind == "prod" else f(*S)
    add(f"reduce_{_kind}", *[Case({"X": _spec}, a, label=k) for k, a in _which.items()])
# numpy sums float32 in float32; 64..1031 terms of |x| < 2 round to ~1e-4 absolute.
SUM32 = (1e-5, 1e-4)
add("reduce_sum", Case({"X": f(*BIG)}, {"dim": [1]}, dtypes=("float32",), label="big_rows", tol=SUM32),
    Case({"X": f(*BIG)}, {"reduce_all": True}, dtypes=("float64",), label="big_all"),
    Case({"X": f(*BIG)}, {"dim": [0]}, dtypes=("float32",), label="big_cols", tol=SUM32),
    Case({"X": I(S, -50, 50)}, {"dim": [1]}, dtypes=("int64",), label="int"))
add("reduce_max", Case({"X": I(S, -50, 50, "int32")}, {"dim": [2]}, dtypes=("int32",),
                       label="int"),
    Case({"X": f(*BIG)}, {"dim": [1]}, dtypes=("float32",), label="big"))
# reduce_max / reduce_min grads' pieces (frontend/ops/reduce.py): integer-valued floats, so
# X equals the extremum in several places; Out / Count / Out@GRAD without the reduced dim.
for _dt in ("float32", "float64"):
    add("reduce_extremum_ties",
        Case({"X": I(S, 0, 3, _dt), "Out": I((3, 7), 0, 3, _dt)}, {"dim": [1]},
             dtypes=(_dt,), label=_dt),
        Case({"X": I(S, 0, 3, _dt), "Out": I((3, 1, 1), 0, 3, _dt)},
             {"dim": [1, 2], "keep_dim": True}, dtypes=(_dt,), label=_dt + "_kept"))
    add("reduce_extremum_share",
        Case({"Ties": I(S, 0, 2, _dt), "Count": I((3, 1, 7), 1, 4, _dt), "Out@GRAD": F((3, 7))},
             {"dim": [1]}, dtypes=(_dt,), label=_dt))
for _t in ("reduce_all", "reduce_any"):
    add(_t, Case({"X": I(S, 0, 2, "bool")}, {"dim": [1]}, dtypes=("float32",), label="bool"),
        Case({"X": I(S, 0, 3, "int64")}, {"dim": [0, 2], "keep_dim": True},
             dtypes=("float32",), label="int"),
        Case({"X": f(*S, lo=-1.0, hi=1.0)}, {"dim": [], "reduce_all": True},
             label="float_all"))
add("mean", Case({"X": f(*S)}), Case({"X": f(*BIG)}, dtypes=("float32",), label="big", tol=SUM32))

# --- nn ----------------------------------------------------------------------------------------
add("softmax", *[Case({"X": f(*S, lo=-5, hi=5)}, {"axis": a}, label=f"axis{a}") for a in (-1, 1, 0)])
add("cross_entropy",
    Case({"X": P((6, 5)), "Label": I((6, 1), 0, 5)}, label="hard"),
    Case({"X": P((6, 5)), "Label": P((6, 5))}, {"soft_label": True}, label="soft"),
    Case({"X": P((2, 3, 5)), "Label": I((2, 3, 1), 0, 5)}, dtypes=("float64",), label="3d"),
    Case({"X": P((6, 5)), "Label": I((6, 1), 0, 3)}, {"ignore_index": 1}, dtypes=("float32",),
         label="ignore"))
add("softmax_with_cross_entropy",
    Case({"Logits": f(6, 5, lo=-4, hi=4), "Label": I((6, 1), 0, 5)}, label="hard"),
    Case({"Logits": f(6, 5, lo=-4, hi=4), "Label": P((6, 5))}, {"soft_label": True}, label="soft"),
    Case({"Logits": f(2, 5, 3, lo=-4, hi=4), "Label": I((2, 1, 3), 0, 5)}, {"axis": 1},
         dtypes=("float64",), label="axis1"),
    Case({"Logits": f(6, 5), "Label": I((6, 1), 0, 3)}, {"ignore_index": 2}, dtypes=("float32",),
         label="ignore"),
    Case({"Logits": P((6, 5)), "Label": I((6, 1), 0, 5)}, {"use_softmax": False},
         dtypes=("float64",), label="no_softmax"))
add("top_k", Case({"X": f(4, 7)}, {"k": 3}), Case({"X": f(2, 3, 6)}, {"k": 1}, label="3d"))
add("accuracy", Case({"Out": f(6, 3), "Indices": I((6, 3), 0, 4), "Label": I((6, 1), 0, 4)},
                     dtypes=("float32",)))
add("auc", Case({"Predict": P((8, 2)), "Label": I((8, 1), -1, 3), "StatPos": I((17,), 0, 5),
                 "StatNeg": I((17,), 0, 5)}, {"num_thresholds": 7, "slide_steps": 1},
                dtypes=("float32",)),
    Case({"Predict": P((8, 2)), "Label": I((8, 1), 0, 2), "StatPos": I((1, 8), 0, 5),
          "StatNeg": I((1, 8), 0, 5)}, {"num_thresholds": 7, "slide_steps": 0},
         dtypes=("float32",), label="global"))
_ACC = {"param": f(3, 4), "in_sum_1": f(3, 4), "in_sum_2": f(3, 4), "in_sum_3": f(3, 4)}
add("average_accumulates",
    Case({**_ACC, "in_num_accumulates": I((1,), 0, 3), "in_old_num_accumulates": I((1,), 0, 9),
          "in_num_updates": I((1,), 0, 20)},
         {"average_window": 0.3, "min_average_window": 2, "max_average_window": 4}),
    Case({**_ACC, "in_num_accumulates": Const([5], "int64"),
          "in_old_num_accumulates": Const([2], "int64"),
          "in_num_updates": Const([16383], "int64")},
         {"average_window": 0.5, "min_average_window": 2, "max_average_window": 6},
         label="spill_and_restart"))
add("precision_recall",
    Case({"MaxProbs": f(8, 1, **POS), "Indices": I((8, 1), 0, 4, "int32"),
          "Labels": I((8, 1), 0, 4, "int32")}, {"class_number": 4}),
    Case({"MaxProbs": f(8, 1, **POS), "Indices": I((8, 1), 0, 4, "int32"),
          "Labels": I((8, 1), 0, 4, "int32"), "Weights": f(8, 1, **POS),
          "StatesInfo": f(4, 4, **POS)}, {"class_number": 4}, label="weighted"))
add("dropout", *[Case({"X": f(*S)}, {"is_test": True, "dropout_prob": 0.3,
                                      "dropout_implementation": impl}, label=impl)
                 for impl in ("downgrade_in_infer", "upscale_in_train")])
add("dropout_apply", *[Case({"X": f(*S), "Mask": I(S, 0, 2, "uint8")},
                            {"dropout_prob": 0.3, "dropout_implementation": impl}, label=impl)
                       for impl in ("downgrade_in_infer", "upscale_in_train")])
_BN_OUTS = ("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance")


def _bn(x_shape, c, attrs, label, dtypes=FLOATS):
    ins = {"X": F(x_shape), "Scale": f(c), "Bias": f(c), "Mean": f(c),
           "Variance": f(c, lo=0.5, hi=2.0)}
    return Case(ins, attrs, dtypes, _BN_OUTS, label)


add("batch_norm", _bn((2, 3, 4, 5), 3, {}, "train"),
    _bn((2, 3, 4, 5), 3, {"is_test": True}, "test"),
    _bn((2, 4, 5, 3), 3, {"data_layout": "NHWC", "momentum": 0.8}, "nhwc", ("float64",)),
    _bn((7, 3), 3, {"epsilon": 1e-3}, "2d", ("float32",)),
    _bn((2, 3, 5), 3, {"use_global_stats": True}, "global_stats", ("float64",)))


def _bn_infer(x_shape, c, attrs, label):
    ins = {"X": F(x_shape), "Scale": f(c), "Bias": f(c), "Mean": f(c),
           "Variance": f(c, lo=0.5, hi=2.0)}
    return Case(ins, attrs, FLOATS, ("Y",), label)


add("batch_norm_infer", _bn_infer((2, 3, 4, 5), 3, {}, "nchw"),
    _bn_infer((2, 4, 5, 3), 3, {"data_layout": "NHWC", "epsilon": 1e-3}, "nhwc"))
add("lookup_table", Case({"W": f(10, 4), "Ids": I((5, 1), 0, 10)}),
    Case({"W": f(10, 4), "Ids": Const([[2], [3], [2], [9]], "int64")}, {"padding_idx": 2},
         dtypes=("float32",), label="pad"))
add("lookup_table_v2", Case({"W": f(10, 4), "Ids": I((2, 3), 0, 10)}),
    Case({"W": f(10, 4), "Ids": Const([[8, 1], [8, 0]], "int64")}, {"padding_idx": -2},
         dtypes=("float64",), label="neg_pad"))

# --- tensor ------------------------------------------------------------------------------------
add("fill_constant", *[Case({}, {"shape": [3, 5, 7], "dtype": _CODES[dt], **a}, dtypes=(dt,),
                            label=lbl) for dt, a, lbl in (
    ("float32", {"value": 1.5}, "value"), ("float64", {"value": -2.25}, "value"),
    ("int64", {"str_value": "123456789012345"}, "big_int64"),
    ("float32", {"str_value": "-inf"}, "inf"), ("int32", {"value": 7.0}, "int32"),
    ("bool", {"value": 1.0}, "bool"))])
add("assign_value", *[Case({}, {"shape": list(shape), "dtype": _CODES[dt], key: vals}, dtypes=(dt,),
                            label=dt) for dt, key, shape, vals in (
    ("float32", "fp32_values", (2, 3), [0.5, -1.25, 3.0, 1e-3, -0.0, 7.5]),
    ("float64", "fp64_values", (3,), [0.1, -2.0, 1e300]),
    ("int32", "int32_values", (2, 2), [1, -2, 3, 2**31 - 1]),
    ("int64", "int64_values", (1, 3), [2**40 + 1, -5, 0]),
    ("bool", "bool_values", (2,), [True, False]))])
add("reshape2", *[Case({"X": f(*S)}, {"shape": s}, outs=("Out",), label=str(s))
                  for s in ([5, -1], [0, -1], [-1], [7, 3, 5, 1])])
add("transpose2", Case({"X": f(*S)}, {"axis": [2, 0, 1]}, outs=("Out",)),
    Case({"X": I((2, 3, 4, 5), -9, 9)}, {"axis": [0, 2, 3, 1]}, ("int64",), ("Out",), "int64"))
add("concat", *[Case({"X": [f(2, 3, 4), f(2, 3, 4), f(2, 3, 4)]}, {"axis": a}, label=f"axis{a}")
                for a in (0, 1, -1)],
    Case({"X": [f(2, 3, 4), f(2, 5, 4), f(2, 1, 4)]}, {"axis": 1}, label="ragged"))
add("mul", Case({"X": f(*S), "Y": f(35, 4)}),
    Case({"X": f(*S), "Y": f(7, 4)}, {"x_num_col_dims": 2}, label="xn2"),
    Case({"X": f(6, 5), "Y": f(5, 2, 3)}, label="y3d"),
    Case({"X": f(3, 10), "Y": f(2, 5, 3)}, {"y_num_col_dims": 2}, label="yn2"))
add("mul_bias", Case({"X": f(*S), "Y": f(35, 4), "Bias": f(4)}),
    Case({"X": f(*S), "Y": f(7, 4), "Bias": f(4)}, {"x_num_col_dims": 2}, label="xn2"))


def _matmul_cases(tx: str, ty: str, extra: dict) -> list[Case]:
    return [Case({"X": f(3, 5), "Y": f(5, 4)}),
            Case({"X": f(5, 3), "Y": f(5, 4)}, {tx: True}, label="tx"),
            Case({"X": f(3, 5), "Y": f(4, 5)}, {ty: True}, label="ty"),
            Case({"X": f(2, 5, 3), "Y": f(2, 4, 5)}, {tx: True, ty: True}, label="batched_txy"),
            Case({"X": f(2, 1, 3, 5), "Y": f(4, 5, 6)}, label="batch_broadcast"),
            Case({"X": f(5), "Y": f(5)}, label="vec_vec"),
            Case({"X": f(5), "Y": f(2, 5, 4)}, label="vec_batched"),
            Case({"X": f(3, 5), "Y": f(5)}, {**extra}, label="mat_vec")]


add("matmul", *_matmul_cases("transpose_X", "transpose_Y", {"alpha": 0.5}))
add("matmul_v2", *_matmul_cases("trans_x", "trans_y", {}))
# one GRU step (lstm / gru read a LoD: tests/test_rnn_ops.py)
add("gru_unit", *[Case({"Input": f(4, 9), "HiddenPrev": f(4, 3), "Weight": f(3, 9, lo=-0.5,
                                                                           hi=0.5),
                        "Bias": f(1, 9)}, {"activation": act, "origin_mode": origin},
                       label=f"act{act}-origin{origin}")
                  for act, origin in ((2, False), (0, True))])

# --- optimizers --------------------------------------------------------------------------------
_PG = {"Param": f(3, 5), "Grad": f(3, 5), "LearningRate": Const([0.1])}
add("sgd", Case(dict(_PG)))
add("momentum", Case({**_PG, "Velocity": f(3, 5)}, {"mu": 0.9}),
    Case({**_PG, "Velocity": f(3, 5)}, {"mu": 0.9, "use_nesterov": True}, label="nesterov"),
    Case({**_PG, "Velocity": f(3, 5)}, {"mu": 0.8, "regularization_method": "l2_decay",
                                        "regularization_coeff": 0.01, "rescale_grad": 0.5},
         label="l2_rescale"))
_ADAM = {**_PG, "Moment1": f(3, 5), "Moment2": f(3, 5, lo=0.0, hi=1.0),
         "Beta1Pow": Const([0.9 ** 3]), "Beta2Pow": Const([0.999 ** 3])}
_BETAS = {"Beta1Tensor": Const([0.8]), "Beta2Tensor": Const([0.99])}
add("adam", Case(dict(_ADAM)), Case({**_ADAM, **_BETAS}, label="beta_tensors"),
    Case(dict(_ADAM), {"use_global_beta_pow": True}, outs=("ParamOut", "Moment1Out", "Moment2Out"),
         label="global_pow"))
add("adam_update", Case(dict(_ADAM), {"epsilon": 1e-6}), Case({**_ADAM, **_BETAS}, label="betas"))
_POS35 = dict(lo=0.1, hi=1.0)
add("adagrad", Case({**_PG, "Moment": f(3, 5, **_POS35)}, {"epsilon": 1e-6}))
add("adamax", Case({**_PG, "Moment": f(3, 5), "InfNorm": f(3, 5, **_POS35),
                    "Beta1Pow": Const([0.9 ** 2])}))
add("adadelta", Case({**_PG, "AvgSquaredGrad": f(3, 5, **_POS35),
                      "AvgSquaredUpdate": f(3, 5, **_POS35)}, {"rho": 0.9, "epsilon": 1e-5}))
# nadam / radam / asgd / rprop (frontend/ops/optim2.py): Paddle's lowercase slots, param-shaped
# accumulators; radam's rho of 0.5-1 takes the rectified branch, of 9-10 the plain one
_PG2 = {"param": f(3, 5), "grad": f(3, 5), "learning_rate": Const([0.1])}
add("nadam", Case({**_PG2, "momentum_decay_pow": f(3, 5, lo=0.8, hi=0.9),
                   "beta2_pow": f(3, 5, lo=0.9, hi=0.99), "mu_product": f(3, 5, lo=0.5, hi=0.7),
                   "moment1": f(3, 5), "moment2": f(3, 5, **_POS35)}, {"beta1": 0.8}))
_RADAM = {**_PG2, "beta1_pow": f(3, 5, lo=0.5, hi=0.6), "beta2_pow": f(3, 5, lo=0.72, hi=0.73),
          "moment1": f(3, 5), "moment2": f(3, 5, **_POS35)}
for _update in ("radam", "radam_update"):
    add(_update, *[Case({**_RADAM, "rho": f(3, 5, lo=lo, hi=lo + 0.5),
                         **({"rho_first": Const([[lo + 0.2]]), "beta2_pow_first": Const([[0.725]])}
                            if _update == "radam_update" else {})}, {"beta2": 0.9}, label=label)
                   for lo, label in ((0.5, "rectified"), (9.0, "plain"))])
add("first_elements", Case({"X": [f(3, 5), f(4), Const(2.5)]}))
add("asgd", Case({**_PG2, "d": f(3, 5), "y": f(3, 5), "n": Const([3], "int64")}))
_RPROP = {"param": f(3, 5), "grad": f(3, 5), "prev": f(3, 5), "learning_rate": f(3, 5, **_POS35)}
add("rprop", Case({**_RPROP, "learning_rate_range": Const([[0.2, 0.8]]),
                   "etas": Const([0.5, 1.2])}))
add("rprop_update", Case({**_RPROP, "learning_rate_min": Const([0.2]),
                          "learning_rate_max": Const([0.8]), "eta_negative": Const([0.5]),
                          "eta_positive": Const([1.2])}))
add("adamw", Case(dict(_ADAM), {"coeff": 0.02, "with_decay": True}),
    Case(dict(_ADAM), {"coeff": 0.02, "with_decay": True, "lr_ratio": 0.5}, label="lr_ratio"))
add("adamw_update", Case(dict(_ADAM), {"coeff": 0.02, "with_decay": True}))
add("rmsprop", Case({**_PG, "MeanSquare": f(3, 5, **_POS35), "Moment": f(3, 5)}),
    Case({**_PG, "MeanSquare": f(3, 5, lo=1.0, hi=2.0), "Moment": f(3, 5),
          "MeanGrad": f(3, 5, lo=-0.5, hi=0.5)}, {"centered": True, "momentum": 0.9},
         label="centered"))
add("lamb", Case({k: v for k, v in _ADAM.items()}, {"weight_decay": 0.01}))
add("lamb_direction", Case({k: _ADAM[k] for k in ("Param", "Grad", "Moment1", "Moment2",
                                                  "Beta1Pow", "Beta2Pow")}))
add("lamb_apply", Case({"Param": f(3, 5), "TrustRatioDiv": f(3, 5), "LearningRate": Const([0.1]),
                        "ParamNorm": Const([2.0]), "TrustRatioDivNorm": Const([0.5])}))
add("squared_l2_norm", Case({"X": F(S)}))
add("clip_by_norm", Case({"X": F(S)}, {"max_norm": 0.5}), Case({"X": F(S)}, {"max_norm": 1e3},
                                                                 label="no_clip"))
add("clip_by_norm_apply", Case({"X": f(3, 5), "SquaredNorm": Const([4.0])}, {"max_norm": 1.0}))
add("increment", Case({"X": Const([3.0])}, {"step": 2.0}))
add("cos", Case({"X": F(S)}))
add("fill_any_like", Case({"X": F(S)}, {"value": 2.5}))
add("stanh", Case({"X": F(S)}), Case({"X": F(S)}, {"scale_a": 0.5, "scale_b": 2.0}, label="scaled"))
add("p_norm", Case({"X": F(S)}), Case({"X": F(S)}, {"porder": 1.0, "axis": 0}, label="l1"),
    Case({"X": F(S)}, {"porder": float("inf"), "keepdim": True}, label="inf"),
    Case({"X": F(S)}, {"porder": 3.0, "asvector": True}, label="vector"))
add("frobenius_norm", Case({"X": F(S)}, {"dim": [0, 1]}),
    Case({"X": F(S)}, {"dim": [1, 2], "keep_dim": True}, label="keep"))

# --- conv, norm, activations, shape ops (frontend/ops/{conv,norm,activation,shape}.py) ---------
CONV32 = (1e-4, 1e-5)  # numpy's float32 einsum sums in another order than torch's conv
add("conv2d", Case({"Input": f(2, 3, 7, 8), "Filter": f(4, 3, 3, 3)}, {"paddings": [1, 1]},
                   tol=CONV32),
    Case({"Input": f(1, 4, 6, 6), "Filter": f(6, 2, 3, 2)},
         {"groups": 2, "strides": [2, 1], "paddings": [0, 1, 2, 0]}, label="groups_pad4",
         tol=CONV32),
    Case({"Input": f(2, 6, 5, 3), "Filter": f(4, 3, 2, 2)},
         {"data_format": "NHWC", "padding_algorithm": "SAME", "strides": [2, 2]},
         label="nhwc_same", tol=CONV32))
add("depthwise_conv2d", Case({"Input": f(2, 4, 6, 6), "Filter": f(8, 1, 3, 3)},
                             {"groups": 4, "paddings": [1, 1], "dilations": [2, 2]}, tol=CONV32))
add("conv3d", Case({"Input": f(2, 3, 5, 6, 4), "Filter": f(4, 3, 2, 3, 2)},
                   {"paddings": [1, 0, 1]}, tol=CONV32),
    Case({"Input": f(1, 4, 5, 5, 6), "Filter": f(6, 2, 3, 2, 2)},
         {"groups": 2, "strides": [2, 1, 2], "paddings": [0, 1, 2, 0, 1, 1],
          "dilations": [1, 2, 1]}, label="groups_pad6", tol=CONV32),
    Case({"Input": f(2, 2, 4, 5, 3), "Filter": f(3, 2, 2, 2, 2)},
         {"padding_algorithm": "SAME", "strides": [2, 2, 1]}, label="same", tol=CONV32))
add("conv2d_transpose", Case({"Input": f(2, 3, 4, 5), "Filter": f(3, 2, 3, 2)}, {},
                             tol=CONV32),
    Case({"Input": f(1, 4, 3, 4), "Filter": f(4, 3, 3, 3)},
         {"groups": 2, "strides": [2, 1], "paddings": [1, 0, 2, 1], "dilations": [1, 2]},
         label="groups_pad4", tol=CONV32),
    Case({"Input": f(2, 2, 3, 3), "Filter": f(2, 3, 3, 2)},
         {"strides": [2, 2], "paddings": [0, 2, 1, 0], "output_padding": [1, 1]},
         label="output_padding", tol=CONV32),
    Case({"Input": f(1, 2, 3, 3), "Filter": f(2, 2, 3, 3)},
         {"strides": [3, 3], "output_size": [10, 11]}, label="output_size", tol=CONV32))
add("conv3d_transpose", Case({"Input": f(1, 2, 3, 3, 2), "Filter": f(2, 2, 2, 3, 2)},
                             {"strides": [2, 1, 1], "paddings": [1, 0, 1]}, tol=CONV32),
    Case({"Input": f(1, 2, 2, 3, 2), "Filter": f(2, 2, 2, 2, 2)},
         {"padding_algorithm": "SAME", "strides": [2, 2, 1]}, label="same", tol=CONV32))
# conv2d_fused and pool2d_argmax are written by passes/conv_fusion.py (tests/test_conv_fusion.py)
add("conv2d_fused", Case({"Input": f(2, 3, 7, 8), "Filter": f(4, 3, 3, 3), "Bias": f(4)},
                         {"paddings": [1, 1], "act": "relu"}, tol=CONV32),
    Case({"Input": f(2, 5, 3, 6), "Filter": f(4, 3, 2, 2)},
         {"data_format": "NHWC", "groups": 2, "strides": [2, 1]}, label="nhwc_no_bias",
         tol=CONV32))
add("pool2d_argmax", Case({"X": f(2, 3, 7, 9)}, {"ksize": [3, 3], "strides": [2, 2],
                                                 "paddings": [1, 1], "ceil_mode": True},
                          outs=("Out", "Indices")))
add("pool2d", *[Case({"X": f(2, 3, 7, 9)}, a, label=lbl) for lbl, a in (
    ("max", {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]}),
    ("avg_ceil", {"pooling_type": "avg", "ksize": [2, 2], "strides": [2, 2], "ceil_mode": True}),
    ("avg_inclusive", {"pooling_type": "avg", "ksize": [3, 3], "paddings": [1, 1], "exclusive": False}),
    ("global", {"pooling_type": "avg", "global_pooling": True}),
    ("adaptive", {"pooling_type": "max", "ksize": [2, 3], "adaptive": True}),
    ("nhwc", {"ksize": [2, 2], "strides": [2, 2], "data_format": "NHWC"}))])
add("max_pool2d_with_index", *[Case({"X": f(2, 3, 7, 9)}, a, outs=("Out", "Mask"), label=lbl)
                                for lbl, a in (
    ("pad", {"ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]}),
    ("ceil_empty_windows", {"ksize": [2, 2], "strides": [2, 2], "paddings": [1, 1],
                            "ceil_mode": True}),
    ("global", {"global_pooling": True}),
    ("adaptive", {"ksize": [2, 3], "adaptive": True}))])
add("layer_norm", Case({"X": f(4, 5, 33), "Scale": f(33), "Bias": f(33)}, {"begin_norm_axis": 2},
                       outs=("Y", "Mean", "Variance"), tol=(1e-5, 1e-5)),
    Case({"X": f(3, 4, 5), "Scale": f(20)}, {"epsilon": 1e-3}, outs=("Y",), label="no_bias",
         tol=(1e-5, 1e-5)))
add("hard_swish", Case({"X": f(*S, lo=-7, hi=7)}),
    Case({"X": f(*S, lo=-7, hi=7)}, {"threshold": 4.0, "scale": 5.0, "offset": 2.0}, label="attrs"))
add("swish", Case({"X": f(*S, lo=-6, hi=6)}, {"beta": 1.5}))
add("silu", Case({"X": f(*S, lo=-6, hi=6)}))
add("clip", Case({"X": f(*S)}, {"min": -0.5, "max": 0.7}),
    Case({"X": f(*S), "Min": Const([-1.0]), "Max": Const([0.25])}, label="tensors"))
# the ops of the 1.x/2.x activations, losses and encodings (tests/test_ops_extra.py has more)
for _op, _a in {"relu6": {}, "hard_sigmoid": {}, "logsigmoid": {}, "softsign": {}, "selu": {},
                "elu": {"alpha": 0.5}, "softplus": {"beta": 2.0, "threshold": 3.0}}.items():
    add(_op, Case({"X": f(*S, lo=-8, hi=8)}, _a))
add("mish", Case({"X": f(*S, lo=-30, hi=30)}), Case({"X": f(*S, lo=-8, hi=8)}, {"threshold": 3.0},
                                                  label="threshold"))
add("multiplex", Case({"X": [f(5, 3), f(5, 3), f(5, 3)], "Ids": I((5, 1), 0, 3, "int32")}))
add("scatter", Case({"X": f(5, 3), "Ids": I((4,), 0, 5), "Updates": f(4, 3)}),
    Case({"X": f(5, 3), "Ids": I((4,), 0, 5, "int32"), "Updates": f(4, 3)}, {"overwrite": False},
         label="add"))
add("addmm", Case({"Input": f(1, 5), "X": f(3, 4), "Y": f(4, 5)}, {"Alpha": 1.5, "Beta": -0.5}))
add("pad3d", Case({"X": f(2, 3, 3, 4, 5)}, {"paddings": [1, 2, 0, 1, 2, 0], "mode": "reflect"}),
    Case({"X": f(1, 3, 4, 2, 2)}, {"paddings": [1, 1, 2, 0, 0, 3], "value": 0.5,
                                   "data_format": "NDHWC"}, label="constant"),
    Case({"X": f(1, 2, 2, 3, 2)}, {"paddings": [5, 3, 4, 1, 3, 2], "mode": "circular"},
         label="circular_wraps"))
add("pad", Case({"X": f(2, 3, 4)}, {"paddings": [1, 0, 0, 2, 3, 1], "pad_value": -1.5}))
add("svd", Case({"X": f(3, 4, 2)}), Case({"X": f(2, 3)}, {"full_matrices": True},
                                        label="full"))
add("kldiv_loss", Case({"X": f(3, 4), "Target": f(3, 4, lo=0.0, hi=1.0)}, {"reduction": "none"}),
    Case({"X": f(3, 4), "Target": f(3, 4)}, {"reduction": "batchmean", "log_target": True},
         label="log_target"))
add("pixel_shuffle", Case({"X": f(2, 18, 3, 4)}, {"upscale_factor": 3}),
    Case({"X": f(2, 3, 4, 8)}, {"upscale_factor": 2, "data_format": "NHWC"}, label="nhwc"))
add("label_smooth", Case({"X": f(*S, lo=0.0, hi=1.0)}, {"epsilon": 0.1}),
    Case({"X": f(4, 5), "PriorDist": f(1, 5, lo=0.0, hi=1.0)}, {"epsilon": 0.3}, label="prior"))
add("pow", Case({"X": f(*S, **POS)}, {"factor": 2.5}),
    Case({"X": f(*S, **POS), "FactorTensor": Const([1.5])}, label="tensor"))
add("log_softmax", Case({"X": f(*S, lo=-4, hi=4)}), Case({"X": f(*S)}, {"axis": 1}, label="axis1"))
add("cumsum", Case({"X": f(3, 1, 4)}, {"axis": 1, "exclusive": True}, label="exclusive_len1"),
    Case({"X": f(*S)}, {"axis": 1, "exclusive": True, "reverse": True}),
    Case({"X": f(4, 5)}, {"flatten": True}, label="flat"))
add("cross_entropy2", Case({"X": P((6, 5)), "Label": I((6, 1), 0, 5)}, outs=("Y", "MatchX")))
# ignored (truncating to -1: -1, -1.5) and counted (not within 1e-6 of -1: all but -1) labels
_SCE_LABELS = Const(np.tile([-1.0, 0.0, 1.0, 0.5, -1.5], (6, 1)))
add("sigmoid_cross_entropy_with_logits", Case({"X": f(6, 5, lo=-4, hi=4), "Label": P((6, 5))}),
    Case({"X": f(6, 5, lo=-4, hi=4), "Label": _SCE_LABELS},
         {"normalize": True, "ignore_index": -1}, label="normalize"))
add("sigmoid_cross_entropy_terms",
    Case({"X": f(6, 5, lo=-4, hi=4), "Label": P((6, 5)), "pos_weight": P((6, 5))}))
add("sigmoid_cross_entropy_counted", Case({"Label": _SCE_LABELS}, {"ignore_index": -1}))
add("bce_loss", Case({"X": P((6, 5)), "Label": P((6, 5))}))
add("nll_loss", Case({"X": P((6, 5)), "Label": I((6,), 0, 5)}, {"reduction": "none"}),
    Case({"X": P((6, 5)), "Label": I((6,), 0, 5), "Weight": f(5, **POS)}, label="weighted"))
add("cos_sim", Case({"X": f(6, 4), "Y": f(1, 4)}))
add("one_hot_v2", Case({"X": I((3, 2), 0, 4)}, {"depth": 4}, dtypes=("float32",)))
add("one_hot", Case({"X": I((3, 1), 0, 4)}, {"depth": 4}, dtypes=("float32",)))
add("flatten_contiguous_range", Case({"X": f(2, 3, 4, 5)}, {"start_axis": 1, "stop_axis": 2},
                                     outs=("Out",)))
add("flatten2", Case({"X": f(2, 3, 4)}, {"axis": 2}, outs=("Out",)))
add("squeeze2", Case({"X": f(3, 1, 5, 1)}, {"axes": [-1, 1]}, outs=("Out",)))
add("unsqueeze2", Case({"X": f(3, 5)}, {"axes": [0, -1]}, outs=("Out",)))
# one_op_program binds one var per slot: multi-output splits run in test_ops_shape.py
add("split", Case({"X": f(4, 9, 3)}, {"sections": [-1], "axis": 1}))
add("slice", Case({"Input": f(*S)}, {"axes": [0, 2], "starts": [1, -3], "ends": [3, 100]}),
    Case({"Input": f(*S)}, {"axes": [1], "starts": [2], "ends": [3], "decrease_axis": [1]},
         label="decrease"))
add("strided_slice", Case({"Input": f(*S)}, {"axes": [0, 2], "starts": [-1, 1], "ends": [-2 ** 31, 6],
                                             "strides": [-2, 2]}),
    Case({"Input": f(*S)}, {"axes": [1], "starts": [3], "ends": [4], "strides": [1],
                            "decrease_axis": [1]}, label="decrease"))
add("set_value", Case({"Input": f(*S), "ValueTensor": f(2, 7)},
                      {"axes": [0, 1], "starts": [0, 1], "ends": [3, 2], "steps": [2, 1],
                       "decrease_axes": [1]}),
    Case({"Input": f(*S)}, {"axes": [2], "starts": [-1], "ends": [2 ** 31 - 1], "steps": [1],
                            "shape": [1], "fp32_values": [2.5]}, label="constant"),
    Case({"Input": f(*S)}, {"axes": [1], "starts": [1], "ends": [5], "steps": [2],
                            "shape": [2, 1], "values": [-1.5, 4.0]}, label="values"))
add("index_put", Case({"x": f(*S), "indices": [Const([[2], [-3]], "int64"), Const([4, 0], "int32")],
                       "value": f(2, 2, 7)}),
    Case({"x": f(*S), "indices": [Const([1, 1, 0], "int64")], "value": f(7)},
         {"accumulate": True}, label="accumulate"))
add("gather", Case({"X": f(6, 4), "Index": Const([5, 0, 5], "int64")}),
    Case({"X": f(3, 6, 2), "Index": Const([1, 4], "int32")}, {"axis": 1}, label="axis1"))
add("stack", Case({"X": [f(3, 4), f(3, 4), f(3, 4)]}, {"axis": 1}))
add("flip", Case({"X": f(*S)}, {"axis": [0, -1]}))
add("tril_triu", Case({"X": f(*S)}, {"diagonal": 1, "lower": True}),
    Case({"X": f(*S)}, {"diagonal": -1, "lower": False}, label="triu"))
add("gather_nd", Case({"X": f(4, 5, 3), "Index": Const([[1, -2], [3, 0], [0, 4]], "int64")}),
    Case({"X": f(4, 5), "Index": Const([[3], [-4]], "int32")}, label="rows"))
add("index_select", Case({"X": f(3, 6, 2), "Index": Const([5, 0, 5], "int64")}, {"dim": 1}))
add("roll", Case({"X": f(*S)}, {"shifts": [1, -2], "axis": [0, 2]}),
    Case({"X": f(*S)}, {"shifts": [9], "axis": []}, label="flat"))
add("eye", *[Case({}, {"num_rows": 3, "num_columns": 5, "dtype": _CODES[dt]}, dtypes=(dt,),
                  label=dt) for dt in ("float32", "int64")])
add("diag_v2", Case({"X": f(5)}, {"offset": 1, "padding_value": 0.5}),
    Case({"X": f(4, 6)}, {"offset": -1}, label="2d"))
add("diagonal", Case({"Input": f(*S)}, {"offset": 1, "axis1": 0, "axis2": 2}))
add("trace", Case({"Input": f(*S)}, {"offset": -1, "axis1": 2, "axis2": 0}))
add("kron", Case({"X": f(2, 3), "Y": f(3, 1, 2)}))
add("take_along_axis", Case({"Input": f(4, 5), "Index": Const([[1, -1, 0, 2, 3]], "int64")},
                            {"Axis": 0}))
add("cumprod", Case({"X": f(*S)}, {"dim": 1}))
add("crop_tensor", Case({"X": f(4, 5, 6)}, {"shape": [2, -1, 3], "offsets": [1, 2, 0]}),
    Case({"X": f(3, 4)}, {"shape": [3, 2]}, label="no-offsets"))
add("shard_index", Case({"X": I((7, 1), 0, 20)}, {"index_num": 20, "nshards": 3, "shard_id": 1},
                        dtypes=("int64",)),
    Case({"X": I((2, 3, 1), 0, 9, "int32")}, {"index_num": 9, "nshards": 2, "shard_id": 0,
                                              "ignore_value": -5}, dtypes=("int32",), label="int32"))
add("cvm", Case({"X": f(5, 6, lo=0.0, hi=9.0), "CVM": f(5, 2, lo=0.0, hi=3.0)}),
    Case({"X": f(5, 6), "CVM": f(5, 2)}, {"use_cvm": False}, label="no-cvm"))
add("spectral_norm", Case({"Weight": f(3, 4, 2), "U": f(3), "V": f(8)}, {"power_iters": 2}),
    Case({"Weight": f(2, 5, 3, 3), "U": f(5), "V": f(18)}, {"dim": 1, "power_iters": 0},
         label="dim1"))
add("expand_v2", Case({"X": f(3, 1)}, {"shape": [2, -1, 5]}))
add("fill_constant_batch_size_like", Case({"Input": f(4, 3)}, {"shape": [-1, 7], "value": 1.5}))
add("is_empty", Case({"X": f(*S)}), Case({"X": f(0, 3)}, label="empty"))
add("arg_max", Case({"X": f(*S)}, {"axis": 1}), Case({"X": f(*S)}, {"flatten": True}, label="flat"))
add("arg_min", Case({"X": f(*S)}, {"axis": -1, "keepdims": True}))
add("shape", Case({"Input": f(*S)}), Case({"Input": I((2, 1, 4), 0, 9, "int32")},
                                          dtypes=("int32",), label="int32"))
add("rnn_memory_helper", Case({"X": f(*S)}))
add("top_k_v2", Case({"X": f(4, 7)}, {"k": 3}),
    Case({"X": f(4, 7, 3)}, {"k": 2, "axis": 1, "largest": False}, label="axis1_smallest"))
add("unfold", Case({"X": f(2, 3, 5, 6)}, {"kernel_sizes": [2, 3], "strides": [1, 2],
                                          "paddings": [1, 0, 0, 2], "dilations": [2, 1]}))
add("affine_grid", Case({"Theta": f(2, 2, 3)}, {"output_shape": [2, 1, 3, 4]}),
    Case({"Theta": f(2, 3, 4)}, {"output_shape": [2, 1, 2, 3, 4], "align_corners": False},
         label="3d"))
add("argsort", Case({"X": f(4, 7)}),
    Case({"X": f(4, 7, 3)}, {"axis": 1, "descending": True}, label="axis1_descending"))
add("linspace", *[Case({"Start": Const([lo]), "Stop": Const([hi]), "Num": Const([n], "int32")},
                       {"dtype": int(dt)}, label=f"{lo}_{hi}_{n}_{dt.name}")
                  for lo, hi, n, dt in ((0.0, 10.0, 7, VarType.FP32), (2.5, -1.0, 1, VarType.FP64),
                                        (-3.0, 11.0, 9, VarType.INT32),
                                        (0.0, 1e6, 0, VarType.INT64))])
add("range", *[Case({n: Const([v], dt) for n, v in zip(("Start", "End", "Step"), bounds)},
                    label=f"{'_'.join(map(str, bounds))}_{dt}")
               for bounds, dt in (((0.1, 10.0, 0.2), "float32"), ((10.0, 1.0, -2.0), "float64"),
                                  ((-1, -10, -2), "int64"), ((0, 5, 2), "int32"),
                                  ((0, 0, 1), "int32"), ((0, 3, -1), "int64"))])


# nce draws its negatives unless custom_neg_classes names them (its sampler statistics:
# tests/test_ops_nce_row_conv.py); shuffle_batch's order: tests/test_ops_incubate.py.
_NCE = {"Input": f(6, 5), "Label": I((6, 2), 0, 11), "Weight": f(11, 5), "Bias": f(11, 1)}
add("nce", Case(_NCE, {"num_total_classes": 11, "num_neg_samples": 3,
                       "custom_neg_classes": [0, 4, 10]}),
    Case({**_NCE, "SampleWeight": f(6, 1, lo=0.1)},
         {"num_total_classes": 11, "num_neg_samples": 2, "custom_neg_classes": [3, 7],
          "sampler": 1}, label="log_uniform_weighted"))
add("row_conv", Case({"X": f(3, 7, 5), "Filter": f(4, 5)}, label="padded"))
for _op in ("partial_sum", "partial_concat"):
    add(_op, Case({"X": [f(4, 6), f(4, 6), f(4, 6)]}, {"start_index": 1, "length": 3}),
        Case({"X": [f(3, 5), f(3, 5)]}, {"start_index": -2}, label="neg_start_to_end"))
add("batch_fc", Case({"Input": f(3, 4, 5), "W": f(3, 5, 6), "Bias": f(3, 6)}))
add("rank_attention", Case({"X": f(4, 2), "RankParam": f(8, 3), "RankOffset": Const(
    [[1, 1, 0, 2, 1], [2, 1, 0, 2, 1], [-1, -1, -1, -1, -1], [1, 1, 3, -1, -1]], "int32")},
    {"MaxRank": 2, "MaxSize": 6}))
add("warpctc", Case({"Logits": f(6, 3, 5), "Label": I((3, 2), 1, 5, "int32"),
                    "LogitsLength": Const([6, 5, 4], "int64"),
                    "LabelLength": Const([2, 1, 0], "int64")}, {"blank": 0}, label="padded"),
    Case({"Logits": f(4, 2, 6), "Label": I((2, 3), 0, 5, "int32"),
          "LogitsLength": Const([4, 4], "int64"), "LabelLength": Const([3, 2], "int64")},
         {"blank": 5, "norm_by_times": True}, label="last_blank"))


def _rnn_case(mode, layers, dirs, lengths, label):
    """The rnn op over [4, 3, 2] inputs, hidden 3 (its dropout, the random part, is checked in
    tests/test_rnn_op.py)."""
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1) * 3
    weights = [f(gates, 2 if k < dirs else 3 * dirs, lo=-0.8, hi=0.8) if w == 0 else
               f(gates, 3, lo=-0.8, hi=0.8) for k in range(layers * dirs) for w in (0, 1)]
    weights += [f(gates, lo=-0.8, hi=0.8) for _ in range(2 * layers * dirs)]
    ins = {"Input": f(4, 3, 2), "WeightList": weights,
           "PreState": [f(layers * dirs, 3, 3) for _ in range(2 if mode == "LSTM" else 1)]}
    if lengths is not None:
        ins["SequenceLength"] = Const(lengths, "int64")
    return Case(ins, {"mode": mode, "num_layers": layers, "is_bidirec": dirs == 2,
                      "input_size": 2, "hidden_size": 3}, outs=("Out", "State"), label=label)


add("rnn", _rnn_case("LSTM", 2, 2, [4, 1, 3], "lstm_bi_lengths"),
    _rnn_case("GRU", 1, 2, [2, 4, 0], "gru_bi_length0"), _rnn_case("RNN_TANH", 2, 1, None, "tanh"),
    _rnn_case("RNN_RELU", 1, 1, [3, 3, 2], "relu_lengths"))
add("coalesce_tensor", *[Case({"Input": [f(2, 3), f(4), f(1, 1)]},
                              {"copy_data": True, "use_align": False, "dtype": code},
                              dtypes=(dt,), outs=("Output", "FusedOutput"), label=dt)
                         for dt, code in (("float32", 5), ("float64", 6))])

# Random ops: only their statistics are checkable (tests below). dropout also has cases above,
# rnn too (its dropout between layers: tests/test_rnn_op.py).
RANDOM_OPS = {"uniform_random", "gaussian_random", "truncated_gaussian_random", "dropout",
              "dropout_mask", "randint", "nce", "randperm", "uniform_random_batch_size_like",
              "gaussian_random_batch_size_like", "shuffle_batch", "rnn"}


def case_params(skip=frozenset()):
    """pytest params (op_type, case, dtype) of every case, ops in `skip` left out."""
    for op_type, cases in sorted(CASES.items()):
        if op_type in skip:
            continue
        for i, case in enumerate(cases):
            for dt in case.dtypes:
                yield pytest.param(op_type, case, dt, id=f"{op_type}-{case.label or i}-{dt}")


def test_every_forward_op_has_a_case():
    # Sequence ops need a LoD feed: tests/test_sequence_ops.py runs them through the executor.
    lod_ops = {t for t in forward_op_types() if get_op_def(t).lod is not None}
    # Ops without outputs only check (check_index: tests/test_misuse.py raises through it);
    # control-flow ops run blocks and select_output writes one of several outputs: both in
    # tests/test_control_flow.py.
    checks = {t for t in forward_op_types() if not get_op_def(t).outputs
              or get_op_def(t).kind == "control"} | {"select_output"}
    # Tensor-array and LoD-rank ops (kind 'array') are never compiled: a program holding them
    # runs on the reference executor (tests/test_tensor_array.py, test_dynamic_rnn.py, ...).
    arrays = {t for t in forward_op_types() if get_op_def(t).kind == "array"}
    # The parameter server's trainer ops talk to servers: tests/test_pserver.py runs them.
    checks |= set(TRAINER_OPS)
    missing = forward_op_types() - set(CASES) - RANDOM_OPS - lod_ops - checks - arrays
    assert not missing, f"forward ops with no C-backend case in test_ops_c.py: {sorted(missing)}"
    stateful = {t for t in forward_op_types() if get_op_def(t).stateful}
    assert stateful <= RANDOM_OPS, f"random ops without a statistical test: {stateful - RANDOM_OPS}"


def check_case(op_type: str, case, dtype: str, run) -> None:
    """One case through `run(program, feed, fetch)` against the op's numpy reference."""
    rng = seeded(f"{op_type}-{case.label}-{dtype}")
    ins = {s: [x.draw(rng, dtype) for x in v] if isinstance(v, list) else v.draw(rng, dtype)
           for s, v in case.ins.items()}
    outs = case.outs or [s.name for s in get_op_def(op_type).outputs if not s.dispensable]
    program, feed, names, desc = one_op_program(op_type, ins, case.attrs, list(outs))
    fetch = [names[s] for s in outs]
    got = run(program, feed, fetch)
    want = reference_op(desc, feed)
    for slot, name, g in zip(outs, fetch, got):
        assert_same(g, want[name], f"{op_type}.{slot} ({dtype}, {case.label or case.attrs})",
                    case.tol if dtype == "float32" else None)


@pytest.mark.parametrize("op_type,case,dtype", list(case_params()))
def test_op_matches_reference(op_type, case, dtype):
    check_case(op_type, case, dtype, run_c)


# --- special values: NaN, Inf, signed zero, denormals through the pointwise printers ----------

@pytest.mark.parametrize("dtype", FLOATS)
def test_special_values(dtype):
    """One program applying every unary op to NaN/Inf/0/-0/denormals; maximum/minimum with NaN."""
    program, feed, fetch, want = special_values_program(dtype)
    for name, g in zip(fetch, run_c(program, feed, fetch)):
        assert_special_values(g, want[name], name)


# --- random ops: statistics, ranges, determinism under a seed ---------------------------------

def _run_random(op_type: str, attrs: dict, ins: dict | None = None, outs=("Out",)):
    program, feed, names, _ = one_op_program(op_type, ins or {}, attrs, list(outs))
    return [run_c(program, feed, [names[s] for s in outs]) for _ in range(2)]


@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_random_statistics(dtype):
    lo, hi = -2.0, 3.0
    (a,), (b,) = _run_random("uniform_random", {"shape": [300, 200], "min": lo, "max": hi,
                                                "dtype": _CODES[dtype], "seed": 7})
    assert a.dtype == dtype and a.shape == (300, 200)
    assert lo <= a.min() and a.max() < hi
    assert abs(a.mean() - (lo + hi) / 2) < 0.03
    assert abs(a.std() - (hi - lo) / np.sqrt(12)) < 0.03
    np.testing.assert_array_equal(a, b)  # a fixed seed repeats


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_randint_statistics(dtype):
    """Ints uniform on [low, high): every value about equally often, in the compiled run and
    the reference; a fixed seed repeats."""
    attrs = {"shape": [300, 200], "low": -3, "high": 5, "dtype": 2 if dtype == "int32" else 3}
    (a,), (b,) = _run_random("randint", {**attrs, "seed": 7})
    ref = get_op_def("randint").reference({}, {**attrs, "seed": 3})["Out"][0]
    for x in (a, ref):
        assert x.dtype == dtype and x.shape == (300, 200)
        counts = np.bincount((x + 3).ravel(), minlength=8)
        assert counts.size == 8 and abs(counts / x.size - 1 / 8).max() < 0.01
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", FLOATS)
def test_gaussian_random_statistics(dtype):
    (a,), (b,) = _run_random("gaussian_random", {"shape": [300, 200], "mean": 1.0, "std": 2.0,
                                                 "dtype": _CODES[dtype]})
    assert a.dtype == dtype and a.shape == (300, 200)
    assert abs(a.mean() - 1.0) < 0.05 and abs(a.std() - 2.0) < 0.05
    assert not np.array_equal(a, b)  # seed 0: fresh numbers each run


@pytest.mark.parametrize("dtype", FLOATS)
def test_truncated_gaussian_random_statistics(dtype):
    """Paddle's cutoffs are values: N(0.5, 1) cut to [-1, 2] has mean 0.5 + (phi(-1.5) -
    phi(1.5)) / (Phi(1.5) - Phi(-1.5)) = 0.5 and std sqrt(1 - 3 phi(1.5) / 0.8664) = 0.7426."""
    attrs = {"shape": [300, 200], "mean": 0.5, "std": 1.0, "a": -1.0, "b": 2.0,
             "dtype": _CODES[dtype]}
    (a,), (b,) = _run_random("truncated_gaussian_random", attrs)
    ref = get_op_def("truncated_gaussian_random").reference({}, {**attrs, "seed": 3})["Out"][0]
    for x in (a, ref):
        assert x.dtype == dtype and x.shape == (300, 200)
        assert -1.0 <= x.min() and x.max() <= 2.0
        assert abs(x.mean() - 0.5) < 0.02 and abs(x.std() - 0.7426) < 0.02
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_randperm_statistics(dtype):
    """Each draw a permutation of 0..n-1, in the compiled run and the reference; each value
    about equally often at each place over many draws; a fixed seed repeats, seed 0 does not."""
    code = {"int32": 2, "int64": 3, "float32": 5, "float64": 6}[dtype]
    (a,), (b,) = _run_random("randperm", {"n": 2000, "dtype": code})
    ref = get_op_def("randperm").reference({}, {"n": 2000, "dtype": code, "seed": 3})["Out"][0]
    for x in (a, b, ref):
        assert x.dtype == dtype and x.shape == (2000,)
        np.testing.assert_array_equal(np.sort(x), np.arange(2000))
    assert not np.array_equal(a, b)
    (c,), (d,) = _run_random("randperm", {"n": 2000, "dtype": code, "seed": 11})
    np.testing.assert_array_equal(c, d)
    first = np.array([_run_random("randperm", {"n": 4, "seed": s})[0][0][0]
                      for s in range(1, 401)])
    assert abs(np.bincount(first, minlength=4) / 400 - 0.25).max() < 0.08


def test_normal_layer_statistics():
    """fluid.normal: number mean / std over a shape; a Tensor mean (of an unknown batch dim)
    gives its shape and each element's mean, a Tensor std each element's spread."""
    program = fluid.static.Program()
    with fluid.static.program_guard(program, fluid.static.Program()):
        mean = fluid.static.data("mean", [-1, 2], "float32")
        std = fluid.static.data("std", [-1, 2], "float32")
        outs = [fluid.normal(1.0, 2.0, [300, 200]), fluid.normal(mean), fluid.normal(0.0, std)]
    feed = {"mean": np.tile(np.float32([[-5.0, 7.0]]), (40000, 1)),
            "std": np.tile(np.float32([[0.5, 3.0]]), (40000, 1))}
    a, b, c = run_c(program, feed, [o.name for o in outs])
    assert a.shape == (300, 200) and b.shape == c.shape == (40000, 2)
    assert abs(a.mean() - 1.0) < 0.05 and abs(a.std() - 2.0) < 0.05
    np.testing.assert_allclose(b.mean(0), [-5.0, 7.0], atol=0.03)
    np.testing.assert_allclose(b.std(0), [1.0, 1.0], atol=0.03)
    np.testing.assert_allclose(c.std(0), [0.5, 3.0], rtol=0.03)


@pytest.mark.parametrize("op_type, attrs, mean, std", [
    ("uniform_random_batch_size_like", {"min": -2.0, "max": 3.0}, 0.5, 5 / np.sqrt(12)),
    ("gaussian_random_batch_size_like", {"mean": 1.0, "std": 2.0}, 1.0, 2.0)])
def test_random_batch_size_like_statistics(op_type, attrs, mean, std):
    """Out takes dim output_dim_idx from Input's dim input_dim_idx; the draws' moments; a fixed
    seed repeats, seed 0 does not."""
    ins = {"Input": np.zeros((7, 300), np.float32)}
    shape = {"shape": [40, -1, 3], "input_dim_idx": 1, "output_dim_idx": 1}
    (a,), (b,) = _run_random(op_type, {**attrs, **shape}, ins)
    (c,), (d,) = _run_random(op_type, {**attrs, **shape, "seed": 9, "dtype": 6}, ins)
    assert a.shape == c.shape == (40, 300, 3) and a.dtype == np.float32 and c.dtype == np.float64
    for x in (a, c):
        assert abs(x.mean() - mean) < 0.05 and abs(x.std() - std) < 0.05
    if op_type.startswith("uniform"):
        assert -2.0 <= a.min() and a.max() < 3.0
    assert not np.array_equal(a, b)
    np.testing.assert_array_equal(c, d)


@pytest.mark.parametrize("impl", ["downgrade_in_infer", "upscale_in_train"])
def test_dropout_train_statistics(impl):
    x = seeded(impl).uniform(1.0, 2.0, (300, 200)).astype("float32")
    p = 0.3
    (out, mask), _ = _run_random("dropout", {"dropout_prob": p, "dropout_implementation": impl},
                                 {"X": x}, ("Out", "Mask"))
    assert mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 1}
    assert abs((mask == 0).mean() - p) < 0.01
    scale = 1 / (1 - p) if impl == "upscale_in_train" else 1.0
    np.testing.assert_allclose(out, x * mask * np.float32(scale), rtol=1e-6)


def test_dropout_mask_statistics():
    """Kept with probability 1 - p, in the compiled run and the reference; a fixed seed
    repeats (passes/dropout.py writes the op: tests/test_attention_fusion.py)."""
    attrs = {"shape": [300, 200], "dropout_prob": 0.3, "fix_seed": True, "seed": 5}
    (a,), (b,) = _run_random("dropout_mask", attrs, outs=("Mask",))
    ref = get_op_def("dropout_mask").reference({}, get_op_def("dropout_mask").complete_attrs(
        attrs))["Mask"][0]
    for m in (a, ref):
        assert m.dtype == np.uint8 and m.shape == (300, 200) and set(np.unique(m)) <= {0, 1}
        assert abs((m == 0).mean() - 0.3) < 0.01
    np.testing.assert_array_equal(a, b)


# --- in-place state updates, as Paddle writes them (ParamOut is Param, MeanOut is Mean) -------
# op -> (persistable state slots -> their output slots, fed slots, attrs)
INPLACE = {
    "sgd": ({"Param": "ParamOut"}, ("Grad", "LearningRate"), {}),
    "momentum": ({"Param": "ParamOut", "Velocity": "VelocityOut"}, ("Grad", "LearningRate"),
                 {"mu": 0.9, "use_nesterov": True}),
    "adam": ({"Param": "ParamOut", "Moment1": "Moment1Out", "Moment2": "Moment2Out",
              "Beta1Pow": "Beta1PowOut", "Beta2Pow": "Beta2PowOut"}, ("Grad", "LearningRate"), {}),
    "batch_norm": ({"Mean": "MeanOut", "Variance": "VarianceOut"}, ("X", "Scale", "Bias"),
                   {"momentum": 0.7}),
}


@pytest.mark.parametrize("op_type", sorted(INPLACE))
@pytest.mark.parametrize("dtype", FLOATS)
def test_inplace_state_update(op_type, dtype):
    """Two runs update persistable state in the scope exactly as the reference executor does."""
    state, fed, attrs = INPLACE[op_type]
    case = (CASES[op_type][0] if op_type != "batch_norm" else _bn((2, 3, 4, 5), 3, {}, ""))
    rng = seeded(f"inplace-{op_type}-{dtype}")
    values = {s: case.ins[s].draw(rng, dtype) for s in list(state) + list(fed)}
    program = fluid.Program()
    block = program.global_block()
    ins = {s: [block.create_var(name=s, shape=values[s].shape, dtype=dtype, persistable=True)]
           for s in state}
    ins.update({s: [block.create_var(name=s, shape=values[s].shape, dtype=dtype, is_data=True)]
                for s in fed})
    outs = {o: [s] for s, o in state.items()}
    if op_type == "batch_norm":
        outs["Y"] = [block.create_var(name="Y", dtype=dtype)]
        outs.update({k: [block.create_var(name=k, dtype=dtype)]
                     for k in ("SavedMean", "SavedVariance")})
    block.append_op(op_type, ins, outs, attrs)
    feed = {s: values[s] for s in fed}
    fetch = sorted(state) + (["Y"] if op_type == "batch_norm" else [])
    scopes = []
    for runner in (run_c, run_reference):
        scope = fluid.Scope()
        for s in state:
            scope.var(s).get_tensor().set(values[s], fluid.CPUPlace())
        results = [runner(program, feed, fetch, scope) for _ in range(2)]
        scopes.append((results, {s: np.array(scope.find_var(s).get_tensor().numpy()) for s in state}))
    (got_runs, got_state), (want_runs, want_state) = scopes
    for run, (g, w) in enumerate(zip(got_runs, want_runs)):
        for name, a, b in zip(fetch, g, w):
            assert_same(a, b, f"{op_type} run {run}: {name}")
    for s in state:
        assert_same(got_state[s], want_state[s], f"{op_type}: scope value of {s}")
        assert not np.array_equal(got_state[s], values[s]), f"{op_type} left {s} unchanged"


def test_reference_executor_state_does_not_alias_feeds():
    """The oracle (and no-compiler fallback) must copy: a persistable written from a feed keeps
    its value when the caller later reuses the feed array, as with the C executor."""
    x = np.arange(6.0).reshape(2, 3)
    program = fluid.Program()
    block = program.global_block()
    xv = block.create_var(name="x", shape=x.shape, dtype="float64", is_data=True)
    p = block.create_var(name="p", shape=x.shape, dtype="float64", persistable=True)
    block.append_op("assign", {"X": [xv]}, {"Out": [p]})
    for runner in (run_c, run_reference):
        scope, feed = fluid.Scope(), {"x": x.copy()}
        runner(program, feed, ["p"], scope)
        feed["x"][...] = -1.0  # the caller reuses its buffer
        stored = scope.find_var("p").get_tensor()
        np.testing.assert_array_equal(stored.numpy(), x, err_msg=runner.__name__)
        assert stored.numpy().flags.writeable, f"{runner.__name__}: scope holds read-only memory"
