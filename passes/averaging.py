"""Optimizers that average parameters over steps, in static programs, as Paddle's:

- ModelAverage (paddle.incubate.optimizer.ModelAverage; fluid.optimizer.ModelAverage is
  FluidModelAverage, with Paddle 1.x's signature and choice of parameters): one
  `average_accumulates` op per parameter appended to the main program when it is made (each
  run adds the parameter to its window sums: frontend/ops/average_accumulates.py), with
  accumulators `<param>_sum_1_N`, ..., `<param>_num_updates_N` and `<param>_restore_N`;
  apply_program saves each parameter in its restore accumulator and writes
  (sum_1 + sum_2 + sum_3) / (num_accumulates + old_num_accumulates), restore_program copies
  the saved values back.
- LookAhead (paddle.incubate.optimizer.LookAhead, fluid.optimizer.LookaheadOptimizer): the
  inner optimizer's minimize, then an int32 step counter `lookahead_step_N` (+1 a run) and
  per parameter a slow copy `<param>_slow_N`: set to the parameter on step 1; on every k-th
  step both become slow + alpha * (param - slow) (Paddle's arithmetic: masks of 0 / 1 by
  `equal` of the step with 1 and of step % k with 0).
"""
from __future__ import annotations

from ..frontend import unique_name
from ..frontend.framework import (OpRole, Program, Variable, default_main_program,
                                  default_startup_program, in_dygraph_mode, op_role_guard,
                                  program_guard)
from ..frontend.layers.ema import AveragesApplied
from ..frontend.layers.tensor import assign, cast, create_global_var, fill_constant, sums
from .optimizer import Optimizer, OptimizerArgumentError, _check

_SUMS = ("sum_1", "sum_2", "sum_3")
_COUNTERS = ("num_accumulates", "old_num_accumulates", "num_updates")


def _static_only(name: str) -> None:
    if in_dygraph_mode():
        raise OptimizerArgumentError(f"fluidc's {name} works in static programs "
                                     f"(paddle.enable_static())")


class ModelAverage(AveragesApplied, Optimizer):
    """Averages of each parameter over a window of recent steps, put in place by apply()."""

    def __init__(self, average_window_rate: float, parameters=None,
                 min_average_window: int = 10000, max_average_window: int = 10000,
                 name: str | None = None) -> None:
        _static_only("ModelAverage")
        _check(min_average_window <= max_average_window,
               f"The min_average_window > max_average_window is not right, "
               f"min_average_window is {min_average_window}, max_average_window is "
               f"{max_average_window}.")
        super().__init__(learning_rate=0.0, parameters=parameters, name=name)
        self.average_window = average_window_rate
        self.min_average_window = min_average_window
        self.max_average_window = max_average_window
        self.type = "average_accumulates"
        params = self._averaged()
        with op_role_guard(OpRole.Optimize):
            for p in params:
                self._append_accumulate(p)
        self.apply_program, self.restore_program = Program(), Program()
        with program_guard(self.apply_program):
            for p in params:
                self._add_average_apply_op(self.apply_program.global_block(), p)
        with program_guard(self.restore_program):
            for p in params:
                block = self.restore_program.global_block()
                assign(block._clone_variable(self._accumulators["restore"][p.name]),
                       output=block._clone_variable(p))

    def _averaged(self) -> list:
        """The parameters averaged: those given, else all of the main program."""
        return self._parameter_list or default_main_program().global_block().all_parameters()

    def _append_accumulate(self, param) -> None:
        accs = {n: self._add_accumulator(n, param) for n in _SUMS + ("restore",)}
        accs.update({n: self._add_accumulator(n, param, shape=[1], dtype="int64")
                     for n in _COUNTERS})
        param.block.program.global_block().append_op(
            self.type,
            inputs={"param": [param], **{f"in_{n}": [accs[n]] for n in _SUMS + _COUNTERS}},
            outputs={f"out_{n}": [accs[n]] for n in _SUMS + _COUNTERS},
            attrs={"average_window": float(self.average_window),
                   "min_average_window": int(self.min_average_window),
                   "max_average_window": int(self.max_average_window)})

    def _add_average_apply_op(self, block, param) -> None:
        acc = {n: block._clone_variable(self._accumulators[n][param.name])
               for n in _SUMS + _COUNTERS + ("restore",)}
        param = block._clone_variable(param)
        assign(param, output=acc["restore"])
        count = cast(sums([acc["num_accumulates"], acc["old_num_accumulates"]]), "float32")
        total = cast(sums([acc[n] for n in _SUMS]), "float32")
        assign(total / count, output=param)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Nothing in a static program: the accumulation ops were appended when the
        ModelAverage was made (Paddle's)."""


class FluidModelAverage(ModelAverage):
    """fluid.optimizer.ModelAverage, Paddle 1.x's signature: the main program's parameters
    whose do_model_average is not False. `regularization` is accepted and changes nothing, as
    in Paddle 1.x (no gradient is taken)."""

    def __init__(self, average_window_rate: float, min_average_window: int = 10000,
                 max_average_window: int = 10000, regularization=None,
                 name: str | None = None) -> None:
        super().__init__(average_window_rate, None, min_average_window, max_average_window,
                         name)

    def _averaged(self) -> list:
        return [p for p in default_main_program().global_block().all_parameters()
                if p.do_model_average is not False]


class LookAhead(Optimizer):
    """The inner optimizer's fast steps, pulled back towards a slow copy every k steps."""

    _slow_str = "slow"

    def __init__(self, inner_optimizer: Optimizer, alpha: float = 0.5, k: int = 5,
                 name: str | None = None) -> None:
        _static_only("LookAhead")
        _check(inner_optimizer is not None, "inner optimizer can not be None")
        _check(0.0 <= alpha <= 1.0,
               "alpha should be larger or equal to 0.0, and less or equal than 1.0")
        _check(isinstance(k, int) and not isinstance(k, bool) and k > 0,
               "k should be a positive integer")
        self.inner_optimizer = inner_optimizer
        params = inner_optimizer._parameter_list
        if params is None:
            params = default_main_program().global_block().all_parameters()
        super().__init__(learning_rate=float(alpha), parameters=params, name=name)
        self.alpha = alpha
        self.k = k
        self.type = "lookahead"
        self._global_step_var = None

    def _increment_global_var(self) -> None:
        if self._global_step_var is None:
            self._global_step_var = create_global_var(
                name=unique_name.generate("lookahead_step"), shape=[1], value=0,
                dtype="int32", persistable=True)
        default_main_program().global_block().append_op(
            "increment", {"X": [self._global_step_var]}, {"Out": [self._global_step_var]},
            {"step": 1.0})

    def _append_optimize_op(self, block, param, grad, lr):
        one = fill_constant([1], "int32", 1)
        zero = fill_constant([1], "int32", 0)
        k_var = create_global_var(name=unique_name.generate("lookahead_k"), shape=[1],
                                  value=self.k, dtype="int32", persistable=True)
        step = self._global_step_var
        first = cast(step == one, "float32")
        kth = cast(step % k_var == zero, "float32")
        slow = self._add_accumulator(self._slow_str, param)
        assign(first * param + (1 - first) * slow, slow)
        pulled = self.alpha * param + (1.0 - self.alpha) * slow
        assign(kth * pulled + (1 - kth) * param, param)
        assign(kth * pulled + (1 - kth) * slow, slow)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """The inner optimizer's minimize, then the step counter and the slow updates;
        returns the inner optimizer's (optimize_ops, params_grads)."""
        if not isinstance(loss, Variable):
            raise TypeError(f"The loss should be an Tensor, got {type(loss).__name__}")
        optimize_ops, params_grads = self.inner_optimizer.minimize(
            loss, startup_program=startup_program, parameters=parameters,
            no_grad_set=no_grad_set)
        with program_guard(loss.block.program, startup_program or default_startup_program()):
            with op_role_guard(OpRole.Optimize):
                self._increment_global_var()
            self.apply_gradients(params_grads)
        return optimize_ops, params_grads


LookaheadOptimizer = LookAhead  # Paddle 1.x's name
