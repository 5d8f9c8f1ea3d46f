"""Optimizers: minimize = the backward pass, then, as Paddle appends them, gradient clipping,
weight decay and one update op per parameter, with accumulators (moments, beta pows) and the
learning rate as persistable vars named as Paddle names them. Float attributes are rounded to
float32, the precision Paddle's ProgramDesc keeps them in."""
from __future__ import annotations

from ..frontend import unique_name
from ..frontend.dtypes import VarType, convert_dtype
from ..frontend.errors import FluidcError
from ..frontend.ops.tensor import fill_constant_attrs
from ..frontend.framework import (OpRole, Parameter, Variable, default_main_program,
                                  default_startup_program, op_role_guard, program_guard)
from .backward import append_backward
from .clip import ClipGradBase, append_gradient_clip_ops
from .lr_scheduler import LRScheduler
from .regularizer import L2Decay, append_regularization_ops, as_regularizer


class OptimizerArgumentError(FluidcError, ValueError, AssertionError):
    """An optimizer argument Paddle rejects (with ValueError, or with an assert: either catches
    it)."""


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise OptimizerArgumentError(message)


def _unit_interval(name: str, value) -> None:
    if isinstance(value, (int, float)):
        _check(0 <= value < 1, f"Invalid value of {name}, expect {name} in [0,1).")


def _non_negative(name: str, value) -> None:
    _check(value is not None, f"{name} is not set.")
    if isinstance(value, (int, float)):
        _check(value >= 0, f"Invalid value of {name}, expect {name} >= 0.")


def _check_moments(learning_rate, beta1, beta2, epsilon) -> None:
    """The arguments of the optimizers keeping moment estimates (Adam, Adamax), as Paddle
    checks them."""
    for n, v in (("learning_rate", learning_rate), ("beta1", beta1), ("beta2", beta2),
                 ("epsilon", epsilon)):
        _check(v is not None, f"{n} is not set")
    _unit_interval("beta1", beta1)
    _unit_interval("beta2", beta2)
    _non_negative("epsilon", epsilon)


def _is_set(name: str, value) -> None:
    _check(value is not None, f"{name} is not set")


def _beta(name: str, value) -> None:
    _is_set(name, value)
    _unit_interval(name, value)


def _decay_coeff(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} should be int, float or Tensor.")


# What any parameter group (a dict in `parameters`) may set, as Paddle's _add_param_group:
# weight_decay becomes each parameter's regularizer (the optimizer's when the group gives none;
# an optimizer taking weight_decay as an option of its own, as AdamW, leaves regularizers
# alone), learning_rate its optimize_attr multiplier (1.0 when none), grad_clip the clip of
# the group's gradients (the optimizer's when none), which Paddle applies group by group.
# Each optimizer's `_group_options` name what else its groups may set, as its
# _update_param_group reads them, with the check its constructor makes of each.
COMMON_GROUP_OPTIONS = ("weight_decay", "learning_rate", "grad_clip")


class Optimizer:
    """Base: the learning-rate var, accumulators, clipping, decay and the update op each
    subclass appends per parameter."""

    # option -> its check, for the options a parameter group may give this optimizer's
    # parameters; the optimizer's own value of option x is its attribute _x
    _group_options: dict = {}

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 name=None, parameter_list=None, regularization=None) -> None:
        _check(learning_rate is not None, "learning_rate is not set")
        # As Paddle: an int rate is refused (a Variable is the 1.x spelling of a computed rate).
        if not isinstance(learning_rate, (float, Variable, LRScheduler)):
            raise TypeError(f"learning rate should be float, Variable or LRScheduler, got "
                            f"{type(learning_rate).__name__} here")
        if grad_clip is not None and not isinstance(grad_clip, ClipGradBase):
            raise TypeError("'grad_clip' should be an instance of GradientClipBase's derived "
                            "class (ClipGradByValue, ClipGradByNorm, ClipGradByGlobalNorm)")
        params = parameters if parameters is not None else parameter_list
        if isinstance(params, Variable):
            raise TypeError("`parameters` argument given to the optimizer should be an iterable "
                            "of Parameters, not one")
        if isinstance(params, dict):
            raise TypeError("`parameters` argument should not get dict type, if parameter groups "
                            "is needed, please set `parameters` as list of dict")
        self._learning_rate = learning_rate
        self.regularization = as_regularizer(
            weight_decay if weight_decay is not None else regularization)
        self._grad_clip = grad_clip
        # the options of each parameter group, and the group of each grouped parameter
        self._groups: list[dict] = []
        self._group_of: dict[str, int] = {}
        self._parameter_list = self._ungrouped(list(params)) if params is not None else None
        self._name = name
        # The learning-rate var's dtype: the parameters', then (after backward) the loss's.
        self._dtype = self._parameter_list[0].dtype if self._parameter_list else None
        self._lr_vars: dict[int, Variable] = {}
        # accumulator name -> parameter name -> var, as Paddle keeps them
        self._accumulators: dict[str, dict[str, Variable]] = {}

    # -- parameter groups -------------------------------------------------------------------
    def _ungrouped(self, params: list) -> list:
        """The parameters of `params`, parameter groups unpacked into their parameters, each
        given its group's weight_decay and learning_rate, the group's options kept for
        `_option`."""
        if not any(isinstance(p, dict) for p in params):
            return params
        taken = COMMON_GROUP_OPTIONS + tuple(self._group_options)
        flat = []
        for group in params:
            if not isinstance(group, dict):
                raise TypeError(f"`parameters` mixes parameter groups (dicts) with a "
                                f"{type(group).__name__}; give every parameter in a group")
            if "params" not in group:
                raise OptimizerArgumentError("a parameter group needs 'params', the list of "
                                             "its parameters")
            other = sorted(set(group) - {"params", *taken})
            if other:
                raise OptimizerArgumentError(
                    f"parameter group options {other} are not options of "
                    f"{type(self).__name__}; its groups may set {list(taken)}")
            members = group["params"]
            if isinstance(members, set):
                raise TypeError("optimizer parameters should be in ordered collections, but "
                                "received set, please use list instead.")
            members = [members] if isinstance(members, Variable) else list(members)
            options = {k: v for k, v in group.items() if k != "params"}
            for k, v in options.items():
                if self._group_options.get(k) is not None:
                    self._group_options[k](k, v)
            if options.get("grad_clip") is not None and \
                    not isinstance(options["grad_clip"], ClipGradBase):
                raise TypeError("a parameter group's 'grad_clip' should be an instance of "
                                "ClipGradByValue, ClipGradByNorm or ClipGradByGlobalNorm")
            decay = as_regularizer(options.get("weight_decay", self.regularization))
            for p in members:
                if p.name in self._group_of:
                    raise OptimizerArgumentError(f"some parameters appear in more than one "
                                                 f"parameter group: {p.name}")
                self._group_of[p.name] = len(self._groups)
                if "weight_decay" not in self._group_options:
                    p.regularizer = decay
                p.optimize_attr["learning_rate"] = options.get("learning_rate", 1.0)
                flat.append(p)
            self._groups.append(options)
        return flat

    def _option(self, param: Parameter, name: str):
        """Option `name` for `param`: its parameter group's value, else the optimizer's."""
        group = self._group_of.get(param.name)
        if group is not None and name in self._groups[group]:
            return self._groups[group][name]
        return getattr(self, f"_{name}")

    def _clip(self, params_grads):
        """The gradients clipped group by group, each group by its own clip (the optimizer's
        when it sets none), as Paddle's dygraph optimizers do (a global norm is each group's
        own); parameters of no group by the optimizer's clip or set_gradient_clip's."""
        by_group: dict = {}
        for p, g in params_grads:
            by_group.setdefault(self._group_of.get(p.name), []).append((p, g))
        out = []
        for group, pairs in by_group.items():
            clip = self._grad_clip if group is None else \
                self._groups[group].get("grad_clip", self._grad_clip)
            out += clip(pairs) if clip is not None else append_gradient_clip_ops(pairs)
        return sorted(out, key=lambda pg: pg[0].name)

    # -- vars -------------------------------------------------------------------------------
    def _lr_dtype(self) -> VarType:
        dtype = convert_dtype(self._dtype) if self._dtype is not None else VarType.FP32
        return VarType.FP32 if dtype in (VarType.FP16, VarType.BF16) else dtype

    def _global_learning_rate(self, program=None) -> Variable:
        """The program's learning-rate var, made on first use."""
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate
        program = program or default_main_program()
        var = self._lr_vars.get(program._serial)
        if var is None:
            var = self._create_persistable(program, unique_name.generate("learning_rate"), [1],
                                           self._lr_dtype(), self.get_lr())
            if isinstance(self._learning_rate, LRScheduler):
                # The Executor refreshes this var from the schedule before every run.
                self._learning_rate._var_name = var.name
                program.lr_scheduler = self._learning_rate
            self._lr_vars[program._serial] = var
        return var

    @staticmethod
    def _create_persistable(program, name: str, shape, dtype, value: float) -> Variable:
        var = program.global_block().create_var(name=name, shape=shape, dtype=dtype,
                                                persistable=True, stop_gradient=True)
        startup = default_startup_program().global_block()
        init = startup.create_var(name=name, shape=shape, dtype=dtype, persistable=True)
        startup.append_op("fill_constant", outputs={"Out": [init]},
                          attrs=fill_constant_attrs(shape, dtype, value))
        return var

    def _add_accumulator(self, name: str, param: Parameter, fill_value: float = 0.0,
                         shape=None, dtype=None) -> Variable:
        per_param = self._accumulators.setdefault(name, {})
        if param.name not in per_param:
            shape = list(param.shape) if shape is None else shape
            # an optimizer's name= prefixes its accumulators' names, as Paddle's
            kind = name if self._name is None else f"{self._name}_{name}"
            per_param[param.name] = self._create_persistable(
                param.block.program, unique_name.generate(f"{param.name}_{kind}"), shape,
                param.dtype if dtype is None else convert_dtype(dtype), fill_value)
        return per_param[param.name]

    def _param_lr(self, param: Parameter, lr: Variable) -> Variable:
        scale = param.optimize_attr.get("learning_rate", 1.0)
        if isinstance(scale, Variable):
            return scale
        if scale == 1.0:
            return lr
        block = param.block
        out = block.create_var(name=unique_name.generate("learning_rate_scaled"), shape=lr.shape,
                               dtype=lr.dtype, stop_gradient=True)
        block.append_op("scale", {"X": [lr]}, {"Out": [out]}, {"scale": float(scale)})
        return out

    # -- the public surface -----------------------------------------------------------------
    def backward(self, loss: Variable, startup_program=None, parameters=None, no_grad_set=None,
                 callbacks=None, parameter_list=None):
        """The gradient ops of `loss`; returns [(param, grad)]."""
        self._dtype = loss.dtype
        params = parameters if parameters is not None else parameter_list
        return append_backward(loss, params or self._parameter_list, no_grad_set)

    def apply_gradients(self, params_grads):
        """Clip, decay, then one update op per (param, grad); returns the ops of the update pass
        (per-parameter learning-rate scales, the updates and what follows them), as Paddle."""
        params_grads = sorted(((p, g) for p, g in params_grads if g is not None),
                              key=lambda pg: pg[0].name)
        # With no parameter (Paddle allows it) only the learning-rate var is made.
        program = params_grads[0][0].block.program if params_grads else default_main_program()
        with program_guard(program), op_role_guard(OpRole.Optimize):
            params_grads = self._clip(params_grads)
            params_grads = self.append_regularization_ops(params_grads, self.regularization)
            # the updates go with the grads: to the global block, or to the grad block of a
            # loss made in a sub-block (append_backward), as Paddle's
            block = params_grads[0][1].block if params_grads else program.global_block()
            start = len(block.ops)
            lr = self._global_learning_rate(program)
            for p, g in params_grads:
                if not p.stop_gradient:
                    self._append_optimize_op(g.block, p, g, self._param_lr(p, lr))
            self._finish_update(params_grads)
        return block.ops[start:]

    def append_regularization_ops(self, parameters_and_grads, regularization=None):
        """grad += the decay term of each parameter: its own regularizer, else
        `regularization`; returns the (param, grad) pairs."""
        return append_regularization_ops(parameters_and_grads, regularization)

    def minimize(self, loss: Variable, startup_program=None, parameters=None, no_grad_set=None,
                 parameter_list=None):
        """backward + apply_gradients; returns (optimize_ops, params_grads)."""
        if not isinstance(loss, Variable):
            raise TypeError(f"minimize takes the loss Variable, got {type(loss).__name__}")
        startup = startup_program or default_startup_program()
        with program_guard(loss.block.program, startup):
            params_grads = self.backward(loss, startup, parameters or parameter_list,
                                         no_grad_set)
            return self.apply_gradients(params_grads), params_grads

    def _append_optimize_op(self, block, param, grad, lr):
        raise NotImplementedError

    def _finish_update(self, params_grads) -> None:
        """Ops after every update (adamax advances its beta pows here)."""

    def get_lr(self) -> float:
        """The current learning rate (a schedule's current value)."""
        if isinstance(self._learning_rate, LRScheduler):
            return self._learning_rate()
        if isinstance(self._learning_rate, Variable):
            raise FluidcError(f"the learning rate is the var '{self._learning_rate.name}', "
                              f"computed by the program: fetch it to read it")
        return float(self._learning_rate)


class SGD(Optimizer):
    """param -= lr * grad."""

    def _append_optimize_op(self, block, param, grad, lr):
        return block.append_op("sgd", {"Param": [param], "Grad": [grad], "LearningRate": [lr]},
                               {"ParamOut": [param]})


class Momentum(Optimizer):
    """velocity = mu * velocity + grad; param -= lr * velocity (or the Nesterov form). L2 decay
    (a float weight_decay, L2Decay, or a parameter's own L2Decay) is folded into the op."""

    _velocity_acc_str = "velocity"
    _group_options = {"momentum": _is_set, "use_nesterov": None, "rescale_grad": None}

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, multi_precision=False, rescale_grad=1.0,
                 use_multi_tensor=False, name=None, parameter_list=None, regularization=None):
        _check(learning_rate is not None, "learning_rate is not set")
        _check(momentum is not None, "momentum is not set")
        decay = as_regularizer(weight_decay if weight_decay is not None else regularization)
        super().__init__(learning_rate, parameters, None if isinstance(decay, L2Decay) else decay,
                         grad_clip, name, parameter_list)
        self._l2 = decay if isinstance(decay, L2Decay) else None
        self._momentum, self._use_nesterov = momentum, bool(use_nesterov)
        self._rescale_grad = rescale_grad

    def append_regularization_ops(self, parameters_and_grads, regularization=None):
        # A parameter's own L2Decay goes into its momentum op, not into its gradient.
        own_l2 = [(p, g) for p, g in parameters_and_grads if isinstance(p.regularizer, L2Decay)]
        rest = append_regularization_ops(
            [(p, g) for p, g in parameters_and_grads if not isinstance(p.regularizer, L2Decay)],
            regularization)
        return sorted(own_l2 + rest, key=lambda pg: pg[0].name)

    def _append_optimize_op(self, block, param, grad, lr):
        v = self._add_accumulator(self._velocity_acc_str, param)
        l2 = param.regularizer if isinstance(param.regularizer, L2Decay) else \
            self._l2 if param.regularizer is None else None
        return block.append_op(
            "momentum", {"Param": [param], "Grad": [grad], "Velocity": [v], "LearningRate": [lr]},
            {"ParamOut": [param], "VelocityOut": [v]},
            {"mu": float(self._option(param, "momentum")),
             "use_nesterov": bool(self._option(param, "use_nesterov")),
             "regularization_method": "l2_decay" if l2 is not None else "",
             "regularization_coeff": float(l2._coeff) if l2 is not None else 0.0,
             "rescale_grad": float(self._option(param, "rescale_grad"))})


class Adam(Optimizer):
    """Adam with Paddle's bias correction through beta1/beta2 power accumulators."""

    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"
    _beta1_pow_acc_str = "beta1_pow_acc"
    _beta2_pow_acc_str = "beta2_pow_acc"
    _op_type = "adam"
    _group_options = {"beta1": _beta, "beta2": _beta, "epsilon": _non_negative,
                      "lazy_mode": None}

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, use_multi_tensor=False, amsgrad=False, name=None,
                 parameter_list=None, regularization=None):
        _check_moments(learning_rate, beta1, beta2, epsilon)
        if amsgrad:
            raise FluidcError("Adam(amsgrad=True) is not supported by fluidc")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list,
                         regularization)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lazy_mode = bool(lazy_mode)

    def _adam_io(self, param, grad, lr):
        m1 = self._add_accumulator(self._moment1_acc_str, param)
        m2 = self._add_accumulator(self._moment2_acc_str, param)
        beta1, beta2 = self._option(param, "beta1"), self._option(param, "beta2")
        b1 = self._add_accumulator(self._beta1_pow_acc_str, param,
                                   self._beta_value(beta1, 0.9), [1])
        b2 = self._add_accumulator(self._beta2_pow_acc_str, param,
                                   self._beta_value(beta2, 0.999), [1])
        ins = {"Param": [param], "Grad": [grad], "LearningRate": [lr], "Moment1": [m1],
               "Moment2": [m2], "Beta1Pow": [b1], "Beta2Pow": [b2]}
        outs = {"ParamOut": [param], "Moment1Out": [m1], "Moment2Out": [m2],
                "Beta1PowOut": [b1], "Beta2PowOut": [b2]}
        attrs = {"epsilon": float(self._option(param, "epsilon"))}
        for k, beta in (("1", beta1), ("2", beta2)):
            if isinstance(beta, Variable):
                ins[f"Beta{k}Tensor"] = [beta]
            else:
                attrs[f"beta{k}"] = float(beta)
        return ins, outs, attrs

    @staticmethod
    def _beta_value(beta, default: float) -> float:
        return default if isinstance(beta, Variable) else beta

    def _append_optimize_op(self, block, param, grad, lr):
        ins, outs, attrs = self._adam_io(param, grad, lr)
        return block.append_op(self._op_type, ins, outs,
                               {**attrs, "lazy_mode": bool(self._option(param, "lazy_mode")),
                                **self._extra_attrs(param)})

    def _extra_attrs(self, param) -> dict:
        return {}


class AdamW(Adam):
    """Adam with decoupled weight decay: param *= 1 - lr * coeff before the step, for the
    parameters apply_decay_param_fun(name) accepts (all by default)."""

    _op_type = "adamw"
    _group_options = {**Adam._group_options, "weight_decay": _decay_coeff}

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=0.01, lr_ratio=None, apply_decay_param_fun=None,
                 grad_clip=None, lazy_mode=False, multi_precision=False, amsgrad=False,
                 name=None):
        _decay_coeff("weight_decay", weight_decay)
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError(f"lr_ratio should be a function of the parameter, got "
                            f"{type(lr_ratio).__name__}")
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, amsgrad=amsgrad, name=name)
        self._weight_decay = float(weight_decay)
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun

    def _extra_attrs(self, param) -> dict:
        decay = self._apply_decay_param_fun is None or bool(self._apply_decay_param_fun(param.name))
        ratio = 1.0 if self._lr_ratio is None else float(self._lr_ratio(param))
        return {"coeff": float(self._option(param, "weight_decay")), "with_decay": decay,
                "lr_ratio": float(ratio)}


class Adagrad(Optimizer):
    """moment += grad^2; param -= lr * grad / (sqrt(moment) + epsilon)."""

    _moment_acc_str = "moment"
    _group_options = {"epsilon": _is_set, "initial_accumulator_value": None}

    def __init__(self, learning_rate=0.001, epsilon=1e-6, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0, parameter_list=None,
                 regularization=None):
        _check(learning_rate is not None, "learning_rate is not set")
        _check(epsilon is not None, "epsilon is not set")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list,
                         regularization)
        self._epsilon = epsilon
        self._initial_accumulator_value = initial_accumulator_value

    def _append_optimize_op(self, block, param, grad, lr):
        m = self._add_accumulator(self._moment_acc_str, param,
                                  self._option(param, "initial_accumulator_value"))
        return block.append_op(
            "adagrad", {"Param": [param], "Grad": [grad], "Moment": [m], "LearningRate": [lr]},
            {"ParamOut": [param], "MomentOut": [m]},
            {"epsilon": float(self._option(param, "epsilon"))})


class RMSProp(Optimizer):
    """Root-mean-square propagation with optional momentum; `centered` divides by the running
    variance instead of the running second moment."""

    _momentum_acc_str = "momentum"
    _mean_square_acc_str = "mean_square"
    _mean_grad_acc_str = "mean_grad"
    _group_options = {"rho": _non_negative, "epsilon": _non_negative, "momentum": _non_negative,
                      "centered": None}

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-6, momentum=0.0,
                 centered=False, parameters=None, weight_decay=None, grad_clip=None, name=None,
                 parameter_list=None, regularization=None):
        _check(learning_rate is not None, "learning_rate is not set.")
        for n, v in (("rho", rho), ("epsilon", epsilon), ("momentum", momentum)):
            _non_negative(n, v)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list,
                         regularization)
        self._rho, self._epsilon, self._momentum = rho, epsilon, momentum
        self._centered = bool(centered)

    def _append_optimize_op(self, block, param, grad, lr):
        mom = self._add_accumulator(self._momentum_acc_str, param)
        ms = self._add_accumulator(self._mean_square_acc_str, param)
        mg = self._add_accumulator(self._mean_grad_acc_str, param)
        return block.append_op(
            "rmsprop", {"Param": [param], "Grad": [grad], "Moment": [mom], "MeanSquare": [ms],
                        "MeanGrad": [mg], "LearningRate": [lr]},
            {"ParamOut": [param], "MomentOut": [mom], "MeanSquareOut": [ms],
             "MeanGradOut": [mg]},
            {"epsilon": float(self._option(param, "epsilon")),
             "decay": float(self._option(param, "rho")),
             "momentum": float(self._option(param, "momentum")),
             "centered": bool(self._option(param, "centered"))})


class Adamax(Optimizer):
    """Adam over the infinity norm: param -= lr / (1 - beta1^t) * moment / inf_norm."""

    _moment_acc_str = "moment"
    _inf_norm_acc_str = "inf_norm"
    _beta1_pow_acc_str = "beta1_pow_acc"
    _group_options = {"beta1": _beta, "beta2": _beta, "epsilon": _non_negative}

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None,
                 parameter_list=None, regularization=None):
        _check_moments(learning_rate, beta1, beta2, epsilon)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list,
                         regularization)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon

    def _append_optimize_op(self, block, param, grad, lr):
        m = self._add_accumulator(self._moment_acc_str, param)
        u = self._add_accumulator(self._inf_norm_acc_str, param)
        beta1 = self._option(param, "beta1")
        b1 = self._add_accumulator(self._beta1_pow_acc_str, param, beta1, [1])
        return block.append_op(
            "adamax", {"Param": [param], "Grad": [grad], "LearningRate": [lr], "Moment": [m],
                       "InfNorm": [u], "Beta1Pow": [b1]},
            {"ParamOut": [param], "MomentOut": [m], "InfNormOut": [u]},
            {"beta1": float(beta1), "beta2": float(self._option(param, "beta2")),
             "epsilon": float(self._option(param, "epsilon"))})

    def _finish_update(self, params_grads) -> None:
        for p, g in params_grads:
            if p.stop_gradient:
                continue
            b1 = self._accumulators[self._beta1_pow_acc_str][p.name]
            g.block.append_op("scale", {"X": [b1]}, {"Out": [b1]},
                              {"scale": float(self._option(p, "beta1")), "bias": 0.0,
                               "bias_after_scale": True})


class Adadelta(Optimizer):
    """Adaptive rates from running averages of squared gradients and squared updates:
    param += lr * -sqrt((avg_sq_update + eps) / (avg_sq_grad + eps)) * grad."""

    _avg_squared_grad_acc_str = "_avg_squared_grad"
    _avg_squared_update_acc_str = "_avg_squared_update"
    _group_options = {"rho": _is_set, "epsilon": _is_set}

    def __init__(self, learning_rate=0.001, epsilon=1.0e-6, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None, parameter_list=None,
                 regularization=None):
        for n, v in (("learning_rate", learning_rate), ("epsilon", epsilon), ("rho", rho)):
            _check(v is not None, f"{n} is not set.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list,
                         regularization)
        self._epsilon, self._rho = epsilon, rho

    def _append_optimize_op(self, block, param, grad, lr):
        asg = self._add_accumulator(self._avg_squared_grad_acc_str, param)
        asu = self._add_accumulator(self._avg_squared_update_acc_str, param)
        return block.append_op(
            "adadelta", {"Param": [param], "Grad": [grad], "AvgSquaredGrad": [asg],
                         "AvgSquaredUpdate": [asu], "LearningRate": [lr]},
            {"ParamOut": [param], "AvgSquaredGradOut": [asg], "AvgSquaredUpdateOut": [asu]},
            {"epsilon": float(self._option(param, "epsilon")),
             "rho": float(self._option(param, "rho"))})


class Lamb(Optimizer):
    """Layer-wise adaptive moments: an Adam direction plus lamb_weight_decay * param, scaled
    per parameter by ||param|| / ||direction||."""

    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"
    _beta1_pow_acc_str = "beta1_pow_acc"
    _beta2_pow_acc_str = "beta2_pow_acc"
    _group_options = {"beta1": _is_set, "beta2": _is_set, "epsilon": _is_set,
                      "lamb_weight_decay": None, "exclude_from_weight_decay_fn": None}

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-6, parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None,
                 always_adapt=False, name=None, parameter_list=None, regularization=None,
                 multi_precision=False):
        for n, v in (("learning_rate", learning_rate), ("beta1", beta1), ("beta2", beta2),
                     ("epsilon", epsilon)):
            _check(v is not None, f"{n} is not set")
        super().__init__(learning_rate, parameters, None, grad_clip, name, parameter_list,
                         regularization)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lamb_weight_decay = lamb_weight_decay
        self._exclude_from_weight_decay_fn = exclude_from_weight_decay_fn
        self._always_adapt = bool(always_adapt)

    def _append_optimize_op(self, block, param, grad, lr):
        m1 = self._add_accumulator(self._moment1_acc_str, param)
        m2 = self._add_accumulator(self._moment2_acc_str, param)
        beta1, beta2 = self._option(param, "beta1"), self._option(param, "beta2")
        b1 = self._add_accumulator(self._beta1_pow_acc_str, param, beta1, [1])
        b2 = self._add_accumulator(self._beta2_pow_acc_str, param, beta2, [1])
        exclude = self._option(param, "exclude_from_weight_decay_fn")
        decay = 0.0 if exclude is not None and exclude(param) else \
            self._option(param, "lamb_weight_decay")
        return block.append_op(
            "lamb", {"Param": [param], "Grad": [grad], "LearningRate": [lr], "Moment1": [m1],
                     "Moment2": [m2], "Beta1Pow": [b1], "Beta2Pow": [b2]},
            {"ParamOut": [param], "Moment1Out": [m1], "Moment2Out": [m2], "Beta1PowOut": [b1],
             "Beta2PowOut": [b2]},
            {"beta1": float(beta1), "beta2": float(beta2),
             "epsilon": float(self._option(param, "epsilon")),
             "weight_decay": float(decay), "always_adapt": self._always_adapt})


# Fluid 1.x names.
SGDOptimizer, MomentumOptimizer, AdamOptimizer, AdamWOptimizer = SGD, Momentum, Adam, AdamW
AdagradOptimizer, RMSPropOptimizer, AdamaxOptimizer, LambOptimizer = (Adagrad, RMSProp, Adamax,
                                                                      Lamb)
AdadeltaOptimizer = Adadelta
