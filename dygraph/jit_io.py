"""paddle.jit.save / paddle.jit.load and TranslatedLayer (docs/architecture.md, "Dygraph").

jit.save traces each function to save (a Layer's forward, its other to_static methods, or a
function) with the eager tensors it reads as the program's persistables (parameters keep their
names), and writes what Paddle's jit.save writes: PREFIX.pdmodel (the inference program of
save_inference_model: pruned, test mode, feed and fetch ops), PREFIX.pdiparams (the
persistables by name, save_combine), and PREFIX.pdiparams.info (a pickle: var name ->
structured_name, stop_gradient, trainable). Methods other than forward go to PREFIX.NAME.*.
jit.load reads them back as a TranslatedLayer whose parameters are eager tensors and whose
methods run the program through to_static's ConcreteProgram (so backward and fine-tuning work).
"""
from __future__ import annotations

import glob
import os
import pickle

import numpy as np

from ..frontend import unique_name
from ..frontend.dtypes import VarType
from ..frontend.framework import Parameter, Variable
from ..frontend.ops import get_op_def
from ..frontend.layers.api2.layer import Layer
from ..runtime import safe_pickle
from ..runtime.atomic_files import atomic_write, write_set
from ..runtime.io import _feeds_and_fetches, _inference_program, _read, _serialize
from ..runtime.program_desc import parse_program
from ..runtime.tensor import LoDTensor
from ..runtime.tensor_io import combine_from_bytes, combine_to_bytes
from .jit import StaticFunction, _arg_names, check_compatible
from .jit_program import (ConcreteProgram, InputSpec, _leaves, _leaves_of_names, _Name,
                          trace)
from .tensor import EagerParamBase, Tensor, new_tensor
from .tracer import EAGER_PROGRAM

MODEL, PARAMS, INFO = ".pdmodel", ".pdiparams", ".pdiparams.info"


def _save_capture(block, tensor):
    """For saving: a parameter stays a Parameter of the program, other tensors persistables."""
    if isinstance(tensor, EagerParamBase):
        p = block.create_parameter(tensor.name, tensor.shape, tensor.dtype,
                                   trainable=tensor.trainable)
        p.stop_gradient = tensor.stop_gradient
        return p
    return block.create_var(name=tensor.name, shape=tensor.shape, dtype=tensor.dtype,
                            persistable=True, stop_gradient=True)


def _persistables(program) -> list[Variable]:
    return sorted((v for v in program.global_block().vars.values() if v.persistable
                   and v.type not in (VarType.FEED_MINIBATCH, VarType.FETCH_LIST)),
                  key=lambda v: v.name)


def _model_files(prefix: str, inference, values: dict) -> dict[str, bytes]:
    """PREFIX.pdmodel and (when it has persistables) PREFIX.pdiparams."""
    files = {prefix + MODEL: _serialize(inference, "jit.save")}
    chosen = _persistables(inference)
    if chosen:
        tensors = []
        for v in chosen:
            t = LoDTensor()
            t.set(np.ascontiguousarray(values[v.name]))
            tensors.append(t)
        files[prefix + PARAMS] = combine_to_bytes(tensors)
    return files


def _specs(input_spec) -> list | None:
    """input_spec with its tensors as InputSpecs (non-tensor values stay: the values of
    non-tensor arguments)."""
    if input_spec is None:
        return None
    if not isinstance(input_spec, (list, tuple)):
        raise TypeError(f"The input input_spec should be 'list', but received input_spec's "
                        f"type is {type(input_spec).__name__}.")
    return [InputSpec.from_tensor(s) if isinstance(s, Variable) else s for s in input_spec]


def _functions(layer, input_spec) -> list[tuple[str, StaticFunction]]:
    """(file suffix, bound StaticFunction) of everything jit.save writes for `layer`."""
    if not isinstance(layer, Layer):
        fn = layer if isinstance(layer, StaticFunction) else StaticFunction(layer, input_spec)
        if input_spec is not None:
            fn = StaticFunction(fn.dygraph_function, input_spec, fn._instance)
        return [("", fn)]
    out = []
    forward = layer.forward
    if not isinstance(forward, StaticFunction):
        forward = StaticFunction(type(layer).forward, input_spec, layer)
    elif input_spec is not None:
        if forward.input_spec is not None:
            check_compatible(forward.input_spec, input_spec)
        forward = StaticFunction(forward.dygraph_function, input_spec, layer)
    out.append(("", forward))
    for name in sorted(dir(type(layer))):
        attr = getattr(type(layer), name, None)
        if name != "forward" and isinstance(attr, StaticFunction):
            out.append(("." + name, getattr(layer, name)))
    return out


# paddle.jit.save's configs: Paddle's defaults; clip_extra and skip_forward are honoured
# (fluidc writes no extra attributes), the others only at their default.
_CONFIGS = {"output_spec": None, "with_hook": False, "combine_params": False, "clip_extra": True,
            "skip_forward": False, "input_names_after_prune": None, "skip_prune_program": False,
            "separate_parameters": False}


def _check_configs(configs: dict) -> None:
    for key, value in configs.items():
        if key not in _CONFIGS:
            raise ValueError(f"The additional config ({key}) of `paddle.jit.save` is not "
                             f"supported.")
        if key not in ("clip_extra", "skip_forward") and value != _CONFIGS[key]:
            raise NotImplementedError(f"paddle.jit.save({key}={value!r}) is not supported by "
                                      f"fluidc; leave {key} at {_CONFIGS[key]!r}")


def _saved_arguments(fn: StaticFunction) -> list:
    """What jit.save traces `fn` with: its input_spec, else its last call's inputs."""
    if fn.input_spec is not None:
        return fn.input_spec
    if fn._last is None:
        raise ValueError(f"jit.save: {getattr(fn.dygraph_function, '__name__', fn)} was never "
                         f"called and has no input_spec; give jit.save an "
                         f"input_spec=[InputSpec(shape, dtype)]")
    block = fn._last.main_program.global_block()
    return [InputSpec(block.var(n).shape, block.var(n).dtype, n) for n in fn._last.inputs]


def save(layer, path: str, input_spec=None, **configs) -> None:
    """paddle.jit.save(layer, path, input_spec): the inference program(s) and parameters in
    Paddle's files (see the module docstring)."""
    _check_configs(configs)
    if not isinstance(path, str) or not path or os.path.basename(path) == "":
        raise ValueError(f"The input path MUST be format of dirname/file_prefix [dirname\\"
                         f"file_prefix in Windows system], but received file_prefix is empty "
                         f"string: {path!r}.")
    if isinstance(layer, TranslatedLayer):
        return layer._save(path)
    if not isinstance(layer, Layer) and not callable(layer):
        raise TypeError(f"The input of paddle.jit.save should be 'Layer' or 'Function', but "
                        f"received input type is {type(layer).__name__}.")
    specs = _specs(input_spec)
    info: dict = {}
    names = {id(t): k for k, t in layer.state_dict().items()} if isinstance(layer, Layer) else {}
    for suffix, fn in _functions(layer, specs):
        if suffix == "" and configs.get("skip_forward") and isinstance(layer, Layer):
            continue
        args = _saved_arguments(fn)
        n_skip = 1 if fn._instance is not None else 0
        traced = trace(fn.dygraph_function, fn._instance, list(args), {},
                       fn._specs(_leaves(list(args)),
                                 _arg_names(fn.dygraph_function, n_skip, args, {})),
                       _save_capture, for_run=False)
        inference = _inference_program(traced.main_program, traced.inputs,
                                       _leaves_of_names(traced.outputs))
        values = {n: t.value() for t, n in traced.captured}
        write_set(_model_files(path + suffix, inference, values))
        for t, n in traced.captured:
            if n in info or not any(v.name == n for v in _persistables(inference)):
                continue
            entry = {"structured_name": names[id(t)]} if id(t) in names else {}
            entry["stop_gradient"] = t.stop_gradient
            if isinstance(t, EagerParamBase):
                entry["trainable"] = t.trainable
            info[n] = entry
    if info and (isinstance(layer, Layer) or any("trainable" in e for e in info.values())):
        atomic_write(path + INFO, pickle.dumps(info, protocol=2))


def _read_model(prefix: str):
    model = prefix + MODEL
    program = parse_program(_read(model, "jit.load"), model)
    feeds, fetches = _feeds_and_fetches(program, model)
    return program, feeds, [v.name for v in fetches]


def load(path: str, **configs) -> "TranslatedLayer":
    """paddle.jit.load(path): the TranslatedLayer of jit.save's (or Paddle's) files."""
    if not isinstance(path, str) or not os.path.exists(path + MODEL):
        raise ValueError(f"The ``path`` ({path}) to load model not exists. Please make sure "
                         f"that *.pdmodel exists.")
    methods = {"forward": _read_model(path)}
    for model in glob.glob(glob.escape(path) + ".*" + MODEL):
        name = model[len(path) + 1:-len(MODEL)]
        if name.isidentifier():
            methods[name] = _read_model(path + "." + name)
    info = {}
    if os.path.exists(path + INFO):
        info = safe_pickle.loads(_read(path + INFO, "jit.load"), path + INFO)
    values = {}
    for name, (program, _, _) in methods.items():
        chosen = [v.name for v in _persistables(program)]
        prefix = path if name == "forward" else f"{path}.{name}"
        if chosen:
            data = _read(prefix + PARAMS, "jit.load")
            read = combine_from_bytes(data, prefix + PARAMS, chosen)
            values.update((n, np.array(t)) for n, t in read.items() if n not in values)
    return TranslatedLayer(methods, values, info)


def _restore_xshape(block, desc) -> None:
    """Give an op its XShape output back (Paddle's inference programs drop it from reshape2 /
    flatten ops; their gradient reads it)."""
    if desc.outputs.get("XShape") or not any(
            slot.name == "XShape" for slot in get_op_def(desc.type).outputs):
        return
    name = unique_name.generate(desc.outputs["Out"][0] + ".xshape")
    block.create_var(name=name, stop_gradient=True)
    desc.outputs["XShape"] = [name]
    block._infer(desc)


class TranslatedLayer(Layer):
    """A Layer loaded by jit.load: parameters as eager tensors, each saved method (forward and
    others) running its program; train() runs the ops' training form (is_test off)."""

    def __init__(self, methods: dict, values: dict, info: dict) -> None:
        super().__init__("translated_layer")
        self._methods = methods
        self._concrete: dict = {}
        self._vars: list = []  # (tensor, program var name)
        block = EAGER_PROGRAM.global_block()
        for name, array in sorted(values.items()):
            entry = info.get(name, {})
            # a fresh eager name (as Paddle renames a loaded program's vars): no layer made
            # later can take it (the program keeps the file's names)
            eager_name = unique_name.generate(name)
            if "trainable" in entry or (not info and self._is_parameter(name)):
                t = block.create_parameter(eager_name, list(array.shape), array.dtype,
                                           trainable=entry.get("trainable", True))
                t.stop_gradient = entry.get("stop_gradient", not entry.get("trainable", True))
                t._value = array
                self._parameters[entry.get("structured_name", name)] = t
            else:
                t = new_tensor(array, name=eager_name)
                t.persistable = True
                self._buffers[entry.get("structured_name", name)] = t
            self._vars.append((t, name))
        for name in methods:
            if name != "forward":
                object.__setattr__(self, name,
                                   lambda *inputs, _m=name: self._call(_m, inputs))

    def _is_parameter(self, name: str) -> bool:
        return any(isinstance(p.global_block().vars.get(name), Parameter)
                   for p, _, _ in self._methods.values())

    def forward(self, *inputs):
        return self._call("forward", inputs)

    def _program(self, method: str) -> ConcreteProgram:
        """The method's program in the current mode, with the persistables as fed inputs."""
        key = (method, self.training)
        found = self._concrete.get(key)
        if found is None:
            program, feeds, fetches = self._methods[method]
            runnable = program.clone()
            block = runnable.global_block()
            block.ops = [op for op in block.ops if op.type not in ("feed", "fetch")]
            for op in block.ops:
                if "is_test" in op.desc.attrs:
                    op.desc.attrs["is_test"] = not self.training
                _restore_xshape(block, op.desc)
            captured = []
            for t, n in self._vars:
                v = block.vars.get(n)
                if v is None:
                    continue
                block.vars[n] = Variable(block, n, shape=v.shape, dtype=v.dtype,
                                         stop_gradient=t.stop_gradient)
                captured.append((t, n))
            for n in ("feed", "fetch"):
                block.vars.pop(n, None)
            runnable._bump()
            found = self._concrete[key] = ConcreteProgram(runnable, list(feeds), captured,
                                                          [_Name(n) for n in fetches])
        return found

    def _call(self, method: str, inputs):
        tensors = [x if isinstance(x, Tensor) else new_tensor(np.asarray(x)) for x in inputs]
        concrete = self._program(method)
        if len(tensors) != len(concrete.inputs):
            raise ValueError(f"TranslatedLayer.{method} takes {len(concrete.inputs)} inputs "
                             f"({concrete.inputs}), got {len(tensors)}")
        outs = concrete.run([t.value() for t in tensors], tensors)
        return outs[0] if len(outs) == 1 else outs

    def _save(self, path: str) -> None:
        """jit.save of a loaded layer: its programs again, with the current values."""
        values = {n: t.value() for t, n in self._vars}
        for name, (program, _, _) in self._methods.items():
            write_set(_model_files(path if name == "forward" else f"{path}.{name}", program,
                                   values))
        names = {id(t): k for k, t in self.state_dict().items()}
        info = {}
        for t, n in self._vars:
            info[n] = {"structured_name": names[id(t)], "stop_gradient": t.stop_gradient}
            if isinstance(t, EagerParamBase):
                info[n]["trainable"] = t.trainable
        atomic_write(path + INFO, pickle.dumps(info, protocol=2))

    def program(self, method_name: str = "forward"):
        """The method's inference program, as loaded."""
        return self._methods[method_name][0]
