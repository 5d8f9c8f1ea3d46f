"""bfloat16 ops computed as Paddle 3.3.1's CPU kernels compute them: in float32, each op's
result rounded to bfloat16 once (checked bit for bit against Paddle on random data:
tests/test_bfloat16.py). An op reading or writing bfloat16 becomes casts of its bfloat16
inputs to float32, the op in float32, and casts of its results back; only the casts and
the ops that move values (MOVES) touch bfloat16 (its bits, uint16). The C kernels convert
as frontend/bfloat16.py does; for the Triton backend, pointwise ops on bfloat16 are library
calls (fuse.step_kind) running their numpy references.

scale is the exception: Paddle's kernel computes `x * scale + bias` in bfloat16 arithmetic
(scale and bias rounded to bfloat16, the product rounded before the sum), so it becomes two
rounded steps. An op Paddle has no bfloat16 CPU kernel for is refused (OpError)."""
from __future__ import annotations

from ..frontend.bfloat16 import from_bfloat16, to_bfloat16
from ..frontend.dtypes import VarType
from ..frontend.errors import OpError
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.registry import EMPTY_VAR

# The ops Paddle 3.3.1's legacy static executor runs on bfloat16 on the CPU (its own kernels or
# oneDNN's) with each result rounded once from float32, as fluidc computes them; its dygraph
# lacks some of these (elementwise_add, matmul, the activations). Left out although Paddle runs
# them: softplus and gelu (oneDNN's bfloat16 kernels approximate: their bits differ from the
# float32 result rounded, which Paddle's float32 kernels and fluidc agree on) and mean (its
# kernel accumulates in bfloat16: a rounded float32 mean differs in the last bit).
KERNELS = frozenset({
    "abs", "assign", "clip", "concat", "elementwise_add", "elementwise_div",
    "elementwise_floordiv", "elementwise_max", "elementwise_min", "elementwise_mul",
    "elementwise_pow", "elementwise_sub", "elu", "equal", "exp", "expand_v2", "fill_any_like",
    "fill_constant", "flatten_contiguous_range", "floor", "gather", "gaussian_random",
    "greater_equal", "greater_than", "hard_swish", "leaky_relu", "less_equal", "less_than",
    "log", "log_softmax", "lookup_table_v2", "matmul", "matmul_v2", "mish", "mul",
    "not_equal", "reduce_max", "reduce_mean", "reduce_min", "reduce_sum", "relu", "relu6",
    "reshape2", "scale", "sigmoid", "slice", "softmax", "split", "sqrt", "squeeze2", "stack",
    "sum", "swish", "tanh", "transpose2", "truncated_gaussian_random", "uniform_random",
    "uniform_random_batch_size_like", "unsqueeze2",
})
# Of those, the ops that only move values: they run on the bits as they are, so NaNs keep
# their sign and payload, as Paddle's copies do (a round trip through float32 would make every
# NaN 0x7FFF).
MOVES = frozenset({
    "assign", "concat", "expand_v2", "flatten_contiguous_range", "gather", "lookup_table_v2",
    "reshape2", "slice", "split", "squeeze2", "stack", "transpose2", "unsqueeze2",
})
_DTYPE_ATTRS = ("dtype", "out_dtype")  # creation ops' output dtype


def touches_bfloat16(op: OpDesc, infos: dict[str, VarInfo]) -> bool:
    """Whether op (its outputs inferred) reads or writes a bfloat16 var."""
    return any(n != EMPTY_VAR and n in infos and infos[n].dtype == VarType.BF16
               for n in op.input_arg_names + op.output_arg_names)


def in_float32(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc] | None:
    """The ops computing `op` (its outputs already in `infos`) in float32, or None when it
    needs none: it touches no bfloat16, is a cast (the one op that converts bfloat16) or
    moves values (MOVES). new_var(VarInfo) -> name makes a temporary."""
    if op.type == "cast" or op.type in MOVES or not touches_bfloat16(op, infos):
        return None
    if op.type not in KERNELS:
        raise OpError(f"op '{op.type}' has no bfloat16 kernel on the CPU in Paddle 3.3.1 "
                      f"(fluidc.passes.bfloat16.KERNELS lists those that fluidc follows): cast "
                      f"its bfloat16 inputs to float32 first")
    if op.type == "scale":
        return _scale(op, infos, new_var)
    pre, post, names = [], [], {}

    def widened(n: str) -> str:
        if n not in names:
            names[n] = new_var(VarInfo(infos[n].shape, VarType.FP32, infos[n].lod_level))
            pre.append(_cast(op, n, names[n], VarType.BF16, VarType.FP32))
        return names[n]

    def narrowed(n: str) -> str:
        wide = new_var(VarInfo(infos[n].shape, VarType.FP32, infos[n].lod_level))
        post.append(_cast(op, wide, n, VarType.FP32, VarType.BF16))
        return wide

    def bf16(n: str) -> bool:
        return n != EMPTY_VAR and infos[n].dtype == VarType.BF16

    attrs = {k: (int(VarType.FP32) if k in _DTYPE_ATTRS and v == VarType.BF16 else v)
             for k, v in op.attrs.items()}
    inputs = {k: [widened(n) if bf16(n) else n for n in v] for k, v in op.inputs.items()}
    outputs = {k: [narrowed(n) if bf16(n) else n for n in v] for k, v in op.outputs.items()}
    return [*pre, _like(op, op.type, inputs, outputs, attrs), *post]


def _scale(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    """scale in bfloat16 arithmetic: (x * s) + b or (x + b) * s, s and b rounded to
    bfloat16, each step computed in float32 and rounded."""
    if op.inputs.get("ScaleTensor"):
        raise OpError("op 'scale' with a ScaleTensor input has no bfloat16 form in fluidc: "
                      "cast its input to float32 first")
    x, out = op.input("X")[0], op.output("Out")[0]
    info = infos[out]
    a = op.attrs
    scale, bias = (float(from_bfloat16(to_bfloat16(a[k]))) for k in ("scale", "bias"))
    steps = [{"scale": scale, "bias": 0.0}, {"scale": 1.0, "bias": bias}]
    if not a.get("bias_after_scale", True):
        steps.reverse()
    ops, src = [], x
    for i, step in enumerate(steps):
        wide_in = new_var(VarInfo(infos[src].shape, VarType.FP32, infos[src].lod_level))
        wide_out = new_var(VarInfo(info.shape, VarType.FP32, info.lod_level))
        dst = out if i == len(steps) - 1 else new_var(info)
        ops += [_cast(op, src, wide_in, VarType.BF16, VarType.FP32),
                _like(op, "scale", {"X": [wide_in]}, {"Out": [wide_out]},
                      get_op_def("scale").complete_attrs({**step, "bias_after_scale": True})),
                _cast(op, wide_out, dst, VarType.FP32, VarType.BF16)]
        src = dst
    return ops


def _cast(op: OpDesc, x: str, out: str, src: VarType, dst: VarType) -> OpDesc:
    return _like(op, "cast", {"X": [x]}, {"Out": [out]},
                 {"in_dtype": int(src), "out_dtype": int(dst)})


def _like(op: OpDesc, type_: str, inputs: dict, outputs: dict, attrs: dict) -> OpDesc:
    """A new op of `type_` standing for `op` in errors (its origin and call site)."""
    new = OpDesc(type_, inputs, outputs, attrs)
    new.origin, new.callsite = op.origin or op.type, op.callsite
    return new
