"""fluidc: PaddlePaddle Fluid's static graphs, compiled. `import fluidc as fluid` (1.x) or
`import fluidc as paddle` (2.x static) and write the programs of the Paddle docs."""
import sys as _sys
import types as _types


from . import frontend  # noqa: F401
from .frontend import initializer, unique_name  # noqa: F401
from . import layers  # noqa: F401
from .frontend.dtypes import VarType, get_default_dtype, set_default_dtype  # noqa: F401
from .frontend.errors import FluidcError
from .frontend.logs import set_logs  # FLUIDC_LOGS from code
from .frontend.framework import (Operator, Parameter, Program, Variable, default_main_program,
                                 default_startup_program, program_guard)
from .frontend.layers.api2 import (abs, add, cast, concat, divide, exp, flatten, full, log, matmul,  # noqa: A004
                                   max, maximum, mean, min, minimum, multiply, ones, reshape, scale,
                                   scale_, sqrt, square, subtract, sum, tanh, transpose, zeros)
from .frontend.layers.api2 import all, any, cumsum, pow, prod  # noqa: A004
from .frontend.layers.api2 import floor_divide, floor_mod, mod, remainder
from .frontend.layers.api2 import clip as _clip_layer
from .frontend.layers.tensor import (assign, clone, create_parameter, full_like, ones_like,
                                     shape, static_data as data, zeros_like)
from .frontend.layers.api2.linalg import addmm, norm
from .frontend.layers.api2 import (add_n, normal, rand, randint, randn, randperm, stanh,
                                   standard_normal, uniform)
from .tensor.creation import arange, linspace
from .tensor.stat import numel, std, var
from .frontend.layers.compare import (equal, greater_equal, greater_than, increment,  # noqa: F401
                                      less_equal, less_than, logical_and, logical_not,
                                      logical_or, not_equal)
from .frontend.layers.compare import eq, ge, greater, gt, le, less, lt, ne  # noqa: F401
from .frontend.layers.api2.indexing_more import (diag, eye, gather_nd, index_select, kron, roll,
                                                 trace, tril, triu)
from .frontend.layers.api2.manipulation import (flip, gather, moveaxis, multiplex,  # noqa: A004
                                                reshape_, scatter, scatter_, slice, split,
                                                strided_slice, t)
from .frontend.layers.api2.search import argmax, argmin, where
from .frontend.layers.api2.elementwise_more import (bmm, broadcast_to, ceil, expand_as, isfinite,
                                                   isinf, isnan, mm, reciprocal, tile)
from .frontend.layers.api2.unique import unique_consecutive
from .frontend.layers.api2.math_more import (chunk, cross, dot, erf, floor, logsumexp, outer,
                                            sign, take_along_axis, unbind)
from .frontend.layers.api2.tensor_more import (allclose, broadcast_shape,  # noqa: F401
                                                broadcast_tensors, cumprod, diagonal, diff,
                                                equal_all, inner, isclose, lerp, logical_xor,
                                                masked_fill, meshgrid, mv, nan_to_num, nansum,
                                                unstack)
from .frontend.layers.api2.crop_shard import crop, shard_index
from .frontend.layers.api2.unary_math import (acos, acosh, asin, asinh, atan,  # noqa: A004
                                             atanh, cos, cosh, deg2rad, expm1, frac, log1p,
                                             log2, log10, neg, rad2deg, round, rsqrt, sin,
                                             sinh, tan, trunc)
from .frontend.layers.api2.shaping import (argsort, expand, sort, squeeze, squeeze_, stack, topk,
                                           unsqueeze, unsqueeze_)
from .frontend.param_attr import ParamAttr
from . import backward  # noqa: F401
from . import clip, optimizer, regularizer, tensor  # noqa: F401
from .passes.memory import memory_optimize
from .passes.strategy import BuildStrategy, CompiledProgram, ExecutionStrategy
from .runtime.data_parallel import ParallelExecutor
from .runtime import (CPUPlace, CUDAPinnedPlace, CUDAPlace, Executor, LoDTensor, Scope,
                      global_scope, scope_guard)
from . import core, io, nets, nn, reader, static  # noqa: F401,E402
from .runtime.feeder import DataFeeder
from .runtime.lod import create_lod_tensor, create_random_int_lodtensor
from .runtime.reader import batch
from .runtime.inspect_plan import PlanView, inspect  # the plan exe.run builds, as an object
from . import transpiler  # noqa: F401,E402
from . import incubate  # noqa: F401,E402 (paddle.incubate.layers.nn)
from .distributed.transpiler import DistributeTranspiler, DistributeTranspilerConfig  # noqa: E402

# Program.desc, Program.state_dict, Variable.get_value ... need the lower layers: bound there.
from . import compiler, data_feeder, executor, framework, metric, metrics  # noqa: F401,E402
from .framework import cpu_places, cuda_pinned_places, cuda_places, is_compiled_with_cuda  # noqa: E402
from .passes.backward import gradients  # noqa: E402
from .runtime.place import get_device, set_device  # noqa: E402
from .dygraph.runner import reseed as seed  # noqa: E402 (paddle.seed)

# Paddle's module paths for modules fluidc keeps elsewhere (from fluid.initializer import ...).
# paddle.float32, paddle.int64, ...
globals().update(frontend.dtypes.DTYPE_CONSTANTS)


class _ClipModule(_types.ModuleType):
    """`clip` is fluid.clip, the gradient-clipping module, and paddle.clip(x, min, max), the
    clip layer (min/max None: float32's lowest/highest, as Paddle's): one name serves both."""

    def __call__(self, x, min=None, max=None, name=None):  # noqa: A002 (Paddle's names)
        return _clip_layer(x, min, max, name)


clip.__class__ = _ClipModule

for _name, _module in {"initializer": initializer, "unique_name": unique_name,
                       "param_attr": frontend.param_attr}.items():
    _sys.modules[f"{__name__}.{_name}"] = _module

__version__ = "0.1.0"


from .dygraph import (EagerParamBase, Tensor, grad, is_grad_enabled, no_grad,  # noqa: E402
                      set_grad_enabled, to_tensor)
from .dygraph.io import load, save  # noqa: E402 (paddle.save / paddle.load, either mode)
from . import jit  # noqa: E402 (paddle.jit: to_static, save, load)
from . import utils  # noqa: E402 (paddle.utils)
from .dygraph.flops import flops  # noqa: E402 (paddle.flops)
from .dygraph import callbacks  # noqa: E402 (paddle.callbacks)
from .dygraph.model import Model  # noqa: E402 (paddle.Model, hapi)
from .dygraph.summary import summary  # noqa: E402 (paddle.summary)
_sys.modules[f"{__name__}.callbacks"] = callbacks
from .frontend import framework as _framework  # noqa: E402


def enable_static() -> None:
    """Static mode: layers append ops to the default programs (docs: "Dygraph")."""
    _framework.set_mode("static")


def disable_static(place=None) -> None:
    """Dygraph mode: layers run eagerly, also where a static program was started."""
    _framework.set_mode("dygraph")


def in_dynamic_mode() -> bool:
    """Whether layers called now run eagerly (no enable_static, program_guard or static
    program under construction)."""
    return _framework.in_dygraph_mode()


# fluid's names for the same switches (Paddle's base.enable_dygraph / disable_dygraph)
enable_dygraph, disable_dygraph = disable_static, enable_static


from fluidc.frontend.errors import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute("fluidc", globals())  # an unknown name: close names, not a bare error
