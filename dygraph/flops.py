"""paddle.flops (Paddle's hapi dynamic_flops / static_flops): the FLOPs of a Layer, counted per
leaf sublayer of known type by a forward pass on a random input of `input_size`, or of a static
Program, counted per op; the same formulas and table as Paddle's."""
from __future__ import annotations

import warnings

import numpy as np


def _numel(t) -> int:
    return int(np.prod(t.shape, dtype=np.int64))


def count_convNd(m, x, y):
    kernel_ops = int(np.prod(m.weight.shape[2:]))
    bias_ops = 1 if m.bias is not None else 0
    m.total_ops += abs(int(_numel(y) * (x[0].shape[1] / m._conv["groups"] * kernel_ops + bias_ops)))


def count_leaky_relu(m, x, y):
    m.total_ops += _numel(x[0])


def count_bn(m, x, y):
    m.total_ops += 2 * _numel(x[0])  # counted in eval mode, as Paddle's


def count_linear(m, x, y):
    m.total_ops += abs(int(m.weight.shape[0] * _numel(y)))


def count_avgpool(m, x, y):
    m.total_ops += _numel(y)


def count_adap_avgpool(m, x, y):
    kernel = np.array(x[0].shape[2:]) // np.array(y.shape[2:])
    m.total_ops += abs(int((int(np.prod(kernel)) + 1) * _numel(y)))


def count_zero_ops(m, x, y):
    m.total_ops += 0


_HOOKS = {"Conv1D": count_convNd, "Conv2D": count_convNd, "Conv3D": count_convNd,
          "Conv1DTranspose": count_convNd, "Conv2DTranspose": count_convNd,
          "Conv3DTranspose": count_convNd, "BatchNorm2D": count_bn, "BatchNorm": count_bn,
          "ReLU": count_zero_ops, "ReLU6": count_zero_ops, "LeakyReLU": count_leaky_relu,
          "Linear": count_linear, "Dropout": count_zero_ops, "AvgPool1D": count_avgpool,
          "AvgPool2D": count_avgpool, "AvgPool3D": count_avgpool,
          "AdaptiveAvgPool1D": count_adap_avgpool, "AdaptiveAvgPool2D": count_adap_avgpool,
          "AdaptiveAvgPool3D": count_adap_avgpool}


def _register_hooks() -> dict:
    """Layer class -> count function, for the classes fluidc's paddle.nn has."""
    from .. import nn
    return {getattr(nn, name): fn for name, fn in _HOOKS.items() if hasattr(nn, name)}


class Table:
    """Paddle's flops table: centred cells, each column as wide as its widest cell + 2."""

    def __init__(self, heads: list) -> None:
        self.heads = heads
        self.widths = [len(h) for h in heads]
        self.rows: list = []

    def add_row(self, row: list) -> None:
        self.widths = [max(w, len(str(c))) for w, c in zip(self.widths, row)]
        self.rows.append(row)

    def _row(self, row) -> str:
        return "".join("|" + str(c).center(w + 2) for c, w in zip(row, self.widths)) + "|"

    def print_table(self) -> None:
        shelf = "".join("+" + "-" * (w + 2) for w in self.widths) + "+"
        print("\n".join([shelf, self._row(self.heads), shelf, *map(self._row, self.rows),
                         shelf]))


def flops(net, input_size, custom_ops=None, print_detail=False) -> int:
    """paddle.flops: a Layer's FLOPs for an input of `input_size` (custom_ops: Layer class ->
    fn(layer, inputs, output) adding to layer.total_ops), or a static Program's."""
    from ..frontend.framework import Program
    from ..frontend.layers.api2.layer import Layer
    if isinstance(net, Layer):
        from .. import randn
        return dynamic_flops(net, randn(input_size), custom_ops, print_detail)
    if isinstance(net, Program):
        return static_flops(net, print_detail)
    warnings.warn("Your model must be an instance of paddle.nn.Layer or paddle.static.Program.")
    return -1


def _leaf(m) -> bool:
    return not list(m.children())


def dynamic_flops(model, inputs, custom_ops=None, print_detail=False) -> int:
    """One eval-mode forward under no_grad with each leaf sublayer's forward wrapped to count
    its FLOPs (custom_ops first, then Paddle's table of layer types), parameters and shapes."""
    from .autograd import no_grad
    custom_ops = custom_ops or {}
    hooks = _register_hooks()
    counted: dict[int, tuple] = {}  # id(layer) -> (input shape, output shape)
    seen: set = set()
    wrapped: list = []  # (layer, its own forward attribute if it had one: a to_static one)
    layers = list({id(m): m for m in model.sublayers()}.values())
    for m in [model, *layers]:
        if not _leaf(m) or any(m is w for w, _ in wrapped):
            continue
        kind = type(m)
        fn = custom_ops.get(kind) or hooks.get(kind)
        if kind not in seen:
            print(f"Customize Function has been applied to {kind}" if kind in custom_ops else
                  f"{kind}'s flops has been counted" if kind in hooks else
                  f"Cannot find suitable count function for {kind}. Treat it as zero FLOPs.")
            seen.add(kind)
        m.total_ops = 0
        forward = m.forward

        def counting(*args, m=m, fn=fn, forward=forward, **kwargs):
            out = forward(*args, **kwargs)
            if fn is not None:
                fn(m, args, out)
            first = out[0] if isinstance(out, (list, tuple)) else out
            counted[id(m)] = (list(args[0].shape), list(first.shape))
            return out
        wrapped.append((m, m.__dict__.get("forward")))
        m.forward = counting
    training = model.training
    model.eval()
    try:
        with no_grad():
            model(inputs)
    finally:
        if training:
            model.train()
        ops = {id(m): int(m.total_ops) for m, _ in wrapped}
        for m, own in wrapped:
            del m.forward, m.total_ops
            if own is not None:
                m.forward = own
    table = Table(["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"])
    total_ops = total_params = 0
    for m in layers:
        if id(m) not in counted:
            continue
        params = sum(_numel(p) for p in m.parameters())
        total_ops += ops[id(m)]
        total_params += params
        table.add_row([m.full_name(), *counted[id(m)], params, ops[id(m)]])
    if print_detail:
        table.print_table()
    print(f"Total Flops: {total_ops}     Total Params: {total_params}")
    return total_ops


def _dims(block, name) -> list:
    return list(block._find_var_recursive(name).shape)


def static_flops(program, print_detail=False) -> int:
    """A static Program's FLOPs per op as Paddle's static_flops counts them (conv2d,
    depthwise_conv2d, pool2d, mul / matmul, batch_norm, elementwise_*; batch dim left out)."""
    table = Table(["OP Type", "Param name", "Flops"])
    total = 0
    for block in program.blocks:
        for op in block.ops:
            t, d = op.type, op.desc
            param, n = "", 0
            if t in ("conv2d", "depthwise_conv2d"):
                filt = _dims(block, d.input("Filter")[0])
                n = int(np.prod(_dims(block, d.output("Output")[0])[1:])) * (
                    int(np.prod(filt[1:])) + (1 if d.inputs.get("Bias") else 0))
                param = d.input("Filter")[0]
            elif t == "pool2d":
                x, out = _dims(block, d.input("X")[0]), _dims(block, d.output("Out")[0])
                kernel = int(np.prod(np.array(x[2:]) // np.array(out[2:])))
                n = (kernel + 1) * int(np.prod(out[1:]))
            elif t in ("mul", "matmul"):
                n = _dims(block, d.input("Y")[0])[0] * int(np.prod(
                    _dims(block, d.output("Out")[0])[1:]))
                param = d.input("Y")[0]
            elif t == "batch_norm":
                n = 2 * int(np.prod(_dims(block, d.output("Y")[0])[1:]))
            elif t.startswith("element"):
                n = int(np.prod(_dims(block, d.input("X")[0])[1:]))
            n = abs(n)
            total += n
            if n:
                table.add_row([t, param, n])
    if print_detail:
        table.print_table()
    return total
