"""fluid.layers.IfElse (Paddle 1.x) and its ops' layers, split_lod_tensor / merge_lod_tensor:
rows (or LoD sequences) of a batch go through one of two blocks by a per-row bool condition;
and ConditionalBlock, the block-and-op pair IfElse is made of.

`ie.input(x)` splits x by the condition (split_lod_tensor, appended to the parent block once
per x); each block is a conditional_block on the condition (not a scalar: Paddle runs it
whenever the condition has elements, so a block may see parts of no rows); `ie.output(v)`
assigns v to a var of the parent block, and `ie()` merges the two blocks' outputs back into
the batch's order (merge_lod_tensor). Programs holding these ops run on the reference
executor (the parts' row counts depend on the condition's values).
"""
from __future__ import annotations

import contextlib

from .. import unique_name
from ..framework import Variable
from .control_flow import _SubBlock, append_conditional_block
from .helper import LayerHelper, check_type


def split_lod_tensor(input, mask, level: int = 0):
    """(the units of input where mask holds, those where it does not); a unit is a sequence of
    LoD level `level`, or a row where input has no LoD."""
    check_type(input, "input", Variable, "split_lod_tensor")
    check_type(mask, "mask", Variable, "split_lod_tensor")
    check_type(level, "level", int, "split_lod_tensor")
    helper = LayerHelper("split_lod_tensor")
    out_true = helper.create_variable_for_type_inference(input.dtype)
    out_false = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("split_lod_tensor", {"X": [input], "Mask": [mask]},
                     {"OutTrue": [out_true], "OutFalse": [out_false]}, {"level": level})
    return out_true, out_false


def merge_lod_tensor(in_true, in_false, x, mask, level: int = 0):
    """in_true's and in_false's units put back in x's order: unit i from in_true where
    mask[i] holds, else from in_false; the result has x's LoD."""
    for value, name in ((in_true, "in_true"), (in_false, "in_false"), (x, "x"),
                        (mask, "mask")):
        check_type(value, name, Variable, "merge_lod_tensor")
    check_type(level, "level", int, "merge_lod_tensor")
    helper = LayerHelper("merge_lod_tensor")
    out = helper.create_variable_for_type_inference(in_true.dtype)
    helper.append_op("merge_lod_tensor",
                     {"X": [x], "Mask": [mask], "InTrue": [in_true], "InFalse": [in_false]},
                     {"Out": [out]}, {"level": level})
    return out


class ConditionalBlock:
    """Paddle 1.x's ConditionalBlock: `with ConditionalBlock(inputs).block(): ...` appends the
    ops inside to a block that a conditional_block op runs when every input has elements (or,
    is_scalar_condition=True, when the one input's one bool value holds)."""

    def __init__(self, inputs, is_scalar_condition: bool = False, name: str | None = None):
        # name only named Paddle's layer helper; nothing here is named after it
        check_type(inputs, "inputs", (list, tuple), "ConditionalBlock")
        for each in inputs:
            check_type(each, "input", Variable, "ConditionalBlock")
        self.inputs = list(inputs)
        self.is_scalar_condition = is_scalar_condition

    @contextlib.contextmanager
    def block(self):
        with _SubBlock() as block:
            yield
        append_conditional_block(block, self.inputs, self.is_scalar_condition)


class IfElse:
    """`ie = IfElse(cond)` (cond: a bool var of one value per row); `with ie.true_block():
    ... ie.output(ie.input(x) ...)`; the same in `ie.false_block()`; `ie()` gives the merged
    outputs (a list), or one block's outputs when only one block has any."""

    OUT_IF_ELSE_BLOCKS, IN_IF_ELSE_TRUE_BLOCKS, IN_IF_ELSE_FALSE_BLOCKS = 0, 1, 2

    def __init__(self, cond: Variable, name: str | None = None) -> None:
        check_type(cond, "cond", Variable, "fluid.layers.IfElse")
        check_type(name, "name", (str, type(None)), "fluid.layers.IfElse")
        self.helper = LayerHelper("ifelse", name=name)
        self.cond = cond
        self.input_table: dict[str, tuple[Variable, Variable]] = {}
        self.status = IfElse.OUT_IF_ELSE_BLOCKS
        self.output_table: tuple[list, list] = ([], [])  # (false outputs, true outputs)
        self._block = None

    def _parent_block(self):
        return self._block.program.block(self._block.parent_idx)

    def input(self, x: Variable) -> Variable:
        """x's rows of the current block (split once for both blocks)."""
        if self.status == IfElse.OUT_IF_ELSE_BLOCKS:
            raise ValueError("input must in true/false blocks")
        if not isinstance(x, Variable):
            raise TypeError(f"IfElse.input: x must be a Variable, got {type(x).__name__}")
        if x.name not in self.input_table:
            parent = self._parent_block()
            parts = [parent.create_var(
                name=unique_name.generate("ifelse_input" + self.helper.name), dtype=x.dtype,
                shape=[-1] + list(x.shape[1:]), lod_level=x.lod_level) for _ in range(2)]
            parent.append_op("split_lod_tensor", {"X": [x], "Mask": [self.cond]},
                             {"OutTrue": [parts[0]], "OutFalse": [parts[1]]}, {"level": 0})
            self.input_table[x.name] = (parts[0], parts[1])
        out_true, out_false = self.input_table[x.name]
        return out_true if self.status == IfElse.IN_IF_ELSE_TRUE_BLOCKS else out_false

    def true_block(self):
        return self._branch(True)

    def false_block(self):
        return self._branch(False)

    @contextlib.contextmanager
    def _branch(self, is_true: bool):
        if self.status != IfElse.OUT_IF_ELSE_BLOCKS:
            raise ValueError("You cannot invoke IfElse.block() inside a block")
        with _SubBlock() as block:
            self._block = block
            self.status = (IfElse.IN_IF_ELSE_TRUE_BLOCKS if is_true
                           else IfElse.IN_IF_ELSE_FALSE_BLOCKS)
            yield
        if not self.output_table[1 if is_true else 0]:
            raise ValueError("Must set output inside block")
        append_conditional_block(block, [self.cond], is_scalar_condition=False)
        self.status = IfElse.OUT_IF_ELSE_BLOCKS

    def output(self, *outs: Variable) -> None:
        """The block's values for ie()'s outputs, in order."""
        if self.status == IfElse.OUT_IF_ELSE_BLOCKS:
            raise ValueError("output can only be invoked in the sub-block")
        table = self.output_table[1 if self.status == IfElse.IN_IF_ELSE_TRUE_BLOCKS else 0]
        parent = self._parent_block()
        for each in outs:
            if not isinstance(each, Variable):
                raise TypeError("Each output should be a variable")
            outside = parent.create_var(
                name=unique_name.generate(f"{self.helper.name}_output"), dtype=each.dtype,
                shape=[-1] + list(each.shape[1:]), lod_level=each.lod_level)
            table.append(outside)
            self._block.append_op("assign", {"X": [each]}, {"Out": [outside]})

    def __call__(self):
        if self.status != IfElse.OUT_IF_ELSE_BLOCKS:
            raise ValueError("IfElse::__call__ must be out of sub-block")
        false_len, true_len = map(len, self.output_table)
        if false_len == 0 and true_len == 0:
            raise ValueError("Must invoke true_block/false_block before __call__")
        if false_len != true_len and false_len != 0 and true_len != 0:
            raise ValueError("The output side must be same")
        if false_len == 0 or true_len == 0:
            return self.output_table[0 if false_len != 0 else 1]
        return [merge_lod_tensor(in_true=t, in_false=f, mask=self.cond, x=self.cond)
                for f, t in zip(*self.output_table)]
