"""The `fluidc` command: demo (train on bundled data), inspect and codegen (a program after the
passes), cache (the kernel cache), bench (the benchmarks)."""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from fluidc.frontend.errors import FluidcError
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
            # disable=None: tqdm draws only on a terminal (no redraws written into a log file)
            bar = tqdm(steps, desc=f"epoch {epoch + 1}/{args.epochs}", leave=False,
                       disable=True if args.quiet else None, unit="step")
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
    """(program, feed names, fetch names) from an example name or a saved model (an inference
    model, or a training program saved with paddle.static.save / save_persistables ...)."""
    if target in EXAMPLES:
        main, _, feeds, fetches = example_program(target)
        return main, [v.name for v in feeds], [v.name for v in fetches]
    from pathlib import Path
    if not (Path(target).exists() or Path(target + ".pdmodel").exists()):
        raise SystemExit(f"fluidc: '{target}' is neither an example ({', '.join(EXAMPLES)}) "
                         f"nor a saved model")
    from fluidc.runtime.inspect_plan import program_targets
    from fluidc.runtime.io import read_program
    program = read_program(target)
    return (program, *program_targets(program))


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

    target = args.target
    if target not in EXAMPLES and _is_checkpoint(Path(target)):
        from fluidc.runtime.inspect_files import describe
        print(describe(target))
        return 0
    view = _plan_view(args)
    if args.format == "json":
        text = view.to_json()
    elif args.format == "dot":
        text = view.to_dot()
    elif args.format in ("svg", "png"):
        if args.format == "png" and not args.output:
            raise SystemExit("fluidc: --format png writes a file: give -o PATH")
        text = view.to_svg() if args.format == "svg" else view.to_png()
    elif target in EXAMPLES:
        text = view.to_text()
    else:  # a saved model: its vars with sizes, and its ops, as for any file
        from fluidc.runtime.inspect_files import describe
        text = view.to_text(f"== {describe(target)}")
    _emit(text, args.output)
    return 0


def _plan_view(args: argparse.Namespace):
    """The PlanView of the command's target, batch, passes and backend."""
    from fluidc.runtime.inspect_plan import PlanView

    program, feeds, fetches = _load_target(args.target)
    lowered = lower_for_batch(program, feeds, fetches, args.batch, _strategy(args.passes),
                              target=args.backend)
    return PlanView(program, lowered, args.backend, args.batch)


def _is_checkpoint(path) -> bool:
    """Files only describe() reads: parameter files, pickles, checkpoint directories."""
    if path.is_dir():
        return not (path / "__model__").exists()
    return path.suffix in (".pdparams", ".pdopt", ".pdiparams") or (
        path.exists() and path.suffix not in (".pdmodel",) and path.name != "__model__"
        and not path.with_suffix(".pdmodel").exists())


def _emit(text: str | bytes, output: str | None) -> None:
    if output:
        from pathlib import Path
        path = Path(output)
        path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text)
    else:
        print(text)


def codegen(args: argparse.Namespace) -> int:
    """Print the kernels a program compiles to (nothing is compiled)."""
    _emit(_plan_view(args).source, args.output)
    return 0


def cache(args: argparse.Namespace) -> int:
    """Show or empty the kernel cache."""
    from fluidc.codegen.compiler import cache_dir, cache_max_bytes, trim_cache
    from fluidc.codegen.product_choice import mode as product_mode, recorded

    d = cache_dir()
    if args.action == "clear":
        removed = clear_cache(d)
        print(f"removed {removed} cached kernel files from {d}")
        return 0
    limit = cache_max_bytes()
    used = trim_cache(d, None) if d.is_dir() else 0
    kernels = len(list(d.glob("k_*.so")) + list(d.glob("t_*.py"))) if d.is_dir() else 0
    cap = f"{limit / 2**20:.0f} MiB (FLUIDC_CACHE_MAX_MB)" if limit else "none (FLUIDC_CACHE_MAX_MB=0)"
    products = recorded()
    generated = sum(e["generated"] for e in products.values())
    print(f"directory  {d} (FLUIDC_CACHE_DIR)\nkernels    {kernels}\n"
          f"products   {len(products)} shapes measured here: {generated} generated, "
          f"{len(products) - generated} library calls (FLUIDC_PRODUCTS={product_mode()})\n"
          f"size       {used / 2**20:.1f} MiB\ncap        {cap}")
    return 0


def clear_cache(d) -> int:
    """Remove the cache's own files (kernels, sidecars, stale builds) from `d`; returns how many
    entries went. Files of other names are left alone."""
    from fluidc.codegen.compiler import trim_cache

    if not d.is_dir():
        return 0
    before = sum(1 for _ in d.iterdir())
    trim_cache(d, 0)
    return before - sum(1 for _ in d.iterdir())


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got '{text}'") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


class _HelpFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default, where it has one."""

    def _get_help_string(self, action):
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and action.option_strings \
                and "%(default)" not in text:
            text += " (default: %(default)s)"
        return text


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `fluidc` command."""
    from fluidc import __version__

    fmt = _HelpFormatter
    parser = argparse.ArgumentParser(prog="fluidc", description=__doc__, formatter_class=fmt)
    parser.add_argument("--version", action="version", version=f"fluidc {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("demo", help="train a small model on bundled data, compiled to C",
                       description=demo.__doc__, formatter_class=fmt)
    p.add_argument("--epochs", type=_positive_int, default=20, help="passes over the data")
    p.add_argument("--batch-size", type=_positive_int, default=32, help="examples per step")
    p.add_argument("--lr", type=_positive_float, default=0.005, help="Adam's learning rate")
    p.add_argument("--seed", type=int, default=1, help="seed of the data split and the weights")
    p.add_argument("--quiet", action="store_true", help="no progress bar (it is drawn only on "
                                                        "a terminal anyway)")
    p.set_defaults(func=demo)
    for name, func, text in (("inspect", inspect, "show a program before and after the passes"),
                             ("codegen", codegen, "print the generated kernels")):
        p = sub.add_parser(name, help=text, description=func.__doc__, formatter_class=fmt)
        p.add_argument("target", help=f"an example ({', '.join(EXAMPLES)}) or a saved model path")
        p.add_argument("--passes", help="comma list of the passes to run, from "
                                        f"{', '.join(PASSES)}, or none (default: the "
                                        "executor's: all)")
        p.add_argument("--batch", type=_positive_int, default=1, help="size of -1 dims")
        p.add_argument("-o", "--output", help="write to this file instead of stdout")
        if name == "inspect":
            p.add_argument("--format", choices=("text", "json", "dot", "svg", "png"),
                           default="text", help="how to print it (dot needs pydot: the viz "
                                                "extra; svg and png also Graphviz's `dot`)")
        p.add_argument("--backend", choices=("c", "triton"), default="c",
                       help="the code the executor builds for CPUPlace (c) or CUDAPlace (triton)")
        p.set_defaults(func=func)
    p = sub.add_parser("cache", help="show or empty the kernel cache", description=cache.__doc__,
                       formatter_class=fmt)
    p.add_argument("action", choices=("info", "clear"), nargs="?", default="info",
                   help="info: where it is, how many kernels, how big; clear: remove them")
    p.set_defaults(func=cache)
    # Listed for --help only: main() hands `fluidc bench ...` to bench/run.py's own parser.
    sub.add_parser("bench", help="run the benchmarks (`fluidc bench --help` lists them)",
                   add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `fluidc` console script."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:  # the benchmarks' options (and --help) are bench/run.py's
        from fluidc.bench.run import main as bench_main
        return bench_main(argv[1:], prog="fluidc bench")
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except FluidcError as e:  # bad input (a file that is no model, ...): its message, no trace
        raise SystemExit(f"fluidc: {e}") from None


if __name__ == "__main__":
    sys.exit(main())
