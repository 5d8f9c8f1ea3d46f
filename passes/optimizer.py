"""Optimizers: minimize = the backward pass + one update op per parameter, with accumulators
(moments, beta pows) and the learning rate as persistable vars named as Paddle names them."""
from __future__ import annotations

from ..frontend import unique_name
from ..frontend.errors import FluidcError
from ..frontend.framework import (OpRole, Parameter, Variable,
                                  default_startup_program, op_role_guard, program_guard)
from ..frontend.initializer import Constant
from .backward import append_backward


class Optimizer:
    """Base: learning-rate var, accumulators, and the update op each subclass appends."""

    op_type = ""

    def __init__(self, learning_rate=0.001, parameters=None, parameter_list=None,
                 regularization=None, weight_decay=None, grad_clip=None, name=None) -> None:
        if not isinstance(learning_rate, (int, float, Variable)):
            raise TypeError(f"learning_rate must be a float or a Variable, got "
                            f"{type(learning_rate).__name__}")
        self._learning_rate = learning_rate
        self._parameter_list = parameters if parameters is not None else parameter_list
        self._lr_vars: dict[int, Variable] = {}
        self._accumulators: dict[tuple[str, str], Variable] = {}
        self.helper_name = name

    # -- vars -------------------------------------------------------------------------------
    def _global_learning_rate(self, program) -> Variable:
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate
        key = program._serial
        if key not in self._lr_vars:
            name = unique_name.generate("learning_rate")
            var = program.global_block().create_var(name=name, shape=[1], dtype="float32",
                                                    persistable=True, stop_gradient=True)
            startup = default_startup_program().global_block()
            sv = startup.create_var(name=name, shape=[1], dtype="float32", persistable=True)
            Constant(float(self._learning_rate))(sv, startup)
            self._lr_vars[key] = var
        return self._lr_vars[key]

    def _add_accumulator(self, name: str, param: Parameter, fill_value: float = 0.0,
                         shape=None) -> Variable:
        key = (name, param.name)
        if key in self._accumulators:
            return self._accumulators[key]
        var_name = unique_name.generate(f"{param.name}_{name}")
        shape = list(param.shape) if shape is None else shape
        block = param.block.program.global_block()
        var = block.create_var(name=var_name, shape=shape, dtype=param.dtype, persistable=True,
                               stop_gradient=True)
        startup = default_startup_program().global_block()
        sv = startup.create_var(name=var_name, shape=shape, dtype=param.dtype, persistable=True)
        Constant(fill_value)(sv, startup)
        self._accumulators[key] = var
        return var

    def _param_lr(self, param: Parameter, lr: Variable) -> Variable:
        scale = param.optimize_attr.get("learning_rate", 1.0)
        if scale == 1.0:
            return lr
        block = param.block
        out = block.create_var(name=unique_name.generate("learning_rate_scaled"), shape=[1],
                               dtype="float32", stop_gradient=True)
        block.append_op("scale", {"X": [lr]}, {"Out": [out]}, {"scale": float(scale)})
        return out

    # -- the public surface -----------------------------------------------------------------
    def backward(self, loss: Variable, startup_program=None, parameter_list=None,
                 no_grad_set=None, callbacks=None):
        """The gradient ops of `loss`; returns [(param, grad)]."""
        return append_backward(loss, parameter_list or self._parameter_list, no_grad_set)

    def apply_gradients(self, params_grads):
        """Append one update op per (param, grad); returns the ops."""
        if not params_grads:
            raise FluidcError("nothing to optimize: no trainable parameter gets a gradient")
        program = params_grads[0][0].block.program
        ops = []
        with op_role_guard(OpRole.Optimize):
            lr = self._global_learning_rate(program)
            for param, grad in params_grads:
                if grad is None:
                    continue
                ops.append(self._append_optimize_op(param.block, param, grad,
                                                    self._param_lr(param, lr)))
        return ops

    def minimize(self, loss: Variable, startup_program=None, parameter_list=None,
                 no_grad_set=None):
        """backward + apply_gradients; returns (optimize_ops, params_grads)."""
        if not isinstance(loss, Variable):
            raise TypeError(f"minimize takes the loss Variable, got {type(loss).__name__}")
        startup = startup_program or default_startup_program()
        with program_guard(loss.block.program, startup):
            params_grads = self.backward(loss, startup, parameter_list, no_grad_set)
            return self.apply_gradients(params_grads), params_grads

    def _append_optimize_op(self, block, param, grad, lr):
        raise NotImplementedError

    def get_lr(self) -> float:
        return float(self._learning_rate)


class SGD(Optimizer):
    """param -= lr * grad."""

    def _append_optimize_op(self, block, param, grad, lr):
        return block.append_op("sgd", {"Param": [param], "Grad": [grad], "LearningRate": [lr]},
                               {"ParamOut": [param]})


class Momentum(Optimizer):
    """velocity = mu * velocity + grad; param -= lr * velocity (or the Nesterov form)."""

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, parameter_list=None, regularization=None,
                 name=None, **_) -> None:
        super().__init__(learning_rate, parameters, parameter_list, regularization, weight_decay,
                         grad_clip, name)
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _append_optimize_op(self, block, param, grad, lr):
        v = self._add_accumulator("velocity", param)
        return block.append_op(
            "momentum", {"Param": [param], "Grad": [grad], "Velocity": [v], "LearningRate": [lr]},
            {"ParamOut": [param], "VelocityOut": [v]},
            {"mu": float(self._momentum), "use_nesterov": bool(self._use_nesterov)})


class Adam(Optimizer):
    """Adam with Paddle's bias correction through beta1/beta2 power accumulators."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, lazy_mode=False,
                 parameter_list=None, regularization=None, name=None, **_) -> None:
        super().__init__(learning_rate, parameters, parameter_list, regularization, weight_decay,
                         grad_clip, name)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lazy_mode = lazy_mode

    def _append_optimize_op(self, block, param, grad, lr):
        m1 = self._add_accumulator("moment1", param)
        m2 = self._add_accumulator("moment2", param)
        b1 = self._add_accumulator("beta1_pow_acc", param, self._beta1, [1])
        b2 = self._add_accumulator("beta2_pow_acc", param, self._beta2, [1])
        return block.append_op(
            "adam", {"Param": [param], "Grad": [grad], "LearningRate": [lr], "Moment1": [m1],
                     "Moment2": [m2], "Beta1Pow": [b1], "Beta2Pow": [b2]},
            {"ParamOut": [param], "Moment1Out": [m1], "Moment2Out": [m2], "Beta1PowOut": [b1],
             "Beta2PowOut": [b2]},
            {"beta1": float(self._beta1), "beta2": float(self._beta2),
             "epsilon": float(self._epsilon), "lazy_mode": bool(self._lazy_mode)})


SGDOptimizer, MomentumOptimizer, AdamOptimizer = SGD, Momentum, Adam
