"""fluid.DistributeTranspiler: rewrites a training program for parameter servers (mode
"pserver") or hands it to the collective transpiler (mode "nccl2").

Parameter-server mode, as Paddle's transpiler does it:
- each parameter (and its gradient) is cut into row blocks when `slice_var_up` and it holds
  more than `min_block_size` elements (at most one block per server, each a whole number of
  rows), named `<var>.block<i>`; `split_method` deals the blocks to the servers (RoundRobin
  in order, or HashName by a stable hash of the block's name);
- the trainer program (the program itself, rewritten in place) loses its optimizer and
  regularization ops (gradient clipping stays) and gains, after the backward pass, a `send`
  per gradient, one `send_barrier` (sync mode) and a `recv` per parameter; the startup program
  gains a `recv` per parameter, so trainers start from the servers' values; its
  `_checkpoint_program` is what save_persistables saves (the servers' optimizer state too);
- a pserver program holds a `listen_and_serv` op and one optimize block per parameter block
  on that server: in sync mode with several trainers, `sum` of the trainers' gradients and
  `scale` by 1/trainers before the parameter's regularization and optimizer ops, and the
  learning-rate schedule's ops as an lr_decay_block run once a round; its startup
  initializes those blocks and the optimizer's state, each state var of a parameter's shape
  cut as the parameter is. Each
  persistable var of both records `slice_of` = (var of the original program, (first row, end
  row) or None for all of it), so load_persistables(exe, dir, pserver_startup) reads a
  checkpoint of the original program (incremental training).
"""
from __future__ import annotations

import math
import zlib

from ..frontend.errors import OpError
from ..frontend.framework import (OpRole, Program, default_main_program,
                                  default_startup_program)
from ..frontend import unique_name


class PSDispatcher:
    """Deals var blocks to pserver endpoints (fluid.transpiler.ps_dispatcher's interface)."""

    def __init__(self, pserver_endpoints: list[str]) -> None:
        self._eps = list(pserver_endpoints)
        self._step = 0

    @property
    def eps(self) -> list[str]:
        return self._eps

    def reset(self) -> None:
        self._step = 0

    def dispatch(self, varlist: list) -> list[str]:
        raise NotImplementedError


class RoundRobin(PSDispatcher):
    """Block i of the whole list goes to endpoint i mod n."""

    def dispatch(self, varlist: list) -> list[str]:
        out = []
        for _ in varlist:
            out.append(self._eps[self._step % len(self._eps)])
            self._step += 1
        return out


class HashName(PSDispatcher):
    """A block goes to endpoint crc32(name) mod n: stable across processes (Paddle's Python
    hash() is salted per process, so its trainers and servers could disagree)."""

    def dispatch(self, varlist: list) -> list[str]:
        return [self._eps[zlib.crc32(_name(v).encode()) % len(self._eps)] for v in varlist]


def _name(v) -> str:
    return v if isinstance(v, str) else v.name


class DistributeTranspilerConfig:
    """Settings of DistributeTranspiler (Paddle's names and defaults)."""

    def __init__(self) -> None:
        self.slice_var_up = True
        self.split_method = None  # RoundRobin
        self.min_block_size = 8192
        self.mode = "pserver"
        self.sync_mode = None  # None: transpile()'s sync_mode argument decides
        self.print_log = False


_LOOKUPS = ("lookup_table", "lookup_table_v2")
# what fluid.regularizer's decay terms are made of: elementwise, so cut by rows as the
# parameter is (passes/regularizer.py)
_REGULARIZATION_OPS = ("scale", "sign", "sum")


def _sparse_tables(program: Program) -> dict[str, bool]:
    """The embedding tables with sparse gradients (is_sparse or is_distributed), each looked
    up by one op -> whether it is distributed (kept on the servers only)."""
    tables: dict[str, bool] = {}
    shared = []
    for op in program.global_block().ops:
        attrs = op.desc.attrs
        if op.type in _LOOKUPS and (attrs.get("is_sparse") or attrs.get("is_distributed")):
            w = op.input("W")[0]
            if w in tables:
                shared.append(w)
            tables[w] = bool(attrs.get("is_distributed"))
    if shared:
        raise OpError(f"transpile: sparse or distributed tables {shared} are looked up by "
                      f"several ops; fluidc serves a table looked up once")
    return tables


def trainer_grad_name(grad: str, trainer_id: int) -> str:
    """The pserver program's var for one trainer's part of gradient block `grad` (sync mode
    with several trainers: the optimize block sums them)."""
    return f"{grad}.trainer_{trainer_id}"


class _Block:
    """One row block of a parameter: its var names, rows and server."""

    def __init__(self, param, grad: str, index: int, count: int, start: int, rows: int) -> None:
        suffix = f".block{index}" if count > 1 else ""
        self.param, self.grad, self.suffix = param, grad, suffix
        self.name, self.grad_name = param.name + suffix, grad + suffix
        self.start, self.rows = start, rows
        self.shape = (rows,) + tuple(param.shape[1:])
        self.endpoint = ""


def slice_rows(shape: tuple, parts: int, min_block_size: int) -> list[int]:
    """Rows of each block of a var of `shape` cut into at most `parts` blocks of at least
    `min_block_size` elements, each a whole number of rows."""
    numel = math.prod(shape)
    width = math.prod(shape[1:]) if len(shape) > 1 else 1
    count = max(1, min(parts, numel // max(1, min_block_size)))
    rows = shape[0] if shape else 1
    per = math.ceil(math.ceil(numel / count) / width)
    out = []
    while rows > 0:
        out.append(min(per, rows))
        rows -= out[-1]
    return out


class DistributeTranspiler:
    """Paddle's DistributeTranspiler: transpile(), then the trainer's or a server's programs."""

    def __init__(self, config: DistributeTranspilerConfig | None = None) -> None:
        self.config = config if config is not None else DistributeTranspilerConfig()
        if self.config.split_method is None:
            self.config.split_method = RoundRobin
        if self.config.mode not in ("pserver", "nccl2"):
            raise ValueError(f"DistributeTranspilerConfig.mode must be 'pserver' or 'nccl2', "
                             f"got {self.config.mode!r}")
        if not (isinstance(self.config.split_method, type)
                and issubclass(self.config.split_method, PSDispatcher)):
            raise TypeError(f"DistributeTranspilerConfig.split_method must be RoundRobin or "
                            f"HashName, got {self.config.split_method!r}")
        self._transpiled = False

    # -- transpile ------------------------------------------------------------------------
    def transpile(self, trainer_id, program=None, pservers="127.0.0.1:6174", trainers=1,
                  sync_mode=True, startup_program=None, current_endpoint="127.0.0.1:6174"):
        program = program if program is not None else default_main_program()
        startup = startup_program if startup_program is not None else default_startup_program()
        if self.config.mode == "nccl2":
            from .collective import transpile_nccl2
            endpoints = trainers.split(",") if isinstance(trainers, str) else list(trainers)
            return transpile_nccl2(program, startup, trainer_id, endpoints, current_endpoint)
        if isinstance(trainers, bool) or not isinstance(trainers, int) or trainers < 1:
            raise ValueError(f"transpile: trainers must be the number of trainers (an int >= 1) "
                             f"in pserver mode, got {trainers!r}")
        if isinstance(trainer_id, bool) or not isinstance(trainer_id, int) or \
                not 0 <= trainer_id < trainers:
            raise ValueError(f"transpile: trainer_id must be an int in [0, {trainers}), got "
                             f"{trainer_id!r}")
        eps = [ep.strip() for ep in pservers.split(",")] if isinstance(pservers, str) else []
        if not eps or any(":" not in ep for ep in eps) or len(set(eps)) != len(eps):
            raise ValueError(f"transpile: pservers must be distinct 'ip:port' endpoints joined "
                             f"by ',', got {pservers!r}")
        self.trainer_id, self.trainers, self.endpoints = trainer_id, trainers, eps
        self.sync_mode = bool(sync_mode if self.config.sync_mode is None
                              else self.config.sync_mode)
        self.origin_program = program.clone()
        self.origin_startup = startup.clone()
        self.program, self.startup = program, startup
        self._lr_ops = [op for op in program.global_block().ops
                        if int(op.desc.attrs.get("op_role", 0)) & OpRole.LRSched]
        if getattr(program, "lr_scheduler", None) is not None:
            raise OpError("transpile: a paddle.optimizer.lr scheduler sets the learning rate "
                          "from the trainer's Python before each run, which the servers "
                          "would never see; on parameter servers use a fluid.layers decay "
                          "(exponential_decay, piecewise_decay, ...), which they run")
        if self._lr_ops and not self.sync_mode:
            raise OpError("transpile: a learning-rate schedule runs on the servers once a "
                          "round; async mode (sync_mode=False) has no rounds: use sync mode or "
                          "a constant learning rate")
        self._updates, self._regularize = self._update_ops(program)
        self._tables = _sparse_tables(program)
        self._blocks = self._place_blocks(program)
        untrained = sorted(set(self._tables) - set(self._blocks))
        if untrained:
            raise OpError(f"transpile: sparse or distributed tables {untrained} have no "
                          f"optimizer op: servers keep only the tables they train")
        self._rewrite_trainer(program, startup)
        self._transpiled = True

    def _update_ops(self, program: Program) -> tuple[list, dict]:
        """The optimize-role ops, placed as Paddle's transpiler places them: (index, op) of the
        optimizer ops (each updates one Param from its Grad: they go to the servers), and per
        parameter its regularization ops (they read the parameter, which the servers hold:
        they go to its optimize blocks, before the update). The other optimize-role ops
        (gradient clipping: they read gradients only) stay on the trainer as backward ops, so
        trainers send clipped gradients."""
        block = program.global_block()
        updates, regularize, chain = [], {}, {}  # chain: var -> the parameter it derives from
        params = {op.input("Param")[0] for op in block.ops
                  if op._is_optimize_op() and op.input("Param") and op.input("Grad")}
        lr_made = {n for op in self._lr_ops for n in op.output_arg_names}
        for i, op in enumerate(block.ops):
            if not op._is_optimize_op() or int(op.desc.attrs["op_role"]) & OpRole.LRSched:
                continue
            if op.input("Param") and op.input("Grad"):
                made = [n for n in op.input_arg_names if n != op.input("Grad")[0]
                        and not block.var(n).persistable and n not in lr_made]
                if made:
                    raise OpError(f"transpile: optimize op '{op.type}' reads {made}, which the "
                                  f"trainer program computes outside a learning-rate schedule: "
                                  f"the servers cannot read it")
                updates.append((i, op))
                continue
            owners = {chain.get(n, n) for n in op.input_arg_names} & params
            if not owners:
                op.desc.attrs["op_role"] = int(OpRole.Backward)  # clipping: the trainer's
                continue
            if len(owners) > 1 or op.type not in _REGULARIZATION_OPS:
                raise OpError(f"transpile: optimize op '{op.type}' reads parameters "
                              f"{sorted(owners)}: on parameter servers fluidc runs a "
                              f"parameter's own regularization ops ({_REGULARIZATION_OPS}) "
                              f"next to its update")
            owner = owners.pop()
            regularize.setdefault(owner, []).append((i, op))
            chain.update((n, owner) for n in op.output_arg_names if n not in params)
        if not updates:
            raise OpError("transpile: the program has no optimizer ops: call "
                          "optimizer.minimize(loss) before transpiling")
        return updates, regularize

    def _place_blocks(self, program: Program) -> dict[str, list[_Block]]:
        """Each parameter's row blocks, dealt to the servers."""
        block = program.global_block()
        blocks: dict[str, list[_Block]] = {}
        for _, op in self._updates:
            param = block.var(op.input("Param")[0])
            if param.name in blocks:
                raise OpError(f"transpile: parameter '{param.name}' is updated by two "
                              f"optimizer ops")
            if len(param.shape) == 0:
                raise OpError(f"transpile: parameter '{param.name}' is 0-d; parameter servers "
                              f"split vars by rows")
            parts = len(self.endpoints) if self.config.slice_var_up else 1
            # a distributed table is sharded over every server, whatever its size
            table = self._tables.get(param.name, False)
            rows = slice_rows(tuple(param.shape), len(self.endpoints) if table else parts,
                              1 if table else self.config.min_block_size)
            starts = [sum(rows[:i]) for i in range(len(rows))]
            blocks[param.name] = [_Block(param, op.input("Grad")[0], i, len(rows), s, r)
                                  for i, (s, r) in enumerate(zip(starts, rows))]
        dispatcher = self.config.split_method(self.endpoints)
        flat = [b for bs in blocks.values() for b in bs]
        for b, ep in zip(flat, dispatcher.dispatch([b.name for b in flat])):
            b.endpoint = ep
        return blocks

    def _job(self) -> dict:
        return {"endpoints": list(self.endpoints), "trainers": self.trainers,
                "trainer_id": self.trainer_id, "op_role": OpRole.RPC}

    def _recv(self, block, param: str, deps: list) -> None:
        bs = self._blocks[param]
        self._recv_blocks(block, bs[0].param, [(b.endpoint, b.name, b.rows) for b in bs], deps)

    def _recv_blocks(self, block, var, held: list[tuple[str, str, int]], deps: list) -> None:
        """A recv of `var` from the servers: `held` lists (endpoint, var there, rows) of its
        row blocks in order."""
        block.append_op("recv", inputs={"X": deps}, outputs={"Out": [var.name]},
                        attrs={**self._job(), "shape": list(var.shape), "dtype": int(var.dtype),
                               "epmap": [ep for ep, _, _ in held],
                               "sections": [rows for _, _, rows in held],
                               "recv_varnames": [name for _, name, _ in held],
                               "sync_mode": self.sync_mode})

    def _control_var(self, block):
        return block.create_var(name=unique_name.generate("ps_control"), shape=(1,),
                                dtype="float32")

    def _rewrite_trainer(self, program: Program, startup: Program) -> None:
        block = program.global_block()
        moved = self._updates + [x for ops in self._regularize.values() for x in ops]
        for i, _ in sorted(moved, key=lambda x: x[0], reverse=True):
            block._remove_op(i)
        used = {n for op in block.ops for n in op.desc.input_arg_names + op.desc.output_arg_names}
        for _, op in (x for ops in self._regularize.values() for x in ops):
            for n in set(op.desc.output_arg_names) - used:  # the decay terms: the servers'
                block._remove_var(n)
        self._drop_optimizer_state(program, startup)
        sent = [self._push_rows(block, w) for w in self._tables]
        for w, distributed in self._tables.items():
            if distributed:
                self._serve_table(program, startup, w)
        for param, bs in self._blocks.items():
            if param in self._tables:
                continue
            out = self._control_var(block)
            block.append_op("send", inputs={"X": [bs[0].grad]}, outputs={"Out": [out]},
                            attrs={**self._job(), "epmap": [b.endpoint for b in bs],
                                   "sections": [b.rows for b in bs],
                                   "send_varnames": [b.grad_name for b in bs],
                                   "sync_mode": self.sync_mode})
            sent.append(out)
        if self.sync_mode:
            done = self._control_var(block)
            block.append_op("send_barrier", inputs={"X": sent}, outputs={"Out": [done]},
                            attrs=self._job())
            sent = [done]
        for param in self._blocks:
            if not self._tables.get(param):
                self._recv(block, param, sent)
                self._recv(startup.global_block(), param, [])
        program._checkpoint_program = self._checkpoint_program(program)

    def _checkpoint_program(self, program: Program) -> Program:
        """What fluid.io.save_persistables saves of the trainer program (Paddle's
        _save_distributed_persistables): the trainer's persistables, and the optimizer state
        the servers hold, which the program's recv ops fetch (each var whole, under its name
        in the original program, so servers load it back with load_persistables). A
        distributed table and its state stay on the servers."""
        out = Program()
        gb = out.global_block()
        for v in program.list_vars():
            if v.persistable:
                gb.create_var(name=v.name, shape=v.shape, dtype=v.dtype, persistable=True)
        origin = self.origin_program.global_block()
        for _, op in self._updates:
            param = op.input("Param")[0]
            if self._tables.get(param):
                continue
            held: dict[str, list[tuple[str, str, int]]] = {}
            for b in self._blocks[param]:
                for n, (name, cut) in self._state_names(origin, op, b).items():
                    if cut or not held.get(n):  # a copy per block: every copy is the same
                        held.setdefault(n, []).append(
                            (b.endpoint, name, b.rows if cut else origin.var(n).shape[0]))
            for n, blocks in held.items():
                v = origin.var(n)
                if v.persistable and not gb.has_var(n):
                    self._recv_blocks(gb, gb.create_var(name=n, shape=v.shape, dtype=v.dtype,
                                                        persistable=True), blocks, [])
        return out

    def _table_attrs(self, table: str, lookup) -> dict:
        bs = self._blocks[table]
        w = bs[0].param
        return {**self._job(), "epmap": [b.endpoint for b in bs],
                "sections": [b.rows for b in bs], "shape": list(w.shape), "dtype": int(w.dtype),
                "sync_mode": self.sync_mode, "padding_idx": lookup.attr("padding_idx"),
                "lookup": lookup.type}

    def _lookup(self, block, table: str, grad: bool = False) -> int:
        """The index of the lookup (or its grad op) of `table`."""
        return next(i for i, op in enumerate(block.ops) if op.input("W") == [table]
                    and op.type in (tuple(t + "_grad" for t in _LOOKUPS) if grad else _LOOKUPS))

    def _push_rows(self, block, table: str):
        """A sparse table's grad op becomes send_sparse: the summed gradient rows of the
        batch's ids go to the servers (no dense gradient on the trainer). Returns its control
        var."""
        bs = self._blocks[table]
        i = self._lookup(block, table, grad=True)
        g = block.ops[i]
        attrs = self._table_attrs(table, block.ops[self._lookup(block, table)])
        done = self._control_var(block)
        block._remove_op(i)
        block._insert_op(i, "send_sparse",
                         inputs={"Ids": g.input("Ids"), "Grad": g.input("Out@GRAD")},
                         outputs={"Out": [done]},
                         attrs={**attrs, "send_varnames": [b.grad_name for b in bs]})
        block._remove_var(bs[0].grad)
        return done

    def _serve_table(self, program: Program, startup: Program, table: str) -> None:
        """Keep a distributed table on the servers: its lookup fetches the batch's rows; the
        trainer's programs lose the table."""
        block = program.global_block()
        bs = self._blocks[table]
        i = self._lookup(block, table)
        lookup = block.ops[i]
        block._remove_op(i)
        block._insert_op(i, "distributed_lookup_table", inputs={"Ids": lookup.input("Ids")},
                         outputs={"Out": lookup.output("Out")},
                         attrs={**self._table_attrs(table, lookup),
                                "table_names": [b.name for b in bs]})
        readers = [op.type for op in block.ops if table in op.desc.input_arg_names]
        if readers:
            raise OpError(f"transpile: distributed table '{table}' (is_distributed=True) is "
                          f"read by {readers} besides its one lookup: it lives on the servers")
        block._remove_var(table)
        sb = startup.global_block()
        for j in reversed(range(len(sb.ops))):
            if sb.ops[j].output_arg_names == [table]:
                sb._remove_op(j)
        sb._remove_var(table)

    def _drop_optimizer_state(self, program: Program, startup: Program) -> None:
        """The optimizer state (what the update ops wrote besides the parameters) lives on the
        servers: the trainer neither keeps nor initializes it, so no checkpoint of a trainer
        holds a stale copy of it."""
        params = set(self._blocks)
        state = {n for _, op in self._updates for n in op.desc.output_arg_names} - params
        state -= {n for op in program.global_block().ops
                  for n in op.desc.input_arg_names + op.desc.output_arg_names}
        for name in state:
            program.global_block()._remove_var(name)
        sb = startup.global_block()
        for i in reversed(range(len(sb.ops))):
            if set(sb.ops[i].output_arg_names) <= state:
                sb._remove_op(i)
        for name in state & set(sb.vars):
            sb._remove_var(name)

    # -- the programs -----------------------------------------------------------------------
    def _check(self, endpoint: str | None = None) -> None:
        if not self._transpiled:
            raise RuntimeError("DistributeTranspiler: call transpile() first")
        if endpoint is not None and endpoint not in self.endpoints:
            raise ValueError(f"endpoint {endpoint!r} is not one of the pservers "
                             f"{self.endpoints}")

    def get_trainer_program(self, wait_port: bool = True) -> Program:
        """The trainer's program: the transpiled program itself."""
        self._check()
        return self.program

    def get_pserver_program(self, endpoint: str) -> Program:
        """The program of the server at `endpoint`: listen_and_serv over its blocks' optimize
        blocks."""
        self._check(endpoint)
        origin = self.origin_program.global_block()
        prog = Program()
        gb = prog.global_block()
        grads, block_ids = [], []
        lr_block = self._lr_block(prog, origin) if self._lr_ops else -1
        for _, op in self._updates:
            param = op.input("Param")[0]
            for b in self._blocks[param]:
                if b.endpoint != endpoint:
                    continue
                names = self._declare(gb, origin, op, b)
                sub = prog._create_block(0)
                feeds = [b.grad_name]
                if self.sync_mode and self.trainers > 1:
                    feeds = [trainer_grad_name(b.grad_name, t) for t in range(self.trainers)]
                    for n in feeds:
                        gb.create_var(name=n, shape=b.shape, dtype=b.param.dtype)
                    sub.append_op("sum", inputs={"X": feeds}, outputs={"Out": [b.grad_name]})
                    sub.append_op("scale", inputs={"X": [b.grad_name]},
                                  outputs={"Out": [b.grad_name]},
                                  attrs={"scale": 1.0 / self.trainers})
                for _, reg in self._regularize.get(param, []):
                    self._append_renamed(sub, reg, self._declare_temps(gb, origin, reg, b,
                                                                       names))
                self._append_renamed(sub, op, names)
                prog._rollback()
                grads += feeds
                block_ids.append(f"{b.grad_name}:{sub.idx}")
        gb.append_op("listen_and_serv", inputs={"X": grads}, outputs={},
                     attrs={"endpoint": endpoint, "pserver_id": self.endpoints.index(endpoint),
                            "Fanin": self.trainers, "sync_mode": self.sync_mode,
                            "endpoints": list(self.endpoints),
                            "optimize_blocks": [int(s.split(":")[-1]) for s in block_ids],
                            "grad_to_block_id": block_ids, "lr_decay_block_id": lr_block})
        return prog

    @staticmethod
    def _append_renamed(block, op, names: dict[str, str]) -> None:
        """A copy of `op` in `block`, its vars renamed by `names` (others keep theirs)."""
        block.append_op(op.type,
                        inputs={k: [names.get(n, n) for n in v] for k, v in op.desc.inputs.items()},
                        outputs={k: [names.get(n, n) for n in v]
                                 for k, v in op.desc.outputs.items()},
                        attrs=dict(op.desc.attrs))

    def _lr_block(self, prog: Program, origin) -> int:
        """The learning-rate schedule's block (Paddle's lr_decay_block): the trainer's LR ops,
        which the server runs once a round before its optimize blocks; its step counter is
        persistable (initialized, and loaded from a checkpoint, like the trainer's)."""
        gb = prog.global_block()
        sub = prog._create_block(0)
        for op in self._lr_ops:
            for n in op.desc.input_arg_names + op.desc.output_arg_names:
                v = origin.var(n)
                var = gb.create_var(name=n, shape=v.shape, dtype=v.dtype,
                                    persistable=v.persistable)
                if v.persistable:
                    var.slice_of = (n, None)
            self._append_renamed(sub, op, {})
        prog._rollback()
        return sub.idx

    @staticmethod
    def _declare_temps(gb, origin, op, b: _Block, names: dict[str, str]) -> dict[str, str]:
        """`names` plus the temporaries of a regularization op on block `b`: cut to the
        block's rows where they have the parameter's shape."""
        names = dict(names)
        for n in op.desc.input_arg_names + op.desc.output_arg_names:
            if n not in names:
                v = origin.var(n)
                cut = tuple(v.shape) == tuple(b.param.shape)
                names[n] = n + b.suffix if cut else n
                gb.create_var(name=names[n], shape=b.shape if cut else v.shape, dtype=v.dtype)
        return names

    def _declare(self, gb, origin, op, b: _Block) -> dict[str, str]:
        """Declare in the pserver program the vars of `op` updating block `b`: the block of
        the parameter and its gradient, the optimizer state (cut like the parameter where it
        has its shape, a copy per block where the op updates it) and shared inputs (the
        learning rate). Returns origin name -> pserver name."""
        param = b.param
        names = {param.name: b.name, b.grad: b.grad_name}
        rows = (b.start, b.start + b.rows) if b.suffix else None
        gb.create_var(name=b.name, shape=b.shape, dtype=param.dtype,
                      persistable=True).slice_of = (param.name, rows)
        gb.create_var(name=b.grad_name, shape=b.shape, dtype=param.dtype)
        for n, (name, cut) in self._state_names(origin, op, b).items():
            v = origin.var(n)
            names[n] = name
            gb.create_var(name=name, shape=b.shape if cut else v.shape, dtype=v.dtype,
                          persistable=v.persistable).slice_of = (n, rows if cut else None)
        return names

    @staticmethod
    def _state_names(origin, op, b: _Block) -> dict[str, tuple[str, bool]]:
        """The other vars of `op` as the server holding block `b` names them: origin name ->
        (name there, whether it is cut into the block's rows as the parameter is). State of
        the parameter's shape is cut; other state the op writes is a copy per block; read-only
        inputs (the learning rate) keep their names."""
        updated = set(op.desc.output_arg_names)
        out = {}
        for n in op.desc.input_arg_names + op.desc.output_arg_names:
            if n in (b.param.name, b.grad) or n in out:
                continue
            cut = tuple(origin.var(n).shape) == tuple(b.param.shape)
            out[n] = (n + b.suffix if cut or n in updated else n, cut)
        return out

    def get_pserver_programs(self, endpoint: str) -> tuple[Program, Program]:
        """(pserver program, its startup program) of the server at `endpoint`."""
        prog = self.get_pserver_program(endpoint)
        return prog, self.get_startup_program(endpoint, prog)

    def get_startup_program(self, endpoint: str, pserver_program: Program | None = None,
                            startup_program: Program | None = None) -> Program:
        """The startup of the server at `endpoint`: the original startup's initializer of each
        persistable var of its pserver program, for that var's block."""
        self._check(endpoint)
        if pserver_program is None:
            pserver_program = self.get_pserver_program(endpoint)
        origin = startup_program if startup_program is not None else self.origin_startup
        init = {}  # origin var -> the ops writing it
        for op in origin.global_block().ops:
            for n in op.output_arg_names:
                init.setdefault(n, []).append(op)
        prog = Program()
        prog.random_seed = origin.random_seed
        gb = prog.global_block()
        for v in pserver_program.global_block().vars.values():
            if not v.persistable:
                continue
            source = v.slice_of[0]
            if source not in init:
                raise OpError(f"get_startup_program: the startup program does not initialize "
                              f"'{source}', which pserver {endpoint} holds")
            gb.create_var(name=v.name, shape=v.shape, dtype=v.dtype,
                          persistable=True).slice_of = v.slice_of
            for op in init[source]:
                attrs = dict(op.desc.attrs)
                if "shape" in attrs:
                    attrs["shape"] = list(v.shape)
                elif v.name != source:
                    raise OpError(f"get_startup_program: '{source}' is split into blocks, but "
                                  f"its initializer '{op.type}' has no shape to cut")
                gb.append_op(op.type, inputs={k: list(x) for k, x in op.desc.inputs.items()},
                             outputs={k: [v.name if n == source else n for n in x]
                                      for k, x in op.desc.outputs.items()}, attrs=attrs)
        return prog
