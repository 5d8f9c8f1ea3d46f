"""The `fluidc` command: demo (train on bundled data), run (a saved model), inspect, codegen."""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def demo(args: argparse.Namespace) -> int:
    """Train an MLP on the bundled digits through generated C; print loss and accuracy."""
    from tqdm import tqdm

    import fluidc as fluid
    from fluidc.data import load_digits

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
                  f"held-out accuracy {test_acc[0]:.3f}")
        elapsed = time.perf_counter() - start
    print(f"trained {args.epochs} epochs in {elapsed:.2f} s; "
          f"final held-out accuracy {test_acc[0]:.3f}")
    return 0


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
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `fluidc` console script."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
