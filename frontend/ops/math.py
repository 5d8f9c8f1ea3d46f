"""Elementwise binary ops, scale, cast, sum and the activations."""
from __future__ import annotations

import math

from ..dtypes import to_numpy_dtype
from .define import align_to, elementwise_broadcast, grad_like, pointwise, present, unary
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

EW_ATTRS = {"axis": -1}

# op -> (forward, d/dX, d/dY); partials take (ops, x, y, out, dout).
_ELEMENTWISE = {
    "add": (lambda o, x, y: o.add(x, y),
            lambda o, x, y, out, d: d,
            lambda o, x, y, out, d: d),
    "sub": (lambda o, x, y: o.sub(x, y),
            lambda o, x, y, out, d: d,
            lambda o, x, y, out, d: o.neg(d)),
    "mul": (lambda o, x, y: o.mul(x, y),
            lambda o, x, y, out, d: o.mul(d, y),
            lambda o, x, y, out, d: o.mul(d, x)),
    "div": (lambda o, x, y: o.truediv(x, y),
            lambda o, x, y, out, d: o.truediv(d, y),
            lambda o, x, y, out, d: o.neg(o.truediv(o.mul(d, out), y))),
    "max": (lambda o, x, y: o.maximum(x, y),
            lambda o, x, y, out, d: _chosen(o, o.gt(x, y), x, y, d),
            lambda o, x, y, out, d: _chosen(o, o.lt(x, y), x, y, d)),
    "min": (lambda o, x, y: o.minimum(x, y),
            lambda o, x, y, out, d: _chosen(o, o.lt(x, y), x, y, d),
            lambda o, x, y, out, d: _chosen(o, o.gt(x, y), x, y, d)),
    "pow": (lambda o, x, y: o.pow(x, y),
            lambda o, x, y, out, d: o.mul(d, o.mul(y, o.pow(x, o.sub(y, o.constant(1, y.dtype))))),
            lambda o, x, y, out, d: o.mul(d, o.mul(out, o.log(x)))),
    "floordiv": (lambda o, x, y: o.floordiv(x, y), None, None),
    "mod": (lambda o, x, y: o.mod(x, y),  # x - floor(x / y) * y, as Paddle's grad kernel
            lambda o, x, y, out, d: d,
            lambda o, x, y, out, d: o.neg(o.mul(d, o.floordiv(x, y)))),
}


def _chosen(o, won, x, y, d):
    """A max / min operand's gradient, as Paddle 3.3.1's kernels: dOut where it was chosen
    (`won`), half of it (truncated for ints) where x == y, else 0 (NaNs get none)."""
    zero = o.constant(0, d.dtype)
    return o.where(won, d, o.where(o.eq(x, y), o.truediv(d, o.constant(2, d.dtype)), zero))


# The sides whose gradient is dOut unchanged (where the side has Out's shape).
_PASSED_ON = {("add", "X"), ("add", "Y"), ("sub", "X")}


def _elementwise_grad_lowering(kind: str):
    """elementwise_<kind>_grad -> a partial per needed side, summed back to that side's shape."""
    def lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
        out_shape = infos[op.input("Out@GRAD")[0]].shape
        ops = []
        for side in ("X", "Y"):
            target = op.output(side + "@GRAD")
            if not present(target):
                continue
            inputs = {"X": op.input("X"), "Y": op.input("Y"), "Out@GRAD": op.input("Out@GRAD")}
            if op.input("Out"):
                inputs["Out"] = op.input("Out")
            side_shape = infos[op.input(side)[0]].shape
            dout = op.input("Out@GRAD")[0]
            same = tuple(side_shape) == tuple(out_shape)
            if (kind, side) in _PASSED_ON and infos[target[0]].dtype == infos[dout].dtype:
                # dOut itself (a view of it: no copy where nothing writes dOut later), or dOut
                # summed over the dims the side was broadcast along
                ops += [OpDesc("reshape2", {"X": [dout]}, {"Out": target},
                               {"shape": list(out_shape)})] if same else \
                    sum_to_shape(dout, out_shape, side_shape, target[0], op.attrs["axis"],
                                 new_var, infos[target[0]].dtype)
                continue
            if same:
                ops.append(OpDesc(f"elementwise_{kind}_grad_{side.lower()}", inputs,
                                  {"Out": target}, {"axis": op.attrs["axis"]}))
                continue
            full = new_var(VarInfo(out_shape, infos[target[0]].dtype))
            ops.append(OpDesc(f"elementwise_{kind}_grad_{side.lower()}", inputs, {"Out": [full]},
                              {"axis": op.attrs["axis"]}))
            ops += sum_to_shape(full, out_shape, side_shape, target[0], op.attrs["axis"], new_var,
                                infos[target[0]].dtype)
        return ops
    return lower


def sum_to_shape(src: str, src_shape, dst_shape, dst: str, axis: int, new_var, dtype) -> list[OpDesc]:
    """Ops that sum `src` over the dims broadcasting added to reach `dst_shape`, into `dst`."""
    aligned = align_to(tuple(dst_shape), len(src_shape), axis)
    dims = [i for i, (a, b) in enumerate(zip(aligned, src_shape)) if a == 1 and b != 1]
    if not dims:
        return [OpDesc("reshape2", {"X": [src]}, {"Out": [dst]}, {"shape": list(dst_shape)})]
    kept = new_var(VarInfo(tuple(1 if i in dims else d for i, d in enumerate(src_shape)), dtype))
    return [OpDesc("reduce_sum", {"X": [src]}, {"Out": [kept]}, {"dim": dims, "keep_dim": True}),
            OpDesc("reshape2", {"X": [kept]}, {"Out": [dst]}, {"shape": list(dst_shape)})]


# Double grads, as Paddle defines them: elementwise_<kind>_grad_grad takes DDX/DDY (the grads
# of the first grad's X@GRAD/Y@GRAD) and gives DDOut (the grad of its Out@GRAD) and, for mul,
# the X/Y grads through the first grad (DX = DDY * DOut, DY = DDX * DOut).
_DOUBLE_GRAD = {"add": ("Y", "DOut", "DDX?", "DDY?"), "sub": ("Y", "DOut", "DDX?", "DDY?"),
                "mul": ("X", "Y", "DOut", "DDX?", "DDY?")}


def _double_grad_maker(kind: str):
    def grad(op: OpDesc) -> list[OpDesc]:  # op is elementwise_<kind>_grad
        dout = op.input("Out@GRAD")
        ins = {"DOut": dout, "Y": op.input("Y")}
        outs = {"DDOut": [grad_name(dout[0])]}
        if kind == "mul":
            ins["X"] = op.input("X")
            outs.update(grad_like(op, "X", "Y"))
        for side in ("X", "Y"):
            if present(op.output(side + "@GRAD")):
                ins["DD" + side] = [grad_name(op.output(side + "@GRAD")[0])]
        return [OpDesc(f"elementwise_{kind}_grad_grad", ins, outs, dict(op.attrs))]
    return grad


def _register_double_grad(kind: str) -> None:
    def lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
        axis = op.attrs["axis"]
        out_info = infos[op.input("DOut")[0]]
        dd = {s: op.input("DD" + s)[0] for s in ("X", "Y") if present(op.input("DD" + s))}
        ops: list[OpDesc] = []

        def ew(op_kind, x, y, out=None):
            """out = x <op> y, the operand with fewer dims aligned at the forward axis."""
            out = out or new_var(VarInfo(out_info.shape, out_info.dtype))
            rank = min(len(infos[x].shape), len(infos[y].shape))
            ops.append(OpDesc(f"elementwise_{op_kind}", {"X": [x], "Y": [y]}, {"Out": [out]},
                              {"axis": axis if rank < len(out_info.shape) else -1}))
            return out

        ddout = op.output("DDOut")
        if present(ddout) and kind == "mul":  # DDOut = DDX * Y + X * DDY
            terms = [(dd["X"], op.input("Y")[0])] if "X" in dd else []
            terms += [(op.input("X")[0], dd["Y"])] if "Y" in dd else []
            if len(terms) == 2:
                ew("add", ew("mul", *terms[0]), ew("mul", *terms[1]), ddout[0])
            else:
                ew("mul", *terms[0], ddout[0])
        elif present(ddout):  # DDOut = DDX +/- DDY
            if len(dd) == 2:
                ew(kind, dd["X"], dd["Y"], ddout[0])
            else:  # one side: broadcast it over DOut's shape (negated for sub's Y)
                zeros = new_var(out_info)
                ops.append(OpDesc("fill_zeros_like", {"X": op.input("DOut")}, {"Out": [zeros]}, {}))
                ew("add" if "X" in dd else kind, zeros, next(iter(dd.values())), ddout[0])
        for side, other in (("X", "Y"), ("Y", "X")):
            target = op.output(side + "@GRAD")
            if not present(target):
                continue
            if other not in dd:
                ops.append(OpDesc("fill_zeros_like", {"X": op.input(side)}, {"Out": target}, {}))
                continue
            shape = infos[op.input(side)[0]].shape
            if tuple(shape) == tuple(out_info.shape):
                ew("mul", op.input("DOut")[0], dd[other], target[0])
            else:
                full = ew("mul", op.input("DOut")[0], dd[other])
                ops += sum_to_shape(full, out_info.shape, shape, target[0], axis, new_var,
                                    out_info.dtype)
        return ops

    def infer(ins, a):
        out = {"DDOut": [ins["DOut"][0]]}
        if kind == "mul":
            out.update({s + "@GRAD": [ins[s][0]] for s in ("X", "Y")})
        return out

    outs = ("DDOut?", "X@GRAD?", "Y@GRAD?") if kind == "mul" else ("DDOut?",)
    register(OpDef(f"elementwise_{kind}_grad_grad", slots(*_DOUBLE_GRAD[kind]), slots(*outs),
                   EW_ATTRS, infer, "composite", lower=lower))


def _div_double_grad(op: OpDesc) -> list[OpDesc]:  # op is elementwise_div_grad
    """elementwise_div_grad's grad: X@GRAD = DOut / Y and Y@GRAD = -DOut * Out / Y (Out read
    as an input, whose own grad flows to the forward op), differentiated by
    elementwise_div_grad_grad (DDX / DDY: the grads of X@GRAD / Y@GRAD)."""
    dout = op.input("Out@GRAD")
    ins = {"Y": op.input("Y"), "Out": op.input("Out"), "DOut": dout}
    for side in ("X", "Y"):
        if present(op.output(side + "@GRAD")):
            ins["DD" + side] = [grad_name(op.output(side + "@GRAD")[0])]
    outs = {"DDOut": [grad_name(dout[0])], "Y@GRAD": [grad_name(op.input("Y")[0])],
            "Out@GRAD": [grad_name(op.input("Out")[0])]}
    return [OpDesc("elementwise_div_grad_grad", ins, outs, dict(op.attrs))]


def _lower_div_double_grad(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    """With A, B = DDX, DDY broadcast to Out's shape and N = B * Out - A: DDOut = -N / Y,
    Out@GRAD = -B * DOut / Y, Y@GRAD = DOut * N / Y^2 summed to Y's shape."""
    axis, full = op.attrs["axis"], infos[op.input("Out")[0]]
    y, dout = op.input("Y")[0], op.input("DOut")[0]
    dd = {s: op.input("DD" + s)[0] for s in ("X", "Y") if present(op.input("DD" + s))}
    ops: list[OpDesc] = []

    def ew(kind, a, b, out=None):  # a has Out's shape; b may be smaller (at the forward axis)
        out = out or new_var(VarInfo(full.shape, full.dtype))
        small = len(infos[b].shape) < len(full.shape)
        ops.append(OpDesc(f"elementwise_{kind}", {"X": [a], "Y": [b]}, {"Out": [out]},
                          {"axis": axis if small else -1}))
        return out

    def neg(a, out=None):
        out = out or new_var(VarInfo(full.shape, full.dtype))
        ops.append(OpDesc("scale", {"X": [a]}, {"Out": [out]}, {"scale": -1.0}))
        return out

    def zeros(like, out):
        ops.append(OpDesc("fill_zeros_like", {"X": [like]}, {"Out": [out]}, {}))
    if "Y" in dd:
        n = ew("mul", op.input("Out")[0], dd["Y"])
        n = ew("sub", n, dd["X"]) if "X" in dd else n
    else:
        zeros(dout, base := new_var(full))
        n = neg(ew("add", base, dd["X"]))
    q = ew("div", n, y)
    ddout, dout_grad, y_grad = (op.output(s) for s in ("DDOut", "Out@GRAD", "Y@GRAD"))
    if present(ddout):
        neg(q, ddout[0])
    if present(dout_grad):
        if "Y" in dd:
            neg(ew("div", ew("mul", dout, dd["Y"]), y), dout_grad[0])
        else:
            zeros(op.input("Out")[0], dout_grad[0])
    if present(y_grad):
        same = tuple(infos[y].shape) == tuple(full.shape)
        g = ew("mul", dout, ew("div", q, y), y_grad[0] if same else None)
        if not same:
            ops += sum_to_shape(g, full.shape, infos[y].shape, y_grad[0], axis, new_var,
                                full.dtype)
    return ops


register(OpDef("elementwise_div_grad_grad", slots("Y", "Out", "DOut", "DDX?", "DDY?"),
               slots("DDOut?", "Y@GRAD?", "Out@GRAD?"), EW_ATTRS,
               lambda ins, a: {"DDOut": [ins["DOut"][0]], "Y@GRAD": [ins["Y"][0]],
                               "Out@GRAD": [ins["Out"][0]]}, "composite",
               lower=_lower_div_double_grad))


def _register_elementwise(kind: str, fwd, dx, dy) -> None:
    name = f"elementwise_{kind}"
    uses_out = kind in ("div", "pow")
    has_grad = dx is not None

    def grad(op: OpDesc) -> list[OpDesc]:
        ins = {"X": op.input("X"), "Y": op.input("Y"), "Out@GRAD": [grad_name(op.output("Out")[0])]}
        if uses_out:
            ins["Out"] = op.output("Out")
        return [OpDesc(name + "_grad", ins, grad_like(op, "X", "Y"), dict(op.attrs))]

    pointwise(name, ["X", "Y"], ["Out"], lambda o, i, a: {"Out": fwd(o, i["X"], i["Y"])},
              EW_ATTRS, grad=grad if has_grad else None, broadcast=elementwise_broadcast)
    if not has_grad:
        return
    grad_ins = ["X", "Y", "Out@GRAD"] + (["Out"] if uses_out else [])
    for side, fn in (("x", dx), ("y", dy)):
        pointwise(f"{name}_grad_{side}", grad_ins, ["Out"],
                  lambda o, i, a, fn=fn: {"Out": fn(o, i["X"], i["Y"], i.get("Out"), i["Out@GRAD"])},
                  {"axis": -1}, broadcast=_grad_broadcast)

    def infer(ins, a):
        return {s + "@GRAD": [ins[s][0]] for s in ("X", "Y")}

    register(OpDef(name + "_grad", slots(*[s + ("?" if s == "Out" else "") for s in grad_ins]),
                   slots("X@GRAD?", "Y@GRAD?"), EW_ATTRS, infer, "composite",
                   lower=_elementwise_grad_lowering(kind),
                   grad=_double_grad_maker(kind) if kind in _DOUBLE_GRAD else
                   _div_double_grad if kind == "div" else None))


def _grad_broadcast(attrs, shapes, rank):
    # X and Y align as in the forward op; Out and Out@GRAD have the full (output) shape.
    out = elementwise_broadcast(attrs, {"X": shapes["X"], "Y": shapes["Y"]}, rank)
    out.update({k: v for k, v in shapes.items() if k not in ("X", "Y")})
    return out


for _kind, (_f, _dx, _dy) in _ELEMENTWISE.items():
    _register_elementwise(_kind, _f, _dx, _dy)
for _kind in _DOUBLE_GRAD:
    _register_double_grad(_kind)


# scale: Out = scale * X + bias (or scale * (X + bias)); ScaleTensor overrides `scale`.
def _scale(o, i, a):
    x = i["X"]
    s = i["ScaleTensor"] if "ScaleTensor" in i else o.constant(a["scale"], x.dtype)
    b = o.constant(a["bias"], x.dtype)
    return {"Out": o.add(o.mul(x, s), b) if a["bias_after_scale"] else o.mul(o.add(x, b), s)}


def _scale_grad(op: OpDesc) -> list[OpDesc]:
    ins = {"X": [grad_name(op.output("Out")[0])]}
    if op.input("ScaleTensor"):
        ins["ScaleTensor"] = op.input("ScaleTensor")
    return [OpDesc("scale", ins, {"Out": [grad_name(op.input("X")[0])]},
                   {"scale": op.attrs["scale"], "bias": 0.0, "bias_after_scale": True})]


pointwise("scale", ["X", "ScaleTensor?"], ["Out"], _scale,
          {"scale": 1.0, "bias": 0.0, "bias_after_scale": True}, grad=_scale_grad,
          scalars=("ScaleTensor",))


def _cast_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("cast", {"X": [grad_name(op.output("Out")[0])]},
                   {"Out": [grad_name(op.input("X")[0])]},
                   {"in_dtype": op.attrs["out_dtype"], "out_dtype": op.attrs["in_dtype"]})]


pointwise("cast", ["X"], ["Out"], lambda o, i, a: {"Out": o.cast(i["X"], to_numpy_dtype(a["out_dtype"]))},
          {"in_dtype": 5, "out_dtype": 5}, grad=_cast_grad,
          out_dtype=lambda a, d: a["out_dtype"])


def _sum_expr(o, i, a):
    xs = i["X"]
    acc = xs[0]
    for x in xs[1:]:
        acc = o.add(acc, x)
    return {"Out": acc}


def _sum_grad(op: OpDesc) -> list[OpDesc]:
    d = grad_name(op.output("Out")[0])
    return [OpDesc("scale", {"X": [d]}, {"Out": [grad_name(x)]}, {"scale": 1.0})
            for x in op.input("X")]


pointwise("sum", ["X*"], ["Out"], _sum_expr, {"use_mkldnn": False}, grad=_sum_grad)


def _zero(o, like):
    return o.constant(0, like.dtype)


def _one(o, like):
    return o.constant(1, like.dtype)


def _c(o, v, like):
    return o.constant(v, like.dtype)


def _sigmoid(o, x):
    return o.truediv(_one(o, x), o.add(_one(o, x), o.exp(o.neg(x))))


unary("relu", lambda o, x, a: o.maximum(x, _zero(o, x)),
      lambda o, out, d, a: o.where(o.gt(out, _zero(o, out)), d, _zero(o, d)), uses="Out",
      piecewise_linear=True)
unary("sigmoid", lambda o, x, a: _sigmoid(o, x),
      lambda o, out, d, a: o.mul(d, o.mul(out, o.sub(_one(o, out), out))), uses="Out",
      second=lambda o, out, d, dd, a: o.mul(o.mul(d, dd),
                                            o.sub(_one(o, out), o.mul(_c(o, 2, out), out))))
unary("tanh", lambda o, x, a: o.tanh(x),
      lambda o, out, d, a: o.mul(d, o.sub(_one(o, out), o.mul(out, out))), uses="Out",
      second=lambda o, out, d, dd, a: o.mul(o.mul(_c(o, -2, out), out), o.mul(d, dd)))
def _stanh_grad(o, x, d, a):
    t = o.tanh(o.mul(_c(o, a["scale_a"], x), x))
    return o.mul(d, o.mul(_c(o, a["scale_a"] * a["scale_b"], x), o.sub(_one(o, x), o.mul(t, t))))


# stanh: Paddle's scaled tanh, scale_b * tanh(scale_a * x)
unary("stanh", lambda o, x, a: o.mul(_c(o, a["scale_b"], x),
                                     o.tanh(o.mul(_c(o, a["scale_a"], x), x))),
      _stanh_grad, attrs={"scale_a": 0.67, "scale_b": 1.7159})
unary("exp", lambda o, x, a: o.exp(x), lambda o, out, d, a: o.mul(d, out), uses="Out",
      second=lambda o, out, d, dd, a: o.mul(d, dd))
unary("log", lambda o, x, a: o.log(x), lambda o, x, d, a: o.truediv(d, x),
      second=lambda o, x, d, dd, a: o.neg(o.truediv(o.mul(d, dd), o.mul(x, x))))
unary("sqrt", lambda o, x, a: o.sqrt(x),
      lambda o, out, d, a: o.truediv(d, o.mul(_c(o, 2, out), out)), uses="Out",
      second=lambda o, out, d, dd, a: o.truediv(o.mul(d, dd), o.mul(_c(o, -2, out),
                                                                   o.mul(out, out))))
unary("rsqrt", lambda o, x, a: o.truediv(_one(o, x), o.sqrt(x)),
      lambda o, out, d, a: o.mul(d, o.mul(_c(o, -0.5, out), o.mul(out, o.mul(out, out)))),
      uses="Out",
      second=lambda o, out, d, dd, a: o.mul(o.mul(d, dd), o.mul(_c(o, -1.5, out),
                                                                o.mul(out, out))))
unary("square", lambda o, x, a: o.mul(x, x), lambda o, x, d, a: o.mul(d, o.mul(_c(o, 2, x), x)),
      second=lambda o, x, d, dd, a: o.mul(_c(o, 2, x), o.mul(d, dd)))
unary("abs", lambda o, x, a: o.abs(x), lambda o, x, d, a: o.mul(d, o.sign(x)))
unary("leaky_relu", lambda o, x, a: o.where(o.ge(x, _zero(o, x)), x, o.mul(x, _c(o, a["alpha"], x))),
      lambda o, x, d, a: o.where(o.ge(x, _zero(o, x)), d, o.mul(d, _c(o, a["alpha"], d))),
      attrs={"alpha": 0.02})


def _gelu(o, x, a):
    half, one = _c(o, 0.5, x), _one(o, x)
    if a["approximate"]:
        inner = o.mul(_c(o, math.sqrt(2 / math.pi), x),
                      o.add(x, o.mul(_c(o, 0.044715, x), o.mul(x, o.mul(x, x)))))
        return o.mul(half, o.mul(x, o.add(one, o.tanh(inner))))
    return o.mul(half, o.mul(x, o.add(one, o.erf(o.mul(x, _c(o, 1 / math.sqrt(2), x))))))


def _gelu_grad(o, x, d, a):
    half, one = _c(o, 0.5, x), _one(o, x)
    if a["approximate"]:
        k = _c(o, math.sqrt(2 / math.pi), x)
        c = _c(o, 0.044715, x)
        t = o.tanh(o.mul(k, o.add(x, o.mul(c, o.mul(x, o.mul(x, x))))))
        dt = o.mul(o.sub(one, o.mul(t, t)),
                   o.mul(k, o.add(one, o.mul(_c(o, 3 * 0.044715, x), o.mul(x, x)))))
        return o.mul(d, o.add(o.mul(half, o.add(one, t)), o.mul(half, o.mul(x, dt))))
    cdf = o.mul(half, o.add(one, o.erf(o.mul(x, _c(o, 1 / math.sqrt(2), x)))))
    pdf = o.mul(_c(o, 1 / math.sqrt(2 * math.pi), x), o.exp(o.mul(_c(o, -0.5, x), o.mul(x, x))))
    return o.mul(d, o.add(cdf, o.mul(x, pdf)))


def _gelu_second(o, x, d, dd, a):
    """d * dd * gelu''(x)."""
    one = _one(o, x)
    if a["approximate"]:
        k, c = math.sqrt(2 / math.pi), 0.044715
        t = o.tanh(o.mul(_c(o, k, x), o.add(x, o.mul(_c(o, c, x), o.mul(x, o.mul(x, x))))))
        du = o.mul(_c(o, k, x), o.add(one, o.mul(_c(o, 3 * c, x), o.mul(x, x))))
        curve = o.sub(o.add(du, o.mul(_c(o, 3 * k * c, x), o.mul(x, x))),
                      o.mul(x, o.mul(t, o.mul(du, du))))
        return o.mul(o.mul(d, dd), o.mul(o.sub(one, o.mul(t, t)), curve))
    pdf = o.mul(_c(o, 1 / math.sqrt(2 * math.pi), x), o.exp(o.mul(_c(o, -0.5, x), o.mul(x, x))))
    return o.mul(o.mul(d, dd), o.mul(pdf, o.sub(_c(o, 2, x), o.mul(x, x))))


unary("gelu", _gelu, _gelu_grad, attrs={"approximate": False}, second=_gelu_second)
# sign and floor are flat almost everywhere: their grads write zeros, as Paddle's sign_grad and
# floor_grad do (so x still gets a gradient, a zero one, rather than none).
unary("sign", lambda o, x, a: o.sign(x), lambda o, x, d, a: o.constant(0, d.dtype))
unary("floor", lambda o, x, a: o.floor(x), lambda o, x, d, a: o.constant(0, d.dtype))


def _constant_grad(op: OpDesc) -> list[OpDesc]:
    """Out does not depend on X's values: no gradient flows back (X's grad stays zero)."""
    return []


pointwise("fill_zeros_like", ["X"], ["Out"], lambda o, i, a: {"Out": _zero(o, i["X"])},
          grad=_constant_grad)
# X gives the shape; dtype -1 keeps X's (gradients() seeds its targets' grads with ones).
pointwise("fill_any_like", ["X"], ["Out"],
          lambda o, i, a: {"Out": o.constant(a["value"], _fill_dtype(a, i["X"].dtype))},
          {"value": 0.0, "dtype": -1}, out_dtype=lambda a, d: _fill_dtype(a, d),
          grad=_constant_grad)


def _fill_dtype(a, like):
    return like if a["dtype"] == -1 else to_numpy_dtype(a["dtype"])


pointwise("assign", ["X"], ["Out"], lambda o, i, a: {"Out": i["X"]},
          grad=lambda op: [OpDesc("assign", {"X": [grad_name(op.output("Out")[0])]},
                                  {"Out": [grad_name(op.input("X")[0])]}, {})])


# Comparisons (bool Out, Paddle's elementwise axis) and where (Paddle's slots Condition, X, Y;
# X first here so Out takes X's dtype). No grads: Paddle has none for comparisons, and where's
# is left to a later need.
def _equal(o, x, y):
    """Paddle's EqualFunctor: floats closer than 1e-15 are equal (|x - y| < 1e-15, the
    difference taken in their dtype), so infinities equal only themselves and NaN nothing;
    other dtypes compare exactly."""
    same = o.eq(x, y)
    if x.dtype.kind != "f" or y.dtype.kind != "f":
        return same
    return o.logical_or(same, o.lt(o.abs(o.sub(x, y)), o.constant(1e-15, x.dtype)))


_COMPARISONS = {"equal": _equal, "not_equal": lambda o, x, y: o.logical_not(_equal(o, x, y)),
                "less_than": lambda o, x, y: o.lt(x, y), "less_equal": lambda o, x, y: o.le(x, y),
                "greater_than": lambda o, x, y: o.gt(x, y),
                "greater_equal": lambda o, x, y: o.ge(x, y)}
for _name, _compare in _COMPARISONS.items():
    pointwise(_name, ["X", "Y"], ["Out"],
              lambda o, i, a, c=_compare: {"Out": c(o, i["X"], i["Y"])},
              {"axis": -1, "force_cpu": False}, broadcast=elementwise_broadcast,
              out_dtype=lambda a, d: "bool")
# Logical ops (bool Out; cond's false branch runs on logical_not(pred)).
for _name in ("logical_and", "logical_or"):
    pointwise(_name, ["X", "Y"], ["Out"],
              lambda o, i, a, m=_name: {"Out": getattr(o, m)(i["X"], i["Y"])},
              out_dtype=lambda a, d: "bool")
pointwise("logical_not", ["X"], ["Out"], lambda o, i, a: {"Out": o.logical_not(i["X"])},
          out_dtype=lambda a, d: "bool")


def _where_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("where_grad", {"Condition": op.input("Condition"), "X": op.input("X"),
                                  "Y": op.input("Y"),
                                  "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   grad_like(op, "X", "Y"), {})]


pointwise("where", ["X", "Y", "Condition"], ["Out"],
          lambda o, i, a: {"Out": o.where(i["Condition"], i["X"], i["Y"])}, grad=_where_grad)
# dX = dOut where Condition, dY = dOut elsewhere (X and Y name the shapes, as in Paddle's).
pointwise("where_grad", ["Out@GRAD", "Condition", "X?", "Y?"], ["X@GRAD?", "Y@GRAD?"],
          lambda o, i, a: {"X@GRAD": o.where(i["Condition"], i["Out@GRAD"],
                                             o.constant(0, i["Out@GRAD"].dtype)),
                           "Y@GRAD": o.where(i["Condition"], o.constant(0, i["Out@GRAD"].dtype),
                                             i["Out@GRAD"])})
