"""`fluidc.inspect(program, feed=..., fetch_list=...)`: the plan exe.run would build, as an
object — its steps, the ops each kernel holds, its buffers and arena bytes, the generated
source — rendered as text, JSON, DOT or SVG exactly as `fluidc inspect` prints it."""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..codegen.product_choice import choose_products
from ..frontend.dtypes import dtype_name
from ..frontend.errors import FluidcError
from ..frontend.framework import Program, Variable, default_main_program
from ..passes import export
from ..passes.dot import render, steps_graph
from ..passes.pipeline import LoweredProgram, lower_for_batch
from ..passes.strategy import BuildStrategy
from .tiered import lower_products


@dataclass
class PlanView:
    """A program compiled for one feed signature: what `fluidc inspect` shows."""

    program: Program
    lowered: LoweredProgram
    backend: str  # 'c' (CPUPlace) or 'triton' (CUDAPlace)
    batch: int | None = None  # the size given to -1 dims, when no feed gave a shape

    @property
    def steps(self) -> list[dict]:
        """One dict per compiled step: kind, ops, shape, inputs, outputs, ..."""
        return export.steps_summary(self.lowered)["steps"]

    @property
    def buffers(self) -> dict[str, dict]:
        """Every var of the plan: shape and dtype."""
        return export.steps_summary(self.lowered)["buffers"]

    @property
    def arena_bytes(self) -> int:
        """Bytes of the arena holding the plan's temporaries (after reuse)."""
        return self.lowered.arena().size

    @functools.cached_property
    def source(self) -> str:
        """The generated kernels (C or Triton), as the executor builds them (nothing compiled),
        after a legend naming the var each slot s[i] of the segments holds. The legend is for
        readers only: var names never enter compiled source."""
        if self.backend == "triton":
            from ..codegen.triton_plan import generate_triton as generate
            comment = "# {}"
        else:
            from ..codegen.c_plan import generate_c as generate
            comment = "/* {} */"
        module = generate(self.lowered.steps, self.lowered.infos, self.lowered.storage,
                          load=False)
        legend = [comment.format("slots of the segments' table s[], by the var stored there:")]
        if self.backend != "triton":
            legend.append(comment.format("  s[0] = the batch size (nb)"))
        for storage, slot in sorted(module.slots.items(), key=lambda kv: kv[1]):
            info = self.lowered.infos.get(storage)
            what = f" {dtype_name(info.dtype)} {list(info.shape)}" if info else ""
            name = ascii(storage).replace("*/", "*\\/")
            legend.append(comment.format(f"  s[{slot}] = {name}{what}"))
        return "\n".join(legend) + "\n" + module.source

    def to_text(self, listing: str | None = None) -> str:
        """The program (or `listing` of it) and its compiled steps, one line per step."""
        if listing is None:
            listing = (f"== program ({len(self.program.global_block().ops)} ops)\n"
                       f"{self.program}")
        what = f"batch {self.batch}" if self.batch is not None else "the given feeds"
        return (f"{listing}\n== compiled for {what} ({len(self.lowered.steps)} steps)\n"
                f"{export.steps_text(self.lowered)}")

    def to_json(self) -> str:
        return export.to_json({"program": export.program_summary(self.program),
                               "compiled": export.steps_summary(self.lowered)})

    def to_dot(self) -> str:
        """Two digraphs: the program's dataflow and the compiled steps."""
        return export.program_dot(self.program) + "\n" + export.steps_dot(self.lowered)

    def to_svg(self) -> str:
        """The compiled steps drawn by Graphviz (its `dot` program must be on PATH)."""
        return render(steps_graph(self.lowered), "svg")

    def to_png(self) -> bytes:
        """The compiled steps drawn by Graphviz, as PNG bytes."""
        return render(steps_graph(self.lowered), "png")

    def __str__(self) -> str:
        return self.to_text()


def inspect(program: Program | None = None, feed: dict | None = None, fetch_list=None,
            build_strategy: BuildStrategy | None = None, batch: int | None = None,
            backend: str = "c") -> PlanView:
    """The plan of `program` (default: the default main program) for `feed` (name -> array, or
    name -> a tuple giving the shape; data vars not in it get `batch` for their -1 dims: by
    default the leading size of a fed var whose first dim is -1, else 1) and
    `fetch_list` (vars or names; default: the program's fetch targets, else the vars its ops
    write and none reads). A training program shows its backward and optimizer steps.
    backend 'c' is CPUPlace's code, 'triton' CUDAPlace's."""
    if backend not in ("c", "triton"):
        raise ValueError(f"backend must be 'c' or 'triton', got {backend!r}")
    program = program if program is not None else default_main_program()
    block = program.global_block()
    shapes = {}
    for name, value in (feed or {}).items():
        if not block.has_var(name):
            raise FluidcError(f"feed '{name}' is not a var of the program")
        is_shape = isinstance(value, tuple) and all(isinstance(d, int) for d in value)
        shapes[name] = value if is_shape else np.shape(value)
    if batch is None:
        batch = next((shapes[n][0] for n in shapes if block.var(n).shape[:1] == (-1,)
                      and shapes[n]), 1)
    feeds = list(dict.fromkeys([*shapes, *program_targets(program)[0]]))
    fetches = _fetch_names(program, fetch_list)
    def lower(written_products: bool) -> LoweredProgram:
        return lower_for_batch(program, feeds, fetches, batch, build_strategy or BuildStrategy(),
                               target=backend, shapes=shapes, written_products=written_products,
                               choose_products=choose_products)

    # The products exe.run would generate (tiered.lower_products decides, as there).
    lowered = lower(True) if backend != "c" or program.num_blocks > 1 \
        else lower_products(lower)[0]
    given_all = all(n in shapes for n in lowered.feeds)
    return PlanView(program, lowered, backend, None if given_all and shapes else batch)


def program_targets(program: Program) -> tuple[list[str], list[str]]:
    """(feed names, fetch names) a saved program implies: its feed and fetch ops' vars, in
    their `col` order (an inference model), else its data vars (in a program read from a file:
    the non-persistable vars its ops only read) and the vars its ops write and none reads (a
    training or forward program; its optimizer steps run whatever is fetched)."""
    ops = program.global_block().ops
    feeds = [n for _, n in sorted((op.attr("col"), op.output("Out")[0])
                                  for op in ops if op.type == "feed")]
    block = program.global_block()
    if not feeds:
        feeds = [v.name for v in block.vars.values() if v.is_data]
    if not feeds:  # a saved training program: its data vars are the ones only read
        written = {n for op in ops for n in op.output_arg_names}
        feeds = list(dict.fromkeys(n for op in ops for n in op.input_arg_names
                                   if n not in written and block.has_var(n)
                                   and not block.var(n).persistable))
    return feeds, _fetch_names(program, None)


def _fetch_names(program: Program, fetch_list) -> list[str]:
    if fetch_list is not None:
        items = fetch_list if isinstance(fetch_list, (list, tuple)) else [fetch_list]
        return [v.name if isinstance(v, Variable) else str(v) for v in items]
    ops = program.global_block().ops
    targets = sorted((op.attr("col"), op.input("X")[0]) for op in ops if op.type == "fetch")
    if targets:
        return [n for _, n in targets]
    read = {n for op in ops for n in op.input_arg_names}
    block = program.global_block()
    return list(dict.fromkeys(n for op in ops if op.type != "feed" for n in op.output_arg_names
                              if n not in read and not block.var(n).persistable))
