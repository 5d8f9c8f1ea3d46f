"""Expression DAGs: the ops handler that records what a kernel computes, shared by every printer.

Evaluating a group's op exprs against ExprBuilder yields Nodes with common subexpressions merged
(equal (op, args) -> one node); printers then emit only what the outputs reach, so a loaded value
no expression uses is never read.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .handler import HANDLER_METHODS


@dataclass(frozen=True, eq=False)
class Node:
    """One value of a kernel: op applied to args (Nodes), with its numpy dtype."""

    op: str
    args: tuple
    dtype: np.dtype
    id: int


_BOOL = np.dtype(np.bool_)
_COMPARE = {"lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or", "logical_not", "isnan"}


class ExprBuilder:
    """Implements every handler method by recording a Node (merged with an equal earlier one)."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self._memo: dict[tuple, Node] = {}

    def node(self, op: str, args: tuple, dtype) -> Node:
        key = (op, tuple(a.id if isinstance(a, Node) else a for a in args), np.dtype(dtype).str)
        hit = self._memo.get(key)
        if hit is None:
            hit = Node(op, args, np.dtype(dtype), len(self.nodes))
            self.nodes.append(hit)
            self._memo[key] = hit
        return hit

    def load(self, operand: int, dtype) -> Node:
        """The value of input operand `operand` at the current index."""
        return self.node("load", (operand,), dtype)

    def constant(self, value, dtype) -> Node:
        dtype = np.dtype(dtype)
        v = bool(value) if dtype == _BOOL else (int(value) if dtype.kind in "iu" else float(value))
        return self.node("constant", (v,), dtype)

    def cast(self, a: Node, dtype) -> Node:
        return a if np.dtype(dtype) == a.dtype else self.node("cast", (a,), dtype)

    def reduce(self, combine: str, value: Node, dtype) -> Node:
        """The `combine` of `value` over the kernel's reduced loops (one value per row)."""
        return self.node("reduce", (combine, value), dtype)

    def where(self, c: Node, a: Node, b: Node) -> Node:
        return self.node("where", (c, a, b), np.result_type(a.dtype, b.dtype))


# x + 0 -> x and x * 1 -> x: scale(x, 1.0, bias=0.0) and friends cost nothing.
_IDENTITY = {"add": 0, "mul": 1}


def _is_const(n: Node, value) -> bool:
    return n.op == "constant" and n.args[0] == value


def _make(name: str):
    def method(self: ExprBuilder, *args: Node) -> Node:
        if name in _COMPARE:
            dtype = _BOOL
        else:
            dtype = np.result_type(*[a.dtype for a in args])
        if name in _IDENTITY:
            a, b = args
            if _is_const(b, _IDENTITY[name]) and a.dtype == dtype:
                return a
            if _is_const(a, _IDENTITY[name]) and b.dtype == dtype:
                return b
        return self.node(name, args, dtype)
    method.__name__ = name
    return method


for _name in HANDLER_METHODS:
    if not hasattr(ExprBuilder, _name):
        setattr(ExprBuilder, _name, _make(_name))


def reachable(outputs: list[Node]) -> list[Node]:
    """The nodes the outputs depend on, in an order where args come first."""
    seen: set[int] = set()
    order: list[Node] = []
    stack = [(n, False) for n in reversed(outputs)]
    while stack:
        n, done = stack.pop()
        if done:
            order.append(n)
            continue
        if n.id in seen:
            continue
        seen.add(n.id)
        stack.append((n, True))
        for a in reversed(n.args):
            if isinstance(a, Node) and a.id not in seen:
                stack.append((a, False))
    return order
