"""Eager ops' signature cache (dygraph/runner.py `signature`): a call whose signature ran before
skips the op's checks and shape inference. Randomized: many ops, random shapes and attributes,
each case run cold (cache emptied: the checked path), then warm on new values of the same
shapes (the cached path), against the numpy reference executor running the same code as a
static program; gradients too."""
import numpy as np
import pytest

import fluidc as paddle
import fluidc.nn.functional as F
from fluidc.frontend.errors import FluidcError
from fluidc.dygraph import runner
from fluidc.runtime.reference import ReferencePlan

RNG = np.random.default_rng(16)


def _shape(rank: int) -> list[int]:
    return [int(d) for d in RNG.integers(1, 5, rank)]


def _pick(options):
    return options[int(RNG.integers(len(options)))]


def _broadcast_pair():
    shape = _shape(int(RNG.integers(1, 4)))
    other = [d if RNG.random() < 0.7 else 1 for d in shape][int(RNG.integers(len(shape))):]
    return [shape, other or [1]]


# name -> draw(): (input shapes, function of the input tensors); each draw picks new shapes
# and attributes, so equal shapes with other attributes must not reach a cached entry.
def _matmul():
    m, k, n = (int(d) for d in RNG.integers(1, 6, 3))
    ty = bool(RNG.integers(2))
    return [[m, k], [n, k] if ty else [k, n]], lambda x, y: paddle.matmul(x, y, transpose_y=ty)


# Cases whose draws differ only in attributes keep one shape, so that later draws find the
# entries of earlier ones under the same shapes.
def _scale():
    s, b, after = float(RNG.normal()), float(RNG.normal()), bool(RNG.integers(2))
    return [[3, 4]], lambda x: paddle.scale(x, scale=s, bias=b, bias_after_scale=after)


def _transpose():
    perm = [int(p) for p in RNG.permutation(3)]
    return [[2, 3, 4]], lambda x: paddle.transpose(x, perm)


def _sum():
    axis, keep = int(RNG.integers(-2, 2)), bool(RNG.integers(2))
    return [[3, 4]], lambda x: paddle.sum(x * x, axis=axis, keepdim=keep)


def _softmax():
    axis = int(RNG.integers(-2, 2))
    return [[3, 4]], lambda x: F.softmax(x, axis=axis)


def _reshape():
    shape = _shape(3)
    return [shape], lambda x: paddle.reshape(x, [-1, shape[-1]]) * 2.0


def _concat():
    shape, axis = _shape(2), int(RNG.integers(2))
    other = list(shape)
    other[axis] = int(RNG.integers(1, 4))
    return [shape, other], lambda x, y: paddle.concat([x, y, x], axis=axis)


def _aliasing():  # x * x then x * y: one signature must not serve the other
    shape = _shape(2)
    return [shape, shape], lambda x, y: x * x - x * y + y * y


def _unary():
    fn = _pick([paddle.tanh, paddle.exp, F.relu, F.sigmoid, paddle.abs, F.gelu])
    return [_shape(3)], lambda x: fn(x) + 1.0


def _linear():
    batch, k, n = (int(d) for d in RNG.integers(1, 6, 3))
    return [[batch, k], [k, n], [n]], lambda x, w, b: F.relu(F.linear(x, w, b))


def _layer_norm():
    shape = _shape(3)
    return [shape], lambda x: F.layer_norm(x, shape[-1:])


def _mean_max():
    axis = int(RNG.integers(0, 2))
    return [[3, 4]], lambda x: paddle.mean(x, axis=axis) + paddle.max(x, axis=axis)


CASES = {"add": lambda: (_broadcast_pair(), lambda x, y: x + y),
         "sub_mul": lambda: (_broadcast_pair(), lambda x, y: (x - y) * y),
         "div": lambda: (_broadcast_pair(), lambda x, y: x / (y * y + 1.0)),
         "matmul": _matmul, "scale": _scale, "transpose": _transpose, "sum": _sum,
         "softmax": _softmax, "reshape": _reshape, "concat": _concat, "aliasing": _aliasing,
         "unary": _unary, "linear": _linear, "layer_norm": _layer_norm,
         "mean_max": _mean_max}


def _eager(fn, arrays):
    xs = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    out = fn(*xs)
    paddle.sum(out).backward()
    return [out.numpy()] + [x.grad.numpy() for x in xs]


def _reference(fn, arrays):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        xs = []
        for i, a in enumerate(arrays):
            x = paddle.static.data(f"x{i}", list(a.shape), "float32")
            x.stop_gradient = False
            xs.append(x)
        out = fn(*xs)
        grads = paddle.static.gradients([paddle.sum(out)], xs)
    feed = {f"x{i}": a for i, a in enumerate(arrays)}
    return ReferencePlan(main, list(feed), [out.name] + [g.name for g in grads]).run(
        feed, paddle.static.Scope())


def _check(got, want, what):
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == np.shape(w), f"{what}[{i}]: shape {g.shape}, reference {np.shape(w)}"
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-5, err_msg=f"{what}[{i}]")


@pytest.mark.parametrize("name", sorted(CASES))
def test_cached_path_matches_checked_path_and_reference(name):
    kept = {}  # the entries of earlier draws (other shapes, or the same with other attributes)
    for draw in range(5):
        shapes, fn = CASES[name]()
        cold = [RNG.standard_normal(s).astype("float32") for s in shapes]
        warm = [RNG.standard_normal(s).astype("float32") for s in shapes]
        runner.PROGRAMS._entries.clear()  # every op takes the checked path
        _check(_eager(fn, cold), _reference(fn, cold), f"{name} draw {draw} checked path")
        made = dict(runner.PROGRAMS._entries)
        runner.PROGRAMS._entries.update(kept)
        _check(_eager(fn, warm), _reference(fn, warm), f"{name} draw {draw} cached path")
        assert made.keys() <= runner.PROGRAMS._entries.keys() and \
            len(runner.PROGRAMS._entries) == len({**kept, **made}), "the warm run built entries"
        kept.update(made)


def test_signature_keys_aliasing_attributes_and_dtypes():
    x = paddle.to_tensor(RNG.standard_normal((3, 4)).astype("float32"))
    y = paddle.to_tensor(RNG.standard_normal((3, 4)).astype("float32"))
    block = x.block
    key = runner.signature("elementwise_mul", {"X": x, "Y": y}, {}, {"axis": -1},
                           paddle.Tensor)[0]
    same = runner.signature("elementwise_mul", {"X": x, "Y": x}, {}, {"axis": -1},
                            paddle.Tensor)[0]
    assert key != same
    np.testing.assert_allclose((x * x).numpy(), x.numpy() ** 2, rtol=1e-6)
    np.testing.assert_allclose((x * y).numpy(), x.numpy() * y.numpy(), rtol=1e-6)
    z = paddle.to_tensor(RNG.standard_normal((3, 4)))  # float64: its own entry
    np.testing.assert_allclose((z * z).numpy(), z.numpy() ** 2, rtol=1e-12)
    assert (z * z).dtype == paddle.float64
    # -0.0 and 0.0 are keyed apart (their products' zeros differ), a NaN matches itself
    assert runner.signature("scale", {"X": x}, {}, {"scale": -0.0}, paddle.Tensor)[0] \
        != runner.signature("scale", {"X": x}, {}, {"scale": 0.0}, paddle.Tensor)[0]
    assert runner.signature("scale", {"X": x}, {}, {"bias": float("nan")},
                            paddle.Tensor)[0] == \
        runner.signature("scale", {"X": x}, {}, {"bias": float("nan")}, paddle.Tensor)[0]
    # attributes that are objects (not plain data) are never keyed: the checked path
    assert runner.signature("scale", {"X": x}, {}, {"scale": object()},
                            paddle.Tensor) is None


def test_cached_call_still_raises_paddle_errors():
    x = paddle.to_tensor(np.ones((2, 3), "float32"))
    y = paddle.to_tensor(np.ones((4, 5), "float32"))
    x + x
    with pytest.raises(ValueError):  # a new signature: checked, Paddle's error
        x + y
    op = x.block.append_op("scale", {"X": x}, {"Out": x.block.create_var()}, {"scale": 2.0})
    again = x.block.append_op("scale", {"X": x}, {"Out": x.block.create_var()},
                              {"scale": 2.0})
    assert again.desc.type == "scale" and again.desc.input("X") == [x.name]
    assert again.desc.attrs["scale"] == op.desc.attrs["scale"] == 2.0


def test_training_loop_builds_nothing_after_its_first_step():
    """Same network, same shapes: no new op entry, backward program or plan after step one
    (the backward is cached by tape structure, the update is one shadow program)."""
    nn = paddle.nn
    net = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 3))
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    x = paddle.to_tensor(RNG.standard_normal((4, 6)).astype("float32"))
    y = paddle.to_tensor(RNG.integers(0, 3, (4, 1)).astype("int64"))

    def built():
        return (len(runner.PROGRAMS._entries), len(runner.PROGRAMS._executor._plans),
                len(opt._eager.shadows), len(opt._eager.executor._plans))
    losses = []
    for i in range(4):
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
        if i == 0:
            after_first = built()
    assert built() == after_first
    assert losses[-1] < losses[0]
    assert all(float(abs(p.grad).sum()) == 0 for p in net.parameters())  # cleared


def test_tensors_of_equal_names_are_told_apart_by_identity():
    """Two layers built under one unique_name.guard hold parameters of equal names: each
    computes with its own, on the checked path (first call) and the cached one, forward and
    backward; one call given two different tensors of one name is refused."""
    from fluidc.dygraph.tensor import new_tensor
    nn = paddle.nn
    nets = []
    for seed in (1, 2):
        with paddle.unique_name.guard():
            net = nn.Linear(4, 3)
        w = np.random.default_rng(seed).standard_normal((4, 3)).astype("float32")
        net.weight.set_value(w)
        nets.append((net, w))
    assert nets[0][0].weight.name == nets[1][0].weight.name
    x = RNG.standard_normal((2, 4)).astype("float32")
    for _ in range(2):  # checked path, then cached
        for net, w in nets:
            out = net(paddle.to_tensor(x))
            np.testing.assert_allclose(out.numpy(), x @ w + net.bias.numpy(), rtol=1e-5)
            out.sum().backward()
            np.testing.assert_allclose(net.weight.grad.numpy(),
                                       np.repeat(x.sum(0)[:, None], 3, 1), rtol=1e-5)
            net.clear_gradients()
    old = paddle.to_tensor(np.ones(3, "float32"))
    twin = new_tensor(np.full(3, 2.0, "float32"), name=old.name)
    np.testing.assert_array_equal((old * 3).numpy(), np.full(3, 3.0))
    with pytest.raises(FluidcError, match=old.name):
        old.block.append_op("elementwise_add", {"X": old, "Y": twin},
                            {"Out": old.block.create_var()}, {"axis": -1})
