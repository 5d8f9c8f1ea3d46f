"""paddle.summary: run the network once on zero inputs of the given sizes (eagerly) and print
Paddle's table of its layers (input and output shapes, parameter counts) and size totals."""
from __future__ import annotations

import numbers

import numpy as np

from .autograd import no_grad
from .tensor import Tensor

_WIDTHS = (15, 20, 20, 15)
_RULE = 75


def _shape_list(input_size) -> list[list]:
    """input_size as a list of shapes (one shape: a tuple / list of numbers, or a number)."""
    if isinstance(input_size, numbers.Number):
        return [[input_size]]
    if isinstance(input_size, (list, tuple)) and all(
            isinstance(d, numbers.Number) or d is None for d in input_size):
        return [list(input_size)]
    if isinstance(input_size, (list, tuple)):
        return [s for item in input_size for s in _shape_list(item)]
    raise TypeError(f"input_size must be a shape (tuple or list of ints) or a list of shapes, "
                    f"got {type(input_size).__name__}")


def _concrete(shape: list) -> list[int]:
    """A shape with its batch dim -1 / None as 1; other dims must be positive ints."""
    out = []
    for i, d in enumerate(shape):
        if d is None or (isinstance(d, numbers.Number) and d == -1):
            if i != 0:
                raise ValueError(f"only the batch dim of input_size may be -1 or None, got "
                                 f"{list(shape)}")
            d = 1
        if not isinstance(d, numbers.Integral) or isinstance(d, bool) or d <= 0:
            raise TypeError(f"input_size dims must be positive ints, got {list(shape)}")
        out.append(int(d))
    return out


def _shapes(value) -> list:
    """A tensor's shape; of a list / tuple, each element's (a non-tensor's: [])."""
    if isinstance(value, Tensor):
        return list(value.shape)
    if isinstance(value, (list, tuple)):
        return [_shapes(v) for v in value]
    return []


def _numel(shape: list) -> int:
    if shape and isinstance(shape[0], list):
        return sum(_numel(s) for s in shape)
    return int(np.prod(shape)) if shape else 0


def _row(cells) -> str:
    return " ".join(f"{c:^{w}}" for c, w in zip(cells, _WIDTHS))


def _leaf_layers(network) -> list:
    """The layers summary reports: every sublayer but containers, or the network itself when
    it has none."""
    from ..frontend.layers.api2.layer import LayerList, Sequential
    subs = network.sublayers()
    if not subs:
        return [network]
    unique = {id(s): s for s in subs}  # a layer both a child and in a Sequential: once
    return [s for s in unique.values() if not isinstance(s, (Sequential, LayerList))]


def summary(net, input_size=None, dtypes=None, input=None) -> dict:  # noqa: A002
    """Print the table; returns {'total_params': n, 'trainable_params': n}."""
    from . import to_tensor
    if input is not None:  # forward's one argument: a tensor, or a list or dict of them
        inputs = list(input.values()) if isinstance(input, dict) else \
            list(input) if isinstance(input, (list, tuple)) else [input]
        feed = [input]
    else:
        if input_size is None:
            raise ValueError("summary needs input_size or input")
        shapes = [_concrete(s) for s in _shape_list(input_size)]
        dts = dtypes if isinstance(dtypes, (list, tuple)) else [dtypes or "float32"] * len(shapes)
        inputs = [to_tensor(np.zeros(s, dtype=d)) for s, d in zip(shapes, dts)]
        feed = inputs
    rows = []

    def wrap(layer):
        forward = layer.forward

        def hooked(*args, **kwargs):
            out = forward(*args, **kwargs)
            own = layer.state_dict(include_sublayers=False)
            params = sum(int(np.prod(v.shape)) for v in own.values())
            trainable = sum(int(np.prod(v.shape)) for v in own.values()
                            if getattr(v, "trainable", False) and not v.stop_gradient)
            index = int(layer.full_name().rsplit("_", 1)[-1]) + 1
            rows.append((f"{type(layer).__name__}-{index}", [_shapes(a) for a in args],
                         _shapes(out), params, trainable))
            return out
        layer.__dict__["forward"] = hooked

    layers = _leaf_layers(net)
    for layer in layers:
        wrap(layer)
    was_training = net.training
    net.eval()
    try:
        with no_grad():
            net(*feed)
    finally:
        for layer in layers:
            del layer.__dict__["forward"]
        if was_training:
            net.train()
    total = sum(r[3] for r in rows)
    trainable = sum(r[4] for r in rows)
    mb = 4.0 / 1024 ** 2
    input_mb = sum(int(np.prod(t.shape)) for t in inputs) * mb
    pass_mb = 2.0 * sum(_numel(r[2]) for r in rows) * mb
    params_mb = total * mb
    lines = ["-" * _RULE, _row(["Layer (type)", "Input Shape", "Output Shape", "Param #"]),
             "=" * _RULE]
    lines += [_row([name, str(ins), str(out), f"{params:,}"])
              for name, ins, out, params, _ in rows]
    lines += ["=" * _RULE, f"Total params: {total:,}", f"Trainable params: {trainable:,}",
              f"Non-trainable params: {total - trainable:,}", "-" * _RULE,
              f"Input size (MB): {input_mb:.2f}",
              f"Forward/backward pass size (MB): {pass_mb:.2f}",
              f"Params size (MB): {params_mb:.2f}",
              f"Estimated Total Size (MB): {input_mb + pass_mb + params_mb:.2f}",
              "-" * _RULE]
    print("\n".join(lines) + "\n")
    return {"total_params": np.int64(total), "trainable_params": np.int64(trainable)}

