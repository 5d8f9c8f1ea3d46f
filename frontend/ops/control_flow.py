"""Control flow: ops that run a sub-block of their program (conditional_block, while) and the
ops that join branch values (select_input, select_output), under Paddle's names and slots.

A control-flow op's kind is 'control': the runtime runs it on the host, each sub-block compiled
as a plan of its own (runtime/control_flow.py). Its outputs keep the shapes the layer declared
when it is appended; concrete shapes come from the sub-block (passes/control_flow.py).
"""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import OpError
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

# Set on lowered copies of control-flow ops: the Block their sub_block attribute names.
BLOCK_ATTR = "__block__"
# Attributes holding a block index, written with ProgramDesc's BLOCK type.
BLOCK_ATTRS = ("sub_block",)
CONTROL_OPS = ("conditional_block", "conditional_block_grad", "while", "while_grad")


def _declared(ins: dict[str, list[VarInfo]], a: dict) -> dict[str, list[VarInfo]]:
    """No inference at append time: the layer declares the outputs' shapes."""
    return {}


def _cond_grad(op: OpDesc) -> list[OpDesc]:
    """conditional_block_grad over the forward op's inputs, outputs and their grads; its
    sub_block names the forward block here, and passes/backward.py replaces it with the grad
    block it builds (linked to the forward block by forward_block_idx), as Paddle's backward."""
    outs = op.outputs.get("Out", [])
    ins = {"Cond": op.input("Cond"), "Input": op.inputs.get("Input", []), "Out": outs,
           "Out@GRAD": [grad_name(n) for n in outs], "Scope": op.outputs.get("Scope", [])}
    attrs = {k: op.attrs[k] for k in _COND_ATTRS if k in op.attrs}
    return [OpDesc("conditional_block_grad", {k: list(v) for k, v in ins.items() if v},
                   {"Input@GRAD": [grad_name(n) for n in op.inputs.get("Input", [])]}, attrs)]


def _while_grad(op: OpDesc) -> list[OpDesc]:
    """while_grad over the forward op's inputs, outputs and the outputs' grads (the loop
    condition has none); as for conditional_block_grad, passes/backward.py replaces its
    sub_block with the grad block it builds from the body. Each X@GRAD is the grad of the
    value X had when the loop began: a loop var's carried back through the iterations, another
    input's summed over them."""
    cond = set(op.input("Condition"))
    outs = [n for n in op.outputs.get("Out", []) if n not in cond]
    ins = {"X": op.inputs.get("X", []), "Out": outs, "Out@GRAD": [grad_name(n) for n in outs],
           "StepScopes": op.outputs.get("StepScopes", [])}
    return [OpDesc("while_grad", {k: list(v) for k, v in ins.items() if v},
                   {"X@GRAD": [grad_name(n) for n in op.inputs.get("X", [])]},
                   {"sub_block": op.attrs["sub_block"],
                    "original_output_grad": [grad_name(n) for n in outs],
                    "is_test": bool(op.attrs.get("is_test", False))})]


# skip_eager_deletion_vars: the vars Paddle's garbage collector keeps for the grad block; plans
# free nothing a later step reads, so it changes nothing here.
_COND_ATTRS = {"sub_block": 0, "is_scalar_condition": False, "skip_eager_deletion_vars": []}
register(OpDef("conditional_block", slots("Cond*", "Input*?"), slots("Out*?", "Scope?"),
               _COND_ATTRS, _declared, "control",
               grad=_cond_grad))
register(OpDef("conditional_block_grad",
               slots("Cond*", "Input*?", "Out*?", "Out@GRAD*?", "Scope?"),
               slots("Input@GRAD*?"), _COND_ATTRS,
               _declared, "control"))
register(OpDef("while", slots("X*?", "Condition"), slots("Out*?", "StepScopes?"),
               {"sub_block": 0, "is_test": False, "skip_eager_deletion_vars": []}, _declared,
               "control", grad=_while_grad))
register(OpDef("while_grad", slots("X*?", "Out*?", "Out@GRAD*?", "StepScopes?"),
               slots("X@GRAD*?"),
               {"sub_block": 0, "is_test": False, "skip_eager_deletion_vars": [],
                "original_output_grad": []}, _declared, "control"))


def branch_taken(mask) -> int:
    """The branch a select op's Mask (an int32 [1] tensor) names."""
    return int(mask.reshape(-1)[0])


def merged_shape(shapes: list[tuple]) -> tuple:
    """The declared shape of a value joining branches of these shapes (select_input's X
    order), as Paddle merges them: a dim the branches disagree on is -1; with ranks that
    differ, the last shape. Which shape it has is known once a branch ran (runtime/staged.py)."""
    first = tuple(shapes[0])
    if any(len(s) != len(first) for s in shapes):
        return tuple(shapes[-1])
    return tuple(d if all(s[i] == d for s in shapes) else -1 for i, d in enumerate(first))


def _select_input_infer(ins: dict[str, list[VarInfo]], a: dict) -> dict[str, list[VarInfo]]:
    x = ins["X"][0]
    return {"Out": [VarInfo(merged_shape([i.shape for i in ins["X"]]), x.dtype, x.lod_level)]}


def _select_input_run(ins, outs, a, rng) -> None:
    outs["Out"][0].copy_(ins["X"][branch_taken(ins["Mask"][0])])


def _select_input_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("select_output", {"X": [grad_name(op.output("Out")[0])],
                                     "Mask": op.input("Mask")},
                   {"Out": [grad_name(n) for n in op.input("X")]}, {})]


# select_output's output count is its op's, which infer does not see: it gives X's info this
# many times and the outputs take the first ones (cond has two branches; case nests conds).
_MAX_BRANCHES = 64


def _select_output_infer(ins: dict[str, list[VarInfo]], a: dict) -> dict[str, list[VarInfo]]:
    return {"Out": [ins["X"][0]] * _MAX_BRANCHES}


def _select_output_run(ins, outs, a, rng) -> None:
    """X goes to the output the mask names; the others are left alone (their branch is not
    run, so nothing reads them), as in Paddle."""
    target = outs["Out"][branch_taken(ins["Mask"][0])]
    if target is not None:
        target.copy_(ins["X"][0])


def _select_output_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("select_input", {"X": [grad_name(n) for n in op.output("Out")],
                                    "Mask": op.input("Mask")},
                   {"Out": [grad_name(op.input("X")[0])]}, {})]


def _select_input_ref(ins, a):
    return {"Out": [np.asarray(ins["X"][branch_taken(np.asarray(ins["Mask"][0]))])]}


def _select_output_ref(ins, a):
    """The named output gets X; the others zeros (the reference has no stale buffers)."""
    k = branch_taken(np.asarray(ins["Mask"][0]))
    x = np.asarray(ins["X"][0])
    return {"Out": [x if i == k else np.zeros_like(x) for i in range(_MAX_BRANCHES)]}


register(OpDef("select_input", slots("X*", "Mask"), slots("Out"), {}, _select_input_infer,
               "extern", reference=_select_input_ref, run=_select_input_run,
               grad=_select_input_grad))
register(OpDef("select_output", slots("X", "Mask"), slots("Out*"), {}, _select_output_infer,
               "extern", reference=_select_output_ref, run=_select_output_run,
               grad=_select_output_grad))


def is_true(cond: torch.Tensor | np.ndarray, scalar: bool, op: str) -> bool:
    """A control-flow op's condition: a one-element bool tensor (is_scalar_condition), else
    true when every Cond tensor has elements (Paddle's rule for non-scalar conditions)."""
    size = cond.size if isinstance(cond, np.ndarray) else cond.numel()
    if not scalar:
        return size > 0
    if size != 1:
        raise OpError(f"op '{op}': its condition has {size} elements; it must hold one bool")
    return bool(cond.reshape(-1)[0])
