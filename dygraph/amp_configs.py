"""paddle.Model.prepare's amp_configs, checked as Paddle checks them. fluidc runs on CPU,
where Paddle's auto_cast and loss scaler make no effect (a UserWarning) and training stays
float32: a valid level other than O0 gives that warning and the float32 run."""
from __future__ import annotations

import warnings

_LEVELS = ("O0", "O1", "O2")
_SCALER_KEYS = {"init_loss_scaling", "incr_ratio", "decr_ratio", "incr_every_n_steps",
                "decr_every_n_nan_or_inf", "use_dynamic_loss_scaling", "use_fp16_guard"}
_LIST_KEYS = {"custom_white_list", "custom_black_list", "custom_black_varnames"}


def _check_pure_fp16(level: str, optimizer) -> None:
    from ..nn import ClipGradByGlobalNorm, ClipGradByNorm
    clip = getattr(optimizer, "_grad_clip", None)
    if level == "O2" and clip is not None and \
            not isinstance(clip, (ClipGradByGlobalNorm, ClipGradByNorm)):
        raise AssertionError("Only ClipGradByNorm and ClipGradByGlobalNorm are supported in "
                             "amp training with level=O2 currently.")


def amp_level(amp_configs, optimizer, dygraph: bool) -> str:
    """The level amp_configs asks for ('O0' when none); ValueError / AssertionError as
    Paddle's for bad configs; warns that it has no effect on CPU."""
    if not amp_configs:
        return "O0"
    if isinstance(amp_configs, str):
        if amp_configs not in _LEVELS:
            raise ValueError("The level of amp_configs should be 'O0', 'O1' or 'O2'.")
        level, keys = amp_configs, set()
    else:
        level = amp_configs.get("level", "O1")
        if level not in _LEVELS:
            raise ValueError("amp_configs['level'] should be 'O0', 'O1' or 'O2'.")
        keys = set(amp_configs) - {"level"}
        if "use_pure_fp16" in keys and level != "O0":
            raise ValueError("'use_pure_fp16' is an invalid parameter, the level of mixed "
                             "precision training only depends on 'O1' or 'O2'.")
        unknown = keys - _LIST_KEYS - _SCALER_KEYS
        if unknown and level != "O0":
            raise ValueError(f"Except for 'level', the keys of 'amp_configs' must be accepted "
                             f"by mixed precision APIs, but {tuple(unknown)} could not be "
                             f"recognized.")
        if "use_fp16_guard" in keys and dygraph and level != "O0":
            raise ValueError("'use_fp16_guard' is supported in static graph mode only.")
    _check_pure_fp16(level, optimizer)
    if level != "O0":
        warnings.warn("amp_guard can only be enabled on CUDAPlace, XPUPlace, and "
                      "CustomPlace, current place is Place(cpu), so it makes no effect.",
                      UserWarning, stacklevel=3)
    return level
