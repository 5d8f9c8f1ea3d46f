"""fluid.layers.Print / paddle.static.Print, and the layers holding sub-blocks: cond, case,
switch_case, while_loop (paddle.static.nn)."""
from __future__ import annotations

import contextlib
import functools
import warnings

import numpy as np

from .. import unique_name
from ..dtypes import VarType, dtype_name
from ..errors import FluidcError
from ..framework import OpRole, Variable, default_main_program, op_role_guard, tracing_to_static
from ..ops.control_flow import merged_shape
from ..ops.registry import EMPTY_VAR, grad_name
from .helper import ArgumentTypeError, ArgumentValueError, LayerHelper
from .tensor import assign, cast, fill_constant

_PHASES = ("FORWARD", "BACKWARD", "BOTH")


def Print(input: Variable, first_n: int = -1, message: str | None = None, summarize: int = 20,  # noqa: N802
          print_tensor_name: bool = True, print_tensor_type: bool = True,
          print_tensor_shape: bool = True, print_tensor_layout: bool = True,
          print_tensor_lod: bool = True, print_phase: str = "both") -> Variable:
    """input, passed through a print op: each run prints it (its name, message, LoD, place,
    shape, layout, dtype and first `summarize` values, as Paddle) for the first first_n runs
    (all if -1); print_phase 'backward' prints its gradient instead, 'both' both. Use the
    returned var downstream: the gradient flows (and prints) through it."""
    if not isinstance(input, Variable):
        raise TypeError(f"Print: input must be a Variable, got {type(input).__name__}")
    if str(print_phase).upper() not in _PHASES:
        raise FluidcError(f"Print: print_phase must be 'forward', 'backward' or 'both', got "
                          f"{print_phase!r}")
    helper = LayerHelper("print")
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("print", inputs={"In": [input]}, outputs={"Out": [out]},
                     attrs={"first_n": int(first_n), "summarize": int(summarize),
                            "message": message or "", "print_tensor_name": print_tensor_name,
                            "print_tensor_type": print_tensor_type,
                            "print_tensor_shape": print_tensor_shape,
                            "print_tensor_layout": print_tensor_layout,
                            "print_tensor_lod": print_tensor_lod,
                            "print_phase": str(print_phase).upper()})
    return out


# -- sub-blocks: cond, case, switch_case, while_loop (Paddle's legacy static-graph ops) --------

def _flatten(out) -> list:
    """The leaves of a nest of lists, tuples and dicts (a dict's by sorted key, as Paddle's)."""
    if isinstance(out, dict):
        return [v for k in sorted(out) for v in _flatten(out[k])]
    if isinstance(out, (list, tuple)):
        return [v for o in out for v in _flatten(o)]
    return [out]


def _pack(structure, flat: list):
    """flat's items in the nesting of `structure` (lists, tuples and dicts)."""
    items = iter(flat)

    def build(s):
        if isinstance(s, dict):
            return {k: build(s[k]) for k in sorted(s)}
        if isinstance(s, (list, tuple)):
            return type(s)(build(x) for x in s)
        return next(items)
    return build(structure)


def _structure(out):
    """The nesting of `out` with its leaves dropped (lists and tuples alike, as Paddle's
    assert_same_structure with check_types=False)."""
    if isinstance(out, dict):
        return {k: _structure(out[k]) for k in out}
    if isinstance(out, (list, tuple)):
        return [_structure(o) for o in out]
    return None


def _block_vars(block) -> tuple[list[str], list[str]]:
    """(read from outside, written): Paddle's get_inputs_outputs_in_block over one block."""
    reads, written = [], set()
    for op in block.ops:
        reads += [n for n in op.input_arg_names if n not in written]
        written.update(op.output_arg_names)
    return list(dict.fromkeys(reads)), sorted(written)


class _SubBlock:
    """`with _SubBlock(): ...` appends to a new block, child of the current one."""

    def __enter__(self):
        self.program = default_main_program()
        self.block = self.program._create_block()
        return self.block

    def __exit__(self, *exc) -> None:
        self.program._rollback()


def _copy_to_parent(var, block):
    """A var of the parent block assigned the branch's value (copy_var_to_parent_block)."""
    if not isinstance(var, Variable):
        return var
    parent = block.program.block(block.parent_idx)
    out = parent.create_var(name=unique_name.generate("_generated_var"), shape=var.shape,
                            dtype=var.dtype, type=var.type)
    block.append_op("assign", {"X": [var]}, {"Out": [out]})
    return out


def _step_scopes(parent):
    return parent.create_var(name=unique_name.generate("_generated_var"),
                             type=VarType.STEP_SCOPES)


def _conditional_block(pred: Variable, fn):
    """Run fn's ops in a block that a conditional_block op runs when pred holds; fn's outputs
    copied to vars of the parent block."""
    with _SubBlock() as block:
        out = fn()
        out = None if out is None else _pack(out, [_copy_to_parent(v, block)
                                                 for v in _flatten(out)])
    append_conditional_block(block, [pred], is_scalar_condition=True)
    return out


def append_conditional_block(block, conds: list, is_scalar_condition: bool) -> None:
    """The conditional_block op running `block` in its parent (Paddle's
    ConditionalBlock.complete): its Input the outer vars the block reads, its Out the outer
    vars it writes. A scalar condition runs the block when its one value holds; otherwise when
    every Cond var has elements."""
    parent = block.program.block(block.parent_idx)
    reads, written = _block_vars(block)
    parent.append_op("conditional_block",
                     {"Cond": list(conds),
                      "Input": sorted(n for n in reads if not block.has_var(n))},
                     {"Out": [n for n in written if parent._find_var_recursive(n) is not None],
                      "Scope": [_step_scopes(parent)]},
                     {"sub_block": block.idx, "is_scalar_condition": is_scalar_condition})
    _append_grad_block_run(block, conds, is_scalar_condition)


def _append_grad_block_run(block, conds: list, is_scalar_condition: bool) -> None:
    """Paddle's ConditionalBlock.append_conditional_block_grad: where an optimizer minimized in
    `block` (append_backward made a grad block for it, over the block and its ancestors, with
    the updates), a conditional_block_grad on the same condition runs that grad block after
    the block; its Input the outer vars both blocks read, its Input@GRAD their grads the grad
    block makes. Paddle runs the last such grad block only, and so does this."""
    program = block.program
    grads = [b for b in program.blocks if b.forward_block_idx == block.idx]
    if not grads:
        return
    grad, parent = grads[-1], program.block(block.parent_idx)
    reads = [n for b in (block, grad) for n in _block_vars(b)[0]
             if parent._find_var_recursive(n) is not None]
    inputs = sorted(set(reads))
    outs = []
    for n in inputs:
        if not grad.has_var(grad_name(n)):
            outs.append(EMPTY_VAR)
            continue
        var = parent._find_var_recursive(n)
        outs.append(parent.create_var(name=grad_name(n), shape=var.shape, dtype=var.dtype).name)
    with op_role_guard(OpRole.Backward):
        parent.append_op("conditional_block_grad", {"Cond": list(conds), "Input": inputs},
                         {"Input@GRAD": outs},
                         {"sub_block": grad.idx, "is_scalar_condition": is_scalar_condition})


def _check_pred(pred, what: str, api: str) -> None:
    if not isinstance(pred, Variable):
        raise ArgumentTypeError(f"The type of '{what}' in {api} must be Variable, but received "
                                f"{type(pred).__name__}.")
    if pred.dtype != VarType.BOOL:
        raise ArgumentTypeError(f"The data type of '{what}' in {api} must be bool, but "
                                f"received {dtype_name(pred.dtype)}.")


def _eager(pred) -> bool:
    return getattr(pred.block.program, "eager", False)


def _eager_while(cond, body, loop_vars: list, now) -> list:
    while bool(now):
        outs = body(*loop_vars)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        if _structure(outs) != _structure(loop_vars):
            raise ArgumentValueError(f"body in while_loop should return the same arity (length "
                                     f"and structure) as loop_vars: body returns "
                                     f"{_structure(outs)}, loop_vars are "
                                     f"{_structure(loop_vars)}")
        loop_vars, now = outs, cond(*outs)
    return loop_vars


def cond(pred: Variable, true_fn=None, false_fn=None, name=None, return_names=None):
    """true_fn() if pred else false_fn(), as two conditional_blocks (the second on
    logical_not(pred)) joined by select_input on cast(pred, int32), as Paddle builds it."""
    _check_pred(pred, "pred", "paddle.static.nn.cond")
    if name is not None and not isinstance(name, str):
        raise ArgumentTypeError(f"The type of 'name' in base.layers.cond must be str or None, "
                                f"but received {type(name).__name__}.")
    if int(np.prod(pred.shape)) != 1:
        raise ArgumentTypeError(f"cond: pred must hold one bool, its shape is {list(pred.shape)}")
    outs = []
    for fn, which in ((true_fn, "true_fn"), (false_fn, "false_fn")):
        if fn is not None and not callable(fn):
            raise ArgumentTypeError(f"The {which} in cond must be callable, but received "
                                    f"{type(fn).__name__}")
    if _eager(pred):  # dygraph: Python's if, as Paddle's cond runs there
        fn = true_fn if bool(pred) else false_fn
        return fn() if fn is not None else None
    true_out = _conditional_block(pred, true_fn) if true_fn is not None else None
    if false_fn is not None:
        helper = LayerHelper("logical_not")
        not_pred = helper.create_variable_for_type_inference(VarType.BOOL, stop_gradient=True)
        helper.append_op("logical_not", {"X": [pred]}, {"Out": [not_pred]})
        false_out = _conditional_block(not_pred, false_fn)
    else:
        false_out = None
    if true_out is None and false_out is None:
        return None
    if true_out is None or false_out is None:
        raise ValueError(f"Incompatible return values of true_fn and false_fn in cond: true_fn "
                         f"returns {'None' if true_out is None else 'non-None'} while false_fn "
                         f"returns {'None' if false_out is None else 'non-None'}")
    trues, falses = _flatten(true_out), _flatten(false_out)
    if len(trues) != len(falses):
        raise ValueError(f"true fn returns {len(trues)} vars, but false fn returns "
                         f"{len(falses)} vars, which is not equals")
    if _structure(true_out) != _structure(false_out):
        raise ValueError(f"Incompatible return values of true_fn and false_fn in cond: they "
                         f"differ in structure: {_structure(true_out)} and "
                         f"{_structure(false_out)}")
    mask = cast(pred, "int32")
    for t, f in zip(trues, falses):
        if isinstance(t, Variable) != isinstance(f, Variable) or (
                not isinstance(t, Variable) and t != f):
            raise ValueError(f"Incompatible return values in true_fn and false_fn in cond: "
                             f"{t!r} and {f!r}")
        if isinstance(t, Variable):
            if len(f.shape) != len(t.shape):
                warnings.warn(f"the input shapes of select_input should have the same rank, "
                              f"but get {list(f.shape)}, {list(t.shape)}")
            helper = LayerHelper("select_input")
            out = helper.create_variable(name=unique_name.generate("_generated_var"),
                                         dtype=t.dtype,
                                         shape=merged_shape([f.shape, t.shape]))
            helper.append_op("select_input", {"X": [f, t], "Mask": [mask]}, {"Out": [out]})
            outs.append(out)
        else:
            outs.append(t)
    return _pack(false_out, outs)


def case(pred_fn_pairs, default=None, name=None):
    """The fn of the first pair whose pred holds, else default (the last pair's fn if None):
    nested conds."""
    if not isinstance(pred_fn_pairs, (list, tuple)):
        raise ArgumentTypeError(f"The type of 'pred_fn_pairs' in case must be list or tuple, "
                                f"but received {type(pred_fn_pairs).__name__}.")
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple):
            raise ArgumentTypeError(f"The elements' type of 'pred_fn_pairs' in case must be "
                                    f"tuple, but received {type(pair).__name__}.")
        if len(pair) != 2:
            raise ArgumentTypeError(f"The tuple's size of 'pred_fn_pairs' in case must be 2, "
                                    f"but received {len(pair)}-tuple.")
        _check_pred(pair[0], "pred", "paddle.static.nn.case")
        if not callable(pair[1]):
            raise ArgumentTypeError("The fn of pred_fn_pairs in Op(case) must be callable.")
    pairs = list(pred_fn_pairs)
    if default is None:
        default = pairs.pop()[1]
    elif not callable(default):
        raise ArgumentTypeError("The default in Op(case) must be callable.")
    fn = default
    for pred, true_fn in reversed(pairs):
        fn = functools.partial(cond, pred, true_fn, fn)
    return fn()


def switch_case(branch_index: Variable, branch_fns, default=None, name=None):
    """The fn keyed by branch_index's value, else default (the largest key's if None)."""
    if not isinstance(branch_index, Variable):
        raise ArgumentTypeError(f"The type of 'branch_index' in static.nn.switch_case must be "
                                f"Variable, but received {type(branch_index).__name__}.")
    if dtype_name(branch_index.dtype) not in ("uint8", "int32", "int64"):
        raise ArgumentTypeError(f"The data type of 'branch_index' in static.nn.switch_case must "
                                f"be uint8, int32 or int64, but received "
                                f"{dtype_name(branch_index.dtype)}.")
    if branch_index.dtype != VarType.INT64:
        branch_index = cast(branch_index, "int64")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise ArgumentTypeError(f"The type of 'branch_fns' in switch_case must be list, tuple "
                                f"or dict, but received {type(branch_fns).__name__}.")
    fns = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(f) for f in fns):
        fns = list(enumerate(fns))
    keys = set()
    for pair in fns:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise ArgumentTypeError(f"The elements of 'branch_fns' in switch_case must be "
                                    f"(int, callable) tuples, but received {pair!r:.60}.")
        key, fn = pair
        if not isinstance(key, int):
            raise ArgumentTypeError(f"The key's type of 'branch_fns' in switch_case must be int, "
                                    f"but received {type(key).__name__}.")
        if key in keys:
            raise ArgumentValueError(f"The key in 'branch_fns' must be unique, but '{key}' "
                                     f"appears more than once.")
        keys.add(key)
        if not callable(fn):
            raise ArgumentTypeError(f"The type of function for key {key} of 'branch_fns' in "
                                    f"switch_case must be callable, but received "
                                    f"{type(fn).__name__}.")
    fns = sorted(fns, key=lambda p: p[0])
    if default is None:
        default = fns.pop()[1]
    elif not callable(default):
        raise ArgumentTypeError("The default in Op(case) must be callable.")
    fn = default
    for key, true_fn in fns:
        helper = LayerHelper("equal")
        index = fill_constant([1], "int64", key)
        pred = helper.create_variable_for_type_inference(VarType.BOOL)
        helper.append_op("equal", {"X": [branch_index], "Y": [index]}, {"Out": [pred]},
                         {"axis": -1})
        fn = functools.partial(cond, pred, true_fn, fn)
    return fn()


def while_loop(cond, body, loop_vars, is_test: bool = False, name=None):
    """Run body(*loop_vars) while cond(*loop_vars) holds: a `while` op over a block holding
    body's ops, which assigns the new values to the loop vars and the condition in place."""
    if not callable(cond):
        raise ArgumentTypeError("cond in while_loop should be callable")
    if not callable(body):
        raise ArgumentTypeError("body in while_loop should be callable")
    if not isinstance(loop_vars, (list, tuple)):
        raise ArgumentTypeError(f"The type of 'loop_vars' in static.nn.while_loop must be list "
                                f"or tuple, but received {type(loop_vars).__name__}.")
    if len(loop_vars) == 0:
        raise ArgumentValueError("loop_vars in while_loop should not be empty")
    if tracing_to_static():
        # As in dygraph (and Paddle's PIR programs), the loop updates vars of its own: the
        # tensors it starts from keep their values for the body and code after the loop to
        # read. A legacy static while_loop assigns its loop vars in place, as Paddle's does.
        # (Tensor arrays stay shared.)
        loop_vars = _pack(list(loop_vars), [
            assign(v) if isinstance(v, Variable) and v.type != VarType.LOD_TENSOR_ARRAY else v
            for v in _flatten(loop_vars)])
    pre_cond = cond(*loop_vars)
    _check_pred(pre_cond, "var of cond returned", "static.nn.while_loop")
    if int(np.prod(pre_cond.shape)) != 1:
        raise ArgumentTypeError(f"the shape of the variable returned by cond should be [1],but "
                                f"given shape as {list(pre_cond.shape)}.")
    if _eager(pre_cond):  # dygraph: Python's while, as Paddle's while_loop runs there
        return _eager_while(cond, body, list(loop_vars), pre_cond)
    with _SubBlock() as block:
        # body gets copies of the lists and dicts: what it changes in them is its output, the
        # loop vars keep their structure (and the vars of this block, which run() fetches)
        outs = body(*_pack(list(loop_vars), _flatten(loop_vars)))
        if not isinstance(outs, (list, tuple)):
            outs = [outs]
        if _structure(list(outs)) != _structure(list(loop_vars)):
            raise ArgumentValueError(f"body in while_loop should return the same arity (length "
                                     f"and structure) as loop_vars: body returns "
                                     f"{_structure(list(outs))}, loop_vars are "
                                     f"{_structure(list(loop_vars))}")
        now = cond(*outs)
        for new, old in zip(_flatten(outs), _flatten(loop_vars)):
            if isinstance(new, Variable) and new is not old:
                block.append_op("assign", {"X": [new]}, {"Out": [old]})
        block.append_op("assign", {"X": [now]}, {"Out": [pre_cond]})
    _append_while(block, pre_cond, is_test)
    return list(loop_vars)


def _append_while(block, cond: Variable, is_test: bool) -> None:
    """The `while` op running `block` while `cond` holds, in the block's parent: X the vars
    it reads from outside and the parent's vars it writes (Out, the condition first)."""
    parent = block.program.block(block.parent_idx)
    reads, written = _block_vars(block)
    outs = [n for n in dict.fromkeys([cond.name] + written)
            if parent._find_var_recursive(n) is not None]
    xs = sorted((set(n for n in reads if not block.has_var(n)) | set(outs)) - {cond.name})
    parent.append_op("while", {"X": xs, "Condition": [cond]},
                     {"Out": outs, "StepScopes": [_step_scopes(parent)]},
                     {"sub_block": block.idx, "is_test": bool(is_test)})


class While:
    """fluid.layers.While / paddle.static.nn.control_flow.While: `with w.block(): ...` appends
    the ops of a loop body, run while `cond` (a one-element bool var the body assigns anew)
    holds."""

    def __init__(self, cond: Variable, is_test: bool = False, name: str | None = None) -> None:
        _check_pred(cond, "cond", "static.nn.While")
        if int(np.prod(cond.shape)) != 1:
            raise ArgumentTypeError(f"condition expected shape as [1], but given shape as "
                                    f"{list(cond.shape)}.")
        self.cond_var = cond
        self.is_test = is_test

    @contextlib.contextmanager
    def block(self):
        with _SubBlock() as block:
            yield
        _append_while(block, self.cond_var, self.is_test)


# Paddle 1.x's fluid.layers.control_flow also held StaticRNN, IfElse, DynamicRNN, the tensor
# arrays and their LoD ops (`from paddle.fluid.layers.control_flow import lod_rank_table`);
# fluidc defines them in modules of their own, which import this one.
_ALSO_HERE = ("static_rnn", "ifelse", "dynamic_rnn", "tensor_array")


def __getattr__(name: str):
    import importlib
    for module in _ALSO_HERE:
        found = getattr(importlib.import_module(f"{__package__}.{module}"), name, None)
        if found is not None and not name.startswith("_"):
            return found
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
