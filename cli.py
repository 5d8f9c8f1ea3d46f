"""The `fluidc` command: demo (train on bundled data), run (a saved model), inspect, codegen."""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from fluidc.passes.pipeline import lower_for_batch
from fluidc.passes.strategy import PASSES


def demo(args: argparse.Namespace) -> int:
    """Train an MLP on the bundled digits through generated C; print loss and accuracy."""
    from tqdm import tqdm

    import fluidc as fluid
    from fluidc.datasets import load_digits

    images, labels = load_digits()
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(images))
    images, labels = images[order], labels[order].reshape(-1, 1)
    n_test = len(images) // 5
    test_x, test_y = images[:n_test], labels[:n_test]
    train_x, train_y = images[n_test:], labels[n_test:]

    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = args.seed
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="pixels", shape=[64], dtype="float32")
        y = fluid.layers.data(name="label", shape=[1], dtype="int64")
        hidden = fluid.layers.fc(input=x, size=128, act="relu")
        hidden = fluid.layers.fc(input=hidden, size=64, act="relu")
        prob = fluid.layers.fc(input=hidden, size=10, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(input=prob, label=y))
        acc = fluid.layers.accuracy(input=prob, label=y)
        test_program = main.clone(for_test=True)
        fluid.optimizer.Adam(learning_rate=args.lr).minimize(loss)

    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    batch = args.batch_size
    print(f"fluidc demo: MLP 64-128-64-10 on {len(train_x)} handwritten digits "
          f"({n_test} held out), Adam lr={args.lr}, batch {batch}, compiled to C")
    with fluid.scope_guard(scope):
        exe.run(startup)
        start = time.perf_counter()
        for epoch in range(args.epochs):
            perm = rng.permutation(len(train_x))
            losses = []
            steps = range(0, len(train_x) - batch + 1, batch)
            bar = tqdm(steps, desc=f"epoch {epoch + 1}/{args.epochs}", leave=False,
                       disable=args.quiet, unit="step")
            for i in bar:
                idx = perm[i:i + batch]
                out, = exe.run(main, feed={"pixels": train_x[idx], "label": train_y[idx]},
                               fetch_list=[loss])
                losses.append(float(out[0]))
                bar.set_postfix(loss=f"{losses[-1]:.4f}")
            test_acc, = exe.run(test_program, feed={"pixels": test_x, "label": test_y},
                                fetch_list=[acc])
            print(f"epoch {epoch + 1:2d}  loss {np.mean(losses):.4f}  "
                  f"held-out accuracy {float(test_acc):.3f}")
        elapsed = time.perf_counter() - start
    print(f"trained {args.epochs} epochs in {elapsed:.2f} s; "
          f"final held-out accuracy {float(test_acc):.3f}")
    return 0


EXAMPLES = ("mlp", "linear", "softmax", "chain")


def example_program(name: str):
    """(program, startup, feed vars, fetch vars) of a built-in example."""
    import fluidc as fluid

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        if name == "mlp":
            x = fluid.layers.data(name="x", shape=[784], dtype="float32")
            y = fluid.layers.data(name="y", shape=[1], dtype="int64")
            h = fluid.layers.fc(fluid.layers.fc(x, 512, act="relu"), 512, act="relu")
            out = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 10), y))
            fluid.optimizer.Adam(1e-3).minimize(out)
            feeds = [x, y]
        elif name == "linear":
            x = fluid.layers.data(name="x", shape=[4], dtype="float32")
            y = fluid.layers.data(name="y", shape=[1], dtype="float32")
            pred = fluid.layers.fc(x, 1)
            out = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
            fluid.optimizer.SGD(0.01).minimize(out)
            feeds = [x, y]
        elif name == "softmax":
            x = fluid.layers.data(name="x", shape=[1024], dtype="float32")
            out = fluid.layers.softmax(x)
            feeds = [x]
        elif name == "chain":
            x = fluid.layers.data(name="x", shape=[1024], dtype="float32")
            y = fluid.layers.data(name="y", shape=[1024], dtype="float32")
            out = fluid.layers.tanh(fluid.layers.relu(x * 0.5 + y) - 1.0) * x + 2.0
            feeds = [x, y]
        else:
            raise ValueError(f"unknown example '{name}'")
    return main, startup, feeds, [out]


def _load_target(target: str):
    """(program, feed names, fetch names) from an example name or a saved inference model."""
    if target in EXAMPLES:
        main, _, feeds, fetches = example_program(target)
        return main, [v.name for v in feeds], [v.name for v in fetches]
    from pathlib import Path
    if not (Path(target).exists() or Path(target + ".pdmodel").exists()):
        raise SystemExit(f"fluidc: '{target}' is neither an example ({', '.join(EXAMPLES)}) "
                         f"nor a saved model")
    from fluidc.runtime.io import read_inference_model
    program, feeds, fetches = read_inference_model(target)
    return program, feeds, fetches


def _strategy(passes: str | None):
    import fluidc as fluid
    from fluidc.passes.strategy import strategy_for

    if passes is None:
        return fluid.BuildStrategy()
    try:
        return strategy_for(p.strip() for p in passes.split(",") if p.strip())
    except ValueError as e:
        raise SystemExit(f"fluidc: {e}") from None


def inspect(args: argparse.Namespace) -> int:
    """Print a program (or saved model/checkpoint) before and after the passes."""
    from pathlib import Path

    from fluidc.passes import export

    target = args.target
    if target not in EXAMPLES and _is_checkpoint(Path(target)):
        from fluidc.runtime.inspect_files import describe
        print(describe(target))
        return 0
    program, feeds, fetches = _load_target(target)
    lowered = lower_for_batch(program, feeds, fetches, args.batch, _strategy(args.passes))
    if args.format == "json":
        text = export.to_json({"program": export.program_summary(program),
                               "compiled": export.steps_summary(lowered)})
    elif args.format in ("dot", "svg"):
        text = export.program_dot(program) + "\n" + export.steps_dot(lowered) \
            if args.format == "dot" else _svg(export.steps_dot(lowered))
    else:
        if target in EXAMPLES:
            listing = f"== program ({len(program.global_block().ops)} ops)\n{program}"
        else:  # a saved model: its vars with sizes, and its ops, as for any file
            from fluidc.runtime.inspect_files import describe
            listing = f"== {describe(target)}"
        text = (f"{listing}\n== compiled for batch {args.batch} ({len(lowered.steps)} steps)\n"
                f"{export.steps_text(lowered)}")
    _emit(text, args.output)
    return 0


def _is_checkpoint(path) -> bool:
    """Files only describe() reads: parameter files, pickles, checkpoint directories."""
    if path.is_dir():
        return not (path / "__model__").exists()
    return path.suffix in (".pdparams", ".pdopt", ".pdiparams") or (
        path.exists() and path.suffix not in (".pdmodel",) and path.name != "__model__"
        and not path.with_suffix(".pdmodel").exists())


def _svg(dot_text: str) -> str:
    import shutil
    import subprocess

    if shutil.which("dot") is None:
        raise SystemExit("fluidc: --format svg needs Graphviz's `dot` on PATH "
                         "(e.g. apt-get install graphviz); --format dot prints the source instead")
    return subprocess.run(["dot", "-Tsvg"], input=dot_text, capture_output=True, text=True,
                          check=True).stdout


def _emit(text: str, output: str | None) -> None:
    if output:
        from pathlib import Path
        Path(output).write_text(text)
    else:
        print(text)


def codegen(args: argparse.Namespace) -> int:
    """Print the kernels a program compiles to."""
    program, feeds, fetches = _load_target(args.target)
    if args.backend == "triton":
        from fluidc.codegen.triton_plan import generate_triton as generate
    else:
        from fluidc.codegen import generate_c as generate
    lowered = lower_for_batch(program, feeds, fetches, args.batch, _strategy(args.passes),
                     row_fusion=args.backend == "c", target=args.backend)
    module = generate(lowered.steps, lowered.infos, lowered.storage)
    _emit(module.source, args.output)
    return 0


def bench(args: argparse.Namespace) -> int:
    """Run the benchmark suite (fused vs unfused vs numpy/torch)."""
    from fluidc.bench.run import main as bench_main
    return bench_main(args.rest)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `fluidc` command."""
    parser = argparse.ArgumentParser(prog="fluidc", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="train a small model on bundled data, compiled to C")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.005)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=demo)
    for name, func, text in (("inspect", inspect, "show a program before and after the passes"),
                             ("codegen", codegen, "print the generated kernels")):
        p = sub.add_parser(name, help=text)
        p.add_argument("target", help=f"an example ({', '.join(EXAMPLES)}) or a saved model path")
        p.add_argument("--passes", help="comma list of the passes to run, from "
                                        f"{', '.join(PASSES)}, or none (default: the "
                                        "executor's: all)")
        p.add_argument("--batch", type=int, default=1, help="size of -1 dims (default 1)")
        p.add_argument("-o", "--output", help="write to this file instead of stdout")
        if name == "inspect":
            p.add_argument("--format", choices=("text", "json", "dot", "svg"), default="text")
        else:
            p.add_argument("--backend", choices=("c", "triton"), default="c")
        p.set_defaults(func=func)
    p = sub.add_parser("bench", help="run the benchmarks (arguments go to bench/run.py)")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `fluidc` console script."""
    from fluidc.frontend.errors import FluidcError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except FluidcError as e:  # bad input (a file that is no model, ...): its message, no trace
        raise SystemExit(f"fluidc: {e}") from None


if __name__ == "__main__":
    sys.exit(main())
