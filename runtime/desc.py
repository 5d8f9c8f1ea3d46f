"""Program.desc and Block.desc: Paddle's ProgramDesc/BlockDesc calls over a fluidc Program.

serialize_to_string() gives the ProgramDesc bytes fluidc's saves write (runtime/program_desc.py);
need_update()/flush()/cached_hash_str() follow the program's version, as Paddle's desc tracks
its edits.
"""
from __future__ import annotations

import hashlib

from ..frontend.framework import Block, Program, VarDesc
from .program_desc import serialize_program


class ProgramDesc:
    """program.desc: serialization, block access and change tracking."""

    def __init__(self, program: Program) -> None:
        self._program = program

    def serialize_to_string(self) -> bytes:
        """The ProgramDesc protobuf bytes (what save_inference_model and paddle.save write)."""
        self.flush()
        return serialize_program(self._program)

    def need_update(self) -> bool:
        """Whether the program changed since the desc was last flushed."""
        return getattr(self._program, "_desc_version", None) != self._program._version

    def flush(self) -> None:
        self._program._desc_version = self._program._version

    def cached_hash_str(self) -> str:
        """A hash of the serialized program (equal programs, equal hashes)."""
        return hashlib.sha256(self.serialize_to_string()).hexdigest()

    def num_blocks(self) -> int:
        return self._program.num_blocks

    def block(self, index: int) -> "BlockDesc":
        return BlockDesc(self._program.block(index))

    def get_feed_target_names(self) -> list[str]:
        """The vars the program's feed ops write, by column."""
        return [op.output("Out")[0] for op in self._ops_by_col("feed")]

    def get_fetch_target_names(self) -> list[str]:
        """The vars the program's fetch ops read, by column."""
        return [op.input("X")[0] for op in self._ops_by_col("fetch")]

    def _ops_by_col(self, op_type: str) -> list:
        ops = [op for op in self._program.global_block().ops if op.type == op_type]
        return sorted(ops, key=lambda op: op.attr("col"))


class BlockDesc:
    """block.desc: the block's index, parent, ops count and var descs."""

    def __init__(self, block: Block) -> None:
        self._block = block

    @property
    def id(self) -> int:
        return self._block.idx

    @property
    def parent(self) -> int:
        return self._block.parent_idx

    def op_size(self) -> int:
        return len(self._block.ops)

    def has_var(self, name) -> bool:
        return self._block.has_var(_text(name))

    def has_var_recursive(self, name) -> bool:
        return self._block._find_var_recursive(_text(name)) is not None

    def find_var(self, name) -> VarDesc | None:
        var = self._block.vars.get(_text(name))
        return None if var is None else var.desc

    def find_var_recursive(self, name) -> VarDesc | None:
        var = self._block._find_var_recursive(_text(name))
        return None if var is None else var.desc

    def var(self, name) -> VarDesc:
        return self._block.var(_text(name)).desc

    def all_vars(self) -> list[VarDesc]:
        return [v.desc for v in self._block.vars.values()]


def _text(name) -> str:
    """Paddle's desc calls take names as bytes or str."""
    return name.decode() if isinstance(name, bytes) else name
