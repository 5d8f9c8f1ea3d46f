"""paddle.utils as Paddle 2.x has it: unique_name (generate / guard / switch), deprecated,
try_import, require_version and run_check. fluidc follows the API of PADDLE_API_VERSION, the
version `deprecated` and `require_version` compare with."""
from __future__ import annotations

import functools
import importlib
import inspect
import re
import sys
import warnings

from ..frontend import unique_name  # noqa: F401 (paddle.utils.unique_name)

__all__ = ["deprecated", "run_check", "require_version", "try_import"]

PADDLE_API_VERSION = "3.3.1"


class VisibleDeprecationWarning(UserWarning):
    """Paddle's deprecation warning: a UserWarning, so Python shows it by default."""


def _version(text: str) -> list[int]:
    parts = [int(p) for p in text.split(".") if p.isdigit()]
    return parts + [0] * (4 - len(parts))


def deprecated(update_to: str = "", since: str = "", reason: str = "", level: int = 0):
    """Mark a function deprecated: its docstring gets the notice; level 0 changes nothing
    else, level 1 warns (VisibleDeprecationWarning) on each call once `since` is reached,
    level 2 raises RuntimeError on each call."""
    def decorator(func):
        if not isinstance(update_to, str):
            raise TypeError('type of "update_to" must be str.')
        if not isinstance(since, str):
            raise TypeError('type of "since" must be str.')
        if not isinstance(reason, str):
            raise TypeError('type of "reason" must be str.')
        if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level < 3:
            raise ValueError(f'type of "level" must be int and must be one of 0, 1, 2. But '
                             f'received: {level}.')
        name = f"{func.__module__}.{func.__name__}"
        msg = f'API "{name}" is deprecated'
        if since.strip():
            msg += f" since {since.strip()}"
        msg += ", and will be removed in future versions."
        if update_to.strip():
            if not update_to.strip().startswith("paddle."):
                raise ValueError(f'Argument update_to must start with "paddle.", your value '
                                 f'is "{update_to}"')
            msg += f' Please use "{update_to.strip()}" instead.'
        if reason.strip():
            msg += f"\n    Reason: {reason.strip()}"
        if func.__doc__:
            func.__doc__ = "\n\nWarning:\n    " + msg + "\n\n" + inspect.cleandoc(func.__doc__)
        if level == 0:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(f'API "{name}" has been deprecated.')
            if not since.strip() or _version(PADDLE_API_VERSION) >= _version(since):
                warnings.warn(f"\nWarning:\n{msg} ", category=VisibleDeprecationWarning,
                              stacklevel=2)
            return func(*args, **kwargs)
        return wrapper
    return decorator


def try_import(module_name: str, err_msg: str | None = None):
    """Import a module, or raise ImportError saying which package to install."""
    install_name = "opencv-python" if module_name == "cv2" else module_name.split(".")[0]
    try:
        return importlib.import_module(module_name)
    except ImportError:
        raise ImportError(err_msg or (
            f"Failed importing {module_name}. This likely means that some paddle modules "
            f"require additional dependencies that have to be manually installed (usually "
            f"with `pip install {install_name}`). ")) from None


def require_version(min_version: str, max_version: str | None = None) -> None:
    """Raise unless PADDLE_API_VERSION lies in [min_version, max_version]."""
    for what, value in (("min_version", min_version), ("max_version", max_version)):
        if value is None and what == "max_version":
            continue
        if not isinstance(value, str):
            allowed = "str" if what == "min_version" else "str or type(None)"
            raise TypeError(f"The type of '{what}' in require_version must be {allowed}, but "
                            f"received {type(value)}.")
        if re.fullmatch(r"\d+(\.\d+){0,3}", value) is None:
            raise ValueError(f"The value of '{what}' in require_version must be in format "
                             f"'\\d+(\\.\\d+){{0,3}}', like '1.5.2.0', but received {value}")
    have = _version(PADDLE_API_VERSION)
    if max_version is not None and not _version(min_version) <= have <= _version(max_version):
        raise Exception(f"VersionError: PaddlePaddle version in [{min_version}, "
                        f"{max_version}] required, but {PADDLE_API_VERSION} installed.")
    if have < _version(min_version):
        raise Exception(f"VersionError: PaddlePaddle version {min_version} or higher is "
                        f"required, but {PADDLE_API_VERSION} installed, Maybe you are using "
                        f"a develop version, please make sure the version is good with your "
                        f"code.")


def run_check() -> None:
    """Train one step of a small network in dygraph and as a static program, printing
    Paddle's messages; raises what fails."""
    import numpy as np

    import fluidc as paddle
    print("Running verify PaddlePaddle program ... ")
    x = np.random.default_rng(0).standard_normal((4, 2)).astype("float32")
    with paddle.dygraph.guard():
        net = paddle.nn.Linear(2, 1)
        opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=net.parameters())
        net(paddle.to_tensor(x)).mean().backward()
        opt.step()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        data = paddle.static.data("x", [None, 2], "float32")
        loss = paddle.mean(paddle.static.nn.fc(data, 1))
        paddle.optimizer.SGD(learning_rate=0.01).minimize(loss, startup)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    exe.run(startup, scope=scope)
    exe.run(main, feed={"x": x}, fetch_list=[loss], scope=scope)
    print("PaddlePaddle works well on 1 CPU.")
    print("PaddlePaddle is installed successfully! Let's start deep learning with "
          "PaddlePaddle now.")


sys.modules[f"{__name__}.unique_name"] = unique_name
