"""Gradient clipping as Paddle appends it: by value (`clip`), by each gradient's norm
(`clip_by_norm`) or by the global norm of all of them (squared_l2_norm per gradient, sum, sqrt,
then every gradient scaled in place by max / max(max, norm)). Parameters made with
ParamAttr(need_clip=False) keep their gradient."""
from __future__ import annotations

import copy

from ..frontend import unique_name
from ..frontend.framework import Parameter, default_main_program
from ..frontend.ops.tensor import fill_constant_attrs


class ClipGradBase:
    """Base: `clip(params_grads)` appends the clipping ops and returns the new pairs."""

    def __call__(self, params_grads):
        out = []
        clipped = [(p, g) for p, g in params_grads if g is not None and _needs_clip(p)]
        new = dict(zip((p.name for p, _ in clipped), self._clip(clipped)))
        for p, g in params_grads:
            if g is not None:
                out.append((p, new.get(p.name, g)))
        return out

    def _clip(self, params_grads):
        raise NotImplementedError


def _needs_clip(param) -> bool:
    return getattr(param, "need_clip", True) is not False


def _tmp(block, prefix: str, like):
    return block.create_var(name=unique_name.generate_with_ignorable_key(f"{prefix}.tmp"),
                            shape=like.shape, dtype=like.dtype, stop_gradient=True)


class ClipGradByValue(ClipGradBase):
    """Each gradient element clipped to [min, max] (min defaults to -max)."""

    def __init__(self, max: float, min: float | None = None) -> None:  # noqa: A002 (Paddle's)
        if min is None:
            if not max > 0.0:
                raise ValueError(f"ClipGradByValue: max must be positive when min is not "
                                 f"given, got {max}")
            min = -max
        self.max, self.min = float(max), float(min)

    def __str__(self) -> str:
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"

    def _clip(self, params_grads):
        out = []
        for _, g in params_grads:
            new = _tmp(g.block, unique_name.generate("clip"), g)
            g.block.append_op("clip", {"X": [g]}, {"Out": [new]},
                              {"min": float(self.min), "max": float(self.max)})
            out.append(new)
        return out


class ClipGradByNorm(ClipGradBase):
    """Each gradient scaled to L2 norm clip_norm when its norm exceeds it."""

    def __init__(self, clip_norm: float) -> None:
        self.clip_norm = float(clip_norm)

    def __str__(self) -> str:
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"

    def _clip(self, params_grads):
        out = []
        for _, g in params_grads:
            new = _tmp(g.block, unique_name.generate("clip_by_norm"), g)
            g.block.append_op("clip_by_norm", {"X": [g]}, {"Out": [new]},
                              {"max_norm": float(self.clip_norm)})
            out.append(new)
        return out


class ClipGradByGlobalNorm(ClipGradBase):
    """All gradients scaled by clip_norm / max(clip_norm, sqrt(sum of their squared norms))."""

    def __init__(self, clip_norm: float, group_name: str = "default_group",
                 auto_skip_clip: bool = False) -> None:
        if not isinstance(auto_skip_clip, bool):
            raise TypeError(f"ClipGradByGlobalNorm: auto_skip_clip must be a bool, got "
                            f"{type(auto_skip_clip).__name__}")
        self.clip_norm = float(clip_norm)
        self.group_name = group_name
        self.auto_skip_clip = auto_skip_clip

    def __str__(self) -> str:
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"

    def _clip(self, params_grads):
        if not params_grads:
            return []
        block = params_grads[0][1].block
        squares = []
        for _, g in params_grads:
            sq = block.create_var(name=unique_name.generate_with_ignorable_key(
                "squared_l2_norm.tmp"), shape=(1,), dtype=g.dtype, stop_gradient=True)
            block.append_op("squared_l2_norm", {"X": [g]}, {"Out": [sq]})
            squares.append(sq)
        dtypes = {s.dtype for s in squares}
        if len(dtypes) > 1:  # Paddle sums float32 squares into float64 when both appear
            squares = [_cast(block, s, max(dtypes)) for s in squares]
        total = _tmp(block, "sum", squares[0])
        block.append_op("sum", {"X": squares}, {"Out": [total]})
        norm = _tmp(block, "sqrt", total)
        block.append_op("sqrt", {"X": [total]}, {"Out": [norm]})
        limit = _tmp(block, "fill_constant", total)
        block.append_op("fill_constant", {}, {"Out": [limit]},
                        fill_constant_attrs([1], total.dtype, self.clip_norm))
        biggest = _tmp(block, "elementwise_max", total)
        block.append_op("elementwise_max", {"X": [limit], "Y": [norm]}, {"Out": [biggest]})
        scale = _tmp(block, "elementwise_div", total)
        block.append_op("elementwise_div", {"X": [limit], "Y": [biggest]}, {"Out": [scale]})
        for _, g in params_grads:
            factor = scale if scale.dtype == g.dtype else _cast(block, scale, g.dtype)
            block.append_op("elementwise_mul", {"X": [g], "Y": [factor]}, {"Out": [g]})
        return [g for _, g in params_grads]


def _cast(block, var, dtype):
    out = block.create_var(name=unique_name.generate_with_ignorable_key("cast.tmp"),
                           shape=var.shape, dtype=dtype, stop_gradient=True)
    block.append_op("cast", {"X": [var]}, {"Out": [out]},
                    {"in_dtype": int(var.dtype), "out_dtype": int(dtype)})
    return out


GradientClipBase = ClipGradBase
GradientClipByValue, GradientClipByNorm = ClipGradByValue, ClipGradByNorm
GradientClipByGlobalNorm = ClipGradByGlobalNorm


def set_gradient_clip(clip, param_list=None, program=None) -> None:
    """Mark parameters (all of `program`'s by default) to be clipped by `clip` in minimize,
    unless the optimizer has a grad_clip of its own."""
    if not isinstance(clip, ClipGradBase):
        raise TypeError(f"set_gradient_clip: clip must be a ClipGradByValue/ByNorm/ByGlobalNorm, "
                        f"got {type(clip).__name__}")
    program = program or default_main_program()
    if param_list is None:
        param_list = program.global_block().all_parameters()
    if all(isinstance(p, str) for p in param_list):
        param_list = [program.global_block().var(p) for p in param_list]
    if not all(isinstance(p, Parameter) for p in param_list):
        raise TypeError("set_gradient_clip: param_list must be Parameters or their names")
    for p in param_list:
        p.gradient_clip_attr = copy.deepcopy(clip)


def append_gradient_clip_ops(params_grads):
    """The clipping set_gradient_clip asked for (one strategy: the last parameter's)."""
    clips = [getattr(p, "gradient_clip_attr", None) for p, g in params_grads if g is not None]
    if not clips or any(c is None for c in clips):
        return params_grads  # as Paddle: set_gradient_clip applies only when every param has it
    return clips[-1](params_grads)
