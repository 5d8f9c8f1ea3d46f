"""fluid.layers.DynamicRNN (Paddle 1.x) and the layers of its LoD ops: lod_rank_table,
max_sequence_len, lod_tensor_to_array, array_to_lod_tensor, shrink_memory,
reorder_lod_tensor_by_rank.

A DynamicRNN is a While loop over the time steps of LoD sequences, the ops Paddle's builds:
the step inputs are cut into tensor arrays of time steps (sequences longest first, so step t
holds the first rows: those of the sequences still running), each memory is an array whose
entry t the step reads and shrinks to the running sequences and whose entry t + 1 it writes,
each output an array written at t and put back into the sequences' order and LoD after the
loop. Programs holding these ops run on the reference executor (frontend/ops/lod_rank.py).
"""
from __future__ import annotations

import contextlib

from .. import unique_name
from ..dtypes import VarType, convert_dtype
from ..framework import Variable, default_main_program
from .compare import increment, less_than
from .control_flow import While
from .helper import LayerHelper, check_type
from .tensor import fill_constant
from .tensor_array import array_read, array_write


def _array_like(block, name: str, x: Variable, lod_level: int = 0) -> Variable:
    """An array of entries shaped like x's rows (entries of LoD level lod_level)."""
    return block.create_var(name=unique_name.generate(name), type=VarType.LOD_TENSOR_ARRAY,
                            dtype=x.dtype, shape=[-1] + list(x.shape[1:]), lod_level=lod_level)


def _one_var(x, arg: str, layer: str) -> Variable:
    """x, or the one Variable of a list (Paddle's check_type lets a list of Variables by)."""
    check_type(x, arg, (Variable, list), layer)
    if isinstance(x, list):
        for i, v in enumerate(x):
            check_type(v, f"{arg}[{i}]", Variable, layer)
        if len(x) != 1:
            raise TypeError(f"{layer}: '{arg}' must be one Variable, got a list of {len(x)}")
        x = x[0]
    return x


def lod_rank_table(x: Variable, level: int = 0) -> Variable:
    """x's sequences of LoD level `level` ranked by length, longest first."""
    x = _one_var(x, "x", "lod_rank_table")
    check_type(level, "level", int, "lod_rank_table")
    helper = LayerHelper("lod_rank_table")
    table = helper.main_program.current_block().create_var(
        name=unique_name.generate("lod_rank_table"), type=VarType.LOD_RANK_TABLE,
        stop_gradient=True)
    helper.append_op("lod_rank_table", {"X": [x]}, {"Out": [table]}, {"level": level})
    return table


def max_sequence_len(rank_table: Variable) -> Variable:
    """The longest sequence's length (int64 [1])."""
    check_type(rank_table, "rank_table", Variable, "max_sequence_len")
    helper = LayerHelper("max_seqence_len")
    out = helper.create_variable_for_type_inference(VarType.INT64, stop_gradient=True)
    helper.append_op("max_sequence_len", {"RankTable": [rank_table]}, {"Out": [out]})
    return out


def lod_tensor_to_array(x: Variable, table: Variable) -> Variable:
    """x cut into time steps by the rank table: entry t holds step t of each sequence longer
    than t, longest first."""
    x = _one_var(x, "x", "lod_tensor_to_array")
    table = _one_var(table, "table", "lod_tensor_to_array")
    helper = LayerHelper("lod_tensor_to_array")
    array = _array_like(helper.main_program.current_block(), "lod_tensor_to_array", x,
                        max(x.lod_level - 1, 0))  # a step of a sequence: one level less
    helper.append_op("lod_tensor_to_array", {"X": [x], "RankTable": [table]},
                     {"Out": [array]})
    return array


def array_to_lod_tensor(x: Variable, table: Variable) -> Variable:
    """lod_tensor_to_array undone: the steps put back into the sequences' order and LoD."""
    x = _one_var(x, "x", "array_to_lod_tensor")
    table = _one_var(table, "table", "array_to_lod_tensor")
    helper = LayerHelper("array_to_lod_tensor")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("array_to_lod_tensor", {"X": [x], "RankTable": [table]},
                     {"Out": [out]})
    return out


def shrink_memory(x: Variable, i: Variable, table: Variable) -> Variable:
    """x's first rows, one per sequence of the rank table still running at step i."""
    for value, name in ((x, "x"), (i, "i"), (table, "table")):
        check_type(value, name, Variable, "shrink_memory")
    helper = LayerHelper("shrink_memory")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("shrink_rnn_memory", {"X": [x], "I": [i], "RankTable": [table]},
                     {"Out": [out]})
    return out


def reorder_lod_tensor_by_rank(x: Variable, rank_table: Variable) -> Variable:
    """x's sequences (rows without LoD) in the rank table's order."""
    check_type(x, "x", Variable, "reorder_lod_tensor_by_rank")
    check_type(rank_table, "rank_table", Variable, "reorder_lod_tensor_by_rank")
    if rank_table.type != VarType.LOD_RANK_TABLE:
        raise TypeError(f"reorder_lod_tensor_by_rank: the type of rank_table "
                        f"'{rank_table.name}' should be LOD_RANK_TABLE (made by lod_rank_table)")
    helper = LayerHelper("reorder_lod_tensor_by_rank")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("reorder_lod_tensor_by_rank", {"X": [x], "RankTable": [rank_table]},
                     {"Out": [out]})
    return out


class DynamicRNN:
    """`with drnn.block(): word = drnn.step_input(x); prev = drnn.memory(shape=[H]); ...;
    drnn.update_memory(prev, hidden); drnn.output(hidden)`, then `drnn()` gives the outputs
    as LoD tensors with the step input's LoD."""

    BEFORE_RNN, IN_RNN, AFTER_RNN = 0, 1, 2

    def __init__(self, name: str | None = None) -> None:
        self.helper = LayerHelper("dynamic_rnn", name=name)
        self.status = DynamicRNN.BEFORE_RNN
        self.lod_rank_table = None
        self.max_seq_len = None
        self.step_idx = None
        self.zero_idx = None
        self.mem_dict: dict[str, Variable] = {}
        self.output_array: list[Variable] = []
        self.outputs: list[Variable] = []
        self.cond = self.helper.create_variable_for_type_inference(VarType.BOOL)
        self.cond.shape = (1,)
        self.cond.stop_gradient = False
        self.while_op = While(self.cond)
        self.input_array: list[tuple[Variable, object]] = []
        self.mem_link: list[tuple[Variable, Variable]] = []

    def _parent_block_(self):
        program = default_main_program()
        return program.block(program.current_block().parent_idx)

    def _assert_in_rnn_block_(self, method: str) -> None:
        if self.status != DynamicRNN.IN_RNN:
            raise ValueError(f"{method} can only be invoked inside rnn block.")

    def _in_parent(self):
        """Append to the parent block for a while (the ops before the loop)."""
        program = default_main_program()
        return _CurrentBlock(program, program.current_block().parent_idx)

    def step_input(self, x: Variable, level: int = 0) -> Variable:
        """The current time step of the sequences of x (LoD level `level`)."""
        self._assert_in_rnn_block_("step_input")
        if not isinstance(x, Variable):
            raise TypeError("step_input() can only take a Variable as its input.")
        with self._in_parent():
            if self.lod_rank_table is None:
                self.lod_rank_table = lod_rank_table(x, level)
                self.max_seq_len = max_sequence_len(self.lod_rank_table)
                self.cond.stop_gradient = True
                less_than(self.step_idx, self.max_seq_len, force_cpu=True, cond=self.cond)
            array = lod_tensor_to_array(x, self.lod_rank_table)
        self.input_array.append((array, x.dtype))
        return array_read(array, self.step_idx)

    def static_input(self, x: Variable) -> Variable:
        """x (one row per sequence, or a LoD tensor of as many sequences) as seen by each
        step: reordered by rank and shrunk to the running sequences."""
        self._assert_in_rnn_block_("static_input")
        if not isinstance(x, Variable):
            raise TypeError("static_input() can only take a Variable as its input")
        if self.lod_rank_table is None:
            raise RuntimeError("static_input() must be called after step_input().")
        with self._in_parent():
            reordered = reorder_lod_tensor_by_rank(x, self.lod_rank_table)
        return shrink_memory(reordered, self.step_idx, self.lod_rank_table)

    @contextlib.contextmanager
    def block(self):
        """The ops of one time step."""
        if self.status != DynamicRNN.BEFORE_RNN:
            raise ValueError("rnn.block() can only be invoke once")
        self.step_idx = fill_constant([1], "int64", 0, force_cpu=True)
        self.step_idx.stop_gradient = False
        self.status = DynamicRNN.IN_RNN
        with self.while_op.block():
            yield
            increment(self.step_idx, 1.0, in_place=True)
            for new_mem, mem_array in self.mem_link:
                array_write(new_mem, self.step_idx, mem_array)
            less_than(self.step_idx, self.max_seq_len, force_cpu=True, cond=self.cond)
        self.status = DynamicRNN.AFTER_RNN
        for array in self.output_array:
            self.outputs.append(array_to_lod_tensor(array, self.lod_rank_table))

    def __call__(self, *args, **kwargs):
        if self.status != DynamicRNN.AFTER_RNN:
            raise ValueError("Output of the dynamic RNN can only be visited outside the rnn "
                             "block.")
        return self.outputs[0] if len(self.outputs) == 1 else self.outputs

    def memory(self, init: Variable | None = None, shape=None, value: float = 0.0,
               need_reorder: bool = False, dtype="float32") -> Variable:
        """A var holding the previous step's value: init (reordered by rank if need_reorder)
        at the first step, else `value` in `shape` per sequence."""
        self._assert_in_rnn_block_("memory")
        if shape is not None:
            check_type(shape, "shape", (list, tuple), "memory")
        if init is not None:
            check_type(init, "init", Variable, "memory")
        self._init_zero_idx_()
        if init is not None:
            with self._in_parent():
                if need_reorder:
                    if self.lod_rank_table is None:
                        raise ValueError("If set need_reorder to True, make sure step_input be "
                                         "invoked before memory(init=init, "
                                         "need_reordered=True, ...).")
                    init = reorder_lod_tensor_by_rank(init, self.lod_rank_table)
                mem_array = _array_like(default_main_program().current_block(),
                                        "dynamic_rnn_mem_array", init)
                array_write(init, self.zero_idx, mem_array)
            retv = shrink_memory(array_read(mem_array, self.step_idx), self.step_idx,
                                 self.lod_rank_table)
            self.mem_dict[retv.name] = mem_array
            return retv
        if not self.input_array:
            raise ValueError("step_input should be invoked before memory(shape=..., value=...)")
        array, in_dtype = self.input_array[0]
        with self._in_parent():
            first = array_read(array, self.zero_idx)
            helper = LayerHelper("dynamic_rnn_mem_init")
            boot = helper.create_variable_for_type_inference(convert_dtype(dtype),
                                                             stop_gradient=True)  # a constant
            boot.shape = tuple([-1] + list(shape))
            helper.append_op("fill_constant_batch_size_like", {"Input": [first]},
                             {"Out": [boot]},
                             {"shape": [-1] + list(shape), "value": float(value),
                              "dtype": int(boot.dtype), "input_dim_idx": 0,
                              "output_dim_idx": 0})
        return self.memory(init=boot)

    def update_memory(self, ex_mem: Variable, new_mem: Variable) -> None:
        """The next step's ex_mem is this step's new_mem."""
        self._assert_in_rnn_block_("update_memory")
        if not isinstance(ex_mem, Variable):
            raise TypeError("The input arg `ex_mem` of update_memory() must be a Variable")
        if not isinstance(new_mem, Variable):
            raise TypeError("The input arg `new_mem` of update_memory() must be a Variable")
        mem_array = self.mem_dict.get(ex_mem.name)
        if mem_array is None:
            raise ValueError("Please invoke memory before update_memory")
        if self.lod_rank_table is None:
            raise ValueError("Please invoke step_input before update_memory")
        self.mem_link.append((new_mem, mem_array))

    def output(self, *outputs: Variable) -> None:
        """Mark the step's vars as outputs: drnn() gives them for every step, as sequences."""
        self._assert_in_rnn_block_("output")
        for each in outputs:
            if not isinstance(each, Variable):
                raise TypeError("DynamicRNN.output() takes Variables")
            array = _array_like(self._parent_block_(),
                                f"{self.helper.name}_output_array_{each.name}", each)
            array_write(each, self.step_idx, array)
            self.output_array.append(array)

    def _init_zero_idx_(self) -> None:
        if self.zero_idx is None:
            with self._in_parent():
                self.zero_idx = fill_constant([1], "int64", 0, force_cpu=True)


class _CurrentBlock:
    """Make block `idx` the program's current block for a while (restored after)."""

    def __init__(self, program, idx: int) -> None:
        self.program, self.idx = program, idx

    def __enter__(self):
        self.saved = self.program.current_block_idx
        self.program.current_block_idx = self.idx

    def __exit__(self, *exc) -> None:
        self.program.current_block_idx = self.saved
