"""Fluid 1.x learning-rate decay layers: each returns a [1] var computed, every run, from a
persistable step counter (`@LR_DECAY_COUNTER@`, advanced by an `increment` op at the start of
the main program) as Paddle's did. Paddle's piecewise and warm-up branches (Switch, cond) are
`less_than` + `where` here: the same values, no control-flow blocks."""
from __future__ import annotations

import math

from ..dtypes import VarType, convert_dtype
from ..framework import (OpRole, Variable, default_main_program, default_startup_program,
                         op_role_guard)
from ..initializer import Constant
from ..ops.tensor import fill_constant_attrs
from .helper import LayerHelper

COUNTER = "@LR_DECAY_COUNTER@"


def _op(op_type: str, inputs: dict, attrs: dict | None = None, dtype=VarType.FP32) -> Variable:
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(op_type, inputs={k: [v] for k, v in inputs.items()}, outputs={"Out": [out]},
                     attrs=attrs or {})
    return out


def _const(value: float, dtype=VarType.FP32) -> Variable:
    return _op("fill_constant", {}, fill_constant_attrs([1], dtype, value), dtype)


def _scale(x: Variable, scale: float, bias: float = 0.0) -> Variable:
    return _op("scale", {"X": x}, {"scale": float(scale), "bias": float(bias),
                                   "bias_after_scale": True}, x.dtype)


def _binary(op_type: str, x: Variable, y: Variable) -> Variable:
    return _op(op_type, {"X": x, "Y": y}, {"axis": -1}, x.dtype)


def _unary(op_type: str, x: Variable) -> Variable:
    return _op(op_type, {"X": x}, {}, x.dtype)


def _where(cond: Variable, x: Variable, y: Variable) -> Variable:
    return _op("where", {"Condition": cond, "X": x, "Y": y}, {}, x.dtype)


def _times(lr, x: Variable) -> Variable:
    """lr * x for a float or a [1] var lr."""
    return _binary("elementwise_mul", x, lr) if isinstance(lr, Variable) else _scale(x, lr)


def autoincreased_step_counter(counter_name: str | None = None, begin: int = 1,
                               step: int = 1) -> Variable:
    """The persistable int64 [1] counter `counter_name` (Paddle's '@STEP_COUNTER@' by
    default): `begin` on the first run of the main program, + `step` each run (an `increment`
    prepended to the main program once per counter, as Paddle's)."""
    name = counter_name or "@STEP_COUNTER@"
    block = default_main_program().global_block()
    counter = block._find_var_recursive(name)
    if counter is None:
        counter = block.create_var(name=name, shape=[1], dtype="int64", persistable=True,
                                   stop_gradient=True)
        startup = default_startup_program().global_block()
        Constant(begin - 1)(startup.create_var(name=name, shape=[1], dtype="int64",
                                               persistable=True), startup)
        block._prepend_op("increment", {"X": [counter]}, {"Out": [counter]},
                          {"step": float(step)})
    return counter


def _decay_step_counter(begin: int = 0) -> Variable:
    """The float32 step: the persistable int64 counter, begin on the first run, +1 each run."""
    with op_role_guard(OpRole.LRSched):
        counter = autoincreased_step_counter(COUNTER, begin)
    return _op("cast", {"X": counter}, {"in_dtype": int(VarType.INT64),
                                         "out_dtype": int(VarType.FP32)})


def _epochs(decay_steps: int, staircase: bool) -> Variable:
    div = _scale(_decay_step_counter(), 1.0 / decay_steps)
    return _unary("floor", div) if staircase else div


def exponential_decay(learning_rate, decay_steps: int, decay_rate: float,
                      staircase: bool = False) -> Variable:
    """learning_rate * decay_rate ^ (step / decay_steps) (floored when staircase)."""
    with op_role_guard(OpRole.LRSched):
        power = _binary("elementwise_pow", _const(decay_rate), _epochs(decay_steps, staircase))
        return _times(learning_rate, power)


def natural_exp_decay(learning_rate, decay_steps: int, decay_rate: float,
                      staircase: bool = False) -> Variable:
    """learning_rate * exp(-decay_rate * step / decay_steps) (floored when staircase)."""
    with op_role_guard(OpRole.LRSched):
        return _times(learning_rate,
                      _unary("exp", _scale(_epochs(decay_steps, staircase), -decay_rate)))


def inverse_time_decay(learning_rate, decay_steps: int, decay_rate: float,
                       staircase: bool = False) -> Variable:
    """learning_rate / (1 + decay_rate * step / decay_steps) (floored when staircase)."""
    with op_role_guard(OpRole.LRSched):
        denom = _scale(_epochs(decay_steps, staircase), decay_rate, 1.0)
        return _times(learning_rate, _binary("elementwise_div", _const(1.0), denom))


def polynomial_decay(learning_rate, decay_steps: int, end_learning_rate: float = 0.0001,
                     power: float = 1.0, cycle: bool = False) -> Variable:
    """(learning_rate - end) * (1 - step / decay_steps) ^ power + end, the step capped at
    decay_steps, or (cycle) decay_steps stretched to the next multiple above the step."""
    with op_role_guard(OpRole.LRSched):
        step = _decay_step_counter()
        if cycle:
            # ceil(step / decay_steps), 1 at step 0: the cycle the step is in.
            ceil = _scale(_unary("floor", _scale(step, -1.0 / decay_steps)), -1.0)
            first = _op("equal", {"X": step, "Y": _const(0.0)}, {"axis": -1}, VarType.BOOL)
            steps = _scale(_where(first, _const(1.0), ceil), decay_steps)
            frac = _binary("elementwise_div", step, steps)
        else:
            frac = _scale(_binary("elementwise_min", step, _const(decay_steps)), 1.0 / decay_steps)
        decayed = _binary("elementwise_pow", _scale(frac, -1.0, 1.0), _const(power))
        if isinstance(learning_rate, Variable):
            span = _scale(learning_rate, 1.0, -end_learning_rate)
            return _scale(_binary("elementwise_mul", decayed, span), 1.0, end_learning_rate)
        return _scale(decayed, learning_rate - end_learning_rate, end_learning_rate)


def piecewise_decay(boundaries, values) -> Variable:
    """values[i] while step < boundaries[i]; the last value after."""
    if len(values) - len(boundaries) != 1:
        raise ValueError(f"piecewise_decay: len(values) - len(boundaries) should be 1, got "
                         f"{len(values)} values for {len(boundaries)} boundaries")
    with op_role_guard(OpRole.LRSched):
        step = _decay_step_counter()
        lr = _const(values[-1])
        for bound, value in reversed(list(zip(boundaries, values))):
            below = _op("less_than", {"X": step, "Y": _const(bound)}, {"axis": -1},
                        VarType.BOOL)
            lr = _where(below, _const(value), lr)
        return lr


def cosine_decay(learning_rate, step_each_epoch: int, epochs: int) -> Variable:
    """learning_rate * 0.5 * (cos(epoch * pi / epochs) + 1), epoch = floor(step / step_each_epoch)."""
    if not isinstance(learning_rate, (float, Variable)):
        raise TypeError(f"cosine_decay: learning_rate must be a float or a Variable, got "
                        f"{type(learning_rate).__name__}")
    with op_role_guard(OpRole.LRSched):
        epoch = _unary("floor", _scale(_decay_step_counter(), 1.0 / step_each_epoch))
        cos = _unary("cos", _scale(epoch, math.pi / epochs))
        return _times(learning_rate, _scale(cos, 0.5, 0.5))


def noam_decay(d_model, warmup_steps, learning_rate=1.0) -> Variable:
    """learning_rate * d_model^-0.5 * min(step^-0.5, warmup_steps^-1.5 * step), step from 1."""
    with op_role_guard(OpRole.LRSched):
        step = _decay_step_counter(1)
        a = _binary("elementwise_pow", step, _const(-0.5))
        b = _scale(step, warmup_steps ** -1.5)
        return _times(learning_rate, _scale(_binary("elementwise_min", a, b), d_model ** -0.5))


def linear_lr_warmup(learning_rate, warmup_steps: int, start_lr: float,
                     end_lr: float) -> Variable:
    """start_lr + (end_lr - start_lr) * step / warmup_steps while step < warmup_steps, then
    learning_rate (a float or a decay var)."""
    dtype = convert_dtype(learning_rate.dtype) if isinstance(learning_rate, Variable) else \
        VarType.FP32
    with op_role_guard(OpRole.LRSched):
        step = _decay_step_counter()
        if not isinstance(learning_rate, Variable):
            learning_rate = _const(learning_rate, dtype)
        warm = _scale(step, (float(end_lr) - float(start_lr)) / float(warmup_steps),
                      float(start_lr))
        if dtype != VarType.FP32:
            warm = _op("cast", {"X": warm}, {"in_dtype": int(VarType.FP32),
                                              "out_dtype": int(dtype)}, dtype)
        below = _op("less_than", {"X": step, "Y": _const(warmup_steps)}, {"axis": -1},
                    VarType.BOOL)
        return _where(below, warm, learning_rate)
