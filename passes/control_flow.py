"""Sub-blocks for the compiler: a block as a program of its own, what it reads from outside, and
the concrete shapes of a control-flow op's outputs (inferred through its block)."""
from __future__ import annotations

import copy
import re

from ..frontend.errors import OpError, ShapeError
from ..frontend.framework import Block, Operator, Program
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.control_flow import BLOCK_ATTR
from ..frontend.ops.registry import EMPTY_VAR, grad_name
from .recurrent import infer_recurrent

# Outputs naming a scope (Paddle keeps a sub-block's locals there); fluidc's plans hold none.
_SCOPE_SLOTS = ("Scope", "StepScopes", "step_scopes")


class BlockRef:
    """A Block held in a lowered op's attrs: copies of the op share it (never deep-copied)."""

    def __init__(self, block: Block) -> None:
        self.block = block

    def __deepcopy__(self, memo) -> "BlockRef":
        return self


def unversioned(name: str) -> str:
    """The var a version made by pipeline.version_writes (`x@@v2`) is a value of; a version's
    own grad (`x@@v2@GRAD`, in a loop's grad block) is a var of its own."""
    return _VERSION.sub("", name)


_VERSION = re.compile(r"@@v\d+$")


def has_sub_blocks(program: Program) -> bool:
    return program.num_blocks > 1


def attach_blocks(ops: list[OpDesc], program: Program) -> list[OpDesc]:
    """Copies of the control-flow ops holding their sub-block (BLOCK_ATTR), without the
    scope outputs; other ops as they are."""
    out = []
    for op in ops:
        if get_op_def(op.type).kind == "control":
            op = OpDesc(op.type, dict(op.inputs),
                        {k: v for k, v in op.outputs.items() if k not in _SCOPE_SLOTS},
                        {**op.attrs, BLOCK_ATTR: BlockRef(program.block(op.attrs["sub_block"]))})
            for slot in _SCOPE_SLOTS:
                op.inputs.pop(slot, None)
            if op.type == "while_grad":
                counters = restored_counters(op)
                if counters:
                    op.outputs[COUNTERS] = counters
            if op.type == "conditional_block_grad":
                updates = updated_persistables(op)
                if updates:
                    op.outputs[UPDATES] = updates
        out.append(op)
    return out


# The output slot through which a lowered while_grad gives back the counters it restores.
COUNTERS = "Counters"
# The output slot through which a lowered conditional_block_grad lists the persistables its
# grad block updates in place (an optimizer minimizing in the branch): the op is then kept,
# and ordered after the ops reading their values before.
UPDATES = "Updates"


def updated_persistables(op: OpDesc) -> list[str]:
    """The persistables of the program's global block that a conditional_block_grad's grad
    block writes (the parameters and accumulators of an optimizer minimizing in its branch,
    which that grad block holds, as Paddle's)."""
    block = sub_block(op)
    glob = block.program.global_block()
    return sorted({n for o in block.ops for n in o.output_arg_names
                   if not block.has_var(n) and glob.has_var(n) and glob.var(n).persistable})


def restored_counters(op: OpDesc) -> list[str]:
    """The loop vars of a while_grad that its forward body (or a block nested in it)
    increments in place: the arrays' indices. Paddle's grad block undoes each such increment
    (increment's grad op: the same increment negated, on the outer var), so after the
    while_grad the counter holds its value from before the loop again, and grad ops of ops
    before the loop index arrays where those ops did. A lowered while_grad writes them."""
    loop = {unversioned(n) for n in op.inputs.get("X", [])} & \
        {unversioned(n) for n in op.inputs.get("Out", [])}
    incremented = incremented_in_place(forward_block(op))
    return [n for n in dict.fromkeys(unversioned(x) for x in op.inputs.get("X", []))
            if n in loop and n in incremented]


def incremented_in_place(block: Block) -> set[str]:
    """The vars an in-place increment of the block, or of a block nested in it, updates (the
    counters indexing tensor arrays)."""
    return {op.input("X")[0] for b in _nested(block) for op in b.ops
            if op.type == "increment" and op.input("X") == op.output("Out")}


# The input slot through which a control-flow op whose block may not run (a branch not
# taken, a loop run no times) reads the vars it writes.
KEPT_SLOTS = {"conditional_block": "Input", "while": "X"}


def read_kept_outputs(ops: list[OpDesc], defined: set[str]) -> list[OpDesc]:
    """A conditional_block whose branch is not taken, or a while loop run no times, leaves the
    vars its block writes as they were (Paddle's scope keeps them). Each output of such an op
    that holds a value before it (in `defined`, or written by an earlier op) is made an input of
    the op too, so its value before the op reaches the op's output (another version of the var
    once writes are versioned) when the block does not write it."""
    held, out = set(defined), []
    for op in ops:
        slot = KEPT_SLOTS.get(op.type)
        if slot is not None:
            reads = set(op.input_arg_names)
            kept = [n for n in dict.fromkeys(op.output_arg_names)
                    if n in held and n not in reads and n != EMPTY_VAR]
            if kept:
                op = op.copy()
                op.inputs[slot] = list(op.inputs.get(slot, [])) + kept
        held.update(op.output_arg_names)
        out.append(op)
    return out


def sub_block(op: OpDesc) -> Block:
    """The block a lowered control-flow op runs."""
    return op.attrs[BLOCK_ATTR].block


def _visible(block: Block) -> list[Block]:
    """The blocks whose vars `block` sees, outermost first: its ancestors and, for a grad
    block, those its forward block sees (a grad block nested in another reads the values
    the outer grad block's forward block made)."""
    chain = [block]
    while chain[-1].parent_idx >= 0:
        chain.append(chain[-1].program.block(chain[-1].parent_idx))
    out = []
    for b in reversed(chain):
        if b.forward_block_idx >= 0:
            out += _visible(b.program.block(b.forward_block_idx))
        out.append(b)
    return list({b.idx: b for b in out}.values())


def _nested(block: Block) -> list[Block]:
    """block and every block its ops' sub_block attributes reach."""
    out = [block]
    for b in out:
        out += [b.program.block(op.attr("sub_block")) for op in b.ops
                if get_op_def(op.type).kind == "control"]
    return out


def outer_reads(block: Block) -> list[str]:
    """Vars the block's ops (and those of its nested blocks) read that it does not declare:
    the values it takes from outside, in first-read order."""
    blocks = _nested(block)
    local = {n for b in blocks for n in b.vars}
    reads = [n for b in blocks for op in b.ops for n in op.input_arg_names]
    return [n for n in dict.fromkeys(reads) if n not in local and n != EMPTY_VAR]


def outer_kept(block: Block) -> list[str]:
    """Vars from outside the block that a control-flow op in it (or in its nested blocks)
    writes and may leave as they were (read_kept_outputs)."""
    blocks = _nested(block)
    local = {n for b in blocks for n in b.vars}
    writes = [n for b in blocks for op in b.ops if op.type in KEPT_SLOTS
              for n in op.output_arg_names]
    return [n for n in dict.fromkeys(writes) if n not in local and n != EMPTY_VAR]


def block_program(block: Block, prefix: list[Block] = (),
                  feeds: list[str] = ()) -> tuple[Program, dict[str, str]]:
    """The block as a program of its own: its ops (after the ops of `prefix` blocks, which it
    reads) in the global block, which declares every var they see; nested blocks keep their
    indices, so the ops' sub_block attributes still name them. Returns it and the name each of
    `feeds` is fed under (ops_program)."""
    return ops_program(_visible(block) + list(prefix),
                       [op.desc for b in list(prefix) + [block] for op in b.ops], feeds)


def ops_program(scopes: list[Block], ops: list[OpDesc],
                feeds: list[str] = ()) -> tuple[Program, dict[str, str]]:
    """`ops` as the global block of a program of their own, which declares every var of the
    `scopes` blocks; the program's other blocks are those of the scopes' program. Returns it
    and the name each of `feeds` is fed under: a var the ops also write (a loop var) is fed as
    `<name>@FED` and assigned to its name first, since a fed var's own writers would be pruned
    away."""
    program = scopes[0].program
    p = Program()
    p._seed = program.random_seed
    g = p.global_block()
    for b in scopes:
        for name, v in b.vars.items():
            nv = copy.copy(v)
            nv.block, nv.need_check_feed = g, False
            g.vars[name] = nv
    written = {n for op in ops for n in op.output_arg_names}
    fed = {n: f"{n}@FED" if n in written else n for n in feeds}
    for name in fed:  # a fed persistable (a while_grad's iteration value) is not the scope's
        g.vars[name].persistable = False
    entry = []
    for name, alias in fed.items():
        if alias != name:
            g.vars[alias] = copy.copy(g.vars[name])
            g.vars[alias].name = alias
            entry.append(Operator(g, OpDesc("assign", {"X": [alias]}, {"Out": [name]},
                                            get_op_def("assign").complete_attrs({}))))
    g.ops = entry + [Operator(g, op) for op in ops]
    p.blocks = [g] + program.blocks[1:]
    p._bump()
    return p, fed


class BranchShapes(OpError):
    """Raised by concrete inference at a select_input whose branches give different shapes:
    its output's shape is known only once a branch ran. `op` is the op of the inferred block
    that holds it (the select_input, or the control-flow op whose block nests it); the
    executor then runs the program in stages split at that op (runtime/staged.py)."""

    def __init__(self, message: str, op: OpDesc) -> None:
        super().__init__(message)
        self.op = op


def check_branch_shapes(op: OpDesc, infos: dict[str, VarInfo]) -> None:
    """Raise BranchShapes when select_input's inputs have different concrete shapes."""
    shapes = sorted({tuple(infos[n].shape) for n in op.input("X")})
    if len(shapes) > 1:
        raise BranchShapes(f"op 'select_input': the branches give shapes {shapes} for "
                           f"'{op.output('Out')[0]}'; its shape is the taken branch's", op)


_GRAD_INPUTS = {"conditional_block_grad": ("Input",), "while_grad": ("X",),
                "recurrent_grad": ("inputs", "initial_states", "parameters")}


def infer_control(op: OpDesc, infos: dict[str, VarInfo], infer_op) -> None:
    """Record the concrete infos of a lowered control-flow op's outputs, inferring its block
    over the infos of its inputs with `infer_op` (passes.lower's)."""
    block = sub_block(op)
    inner = {unversioned(n): infos[n] for n in op.input_arg_names if n in infos}
    if op.type in _GRAD_INPUTS:  # each grad is of its input's shape
        for slot in _GRAD_INPUTS[op.type]:
            for n, g in zip(op.inputs.get(slot, []), op.outputs.get(slot + "@GRAD", [])):
                if g != EMPTY_VAR:
                    infos[g] = infos[n]
        for n in op.outputs.get(COUNTERS, []) + op.outputs.get(UPDATES, []):
            # a restored counter: its loop var's; an updated persistable: its own
            infos[n] = inner[unversioned(n)]
        return
    if op.type == "recurrent":
        infer_recurrent(op, infos, lambda inner: infer_block(block, inner, infer_op),
                        unversioned)
        return
    start = dict(inner)
    try:
        infer_block(block, inner, infer_op)
    except BranchShapes:
        # a loop's body whose branches differ in shape: its loop vars keep their shapes, and
        # its own plan is staged when it runs
        if op.type != "while" or any(unversioned(n) not in start for n in op.output_arg_names):
            raise
        inner = start
    for n in op.output_arg_names:
        name = unversioned(n)
        if name not in inner:
            raise OpError(f"op '{op.type}' lists output '{name}', which its block "
                          f"{block.idx} does not write")
        if op.type == "while" and name in start and inner[name].shape != start[name].shape:
            raise ShapeError(f"while_loop: loop var '{name}' enters the body with shape "
                             f"{list(start[name].shape)} and leaves it with "
                             f"{list(inner[name].shape)}; fluidc compiles a loop body for fixed "
                             f"shapes, so a loop var must keep its shape")
        infos[n] = inner[name]


def infer_block(block: Block, infos: dict[str, VarInfo], infer_op) -> None:
    """Infer every op of the block in order into infos (nested control flow included)."""
    for op in attach_blocks([o.desc for o in block.ops], block.program):
        infer_op(op, infos)


def forward_block(op: OpDesc) -> Block:
    """The forward block of a lowered conditional_block_grad: its grad block's
    forward_block_idx, else that of the conditional_block in the parent block that writes the
    Out the grad op reads."""
    grad = sub_block(op)
    if grad.forward_block_idx >= 0:
        return grad.program.block(grad.forward_block_idx)
    parent = grad.program.block(grad.parent_idx)
    outs = [unversioned(n) for n in op.inputs.get("Out", [])]
    for fwd in parent.ops:
        if fwd.type == "conditional_block" and fwd.output("Out") == outs:
            return grad.program.block(fwd.attr("sub_block"))
    raise OpError(f"conditional_block_grad of outputs {outs}: block {parent.idx} has no "
                  f"conditional_block writing them")


def grad_block_inputs(op: OpDesc) -> list[tuple[str, str]]:
    """(input x, outer Input@GRAD var) of a conditional_block_grad, for each x whose grad it
    gives; x by its name in the block."""
    return [(unversioned(n), g) for n, g in
            zip(op.input("Input"), op.outputs.get("Input@GRAD", [])) if g != EMPTY_VAR]


def grad_block_outputs(op: OpDesc) -> list[tuple[str, str]]:
    """(outer Input@GRAD var, the grad block's var) pairs of a conditional_block_grad: the
    block computes x@GRAD for each input x, the op hands it to the (renamed) outer var."""
    return [(g, grad_name(x)) for x, g in grad_block_inputs(op)]
