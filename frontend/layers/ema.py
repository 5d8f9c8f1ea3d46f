"""paddle.static.ExponentialMovingAverage (fluid.optimizer.ExponentialMovingAverage): a
shadow copy of each averaged parameter, updated by every run of the main program, that
apply() puts in place of the parameters (bias-corrected) and restore() takes out again.

As Paddle's static implementation: the parameters averaged are those of the main program
whose `do_model_average` is set (ParamAttr's default), each with a persistable float shadow
`<name>_ema_N` starting at 0; the decay is the persistable `scheduled_ema_decay_rate`, set
each run to min((t + 1) / (t + 10), decay) when thres_steps t is given; update() appends
ema = ema * decay + param * (1 - decay) after a step counter `@EMA_STEP_COUNTER@` (1 on the
first run). apply_program saves each parameter in a temporary and writes
ema / (1 - decay ** steps) (the ema itself before any step); restore_program copies the
temporaries back. Paddle branches with `cond` blocks for the threshold and the correction;
here the same values come from `where`, so the programs stay free of sub-blocks.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

import numpy as np

from .. import unique_name
from ..dtypes import VarType, is_float
from ..errors import FluidcError
from ..framework import (OpRole, Program, Variable, default_main_program, in_dygraph_mode,
                         op_role_guard, program_guard)
from .api2.search import where
from .learning_rate_scheduler import autoincreased_step_counter
from .tensor import assign, cast, create_global_var, fill_constant

STEP_COUNTER = "@EMA_STEP_COUNTER@"
DECAY_VAR = "scheduled_ema_decay_rate"


class AveragesApplied:
    """apply / restore of averaged parameters through two programs of the subclass:
    apply_program (saves the parameters, writes their averages) and restore_program."""

    apply_program: Program
    restore_program: Program

    @contextlib.contextmanager
    def apply(self, executor=None, need_restore: bool = True) -> Iterator[None]:
        """The averaged parameters in place inside the block; restored after it unless
        need_restore is False (then call restore)."""
        _run(executor, self.apply_program)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor=None) -> None:
        """Put the parameters saved by apply back."""
        _run(executor, self.restore_program)


def _run(executor, program: Program) -> None:
    if executor is None:
        raise RuntimeError("Executor should not be None in static graph mode.")
    executor.run(program)


class ExponentialMovingAverage(AveragesApplied):
    """Moving averages of the main program's parameters, with apply / restore programs."""

    def __init__(self, decay: float = 0.999, thres_steps: Variable | None = None,
                 name: str | None = None) -> None:
        if in_dygraph_mode():
            raise FluidcError("In dygraph, don't support ExponentialMovingAverage.")
        if thres_steps is not None and not isinstance(thres_steps, Variable):
            raise TypeError(f"ExponentialMovingAverage: thres_steps must be a Variable (a "
                            f"step counter), got {type(thres_steps).__name__}")
        self._decay = decay
        self._thres_steps = thres_steps
        self._name = name if name is not None else ""
        self._decay_var = self._ema_decay()
        self._params_tmps = []
        for param in default_main_program().global_block().all_parameters():
            if param.do_model_average:
                if not is_float(param.dtype):
                    raise FluidcError(f"ExponentialMovingAverage: parameter '{param.name}' is "
                                      f"{VarType(param.dtype).name}; only float parameters "
                                      f"are averaged")
                tmp = param.block.create_var(
                    name=unique_name.generate(f"{self._name}{param.name}.ema_tmp"),
                    shape=param.shape, dtype=param.dtype, persistable=False,
                    stop_gradient=True)
                self._params_tmps.append((param, tmp))
        with op_role_guard(OpRole.Optimize):
            self._ema_vars = {param.name: create_global_var(
                name=unique_name.generate(f"{self._name}{param.name}_ema"),
                shape=param.shape, value=0.0, dtype=param.dtype, persistable=True)
                for param, _ in self._params_tmps}
        self.apply_program = self._apply_program()
        self.restore_program = self._restore_program()

    def _ema_decay(self) -> Variable:
        with op_role_guard(OpRole.LRSched):
            decay_var = create_global_var(shape=[1], value=self._decay, dtype="float32",
                                          persistable=True, name=DECAY_VAR)
            if self._thres_steps is not None:
                t = cast(self._thres_steps, "float32")
                decay_t = (t + 1.0) / (t + 10.0)
                decay = fill_constant([1], "float32", np.float32(self._decay))
                assign(where(decay_t < decay, decay_t, decay), decay_var)
        return decay_var

    def _apply_program(self) -> Program:
        program = Program()
        block = program.global_block()
        with program_guard(program):
            step = cast(block.create_var(name=STEP_COUNTER, shape=[1], dtype="int64",
                                         persistable=True), "float32")
            decay_pow = block._clone_variable(self._decay_var) ** step
            # no correction before the first step: ema / 1
            denominator = where(step > fill_constant([1], "float32", 0.0), 1.0 - decay_pow,
                                fill_constant([1], "float32", 1.0))
            for param, tmp in self._params_tmps:
                param, tmp = block._clone_variable(param), block._clone_variable(tmp)
                ema = block._clone_variable(self._ema_vars[param.name])
                assign(param, output=tmp)
                corrected = ema / cast(denominator, param.dtype) \
                    if param.dtype != VarType.FP32 else ema / denominator
                assign(corrected, output=param)
        return program

    def _restore_program(self) -> Program:
        program = Program()
        block = program.global_block()
        with program_guard(program):
            for param, tmp in self._params_tmps:
                assign(block._clone_variable(tmp), output=block._clone_variable(param))
        return program

    def update(self) -> None:
        """Append the step counter and each shadow's update to the main program."""
        autoincreased_step_counter(counter_name=STEP_COUNTER)
        with op_role_guard(OpRole.Optimize):
            for param, _ in self._params_tmps:
                ema = self._ema_vars[param.name]
                decay = self._decay_var if param.dtype == VarType.FP32 else \
                    cast(self._decay_var, param.dtype)
                assign(ema * decay + param * (1 - decay), output=ema)

