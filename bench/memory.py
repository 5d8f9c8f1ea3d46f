"""Memory of one training step: fluidc's planned arena and library-call temporaries vs torch eager.

Two models, each trained with the fluidc static API and, the same model, with torch eager:
- `cnn` (batch 32): img[-1,3,16,16] -> (conv2d 3x3 pad 1 + batch_norm + relu + pool 2x2, max
  then avg; 8 then 16 channels, as tests/fixtures/make_model_fixtures.py's cnn) -> flatten ->
  fc(10) -> softmax_with_cross_entropy against int64 labels -> mean; Momentum(0.05, 0.9)
  (torch: optim.SGD(momentum=0.9), the same update). batch_norm in training mode.
- `transformer` (batch 16): x[-1,8,32] through one post-norm encoder block as the fixture's
  transformer: 4-head self-attention from fc/reshape/transpose/matmul/scale/softmax, residual
  + layer_norm, feed-forward fc(64)-gelu-fc(32), residual + layer_norm; loss = mean(out^2);
  Adam(1e-3). (The fixture's feed-forward uses gelu; FFN_ACT switches it, e.g. to "relu".)
torch starts from fluidc's initial weights; the losses of both over a few steps are recorded
(`parity`) to show the two compute the same thing. All layers exist in fluidc's frontend.

What is counted, on both sides (float32 unless said):
- fluidc `arena`: `plan.arena_plan.size` of the training program's plan, the bytes of the one
  buffer holding every non-persistable value of the step: the copied-in feeds, activations,
  activation and parameter gradients, the loss and small temporaries of the kernels. Never
  parameters, optimizer state or batch_norm's running statistics (they live in the scope).
  `no reuse`: the arena if every storage had bytes of its own (`arena_plan.unshared`); the
  `fluidc no reuse` row is a plan compiled with `BuildStrategy.memory_optimize = False`.
  Feeds fluidc reads in place instead of copying (`plan.direct_feeds`) are outside the arena
  and added as `feeds out`.
- fluidc `temporaries`: measured. One warm training step (the same exe.run as training) runs
  under torch.profiler.profile(activities=[CPU], profile_memory=True); every allocation and free
  of torch's CPU allocator during the step comes with the allocator's running total of live
  bytes, and the peak of that total minus its value before the step is the most bytes the
  library calls (Extern steps: torch ops) held at once beyond the arena.
- torch eager `peak`: the same measurement around one warm step (zero_grad(set_to_none=True)
  before it, then forward, loss.backward(), optimizer.step(), loss.item()): the peak of live
  bytes allocated during the step, which takes in activations, saved tensors, gradients of
  activations and of parameters, and the optimizer's temporaries; parameters, optimizer state
  and running statistics exist before the step and are not counted. The input batch (x and
  labels), made before the step, is added so both sides count the feeds.
- `total` = arena + feeds out + temporaries for fluidc, peak + input batch for torch eager;
  `of torch` = total / torch eager's total.
Limits of the measurement: only torch's CPU allocator is seen (oneDNN's own scratch buffers and
numpy arrays are not; fluidc's generated C kernels allocate nothing), and allocations made on
intra-op worker threads are not tracked by the profiler. Bytes are deterministic: no repeats.

Diagnostics (printed, and in the JSON row of `fluidc`): `arena_peak`, the step with the most
bytes of storages live at once and the largest storages live there, with their live ranges
(scheduler graph) and offsets; `temporaries_by_call`, the peak temporaries of each library call
(a second profiled step with each call of the plan inside a record_function).

Checks before reporting (assertions): the fluidc step trains (the loss falls over STEPS steps)
and the plan compiled with memory_optimize off gives bit-identical losses from the same
weights. Targets: arena with reuse <= 0.6 of the unshared arena; fluidc's arena + temporaries
<= torch eager's peak.
"""
from __future__ import annotations

import contextlib
import os
import sys

import numpy as np

from .harness import add_target
from .models import torch_transformer_block

BATCH = {"cnn": 32, "transformer": 16}
SEQ, D_MODEL, HEADS, FFN = 8, 32, 4, 64
FFN_ACT = "gelu"  # the fixture's transformer; the torch side follows
EPS = 1e-5
LR = {"cnn": 0.05, "transformer": 1e-3}
STEPS = 5  # training steps checked (loss falls, reuse on == reuse off)
SEED = 2024
REUSE_TARGET = 0.6


def _torch():
    import torch
    return torch


# -- the fluidc programs ----------------------------------------------------------------------
def _cnn(fluid):
    img = fluid.layers.data(name="img", shape=[3, 16, 16], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    h = img
    for ch, pool in ((8, "max"), (16, "avg")):
        h = fluid.layers.conv2d(h, ch, 3, padding=1)
        h = fluid.layers.batch_norm(h, epsilon=EPS)
        h = fluid.layers.pool2d(fluid.layers.relu(h), 2, pool, 2)
    logits = fluid.layers.fc(fluid.layers.flatten(h, 1), 10)
    loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
    fluid.optimizer.Momentum(learning_rate=LR["cnn"], momentum=0.9).minimize(loss)
    return loss


def _transformer(fluid):
    L = fluid.layers
    x = L.data(name="x", shape=[SEQ, D_MODEL], dtype="float32")
    dh = D_MODEL // HEADS

    def split(t):  # [b, s, d] -> [b, heads, s, dh]
        return L.transpose(L.reshape(t, [0, 0, HEADS, dh]), [0, 2, 1, 3])

    q, k, v = (split(L.fc(x, D_MODEL, num_flatten_dims=2)) for _ in range(3))
    att = L.softmax(L.scale(L.matmul(q, k, transpose_y=True), scale=dh ** -0.5))
    ctx = L.reshape(L.transpose(L.matmul(att, v), [0, 2, 1, 3]), [0, 0, D_MODEL])
    h = L.layer_norm(x + L.fc(ctx, D_MODEL, num_flatten_dims=2), begin_norm_axis=2, epsilon=EPS)
    ffn = L.fc(L.fc(h, FFN, num_flatten_dims=2, act=FFN_ACT), D_MODEL, num_flatten_dims=2)
    out = L.layer_norm(h + ffn, begin_norm_axis=2, epsilon=EPS)
    loss = L.mean(L.square(out))
    fluid.optimizer.Adam(learning_rate=LR["transformer"]).minimize(loss)
    return loss


def batch(name: str, seed: int = SEED) -> dict[str, np.ndarray]:
    """The fixed training batch (feed dict) of a model."""
    rng = np.random.default_rng(seed)
    if name == "cnn":
        return {"img": rng.standard_normal((BATCH[name], 3, 16, 16), dtype=np.float32),
                "label": rng.integers(0, 10, (BATCH[name], 1)).astype(np.int64)}
    return {"x": rng.standard_normal((BATCH[name], SEQ, D_MODEL), dtype=np.float32)}


class FluidcTrain:
    """A model's training program, its startup run in a private scope, one executor."""

    def __init__(self, name: str, reuse: bool = True, weights: dict | None = None) -> None:
        import fluidc as fluid
        self.fluid = fluid
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 1
        with fluid.unique_name.guard(), fluid.program_guard(main, startup):
            self.loss = {"cnn": _cnn, "transformer": _transformer}[name](fluid)
        self.persistables = sorted(v.name for v in main.list_vars() if v.persistable)
        self.params = [p.name for p in main.global_block().all_parameters()]
        self.program = main
        if not reuse:
            strategy = fluid.BuildStrategy()
            strategy.memory_optimize = False
            self.program = fluid.CompiledProgram(main, build_strategy=strategy)
        self.exe, self.scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        fluid.Executor(fluid.CPUPlace()).run(startup, scope=self.scope)  # its plan not in self.exe
        for n, a in (weights or {}).items():
            self.scope.var(n).get_tensor().set(a, fluid.CPUPlace())

    def state(self) -> dict[str, np.ndarray]:
        """Copies of every persistable (parameters, optimizer state, running statistics)."""
        return {n: np.array(self.scope.find_var(n).get_tensor()) for n in self.persistables
                if self.scope.find_var(n) is not None}

    def step(self, feed: dict[str, np.ndarray]) -> float:
        loss, = self.exe.run(self.program, feed=feed, fetch_list=[self.loss], scope=self.scope)
        return float(np.asarray(loss).reshape(-1)[0])

    @property
    def plan(self):
        """The training program's compiled plan (the only one this executor holds)."""
        plan, = self.exe._plans.values()
        return plan


# -- the torch eager models, from fluidc's weights --------------------------------------------
def torch_train(name: str, w: dict[str, np.ndarray]):
    """(step, zero_grad): step() is one torch eager training step on the model's batch, from
    fluidc's weights `w` (parameters, and batch_norm's running statistics)."""
    torch = _torch()
    F = torch.nn.functional
    p = {k: torch.tensor(v) for k, v in w.items()}
    feed = {k: torch.from_numpy(v) for k, v in batch(name).items()}

    def fc(x, i):
        return x @ p[f"fc_{i}.w_0"] + p[f"fc_{i}.b_0"]

    if name == "cnn":
        for i in (0, 1):  # fluidc's conv bias may carry extra dims; torch's is [C]
            p[f"conv2d_{i}.b_0"] = p[f"conv2d_{i}.b_0"].reshape(-1)
        params = [p[f"{k}_{i}.{s}"] for i in (0, 1) for k, s in
                  (("conv2d", "w_0"), ("conv2d", "b_0"), ("batch_norm", "w_0"),
                   ("batch_norm", "b_0"))] + [p["fc_0.w_0"], p["fc_0.b_0"]]
        x, y = feed["img"], feed["label"].reshape(-1)

        def forward():
            h = x
            for i, pool in ((0, F.max_pool2d), (1, F.avg_pool2d)):
                h = F.conv2d(h, p[f"conv2d_{i}.w_0"], p[f"conv2d_{i}.b_0"], padding=1)
                h = F.batch_norm(h, p[f"batch_norm_{i}.w_1"], p[f"batch_norm_{i}.w_2"],
                                 p[f"batch_norm_{i}.w_0"], p[f"batch_norm_{i}.b_0"],
                                 training=True, momentum=0.1, eps=EPS)
                h = pool(F.relu(h), 2, 2)
            return F.cross_entropy(fc(h.flatten(1), 0), y)
        opt_cls = lambda ps: torch.optim.SGD(ps, lr=LR[name], momentum=0.9)  # noqa: E731
    else:
        params = list(p.values())
        x = feed["x"]
        act = {"gelu": F.gelu, "relu": F.relu}[FFN_ACT]

        def forward():
            return torch_transformer_block(x, p, act).square().mean()
        opt_cls = lambda ps: torch.optim.Adam(ps, lr=LR[name])  # noqa: E731
    for t in params:
        t.requires_grad_(True)
    opt = opt_cls(params)

    def step() -> float:
        loss = forward()
        loss.backward()
        opt.step()
        return loss.item()

    def zero_grad():
        opt.zero_grad(set_to_none=True)

    return step, zero_grad


# -- measuring ----------------------------------------------------------------------------------
@contextlib.contextmanager
def _profiling():
    """torch.profiler.profile(CPU, profile_memory=True), without the start/stop lines the
    profiler's backend writes to the process's stderr."""
    from torch.profiler import ProfilerActivity, profile
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        prof = profile(activities=[ProfilerActivity.CPU], profile_memory=True)
        prof.__enter__()
    finally:
        os.dup2(saved, 2)
    try:
        yield prof
    finally:
        try:
            with open(os.devnull, "w") as null:
                os.dup2(null.fileno(), 2)
            prof.__exit__(None, None, None)
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def profiled_peak(fn) -> dict:
    """Run fn() under torch's profiler with memory profiling; the peak of bytes allocated by
    torch's CPU allocator during fn and not yet freed (the allocator's running total at each
    allocation/free event, minus its value before the first), and that at the end."""
    from torch._C._profiler import _EventType

    with _profiling() as prof:
        fn()
    events = []
    stack = list(prof.profiler.kineto_results.experimental_event_tree())
    while stack:
        node = stack.pop()
        if node.tag == _EventType.Allocation and node.extra_fields.device.type == "cpu":
            f = node.extra_fields
            events.append((node.start_time_ns, f.total_allocated, f.alloc_size))
        stack.extend(node.children)
    if not events:
        return {"peak": 0, "end": 0, "events": 0}
    # Each running total is taken under the allocator's lock, so the maximum does not depend on
    # how the events are ordered; the baseline is the total before the earliest event.
    events.sort()
    before = events[0][1] - events[0][2]
    return {"peak": max(0, max(t for _, t, _ in events) - before),
            "end": events[-1][1] - before, "events": len(events)}


def _nbytes(info) -> int:
    from fluidc.frontend.dtypes import to_numpy_dtype
    return int(np.prod(info.shape)) * to_numpy_dtype(info.dtype).itemsize


def arena_report(plan, top: int = 8) -> dict:
    """Where the arena's bytes go: each storage's bytes and live range (the planner's unit);
    `max_live_bytes`, the most bytes of storages live at one step (no placement of these live
    ranges does better), that step and the largest storages live there; and
    `max_live_by_value`, the same with a storage counted only while it holds a value (from a
    write to the last access before the next write that does not read it), not across the
    gaps between the values it holds."""
    lowered, arena = plan.lowered, plan.arena_plan
    graph = lowered.graph
    n_steps = len(lowered.steps)
    size: dict[str, int] = {}
    for n, info in lowered.infos.items():
        s = lowered.storage(n)
        if s in arena.offsets:
            size[s] = max(size.get(s, 0), _nbytes(info))
    ranges = {s: graph.live_range(s) for s in size}
    # A storage's bytes are dead between its last access and a step that writes it without
    # reading it (a new value): its live range less those gaps is when it holds values.
    values: dict[str, list] = {}
    for s in size:
        spans: list = []
        for k in graph.touches.get(s, []):
            fresh = s in graph.writes[k] and s not in graph.reads[k]
            if fresh or not spans:
                spans.append([-1 if not fresh and s in graph.live_in else k, k])
            spans[-1][1] = k
        if spans and s in graph.live_out:
            spans[-1][1] = n_steps
        values[s] = [tuple(x) for x in spans]
    live = [sum(b for s, b in size.items() if ranges[s][0] <= k <= ranges[s][1])
            for k in range(n_steps)]
    by_value = [sum(b for s, b in size.items() if any(f <= k <= t for f, t in values.get(s, ())))
                for k in range(n_steps)]
    k = int(np.argmax(live)) if live else 0
    at_peak = sorted((s for s in size if ranges[s][0] <= k <= ranges[s][1]),
                     key=lambda s: -size[s])
    step = lowered.steps[k] if lowered.steps else None
    return {"max_live_bytes": max(live, default=0), "peak_step": k, "n_steps": n_steps,
            "peak_step_what": _step_name(step), "max_live_by_value": max(by_value, default=0),
            "at_peak": [{"storage": s, "bytes": size[s], "live": list(ranges[s]),
                         "values": sorted(values.get(s, ())), "offset": arena.offsets[s]}
                        for s in at_peak[:top]],
            "storages": len(size)}


def _step_name(step) -> str:
    from fluidc.passes.fuse import Extern
    if step is None:
        return "-"
    if isinstance(step, Extern):
        return f"extern {step.op.type}"
    ops = getattr(step, "ops", None)
    if ops is None:
        ops = [o for part in getattr(step, "parts", ()) for o in part.ops]
    return "kernel " + "+".join(dict.fromkeys(o.type for o in ops))


def temporaries_by_call(plan, run) -> list[tuple[str, int]]:
    """Diagnostic (not the headline figure): the peak temporaries of each call of the plan, from
    a profiled run with each call wrapped in a record_function labelled by its step."""
    torch = _torch()
    from torch._C._profiler import _EventType

    from fluidc.passes.fuse import Extern
    calls = plan.calls
    labels = [f"#{i} " + (f"extern {s.op.type}" if isinstance(s, Extern) else "C kernels")
              for i, s in enumerate(plan.module.schedule)]

    def wrap(call, label):
        def wrapped():
            with torch.profiler.record_function(label):
                call()
        return wrapped

    plan.calls = [wrap(c, lb) for c, lb in zip(calls, labels)]
    try:
        with _profiling() as prof:
            run()
    finally:
        plan.calls = calls
    peaks: dict[str, list] = {}
    stack = [(n, None) for n in prof.profiler.kineto_results.experimental_event_tree()]
    while stack:
        node, label = stack.pop()
        if node.name in labels:
            label = node.name
        if node.tag == _EventType.Allocation and label is not None:
            f = node.extra_fields
            peaks.setdefault(label, []).append((node.start_time_ns, f.total_allocated,
                                                f.alloc_size))
        stack.extend((c, label) for c in node.children)
    out = []
    for label, ev in peaks.items():
        ev.sort()
        before = ev[0][1] - ev[0][2]
        out.append((label, max(t for _, t, _ in ev) - before))
    return sorted(out, key=lambda x: -x[1])


# -- the bench ----------------------------------------------------------------------------------
def _model_rows(name: str, verbose: bool) -> list[dict]:
    feed = batch(name)
    feed_bytes = sum(a.nbytes for a in feed.values())
    on = FluidcTrain(name, reuse=True)
    w0 = on.state()
    off = FluidcTrain(name, reuse=False, weights=w0)
    loss_on = [on.step(feed) for _ in range(STEPS)]
    loss_off = [off.step(feed) for _ in range(STEPS)]
    assert loss_on[-1] < loss_on[0], f"{name}: fluidc's loss does not fall: {loss_on}"
    assert loss_on == loss_off, f"{name}: memory_optimize on/off losses differ: {loss_on} " \
                                f"vs {loss_off}"

    step, zero_grad = torch_train(name, {n: w0[n] for n in w0 if n in set(on.params)
                                         or n.startswith("batch_norm_")})
    loss_torch = []
    for _ in range(STEPS):
        zero_grad()
        loss_torch.append(step())
    zero_grad()
    t_meas = profiled_peak(step)
    torch_total = t_meas["peak"] + feed_bytes

    rows = []
    bench = f"{name} train b{BATCH[name]} memory"
    for label, fl in (("fluidc", on), ("fluidc no reuse", off)):
        plan = fl.plan
        arena = plan.arena_plan
        direct = {n for n, _ in plan.direct_feeds}
        feeds_out = sum(feed[n].nbytes for n in direct)
        meas = profiled_peak(lambda: fl.step(feed))
        total = arena.size + feeds_out + meas["peak"]
        rows.append({
            "bench": bench, "competitor": label, "arena_bytes": arena.size,
            "unshared_bytes": arena.unshared, "reuse_ratio": arena.size / arena.unshared,
            "feeds_outside_arena_bytes": feeds_out, "temporaries_bytes": meas["peak"],
            "temporaries_left_bytes": meas["end"], "total_bytes": total,
            "of_torch": total / torch_total, "note": "",
        })
    fr = rows[0]
    report = arena_report(on.plan)
    fr["arena_peak"] = report
    fr["temporaries_by_call"] = temporaries_by_call(on.plan, lambda: on.step(feed))[:8]
    fr["parity"] = {"fluidc_loss": loss_on, "fluidc_no_reuse_loss": loss_off,
                    "torch_loss": loss_torch,
                    "max_abs_diff": float(max(abs(a - b) for a, b in zip(loss_on, loss_torch)))}
    fr["note"] = f"{len(on.plan.lowered.steps)} steps, {report['storages']} storages"
    rows[1]["note"] = "memory_optimize = False"
    rows.append({"bench": bench, "competitor": "torch eager", "arena_bytes": None,
                 "unshared_bytes": None, "reuse_ratio": None, "feeds_outside_arena_bytes": None,
                 "temporaries_bytes": None, "peak_bytes": t_meas["peak"],
                 "input_bytes": feed_bytes, "total_bytes": torch_total, "of_torch": 1.0,
                 "note": "peak during the step + input batch"})
    add_target(fr, f"{name}: arena with reuse / without <= {REUSE_TARGET}", fr["reuse_ratio"],
               None, fr["reuse_ratio"] <= REUSE_TARGET)
    add_target(fr, f"{name}: fluidc arena + temporaries <= torch eager peak (of torch)",
               fr["of_torch"], None, fr["of_torch"] <= 1.0)
    if verbose:
        print(f"  [{bench}] losses fluidc {[round(v, 5) for v in loss_on]} (no reuse identical), "
              f"torch {[round(v, 5) for v in loss_torch]}", flush=True)
        print(f"  [{bench}] arena: at most {report['max_live_bytes']} bytes of storages live at "
              f"once (step {report['peak_step']}/{report['n_steps']}, "
              f"{report['peak_step_what']}); {report['max_live_by_value']} counting storages only "
              f"while a value on them is live; largest at that step (bytes, live range): "
              + ", ".join(f"{d['storage']} {d['bytes']} {tuple(d['live'])}"
                          for d in report["at_peak"][:5]), flush=True)
        print(f"  [{bench}] temporaries by call: " + ", ".join(
            f"{lb} {b}" for lb, b in fr["temporaries_by_call"][:5]), flush=True)
    return rows


def _fmt_bytes(b) -> str:
    return "-" if b is None else f"{b:,}"


def format_table(rows: list[dict]) -> str:
    """The memory rows as a plain-text table (bytes)."""
    head = ["bench", "competitor", "arena", "unshared", "reuse", "feeds out", "temporaries",
            "total", "of torch", "note"]
    body = []
    for r in rows:
        body.append([r["bench"], r["competitor"], _fmt_bytes(r["arena_bytes"]),
                     _fmt_bytes(r["unshared_bytes"]),
                     "-" if r["reuse_ratio"] is None else f"{r['reuse_ratio']:.2f}",
                     _fmt_bytes(r["feeds_outside_arena_bytes"]),
                     _fmt_bytes(r["temporaries_bytes"] if r["temporaries_bytes"] is not None
                                else r.get("peak_bytes")),
                     _fmt_bytes(r["total_bytes"]), f"{r['of_torch']:.2f}x", r["note"]])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(head, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip() for row in body]
    return "\n".join(lines) + (
        "\n\nBytes of one training step. arena = the plan's planned arena (plan.arena_plan.size);"
        " unshared = every storage\nin bytes of its own; reuse = arena / unshared; feeds out ="
        " feeds read in place, outside the arena;\ntemporaries = peak bytes torch's CPU allocator"
        " held during a warm step (fluidc: library calls;\ntorch eager: its whole step, peak"
        " column); total = arena + feeds out + temporaries (torch eager: peak +\ninput batch);"
        " of torch = total / torch eager's total. Parameters and optimizer state are counted on"
        " neither side.")


def run(repeat: int | None = None, verbose: bool = True) -> list[dict]:
    """Both models' rows (bytes are deterministic: `repeat` is not used)."""
    del repeat
    rows: list[dict] = []
    for name in BATCH:
        rows += _model_rows(name, verbose)
    return rows
