"""paddle.summary: run the network once on zero inputs of the given sizes (eagerly) and print
Paddle's table of its layers (input and output shapes, parameter counts) and size totals."""
from __future__ import annotations

import numbers

import numpy as np

from .autograd import no_grad
from .tensor import Tensor

_WIDTHS = (15, 20, 20, 15)
_RULE = 75


def _is_shape(spec) -> bool:
    return isinstance(spec, (list, tuple)) and not any(isinstance(d, (list, tuple))
                                                        for d in spec)


def _concrete(shape) -> list[int]:
    """A shape with its one unknown dim (-1 / None; the batch dim) as 1, as Paddle's summary
    reads it; the other dims must be positive ints."""
    out = []
    unknown = 0
    for d in shape:
        if d is None or (isinstance(d, numbers.Number) and d == -1):
            unknown += 1
            if unknown > 1:
                raise ValueError("Option input_size only the dim of batch_size can be None or "
                                 "-1.")
            d = 1
        if not isinstance(d, numbers.Integral) or isinstance(d, bool):
            raise TypeError(f"input_size dims must be positive ints, got {list(shape)}")
        if d <= 0:
            raise ValueError(f"Expected element in input size greater than zero, but got {d}")
        out.append(int(d))
    return out


def _build_inputs(input_size, dtypes) -> list:
    """forward's arguments: a zero tensor per shape, nested lists of shapes giving nested
    lists of tensors (an LSTM's [x, (h, c)]); a number or one shape is one argument."""
    from . import to_tensor
    specs = [[input_size]] if isinstance(input_size, numbers.Number) else \
        [input_size] if _is_shape(input_size) else input_size
    if not isinstance(specs, (list, tuple)):
        raise TypeError(f"input_size must be a shape (tuple or list of ints) or a list of "
                        f"shapes, got {type(input_size).__name__}")
    dts = dtypes if isinstance(dtypes, (list, tuple)) else [dtypes or "float32"] * len(specs)

    def build(spec, dtype):
        if _is_shape(spec):
            return to_tensor(np.zeros(_concrete(spec), dtype=dtype))
        if not isinstance(spec, (list, tuple)):
            raise TypeError(f"input_size must be a shape (tuple or list of ints) or a list of "
                            f"shapes, got {spec!r}")
        return [build(s, dtype) for s in spec]
    return [build(s, d) for s, d in zip(specs, dts)]


def _flat(value) -> list:
    return [t for v in value for t in _flat(v)] if isinstance(value, (list, tuple)) else [value]


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


def _widths(rows) -> tuple[list[int], int]:
    """Paddle's column widths (15, 20, 20, 15, at least) grown to the longest name and shape
    strings, and the rule's width (75, at least their sum + 5)."""
    widths = list(_WIDTHS)
    for row in rows:
        widths[:3] = [max(w, len(c)) for w, c in zip(widths, row[:3])]
    return widths, max(_RULE, sum(widths) + 5)


def _row(cells, widths) -> str:
    return " ".join(f"{c:^{w}}" for c, w in zip(cells, widths))


def _leaf_layers(network) -> list:
    """The layers summary reports: every sublayer but containers, or the network itself when
    it has none; a recurrent network (nn.LSTM, ...) is one layer, its cells not reported (in
    Paddle one rnn op runs it)."""
    from ..frontend.layers.api2.layer import LayerList, Sequential
    from ..frontend.layers.api2.rnn import RNNBase
    if isinstance(network, RNNBase) or not network.sublayers():
        return [network]
    out = {}  # by id: a layer both a child and in a Sequential, once
    for sub in network.children():
        if isinstance(sub, RNNBase) or not isinstance(sub, (Sequential, LayerList)):
            out[id(sub)] = sub
        if not isinstance(sub, RNNBase):
            out.update((id(s), s) for s in _leaf_layers(sub) if s is not sub)
    return list(out.values())


def summary(net, input_size=None, dtypes=None, input=None) -> dict:  # noqa: A002
    """Print the table; returns {'total_params': n, 'trainable_params': n}."""
    if input is not None:  # forward's one argument: a tensor, or a list or dict of them
        inputs = list(input.values()) if isinstance(input, dict) else \
            list(input) if isinstance(input, (list, tuple)) else [input]
        feed = [input]
    else:
        if input_size is None:
            raise ValueError("summary needs input_size or input")
        feed = _build_inputs(input_size, dtypes)
        inputs = _flat(feed)
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
    table = [(name, str(ins), str(out), f"{params:,}") for name, ins, out, params, _ in rows]
    widths, rule = _widths(table)
    lines = ["-" * rule, _row(["Layer (type)", "Input Shape", "Output Shape", "Param #"], widths),
             "=" * rule]
    lines += [_row(cells, widths) for cells in table]
    lines += ["=" * rule, f"Total params: {total:,}", f"Trainable params: {trainable:,}",
              f"Non-trainable params: {total - trainable:,}", "-" * rule,
              f"Input size (MB): {input_mb:.2f}",
              f"Forward/backward pass size (MB): {pass_mb:.2f}",
              f"Params size (MB): {params_mb:.2f}",
              f"Estimated Total Size (MB): {input_mb + pass_mb + params_mb:.2f}",
              "-" * rule]
    print("\n".join(lines) + "\n")
    return {"total_params": np.int64(total), "trainable_params": np.int64(trainable)}

