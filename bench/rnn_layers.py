"""paddle.nn.LSTM as Paddle's `rnn` op against the same network unrolled over its time steps
(nn.BiRNN over nn.LSTMCell: the cells' ops, one set per step, which is what nn.LSTM built
before the op), in static programs: the first run (lowering, compiling) and the steady run,
inference and an SGD step, the competitors interleaved run by run; and torch.nn.LSTM eagerly
for scale.

    python -m bench.rnn_layers [--repeat N]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import numpy as np

TIME, BATCH, INPUT, HIDDEN = 50, 16, 32, 64


def _program(kind: str, train: bool):
    import fluidc as paddle
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, TIME, INPUT], "float32")
        if kind == "rnn op":
            y, _ = paddle.nn.LSTM(INPUT, HIDDEN, num_layers=2, direction="bidirect")(x)
        else:
            y = x
            for size in (INPUT, 2 * HIDDEN):
                y, _ = paddle.nn.BiRNN(paddle.nn.LSTMCell(size, HIDDEN),
                                       paddle.nn.LSTMCell(size, HIDDEN))(y)
        loss = paddle.mean(y)
        if train:
            paddle.optimizer.SGD(0.01).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    return main, exe, loss


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rnn_layers")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    import os
    os.environ["FLUIDC_CACHE_DIR"] = tempfile.mkdtemp(prefix="fluidc-bench-rnn-")
    os.environ["FLUIDC_TIERED"] = "0"
    import torch
    x = np.random.default_rng(0).standard_normal([BATCH, TIME, INPUT]).astype("float32")
    for train in (False, True):
        runs, first, ops = {}, {}, {}
        for kind in ("rnn op", "unrolled"):
            program, exe, loss = _program(kind, train)
            start = time.perf_counter()
            exe.run(program, feed={"x": x}, fetch_list=[loss])
            first[kind] = time.perf_counter() - start
            runs[kind] = (program, exe, loss)
            ops[kind] = len(program.global_block().ops)
        times: dict[str, list[float]] = {k: [] for k in runs}
        for _ in range(args.repeat):
            for kind, (program, exe, loss) in runs.items():
                start = time.perf_counter()
                exe.run(program, feed={"x": x}, fetch_list=[loss])
                times[kind].append(time.perf_counter() - start)
        what = "SGD step" if train else "inference"
        for kind in runs:
            print(f"{what:9s} {kind:8s} ops {ops[kind]:5d}  first run {first[kind]:6.2f} s  "
                  f"median {statistics.median(times[kind]) * 1e3:8.1f} ms  "
                  f"fastest {min(times[kind]) * 1e3:8.1f} ms")
        print(f"{what:9s} rnn op / unrolled: "
              f"{statistics.median(times['rnn op']) / statistics.median(times['unrolled']):.2f}")
    net = torch.nn.LSTM(INPUT, HIDDEN, num_layers=2, bidirectional=True, batch_first=True)
    tx = torch.tensor(x)
    with torch.no_grad():
        samples = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            net(tx)
            samples.append(time.perf_counter() - start)
    print(f"inference torch.nn.LSTM eager median {statistics.median(samples) * 1e3:8.1f} ms  "
          f"fastest {min(samples) * 1e3:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
