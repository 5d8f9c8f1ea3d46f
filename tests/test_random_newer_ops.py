"""Random programs over the newer ops feeding fused groups and in-place writes: argsort /
sort, linspace, arange (range), cumsum, gather, scatter (overwrite, a permutation of rows),
where, flip, set_value (x[index] = value, in place), slices and strided slices, reshape /
transpose / squeeze / flatten views, overwrites (`assign(..., output=)`) and in-place
elementwise updates; fetch lists hold intermediates and views. Compiled under several
BuildStrategy combinations, with and without fluid.memory_optimize, over two runs, they must
agree with the numpy reference executor. Scratch runs of thousands of seeds found nothing here
(see docs/architecture.md, "Randomized differential tests")."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.frontend import unique_name

from op_harness import run_reference
from test_random_control_flow import STRATEGIES, _strategy

TOL = dict(rtol=2e-5, atol=2e-6)


def build(seed, size=8):
    """(main, startup, feeds, fetch names, a log of the overwrites): `size` random ops over
    fed [R, C] float32 values, an index vector and a permutation."""
    rng = np.random.default_rng(seed)

    def r(n):
        return int(rng.integers(n))
    main, startup = paddle.static.Program(), paddle.static.Program()
    feeds, log = {}, []
    with paddle.static.program_guard(main, startup):
        shape = [int(rng.integers(2, 5)), int(rng.integers(2, 6))]
        pool = []
        for j in range(1 + r(2)):
            x = paddle.static.data(f"x{j}", shape, "float32")
            feeds[f"x{j}"] = rng.uniform(-2, 2, shape).astype("float32")
            pool.append(x)
        R, C = shape
        idx = paddle.static.data("idx", [R], "int64")
        feeds["idx"] = rng.integers(0, R, [R]).astype("int64")
        # scatter rows: a permutation, so no row is updated twice
        perm_idx = paddle.static.data("perm", [R], "int64")
        feeds["perm"] = rng.permutation(R).astype("int64")
        fetch_extra = []

        def pick():
            return pool[r(len(pool))]

        def blk():
            return paddle.static.default_main_program().current_block()

        for _ in range(size):
            a = pick()
            k = r(22)
            if k == 0:
                v = paddle.argsort(a, axis=r(2), descending=bool(r(2)))
                v = paddle.cast(v, "float32")
            elif k == 1:
                v = paddle.sort(a, axis=r(2), descending=bool(r(2)))
            elif k == 2:
                lin = paddle.linspace(float(rng.uniform(-1, 0)), float(rng.uniform(0, 1)), C,
                                      "float32")
                v = paddle.multiply(a, lin)
            elif k == 3:
                ar = paddle.cast(paddle.arange(0, C, 1, "int64"), "float32")
                v = paddle.add(a, paddle.scale(ar, 0.1))
            elif k == 4:
                v = paddle.cumsum(a, axis=r(2))
            elif k == 5:
                v = paddle.gather(a, idx, axis=0)
            elif k == 6:
                v = paddle.scatter(a, perm_idx, paddle.tanh(pick()), overwrite=True)
            elif k == 7:
                v = paddle.where(paddle.greater_than(a, pick()), a, paddle.scale(pick(), 0.5))
            elif k == 8:  # __setitem__ (set_value) on an existing non-fed var
                targets = [t for t in pool if t.name not in feeds]
                if not targets:
                    continue
                t = targets[r(len(targets))]
                which = r(4)

                def set_value(value, axes, starts, ends, steps, decrease=(), const=None):
                    ins = {"Input": [t]}
                    attrs = {"axes": axes, "starts": starts, "ends": ends, "steps": steps,
                             "decrease_axes": list(decrease), "dtype": 5}
                    if const is None:
                        ins["ValueTensor"] = [value]
                    else:
                        attrs.update(fp32_values=[const], shape=[1])
                    blk().append_op(type="set_value", inputs=ins, outputs={"Out": [t]},
                                    attrs=attrs)
                if which == 0:
                    set_value(paddle.tanh(a)[1], [0], [0], [1], [1], [0])
                elif which == 1:
                    set_value(None, [1], [1], [C], [1], const=float(rng.uniform(-1, 1)))
                elif which == 2:
                    set_value(paddle.scale(a, 2.0)[:-1, :], [0], [1], [R], [1])
                else:
                    set_value(paddle.nn.functional.sigmoid(a)[:, C - 1], [1], [0], [1], [1],
                              [1])
                log.append(f"setitem{which} -> {t.name}")
                continue
            elif k == 9:  # a slice view read, padded back
                v = paddle.concat([a[:, 1:], a[:, :1]], axis=1)
            elif k == 10:
                v = paddle.reshape(paddle.transpose(paddle.reshape(a, [C, R]), [1, 0]), [R, C])
            elif k == 11:
                v = paddle.squeeze(paddle.unsqueeze(a, [0]), [0])
                fetch_extra.append(v)
            elif k == 12:
                v = paddle.flatten(a)
                fetch_extra.append(v)
                v = paddle.reshape(paddle.exp(paddle.tanh(v)), [R, C])
            elif k == 13:  # in-place elementwise write
                targets = [t for t in pool if t.name not in feeds]
                if not targets:
                    continue
                t = targets[r(len(targets))]
                blk().append_op(type=["elementwise_add", "elementwise_mul"][r(2)],
                                inputs={"X": [t], "Y": [paddle.tanh(a)]}, outputs={"Out": [t]},
                                attrs={"axis": -1})
                log.append(f"inplace -> {t.name}")
                continue
            elif k == 14:  # assign over
                targets = [t for t in pool if t.name not in feeds and t.name != a.name]
                if not targets:
                    continue
                t = targets[r(len(targets))]
                paddle.assign(paddle.nn.functional.sigmoid(a), output=t)
                log.append(f"assign -> {t.name}")
                continue
            elif k == 15:
                v = paddle.add(a, pick())
            elif k == 16:
                v = paddle.nn.functional.softmax(a, axis=r(2))
            elif k == 17:
                v = paddle.subtract(a, paddle.max(a, axis=r(2), keepdim=True))
            elif k == 18:
                v = paddle.tanh(paddle.multiply(a, pick()))
            elif k == 19:  # strided slice view
                s = a[:, ::2]
                fetch_extra.append(s)
                v = paddle.concat([s, a[:, : C - s.shape[1]]], axis=1)
            elif k == 20:
                v = paddle.gather(a, perm_idx, axis=0)  # a permutation of the rows
            else:
                v = paddle.tanh(a)
            pool.append(v)
    computed = [v for v in pool if v.name not in feeds] + fetch_extra
    fetch = [v.name for v in computed if rng.random() < 0.35]
    if computed:
        fetch.append(computed[-1].name)
    return main, startup, feeds, list(dict.fromkeys(fetch)), log


@pytest.mark.parametrize("seed", range(12))
def test_newer_ops_programs_agree_with_reference(seed):
    with unique_name.guard():
        main, _, feeds, fetch, log = build(seed, 12)
    want = run_reference(main, feeds, fetch)
    for optimized in (False, True):
        if optimized:
            fluid.memory_optimize(main)
        for label, flags in STRATEGIES.items():
            exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
            compiled = fluid.CompiledProgram(main, build_strategy=_strategy(flags))
            for r in range(2):
                got = exe.run(compiled, feed=dict(feeds), fetch_list=fetch, scope=scope)
                for name, g, w in zip(fetch, got, want):
                    np.testing.assert_allclose(
                        g, w, **TOL, err_msg=f"seed {seed} {name} ({label}, "
                        f"memory_optimize={optimized}, run {r}) {log}")
