"""fluid.layers.StaticRNN (Paddle 1.x): a step block run once per entry of dim 0 of the step
inputs, with memories carried between steps, appended as Paddle's `recurrent` op."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

from .. import unique_name
from ..dtypes import VarType
from ..framework import Variable
from .control_flow import _SubBlock
from .helper import LayerHelper


@dataclass
class _MemoryLink:
    init: Variable  # the first step's value (a var of the parent block)
    pre_mem: Variable  # the previous step's value, in the step block
    mem: Variable | None = None  # the value the step leaves for the next one


class StaticRNN:
    """`with rnn.step(): x_t = rnn.step_input(x); h = rnn.memory(...); ...;
    rnn.update_memory(h, new_h); rnn.step_output(y)`, then `rnn()` gives the outputs stacked
    along dim 0 (the sequence dim of every step input)."""

    BEFORE_RNN_BLOCK, IN_RNN_BLOCK, AFTER_RNN_BLOCK = 0, 1, 2

    def __init__(self, name: str | None = None) -> None:
        self.helper = LayerHelper("static_rnn", name=name)
        self.memories: dict[str, _MemoryLink] = {}
        self.inputs: list[Variable] = []
        self.outputs: list[Variable] = []
        self.status = StaticRNN.BEFORE_RNN_BLOCK
        self.seq_len = None
        self._block = None

    @contextlib.contextmanager
    def step(self):
        """The block of ops run at each step."""
        with _SubBlock() as block:
            self._block = block
            self.status = StaticRNN.IN_RNN_BLOCK
            yield
            self.status = StaticRNN.AFTER_RNN_BLOCK
            self._complete_op()

    def _assert_in_rnn_block_(self, method: str) -> None:
        if self.status != StaticRNN.IN_RNN_BLOCK:
            raise ValueError(f"You must invoke {method} in rnn block")

    def _parent_block(self):
        return self._block.program.block(self._block.parent_idx)

    def memory(self, init=None, shape=None, batch_ref=None, init_value: float = 0.0,
               init_batch_dim_idx: int = 0, ref_batch_dim_idx: int = 1) -> Variable:
        """A var holding the previous step's value: `init` at the first step, else zeros (or
        init_value) of `shape` with the batch dim of batch_ref."""
        self._assert_in_rnn_block_("memory")
        if init is None:
            if shape is None or batch_ref is None:
                raise ValueError("if init is None, memory at least need shape and batch_ref")
            parent = self._parent_block()
            boot = parent.create_var(
                name=unique_name.generate(f"{self.helper.name}@memory_boot"),
                shape=shape, dtype=batch_ref.dtype, stop_gradient=True)  # a constant
            parent.append_op("fill_constant_batch_size_like", {"Input": [batch_ref]},
                             {"Out": [boot]},
                             {"value": float(init_value), "shape": list(boot.shape),
                              "dtype": int(boot.dtype), "input_dim_idx": ref_batch_dim_idx,
                              "output_dim_idx": init_batch_dim_idx})
            return self.memory(init=boot)
        if not isinstance(init, Variable):
            raise TypeError(f"StaticRNN.memory: init must be a Variable, got "
                            f"{type(init).__name__}")
        pre_mem = self._block.create_var(name=unique_name.generate(f"{self.helper.name}@mem"),
                                         dtype=init.dtype, shape=init.shape)
        self.memories[pre_mem.name] = _MemoryLink(init, pre_mem)
        return pre_mem

    def step_input(self, x: Variable) -> Variable:
        """x's slice of the current step (x is [seq_len, ...])."""
        self._assert_in_rnn_block_("step_input")
        if not isinstance(x, Variable):
            raise TypeError("step input takes a Variable")
        if self.seq_len is None:
            self.seq_len = x.shape[0]
        elif self.seq_len != x.shape[0]:
            raise ValueError("Static RNN only take fix seq_len input")
        ipt = self._block.create_var(name=x.name, dtype=x.dtype, shape=list(x.shape[1:]),
                                     type=x.type)
        self.inputs.append(ipt)
        return ipt

    def step_output(self, o: Variable) -> None:
        """Mark o as an output: rnn() stacks its value of every step."""
        self._assert_in_rnn_block_("step_output")
        if not isinstance(o, Variable):
            raise TypeError("step output takes a Variable")
        tmp = self._memory_helper(o)
        self.outputs.append(self._parent_block().create_var(
            name=tmp.name, shape=[self.seq_len] + list(tmp.shape), dtype=tmp.dtype))

    def output(self, *outputs: Variable) -> None:
        for o in outputs:
            self.step_output(o)

    def update_memory(self, mem: Variable, var: Variable) -> None:
        """The next step's `mem` is this step's `var`."""
        if not isinstance(mem, Variable) or not isinstance(var, Variable):
            raise TypeError("update memory should take variables")
        if mem.name not in self.memories:
            raise ValueError(f"StaticRNN.update_memory: '{mem.name}' is not a memory of this "
                             f"StaticRNN (make it with rnn.memory)")
        self.memories[mem.name].mem = var

    def __call__(self, *args, **kwargs):
        if self.status != StaticRNN.AFTER_RNN_BLOCK:
            raise ValueError("RNN output can only be retrieved after rnn block")
        if not self.outputs:
            raise ValueError("RNN has no output")
        return self.outputs[0] if len(self.outputs) == 1 else self.outputs

    def _memory_helper(self, x: Variable) -> Variable:
        out = self.helper.create_variable_for_type_inference(x.dtype)
        self.helper.append_op("rnn_memory_helper", {"X": [x]}, {"Out": [out]},
                              {"dtype": int(x.dtype)})
        return out

    def _complete_op(self) -> None:
        block, parent = self._block, self._parent_block()
        local = {n for op in block.ops for n in op.output_arg_names}
        local |= {v.name for v in self.inputs} | set(self.memories)
        params = [n for op in block.ops for n in op.input_arg_names if n not in local]
        states = []
        for link in self.memories.values():
            if link.mem is None:
                raise ValueError(f"{link.init.name} should be updated in every step.")
            states.append(self._memory_helper(link.mem).name)
        step_scopes = parent.create_var(name=unique_name.generate("_generated_var"),
                                        type=VarType.STEP_SCOPES)
        parent.append_op(
            "recurrent",
            {"inputs": [v.name for v in self.inputs],
             "initial_states": [m.init for m in self.memories.values()],
             "parameters": list(dict.fromkeys(params))},
            {"outputs": self.outputs, "step_scopes": [step_scopes]},
            {"has_states": bool(self.memories), "ex_states": list(self.memories),
             "states": states, "sub_block": block.idx})
