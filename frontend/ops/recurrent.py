"""StaticRNN's ops (Paddle 1.x fluid.layers.StaticRNN): `recurrent`, which runs its step block
once per entry of dim 0 of its `inputs` (each step block sees one slice under the input's
name), carrying the `ex_states` vars of the block (the previous step's memories, the
`initial_states` at the first step) from its `states` vars, and stacks each step's `outputs`
vars along dim 0; `recurrent_grad`; and `rnn_memory_helper`, the copy StaticRNN appends for
each step output and new memory.

Both recurrent ops are kind 'control' (runtime/recurrent.py runs them, one compiled plan for
the step block, as a while body); the output shapes come from the step block
(passes/recurrent.py).
"""
from __future__ import annotations

from ..dtypes import VarType
from .define import pointwise
from .registry import OpDef, OpDesc, grad_name, register, slots

RECURRENT_ATTRS = {"sub_block": 0, "ex_states": [], "states": [], "reverse": False,
                   "is_train": True, "has_states": False}


def _declared(ins, a):
    """The layer declares the outputs' shapes (passes/recurrent.py infers concrete ones)."""
    return {}


def _recurrent_grad(op: OpDesc) -> list[OpDesc]:
    """recurrent_grad over the op's inputs, outputs and the outputs' grads; its sub_block names
    the step block here, and passes/backward.py replaces it with the grad block it builds."""
    ins = {slot: op.inputs.get(slot, []) for slot in ("inputs", "initial_states", "parameters")}
    outs = op.outputs.get("outputs", [])
    return [OpDesc("recurrent_grad",
                   {**{k: list(v) for k, v in ins.items() if v}, "outputs": list(outs),
                    "outputs@GRAD": [grad_name(n) for n in outs]},
                   {f"{k}@GRAD": [grad_name(n) for n in v] for k, v in ins.items() if v},
                   dict(op.attrs))]


register(OpDef("recurrent", slots("inputs*?", "initial_states*?", "parameters*?"),
               slots("outputs*?", "step_scopes?"), RECURRENT_ATTRS, _declared, "control",
               grad=_recurrent_grad))
register(OpDef("recurrent_grad",
               slots("inputs*?", "initial_states*?", "parameters*?", "outputs*?",
                     "outputs@GRAD*?", "step_scopes?"),
               slots("inputs@GRAD*?", "initial_states@GRAD*?", "parameters@GRAD*?"),
               RECURRENT_ATTRS, _declared, "control"))

pointwise("rnn_memory_helper", ["X"], ["Out"], lambda o, i, a: {"Out": i["X"]},
          {"dtype": int(VarType.FP32)},
          grad=lambda op: [OpDesc("rnn_memory_helper_grad",
                                  {"Out@GRAD": [grad_name(op.output("Out")[0])],
                                   "X": op.input("X"), "Out": op.output("Out")},
                                  {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))])
# Paddle's grad op (X and Out are its inputs too, only Out@GRAD is read); without an Out@GRAD
# value (none was made) X@GRAD is zeros, as in Paddle
pointwise("rnn_memory_helper_grad", ["Out@GRAD?", "X", "Out"], ["X@GRAD"],
          lambda o, i, a: {"X@GRAD": i["Out@GRAD"] if "Out@GRAD" in i
                           else o.constant(0, i["X"].dtype)},
          {"dtype": int(VarType.FP32)})
