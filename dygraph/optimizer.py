"""Optimizers in dygraph mode. `step()` runs the optimizer's own static update: a shadow
program holding the parameters (same names, attributes, regularizers) and their grads as feeds,
to which the optimizer's `apply_gradients` appends clipping, weight decay and the update ops
exactly as in a static program. It is built once per set of parameters with grads and run in
the optimizer's own scope, where its accumulators (moments, beta powers, the learning rate)
live between steps, under Paddle's names (linear_0.w_0_moment1_0). The parameters are fed,
not held: each update writes a new var (`<name>@UPDATED`), fetched as the parameter's next
array, so a step neither copies parameters in nor out, and the arrays earlier values were
(which a retained tape may read) are never written."""
from __future__ import annotations

import numpy as np

from ..frontend import unique_name
from ..frontend.errors import FluidcError
from ..frontend.framework import Program, in_dygraph_mode, program_guard
from ..frontend.ops import grad_name
from ..runtime.executor import Executor
from ..runtime.scope import Scope
from .tensor import Tensor, new_tensor

LR_KEY = "LR_Scheduler"


class _Eager:
    """An optimizer's dygraph state: its scope, shadow programs and loaded values."""

    def __init__(self) -> None:
        self.scope = Scope()
        self.executor = Executor()
        self.shadows: dict[tuple, tuple[Program, list[str]]] = {}
        self.accumulators: dict[str, dict[str, str]] = {}  # kind -> parameter -> var name
        self.loaded: dict[str, np.ndarray] = {}


def _state(opt) -> _Eager:
    state = opt.__dict__.get("_eager")
    if state is None:
        state = opt.__dict__["_eager"] = _Eager()
    return state


def _parameters(opt) -> list:
    if opt._parameter_list is None:
        raise AttributeError("parameters argument given to the Optimizer should be not None "
                             "in dygraph mode.")
    return opt._parameter_list


def _shadow(opt, state: _Eager, params: list) -> tuple[Program, list[str]]:
    """The update program of `params` and the names of their updated values."""
    key = tuple((p.name, tuple(p.shape), int(p.dtype)) for p in params)
    shadow = state.shadows.get(key)
    if shadow is not None:
        return shadow
    main, startup = Program(), Program()
    block = main.global_block()
    pairs = []
    saved = opt._accumulators, opt._lr_vars
    opt._accumulators, opt._lr_vars = {}, {}
    # names as a fresh optimizer gives them, the same in every shadow (their values are shared)
    with program_guard(main, startup), unique_name.guard():
        for p in params:
            sp = block.create_parameter(p.name, p.shape, p.dtype, trainable=True,
                                        optimize_attr=dict(p.optimize_attr),
                                        regularizer=p.regularizer, need_clip=p.need_clip)
            g = block.create_var(name=grad_name(p.name), shape=p.shape, dtype=p.dtype)
            pairs.append((sp, g))
        opt._dtype = params[0].dtype
        opt.apply_gradients(pairs)
    updated = _update_out_of_place(block, [p.name for p in params])
    made = {v.name for per in opt._accumulators.values() for v in per.values()}
    for kind, per in opt._accumulators.items():
        state.accumulators.setdefault(kind, {}).update({p: v.name for p, v in per.items()})
    opt._accumulators, opt._lr_vars = saved
    fresh = Scope()  # initial values, kept only for accumulators not made before
    state.executor.run(startup, scope=fresh)
    for name in [v.name for v in startup.global_block().vars.values()]:
        if name not in updated and state.scope.find_var(name) is None:
            if state.loaded and name in made and name not in state.loaded:
                # Paddle's check too: a state dict of other parameters' names (a model built
                # in another unique_name scope) must not leave the update starting afresh
                raise AssertionError(f"Optimizer set error, {name} should in state dict: the "
                                     f"loaded optimizer state holds {sorted(state.loaded)[:4]}")
            value = state.loaded.pop(name, None)
            src = fresh.find_var(name).get_tensor().numpy() if value is None else value
            state.scope.var(name).get_tensor().set(np.array(src, copy=True))
    shadow = state.shadows[key] = (main, [updated[p.name] for p in params])
    return shadow


def _update_out_of_place(block, params: list[str]) -> dict[str, str]:
    """Make each parameter of the shadow program a plain feed and rename what the update ops
    write to it (and what later reads that) to a var of its own; {parameter: its last value}."""
    current = {n: n for n in params}
    for op in block.ops:
        for slot, names in op.desc.inputs.items():
            op.desc.inputs[slot] = [current.get(n, n) for n in names]
        for slot, names in op.desc.outputs.items():
            renamed = []
            for n in names:
                if n in current:
                    v = block.var(n)
                    new = block.create_var(name=unique_name.generate(n + "@UPDATED"),
                                           shape=v.shape, dtype=v.dtype)
                    current[n] = new.name
                    n = new.name
                renamed.append(n)
            op.desc.outputs[slot] = renamed
    for n in params:
        block.var(n).persistable = False
    block.program._bump()
    return current


def step(opt) -> None:
    """One update of every trainable parameter that has a grad."""
    _update(opt, [(p, p.grad) for p in _parameters(opt)
                  if not p.stop_gradient and p.grad is not None])


def _update(opt, pairs: list) -> None:
    """One update of the parameters of (parameter, grad Tensor) pairs."""
    state = _state(opt)
    params = [p for p, _ in pairs]
    if not params:
        return
    main, updated = _shadow(opt, state, params)
    feed = {grad_name(p.name): g.value() for p, g in pairs}
    feed.update((p.name, p.value()) for p in params)
    values = state.executor.run(main, feed=feed, fetch_list=updated, scope=state.scope)
    for p, value in zip(params, values):
        p._set_array(value)


def clear_grad(opt, set_to_zero: bool = True) -> None:
    for p in _parameters(opt):
        p.clear_grad(set_to_zero)


def state_dict(opt) -> dict:
    """Paddle's layout: accumulator name -> Tensor (kind by kind, each in the order of the
    optimizer's parameters), and the schedule's state under 'LR_Scheduler' when the rate is a
    schedule."""
    from ..passes.lr_scheduler import LRScheduler
    state = _state(opt)
    order = {p.name: i for i, p in enumerate(opt._parameter_list or ())}
    out = {}
    for per in state.accumulators.values():
        for name in [per[p] for p in sorted(per, key=lambda p: order.get(p, len(order)))]:
            out[name] = new_tensor(np.array(state.scope.find_var(name).get_tensor().numpy(),
                                            copy=True), name=name)
    for name, value in state.loaded.items():  # loaded, not used yet: kept as given
        out.setdefault(name, new_tensor(value, name=name))
    if isinstance(opt._learning_rate, LRScheduler):
        out[LR_KEY] = opt._learning_rate.state_dict()
    return out


def set_state_dict(opt, state_dict: dict) -> None:
    """Load accumulators (now if they exist, else when step() makes them) and the schedule."""
    from ..passes.lr_scheduler import LRScheduler
    state = _state(opt)
    for name, value in state_dict.items():
        if name == LR_KEY:
            if not isinstance(opt._learning_rate, LRScheduler):
                raise FluidcError("the state dict holds an LR_Scheduler state but this "
                                  "optimizer's learning rate is not a schedule")
            opt._learning_rate.set_state_dict(value)
            continue
        array = np.array(getattr(value, "_value", value), copy=True)
        var = state.scope.find_var(name)
        if var is None:
            state.loaded[name] = array
        else:
            var.get_tensor().set(array)


def _eager_minimize(static_minimize):
    """minimize(loss) for an eager loss, as Paddle's dygraph one: the gradients loss.backward()
    left are applied (step); returns ([], params_grads). A static loss: the static minimize."""
    def minimize(opt, loss, startup_program=None, parameters=None, no_grad_set=None,
                 parameter_list=None):
        if not isinstance(loss, Tensor):
            return static_minimize(opt, loss, startup_program, parameters, no_grad_set,
                                   parameter_list)
        step(opt)
        return [], [(p, p.grad) for p in _parameters(opt) if p.grad is not None]
    return minimize


def _eager_backward(static_backward):
    """backward(loss) for an eager loss, as Paddle's dygraph one: the (parameter, grad) pairs
    loss.backward() left (it computes none itself). A static loss: the static backward."""
    def backward(opt, loss, startup_program=None, parameters=None, no_grad_set=None,
                 callbacks=None, parameter_list=None):
        if not isinstance(loss, Tensor):
            return static_backward(opt, loss, startup_program, parameters, no_grad_set,
                                   callbacks, parameter_list)
        params = parameters or parameter_list or _parameters(opt)
        return [(p, p.grad) for p in params if not p.stop_gradient and p.grad is not None]
    return backward


def _eager_apply_gradients(static_apply):
    """apply_gradients of eager (parameter, grad) pairs: one update of those parameters."""
    def apply_gradients(opt, params_grads):
        if in_dygraph_mode() and all(g is None or isinstance(g, Tensor) for _, g in params_grads):
            _update(opt, [(p, g) for p, g in params_grads if g is not None])
            return []
        return static_apply(opt, params_grads)
    return apply_gradients


def bind(optimizer_class) -> None:
    """Give the optimizers their dygraph methods (passes/ may not import this package)."""
    optimizer_class.minimize = _eager_minimize(optimizer_class.minimize)
    optimizer_class.backward = _eager_backward(optimizer_class.backward)
    optimizer_class.apply_gradients = _eager_apply_gradients(optimizer_class.apply_gradients)
    optimizer_class.step = step
    optimizer_class.clear_grad = clear_grad
    optimizer_class.clear_gradients = clear_grad
    optimizer_class.state_dict = state_dict
    optimizer_class.set_state_dict = set_state_dict
