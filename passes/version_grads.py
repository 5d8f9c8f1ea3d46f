"""Gradient names per version of a var: each write of a var starts a new version (the nodes of
passes/graph.py), and each version's gradient is a var of its own. The grads of one version
(one per op reading it) are summed (backward._accumulate); an op overwriting a var passes no
grad to the version it overwrites (only to what it reads); the grad of an in-place op's
input version is not its output version's.

One version keeps Paddle's name, x@GRAD; each other version k is x@GRAD@V<k>. It is the
value the var enters the block with where the block reads that (a feed, a parameter, an outer
var; and the inputs a pass is asked for: gradients' inputs, the vars a control-flow grad block
gives grads of), which is what Paddle's x@GRAD holds after its backward; else the last version
that gets a grad (a computed loop var's grad after the loop, as Paddle's while_grad reads it;
a var written once has one version). Tensor arrays keep one grad var for all their versions
(their grad ops update it in place, entry by entry).

Grad ops run after the block's ops, when a var holds its last version; a grad op reading an
earlier version of a forward var (an input the block overwrites later) reads a copy,
x@V<k>@block<idx> (a name of its own in the program: a reference run shares one value table
among blocks), that an assign inserted before the overwrite keeps. Not copied: persistables
(state that ops update in place, read by name as Paddle's grad ops do), arrays, and counters
incremented in place (backward._restore undoes their increments)."""
from __future__ import annotations

import networkx as nx

from ..frontend.dtypes import VarType
from ..frontend.framework import Block
from ..frontend.ops import OpDesc, grad_name
from ..frontend.ops.registry import EMPTY_VAR, GRAD_SUFFIX
from .control_flow import incremented_in_place
from .graph import op_node, var_node


class VersionGrads:
    """The grad names of one block's var versions (graph g of the block's ops, `needs` the
    versions given a grad); `inputs`: the vars whose grads the pass gives, as they enter the
    block (version 0)."""

    def __init__(self, g: nx.DiGraph, block: Block, needs: set,
                 inputs: list[str] | None) -> None:
        self.g, self.block = g, block
        self.plain = dict(g.graph["final_version"])  # var -> the version named x@GRAD
        for node in sorted(needs, key=lambda n: n[2]):
            self.plain[node[1]] = node[2]
        self.plain.update(dict.fromkeys(inputs or (), 0))
        self.plain.update((node[1], 0) for node in needs if node[2] == 0)
        self.named: dict[str, tuple[str, int]] = {}  # grad name -> (var, version)
        self.kept: dict[tuple[str, int], str] = {}  # (var, version) -> its copy
        names = {node[1] for node in g.nodes if g.nodes[node]["kind"] == "var"}
        self.arrays = {n for n in names if (v := block._find_var_recursive(n)) is not None
                       and v.type == VarType.LOD_TENSOR_ARRAY}
        self.uncopied = self.arrays | {
            n for n in names if (v := block._find_var_recursive(n)) is None or v.persistable
        } | incremented_in_place(block)

    def name(self, var: str, version: int) -> str:
        """The grad var of `version` of `var`."""
        if var in self.arrays or version == self.plain.get(var, version):
            name = grad_name(var)
        else:
            name = f"{grad_name(var)}@V{version}"
        self.named[name] = (var, version)
        return name

    def first_grads(self, made: set[str]) -> dict[str, str]:
        """var -> the grad of its earliest version among the `made` grads (a grad named as
        a forward value, y@GRAD's own grad in a double grad, is of the first)."""
        firsts: dict[str, tuple[int, str]] = {}
        for name in made:
            var, version = self.named.get(name, (name[:name.rindex(GRAD_SUFFIX)], -1))
            if var not in firsts or version < firsts[var][0]:
                firsts[var] = (version, name)
        return {var: name for var, (_, name) in firsts.items()}

    def rename(self, gop: OpDesc, index: int, forward: frozenset[str], needs: set,
               need_names: set[str]) -> list[str]:
        """Name the grads in `gop`, a grad op of the block's op `index` (whose forward vars
        are `forward`, never renamed): an input grad is of the version the op writes (else of
        the one it reads), an output grad of the version it reads (else writes); an output
        grad of a version needing none becomes @EMPTY@ (its slot dropped when all are).
        Returns the grads gop reads."""
        reads = {n[1]: n for n in self.g.predecessors(op_node(index))}
        writes = {n[1]: n for n in self.g.successors(op_node(index))}
        read = []
        for slot, names in gop.inputs.items():
            renamed = []
            for n in names:
                if n.endswith(GRAD_SUFFIX) and n not in forward:
                    node = writes.get(n[:-len(GRAD_SUFFIX)]) or reads.get(n[:-len(GRAD_SUFFIX)])
                    n = self.name(node[1], node[2]) if node else n
                    read.append(n)
                renamed.append(n)
            gop.inputs[slot] = renamed
        for slot, names in list(gop.outputs.items()):
            renamed = []
            for n in names:
                if n.endswith(GRAD_SUFFIX) and n not in forward:
                    fwd = n[:-len(GRAD_SUFFIX)]
                    node = reads.get(fwd) or writes.get(fwd)
                    if node is None:
                        n = n if fwd in need_names else EMPTY_VAR
                    else:
                        n = self.name(fwd, node[2]) if node in needs else EMPTY_VAR
                renamed.append(n)
            if all(n == EMPTY_VAR for n in renamed):
                del gop.outputs[slot]
            else:
                gop.outputs[slot] = renamed
        return read

    def read_kept_values(self, gop: OpDesc, index: int, op: OpDesc,
                         forward: frozenset[str]) -> frozenset[str]:
        """Point gop's reads of forward values the block overwrites after op `index` (`op`)
        to their copies; returns gop's forward values (the copies included)."""
        reads = {n[1]: n for n in self.g.predecessors(op_node(index))}
        writes = {n[1]: n for n in self.g.successors(op_node(index))}
        final = self.g.graph["final_version"]
        copies = set()
        for slot, names in gop.inputs.items():
            # a var op reads and writes (in place): a slot naming one of op's outputs reads
            # the value written, any other the value read
            written = set(op.outputs.get(slot, ())) - set(op.inputs.get(slot, ()))
            renamed = []
            for n in names:
                node = writes.get(n) if n in written or n not in reads else reads[n]
                if n in forward and node is not None and node[2] != final.get(n, 0) and \
                        n not in self.uncopied:
                    n = self.kept.setdefault(node[1:],
                                             f"{n}@V{node[2]}@block{self.block.idx}")
                    copies.add(n)
                renamed.append(n)
            gop.inputs[slot] = renamed
        return forward | copies

    def keep_values(self) -> None:
        """Insert into the block, before each overwrite of a value a grad op reads, the assign
        keeping its copy (a later backward pass over the block reuses the copies it finds)."""
        at = {key: next(iter(self.g.predecessors(var_node(key[0], key[1] + 1))))[1]
              for key in self.kept}  # the overwriting op's index
        for (name, version), copy in sorted(self.kept.items(), key=lambda kv: -at[kv[0]]):
            if self.block.has_var(copy):
                continue
            v = self.block._find_var_recursive(name)
            self.block.create_var(name=copy, shape=v.shape, dtype=v.dtype, type=v.type,
                                  lod_level=v.lod_level, stop_gradient=True)
            self.block._insert_op(at[(name, version)], "assign", {"X": [name]},
                                  {"Out": [copy]})
