"""Saving and loading in PaddlePaddle's files: fluid.io (1.x), paddle.static (2.x), paddle.save/load.

Every load reads and checks all of its vars (present, dtype, shape) before it touches the scope,
so a bad file never leaves a half-loaded scope. Saves appear all at once (runtime/atomic_files.py):
a directory is written beside the target and swapped in, the files of a path prefix are committed
together, one file is written to a temp file and renamed. Var names become file names only
inside the directory; pickles are read by runtime/safe_pickle.py unless allow_pickle=True.
"""
from __future__ import annotations

import os
import pickle
import warnings

import numpy as np

from ..frontend.dtypes import VarType, dtype_name, to_numpy_dtype
from ..frontend.errors import FluidcError, FormatError, UninitializedVarError
from ..frontend.framework import OpRole, Parameter, Program, Variable, default_main_program
from ..passes.prune import prune_ops
from .program_desc import parse_program, serialize_program
from . import safe_pickle
from .atomic_files import (atomic_write, is_own_file, member_exists, read_member, resolve_dir,
                           write_dir, write_set)
from .scope import Scope, global_scope
from .tensor import LoDTensor, to_torch
from .load_result import parse_load_result
from .selected_rows import SelectedRows
from .tensor_io import (combine_from_bytes, combine_to_bytes, selected_rows_from_bytes,
                        selected_rows_to_bytes, tensor_from_bytes, tensor_to_bytes)

_NOT_SAVED = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.READER, VarType.RAW)
_OPTIMIZER_OPS = {"sgd", "momentum", "adam", "adamw", "adagrad", "rmsprop", "lamb", "lars_momentum"}


# -- files --------------------------------------------------------------------------------------

class UnsafeNameError(FluidcError, ValueError):
    """A var name that cannot be a file name inside the checkpoint directory."""


def _read(path: str, what: str) -> bytes:
    """A file's bytes (as the last committed save of its set left them: atomic_files)."""
    try:
        return read_member(path)
    except FileNotFoundError:
        raise FormatError(f"{path}: no such file ({what})") from None
    except IsADirectoryError:
        raise FormatError(f"{path}: is a directory, expected a file ({what})") from None
    except PermissionError:
        raise FormatError(f"{path}: cannot be read: permission denied ({what})") from None


def check_name(name, where: str, var_what: str = "var") -> str:
    """`name` if it is text that UTF-8 can hold (Paddle's names are), else a FormatError."""
    if isinstance(name, bytes):
        try:
            name = name.decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(f"{where}: a {var_what} name {name!r:.80} is not UTF-8") from None
    if not isinstance(name, str):
        raise FormatError(f"{where}: a {var_what} name is a {type(name).__name__}, not text")
    if not _utf8(name):
        raise FormatError(f"{where}: {var_what} name {_shown(name)} is not valid UTF-8 text")
    return name


def _utf8(name: str) -> bool:
    """Whether UTF-8 can hold `name` (no lone surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(name: str) -> str:
    """`name` printable in an error, whatever it holds."""
    return f"{name.encode('utf-8', 'backslashreplace')!r:.80}"


def file_name_of(name: str, dirname: str, saving: bool = False) -> str:
    """The path inside `dirname` a var named `name` is saved in. Names that would resolve
    outside it (absolute, '..' parts, NUL) are refused, on load (FormatError) and on save."""
    err = UnsafeNameError if saving else FormatError
    what = "cannot be saved as a file" if saving else "cannot be loaded from a file"
    if not isinstance(name, str):
        raise err(f"{dirname}: var name {name!r:.80} {what}: not text")
    if not _utf8(name):
        raise err(f"{dirname}: var {_shown(name)} {what}: its name is not valid UTF-8")
    parts = name.replace(os.sep, "/").split("/")
    if not name or "\0" in name or os.path.isabs(name) or name.startswith("/") or \
            any(p in ("", ".", "..") for p in parts):
        raise err(f"{dirname}: var '{name}' {what}: the name would resolve outside the "
                  f"directory or to no file (names are relative paths without '.', '..' or empty "
                  f"parts)")
    return os.path.join(dirname, *parts)


# -- which vars ---------------------------------------------------------------------------------

def is_parameter(var: Variable) -> bool:
    """Whether `var` is a Parameter (what save_params saves)."""
    return isinstance(var, Parameter)


def is_persistable(var: Variable) -> bool:
    """Whether `var` outlives a run and is saved by save_persistables (feed/fetch lists are not)."""
    return bool(var.persistable) and var.type not in _NOT_SAVED


def is_belong_to_optimizer(var: Variable) -> bool:
    """Persistable state that is not a parameter: moments, beta pows, the learning rate."""
    return is_persistable(var) and not is_parameter(var) and not var.need_check_feed


def is_pir_fetch_var(var: Variable) -> bool:
    """Whether `var` is a PIR program's fetch output: never, fluidc builds legacy programs."""
    return False


def _select(program: Program | None, vars, predicate) -> list[Variable]:
    program = program if program is not None else default_main_program()
    if not isinstance(program, Program):
        program = getattr(program, "_program", program)  # CompiledProgram
    if not isinstance(program, Program):
        raise TypeError(f"main_program must be a Program, got {type(program).__name__}")
    if vars is None:
        vars = [v for v in program.list_vars() if predicate is None or predicate(v)]
    out, seen = [], set()
    for v in vars:
        v = program.global_block().var(v) if isinstance(v, str) else v
        if v.name not in seen and v.type not in _NOT_SAVED:
            seen.add(v.name)
            out.append(v)
    return out


# -- scope access -------------------------------------------------------------------------------

def _value(scope: Scope, name: str) -> LoDTensor:
    holder = scope.find_var(name)
    if holder is None or not holder.is_initialized():
        raise UninitializedVarError(f"var '{name}' has no value in the scope to save: run the "
                                    f"startup program (or a load) first")
    return holder.get_tensor()


def _check(var: Variable, t: LoDTensor, where: str) -> LoDTensor:
    """`t` as `var` may hold it, or a FormatError naming the file and the var."""
    got, shape = t._dtype(), tuple(t.shape())
    want = tuple(var.shape)
    if got != var.dtype:
        raise FormatError(f"{where}: var '{var.name}' is {dtype_name(got)} in the file but "
                          f"{dtype_name(var.dtype)} in the program")
    same = len(want) == len(shape) and all(w in (-1, s) for w, s in zip(want, shape))
    # Paddle 3.x writes single values (the learning rate, a mean) as 0-d tensors where 1.x
    # programs declare [1]: one element either way.
    scalar = {want, shape} <= {(), (1,)}
    if not (same or scalar):
        raise FormatError(f"{where}: var '{var.name}' has shape {list(shape)} in the file but "
                          f"{list(want)} in the program")
    if scalar and shape != want:
        t = LoDTensor(t.tensor.reshape(want), t.lod())
    return t


def _store(scope: Scope, values: dict[str, LoDTensor]) -> None:
    """Put checked values into the scope, in place where the held tensor already fits."""
    for name, t in values.items():
        held = scope.var(name).get_tensor()
        old = held._t
        if old is not None and old.shape == t.tensor.shape and old.dtype == t.tensor.dtype:
            old.copy_(t.tensor)  # keeps the device and any compiled plan's binding
        else:
            held._t = t.tensor.clone() if old is None else t.tensor.to(old.device)
        held._lod = t.lod()


# -- Fluid 1.x: fluid.io ------------------------------------------------------------------------

def _var_files(dirname: str, main_program, vars, predicate, filename: str | None) -> dict[str, bytes]:
    """Relative path -> bytes of what save_vars writes (names checked before anything is written)."""
    scope = global_scope()
    chosen = _select(main_program, vars, predicate)
    values = {v.name: _value(scope, v.name) for v in chosen}
    if filename is not None and not values:
        return {}  # nothing persistable: Paddle writes no params file
    if filename is not None:
        rel = os.path.relpath(file_name_of(filename, dirname, saving=True), dirname)
        for name in values:
            file_name_of(name, dirname, saving=True)  # UTF-8 (the model file holds them)
        return {rel: combine_to_bytes([values[n] for n in sorted(values)])}
    return {os.path.relpath(file_name_of(name, dirname, saving=True), dirname): tensor_to_bytes(t)
            for name, t in values.items()}


def _write_dir(dirname: str, files: dict[str, bytes], what: str) -> None:
    if not isinstance(dirname, (str, os.PathLike)) or not os.fspath(dirname):
        raise ValueError(f"{what}: dirname must be a non-empty path, got {dirname!r}")

    def write(folder):
        for rel, data in files.items():
            folder.write_file(rel, data)
    write_dir(dirname, write, what)


def save_vars(executor, dirname: str, main_program=None, vars=None, predicate=None,
              filename: str | None = None) -> None:
    """Save vars (given, or the program's vars passing predicate): one file each, or one combined
    file. The directory is replaced as a whole (files the save does not write are kept), so a
    kill leaves the previous save or this one, never a mix."""
    _write_dir(dirname, _var_files(dirname, main_program, vars, predicate, filename), "save_vars")


def save_params(executor, dirname: str, main_program=None, filename: str | None = None) -> None:
    """Save every parameter of the program."""
    save_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def save_persistables(executor, dirname: str, main_program=None, filename: str | None = None) -> None:
    """Save every persistable var: parameters, optimizer state, the learning rate, counters."""
    program = main_program if main_program is not None else default_main_program()
    # A parameter-server trainer program's: its vars and the servers' optimizer state, which
    # running it receives (distributed/transpiler.py).
    checkpoint = getattr(program, "_checkpoint_program", None)
    if checkpoint is not None:
        executor.run(checkpoint)
        program = checkpoint
    save_vars(executor, dirname, program, predicate=is_persistable, filename=filename)


def _read_vars(dirname: str, chosen: list[Variable], filename: str | None) -> dict[str, LoDTensor]:
    """Read and check every var (nothing is stored yet)."""
    if filename is not None:
        if not chosen:
            return {}  # nothing to read: a model without parameters has no params file
        path = os.path.join(dirname, filename)
        return _check_combined(_read(path, "combined params"), path, chosen)
    out = {}
    for v in chosen:
        # A pserver program's block of a var reads the rows it holds of that var's file.
        source, rows = getattr(v, "slice_of", None) or (v.name, None)
        path = file_name_of(source, dirname)
        if not os.path.isfile(path):
            raise FormatError(f"{path}: missing: the program's var '{source}' has no file in {dirname}")
        t = tensor_from_bytes(_read(path, f"var '{source}'"), path, source)
        if rows is not None:
            t = LoDTensor(t._t[rows[0]:rows[1]].clone())
        out[v.name] = _check(v, t, path)
    return out


def _check_combined(data: bytes, where: str, chosen: list[Variable]) -> dict[str, LoDTensor]:
    """The vars of a combined stream (save_combine's: name order), each checked."""
    names = sorted(v.name for v in chosen)
    loaded = combine_from_bytes(data, where, names)
    by_name = {v.name: v for v in chosen}
    return {n: _check(by_name[n], t, where) for n, t in loaded.items()}


def load_vars(executor, dirname: str, main_program=None, vars=None, predicate=None,
              filename: str | None = None) -> None:
    """Load vars saved by save_vars; all are read and checked before the scope changes.

    Running the startup program after a load overwrites what was loaded: run it first.
    """
    chosen = _select(main_program, vars, predicate)
    _store(global_scope(), _read_vars(resolve_dir(dirname), chosen, filename))


def _has_optimizer_ops(program: Program) -> bool:
    return any(op.type in _OPTIMIZER_OPS or int(op.desc.attrs.get("op_role", 0)) & OpRole.Optimize
               for b in program.blocks for op in b.ops)


def load_params(executor, dirname: str, main_program=None, filename: str | None = None) -> None:
    """Load every parameter of the program (warns if the program would still train them)."""
    program = main_program if main_program is not None else default_main_program()
    if isinstance(program, Program) and _has_optimizer_ops(program):
        warnings.warn("load_params: the program still holds optimizer ops, so running it for "
                      "prediction would update the parameters; use program.clone(for_test=True) "
                      "or load_inference_model", UserWarning, stacklevel=2)
    load_vars(executor, dirname, program, predicate=is_parameter, filename=filename)


def load_persistables(executor, dirname: str, main_program=None, filename: str | None = None) -> None:
    """Load every persistable var, e.g. to resume training where save_persistables left off."""
    load_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)


def _inference_program(program: Program, feeds: list[str], targets: list[str]) -> Program:
    """The program pruned to what targets need from feeds, with Paddle's feed and fetch ops."""
    if any(op.type == "auc" for op in program.global_block().ops):  # Paddle's reminder
        warnings.warn("Be sure that you have set auc states to 0 before saving inference model.",
                      UserWarning, stacklevel=3)
    pruned = program.clone(for_test=True)
    block = pruned.global_block()
    for name in list(feeds) + list(targets):
        if not block.has_var(name):
            raise FluidcError(f"save_inference_model: var '{name}' is not in the program")
    block.ops = [op for op in block.ops if op.type not in ("feed", "fetch")]
    kept = {id(d) for d in prune_ops([op.desc for op in block.ops], feeds, targets)}
    block.ops = [op for op in block.ops if id(op.desc) in kept]
    used = set(targets)
    used.update(n for op in block.ops for n in op.input_arg_names + op.output_arg_names)
    for i, name in enumerate(feeds):
        if name not in used:  # Paddle's rule and message
            raise ValueError(f"The feeded_var_names[{i}]: '{name}' doesn't exist in pruned "
                             f"inference program. Please check whether '{name}' is a valid "
                             f"feed_var name, or remove it from feeded_var_names if '{name}' is "
                             f"not involved in the target_vars calculation.")
    for name in [n for n in block.vars if n not in used]:
        del block.vars[name]
    block.create_var(name="feed", type=VarType.FEED_MINIBATCH, persistable=True)
    block.create_var(name="fetch", type=VarType.FETCH_LIST, persistable=True)
    for i, name in enumerate(feeds):  # prepended one by one, so the last feed comes first
        block._prepend_op("feed", {"X": ["feed"]}, {"Out": [name]}, {"col": i})
    for i, name in enumerate(targets):
        block.append_op("fetch", {"X": [name]}, {"Out": ["fetch"]}, {"col": i})
    return pruned


def _names(items, what: str) -> list[str]:
    items = items if isinstance(items, (list, tuple)) else [items]
    out = []
    for v in items:
        if not isinstance(v, (str, Variable)):
            raise TypeError(f"{what} must be Variables or names, got {type(v).__name__}")
        out.append(v if isinstance(v, str) else v.name)
    return out


def save_inference_model(dirname: str, feeded_var_names, target_vars, executor, main_program=None,
                         model_filename: str | None = None, params_filename: str | None = None,
                         export_for_deployment: bool = True, program_only: bool = False,
                         **_) -> list[str]:
    """Prune to the targets, add feed/fetch ops, write __model__ and the persistables; returns targets."""
    program = main_program if main_program is not None else default_main_program()
    program = getattr(program, "_program", program)
    feeds, targets = _names(feeded_var_names, "feeded_var_names"), _names(target_vars, "target_vars")
    pruned = _inference_program(program, feeds, targets)
    # Paddle keeps only the base names of model_filename and params_filename.
    model = os.path.basename(model_filename) if model_filename else "__model__"
    params = os.path.basename(params_filename) if params_filename else None
    file_name_of(model, dirname, saving=True)
    files = {} if program_only else _var_files(dirname, pruned, None, is_persistable, params)
    if model in files:
        raise UnsafeNameError(f"save_inference_model: var '{model}' would overwrite the model file "
                              f"in {dirname}")
    files[model] = _serialize(pruned, "save_inference_model")
    _write_dir(dirname, files, "save_inference_model")
    return targets


def _serialize(program: Program, what: str) -> bytes:
    for b in program.blocks:
        for name in list(b.vars) + [n for op in b.ops for n in op.input_arg_names + op.output_arg_names]:
            try:
                name.encode("utf-8")
            except (UnicodeEncodeError, AttributeError):
                raise UnsafeNameError(f"{what}: var {name!r:.80} has a name that is not valid "
                                      f"UTF-8 text; a ProgramDesc cannot hold it") from None
    return serialize_program(program)


def _feeds_and_fetches(program: Program, where: str) -> tuple[list[str], list[Variable]]:
    ops = program.global_block().ops
    feeds = sorted((op.attr("col"), op.output("Out")[0]) for op in ops if op.type == "feed")
    fetches = sorted((op.attr("col"), op.input("X")[0]) for op in ops if op.type == "fetch")
    if not fetches:
        raise FormatError(f"{where}: the program has no fetch ops (not an inference model?)")
    block = program.global_block()
    return [n for _, n in feeds], [block.var(n) for _, n in fetches]


def read_program(path: str) -> Program:
    """The program of a saved model — an inference model or a training program (a directory
    holding __model__, a .pdmodel file or a path prefix); no parameters are read."""
    if os.path.isdir(resolve_dir(path)):
        path = os.path.join(resolve_dir(path), "__model__")
    elif not os.path.exists(path) and member_exists(path + ".pdmodel"):
        path += ".pdmodel"
    return parse_program(_read(path, "model"), path)


def load_inference_model(dirname: str, executor, model_filename: str | None = None,
                         params_filename: str | None = None, pserver_endpoints=None) -> list:
    """[program, feed_target_names, fetch_targets] of a model saved by save_inference_model."""
    dirname = resolve_dir(dirname)
    # As Paddle: only the base names of model_filename and params_filename count.
    path = file_name_of(os.path.basename(model_filename) if model_filename else "__model__", dirname)
    program = parse_program(_read(path, "inference model"), path)
    feeds, fetches = _feeds_and_fetches(program, path)
    load_persistables(executor, dirname, program,
                      os.path.basename(params_filename) if params_filename else None)
    return [program, feeds, fetches]


# -- 2.x: paddle.static -------------------------------------------------------------------------

def _prefix(path_prefix: str, what: str) -> str:
    if not isinstance(path_prefix, str) or not path_prefix:
        raise ValueError(f"{what}: path_prefix must be a non-empty str, got {path_prefix!r}")
    if os.path.isdir(path_prefix):
        raise ValueError(f"{what}: '{path_prefix}' is a directory; give a path prefix such as "
                         f"'{os.path.join(path_prefix, 'model')}'")
    return path_prefix


def static_save_inference_model(path_prefix: str, feed_vars, fetch_vars, executor, program=None,
                                **kwargs) -> None:
    """paddle.static.save_inference_model: path_prefix.pdmodel and path_prefix.pdiparams."""
    prefix = _prefix(path_prefix, "save_inference_model")
    for path in (prefix + ".pdmodel", prefix + ".pdiparams"):
        if os.path.isdir(path):
            raise ValueError(f"save_inference_model: '{path}' is an existing directory.")
    program = program if program is not None else default_main_program()
    program = getattr(program, "_program", program)
    pruned = _inference_program(program, _variable_names(feed_vars, "feed_vars"),
                                _variable_names(fetch_vars, "fetch_vars"))
    files = {prefix + ".pdmodel": _serialize(pruned, "save_inference_model")}
    params = _persistable_bytes(pruned)
    if params is not None:  # as Paddle, no .pdiparams for a model without persistables
        files[prefix + ".pdiparams"] = params
    else:
        warnings.warn("no variable in your model, please ensure there are any variables in "
                      "your model to save", UserWarning, stacklevel=2)
    write_set(files)


def _variable_names(items, what: str) -> list[str]:
    """The names of a Variable or a list of Variables (2.x takes no names: a ValueError, as
    Paddle's)."""
    items = items if isinstance(items, list) else [items]
    if not all(isinstance(v, Variable) for v in items):
        raise ValueError(f"'{what}' should be a Variable or a list of Variable.")
    return [v.name for v in items]


def _persistable_bytes(program: Program) -> bytes | None:
    """The program's persistables as one save_combine stream (name order); None if it has none."""
    scope = global_scope()
    chosen = _select(program, None, is_persistable)
    for v in chosen:
        file_name_of(v.name, "<params>", saving=True)  # UTF-8 (the model file holds them)
    if not chosen:
        return None
    return combine_to_bytes([_value(scope, v.name) for v in sorted(chosen, key=lambda v: v.name)])


def normalize_program(program: Program, feed_vars, fetch_vars, **kwargs) -> Program:
    """paddle.static.normalize_program: the inference program (pruned to fetch_vars from
    feed_vars, test mode, feed and fetch ops added) that save_inference_model writes."""
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `Program`, but received `{type(program)}`")
    feed_vars = feed_vars if isinstance(feed_vars, list) else [feed_vars]
    fetch_vars = fetch_vars if isinstance(fetch_vars, list) else [fetch_vars]
    if not all(isinstance(v, Variable) for v in feed_vars):
        raise TypeError("feed_vars type must be a Variable or a list of Variable.")
    if not all(isinstance(v, Variable) for v in fetch_vars):
        raise TypeError("fetch_vars type must be a Variable or a list of Variable.")
    if not program.global_block().ops:
        raise ValueError("program must not be empty. at least one operator is required!")
    return _inference_program(program, [v.name for v in feed_vars], [v.name for v in fetch_vars])


def serialize_persistables(feed_vars, fetch_vars, executor, program=None, **kwargs) -> bytes | None:
    """paddle.static.serialize_persistables: the persistables the inference program needs, as
    the .pdiparams bytes; None (with a warning) when it needs none."""
    program = program if program is not None else default_main_program()
    data = _persistable_bytes(normalize_program(getattr(program, "_program", program),
                                                feed_vars, fetch_vars))
    if data is None:
        warnings.warn("no variable in your model, please ensure there are any variables in "
                      "your model to save", UserWarning, stacklevel=2)
    return data


def deserialize_persistables(program: Program, data: bytes | None, executor) -> None:
    """paddle.static.deserialize_persistables: the program's persistables from .pdiparams
    bytes, all checked before the scope changes."""
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `Program`, but received `{type(program)}`")
    chosen = _select(program, None, is_persistable)
    if data is None:
        if any(is_parameter(v) for v in chosen):
            raise FormatError("deserialize_persistables: data is None, but the program has "
                              "parameters to load")
        return
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"deserialize_persistables: data must be bytes, got {type(data).__name__}")
    _store(global_scope(), _check_combined(bytes(data), "<persistables bytes>", chosen))


def save_to_file(path: str, content: bytes) -> None:
    """paddle.static.save_to_file: write bytes to path (whole, or not at all)."""
    if not isinstance(content, bytes):
        raise ValueError("'content' type should be bytes.")
    atomic_write(path, content)


def load_from_file(path: str) -> bytes:
    """paddle.static.load_from_file: a file's bytes."""
    return _read(path, "load_from_file")


def static_load_inference_model(path_prefix: str, executor, **kwargs) -> list:
    """paddle.static.load_inference_model: a path prefix, a 1.x directory (model_filename=...),
    or, with path_prefix None, the bytes of serialize_program/serialize_persistables passed as
    model_filename and params_filename."""
    unknown = sorted(set(kwargs) - {"model_filename", "params_filename"})
    if unknown:  # Paddle refuses them with a ValueError, not Python's TypeError
        raise ValueError(f"load_inference_model: unsupported argument(s) {unknown}; only "
                         f"model_filename and params_filename are supported")
    if path_prefix is None:
        model = kwargs.get("model_filename")
        if not isinstance(model, (bytes, bytearray)):
            raise ValueError("load_inference_model: with path_prefix None, model_filename must be "
                             "the model's bytes (serialize_program) and params_filename its "
                             "persistables' bytes (serialize_persistables)")
        return load_inference_model_from_bytes(bytes(model), kwargs.get("params_filename"),
                                               executor)
    if not isinstance(path_prefix, str):
        raise ValueError(f"load_inference_model: path_prefix must be a str, got "
                         f"{type(path_prefix).__name__}")
    # the 1.x way: a directory (a directory that is also a prefix of .pdmodel: the prefix, as
    # Paddle reads path_prefix without kwargs)
    if kwargs or (os.path.isdir(resolve_dir(path_prefix)) and
                  not os.path.isfile(path_prefix + ".pdmodel")):
        folder = resolve_dir(path_prefix)
        return load_inference_model(path_prefix, executor,
                                    _suffixed(folder, kwargs.get("model_filename"), ".pdmodel"),
                                    _suffixed(folder, kwargs.get("params_filename"), ".pdiparams"))
    model = path_prefix + ".pdmodel"
    program = parse_program(_read(model, "inference model"), model)
    feeds, fetches = _feeds_and_fetches(program, model)
    folder, base = os.path.split(os.path.abspath(path_prefix))
    load_vars(executor, folder, program, predicate=is_persistable, filename=base + ".pdiparams")
    return [program, feeds, fetches]


def _suffixed(folder: str, name: str | None, suffix: str) -> str | None:
    """A file name given to the 1.x-style loader: with `suffix` when that file exists (what
    save_inference_model's path prefix wrote), else as given, as Paddle resolves it."""
    if name is None or not os.path.exists(os.path.join(folder, name + suffix)):
        return name
    return name + suffix


def load_inference_model_from_bytes(model: bytes, params: bytes | None, executor) -> list:
    """load_inference_model(path_prefix=None, model_filename=bytes, params_filename=bytes):
    the model and its persistables from memory, as serialize_program/_persistables made them."""
    program = parse_program(model, "<model bytes>")
    feeds, fetches = _feeds_and_fetches(program, "<model bytes>")
    deserialize_persistables(program, params, executor)
    return [program, feeds, fetches]


def _protocol(protocol, configs: dict) -> int:
    """The pickle protocol of a save: `protocol`, or the deprecated pickle_protocol config (with
    Paddle's warning); an int from 2 to 4."""
    if configs.get("pickle_protocol") is not None:
        warnings.warn("'pickle_protocol' is a deprecated argument. Please use 'protocol' "
                      "instead.", stacklevel=3)
        protocol = configs["pickle_protocol"]
    if not isinstance(protocol, int) or not 2 <= protocol <= 4:
        raise ValueError(f"protocol must be an int from 2 to 4, got {protocol!r}")
    return protocol


def _check_configs(configs: dict, supported: tuple[str, ...], what: str) -> None:
    for key in configs:
        if key not in supported:
            raise ValueError(f"The additional config ({key}) of `{what}` is not supported.")


def state_dict(program: Program, mode: str = "all", scope: Scope | None = None) -> dict[str, LoDTensor]:
    """Program.state_dict: name -> the scope's tensor for params ('param'), optimizer state ('opt') or both."""
    preds = {"param": is_parameter, "opt": is_belong_to_optimizer,
             "all": lambda v: is_parameter(v) or is_belong_to_optimizer(v)}
    if not isinstance(mode, str):
        raise TypeError(f"Type of `mode` should be string, but received {type(mode)}.")
    scope = _scope_arg(scope, "Program.state_dict")
    if mode not in preds:
        raise ValueError(f"state_dict mode must be 'all', 'param' or 'opt', got {mode!r}")
    return {v.name: _value(scope, v.name) for v in _select(program, None, preds[mode])}


def _scope_arg(scope, what: str) -> Scope:
    if scope is None:
        return global_scope()
    if not isinstance(scope, Scope):
        raise TypeError(f"{what}: `scope` should be None or a Scope, but received {type(scope)}")
    return scope


def get_value(var: Variable, scope: Scope | None = None) -> LoDTensor:
    """Variable.get_value: the var's tensor in `scope` (default: the global scope)."""
    holder = _scope_arg(scope, "get_value").find_var(var.name)
    if holder is None:
        raise ValueError(f"Can not find Variable '{var.name}' in the Scope.")
    return holder.get_tensor()


def set_value(var: Variable, value, scope: Scope | None = None) -> None:
    """Variable.set_value: copy a numpy array (or anything with __array__) of the var's
    shape into its tensor in `scope`, converted to the held dtype."""
    if not (isinstance(value, np.ndarray) or hasattr(value, "__array__")):
        raise TypeError(f"`value` should be `numpy.ndarray` or `LoDTensor`, but received "
                        f"{type(value)}.")
    holder = _scope_arg(scope, "set_value").find_var(var.name)
    if holder is None:
        raise ValueError(f"Can not find Variable '{var.name}' in the Scope.")
    arr = np.asarray(value)
    held = holder.get_tensor()
    want = tuple(held.shape()) if held._t is not None else tuple(var.shape)
    if len(want) != arr.ndim or any(w not in (-1, a) for w, a in zip(want, arr.shape)):
        raise ValueError(f"{var.name} expected a shape {list(want)}, but the received shape is "
                         f"{list(arr.shape)}.")
    if held._t is None:
        held.set(arr.astype(to_numpy_dtype(var.dtype), copy=False))
    else:
        held._t.copy_(to_torch(np.ascontiguousarray(arr)).to(held._t.dtype))


_HOLDABLE = {np.dtype(n) for n in ("bool", "uint8", "int8", "int16", "int32", "int64",
                                    "float16", "float32", "float64")}


def _as_lodtensor(value, name: str, where: str, var: Variable | None = None) -> LoDTensor:
    if isinstance(value, LoDTensor):
        return value
    try:
        arr = np.asarray(value)
    except Exception as e:
        raise FormatError(f"{where}: the value of '{name}' is not an array: {e}") from None
    bfloat16 = arr.dtype == np.uint16 and var is not None and var.dtype == VarType.BF16
    if arr.dtype not in _HOLDABLE and not bfloat16:  # Paddle pickles bfloat16 as its uint16 bits
        raise FormatError(f"{where}: the value of '{name}' is {arr.dtype}, which no fluidc var "
                          f"holds")
    return LoDTensor(to_torch(arr))


def set_state_dict(program: Program, state_dict: dict, scope: Scope | None = None,
                   where: str = "state_dict") -> None:
    """Program.set_state_dict: check every value against its var, then store them all."""
    if not isinstance(state_dict, dict):
        raise TypeError(f"Type of `state_dict` should be dict, but received {type(state_dict)}.")
    block = program.global_block()
    values = {}
    for name, value in state_dict.items():
        var = block._find_var_recursive(name)
        if var is None or not is_persistable(var):
            warnings.warn(f"Skip loading for '{name}': it is not a persistable var of the program",
                          UserWarning, stacklevel=2)
            continue
        values[name] = _check(var, _as_lodtensor(value, name, where, var), where)
    _store(scope if scope is not None else global_scope(), values)


def _numpy_dict(values: dict[str, LoDTensor]) -> dict[str, np.ndarray]:
    return {n: t.numpy().copy() for n, t in values.items()}


def static_save(program: Program, model_path: str, protocol: int = 4, **configs) -> None:
    """paddle.static.save: model_path.pdparams, .pdopt (pickled name -> array) and .pdmodel."""
    protocol = _protocol(protocol, configs)
    prefix = _prefix(model_path, "paddle.static.save")
    program = getattr(program, "_program", program)
    params = _numpy_dict(state_dict(program, "param"))
    opt = _numpy_dict(state_dict(program, "opt"))
    write_set({prefix + ".pdparams": pickle.dumps(params, protocol=protocol),
               prefix + ".pdopt": pickle.dumps(opt, protocol=protocol),
               prefix + ".pdmodel": _serialize(program, "paddle.static.save")})


def _static_prefix(model_path: str) -> str:
    """The prefix of paddle.static.save's files: model_path less a .pdparams / .pdopt / .pdmodel
    suffix (Paddle's load and load_program_state take any of the three files' names)."""
    for suffix in (".pdparams", ".pdopt", ".pdmodel"):
        if model_path.endswith(suffix):
            return model_path[:-len(suffix)]
    return model_path


def static_load(program: Program, model_path: str, executor=None, var_list=None) -> None:
    """paddle.static.load from .pdparams/.pdopt, a save_persistables dir, or a combined file (var_list)."""
    program = getattr(program, "_program", program)
    block = program.global_block()
    prefix = _static_prefix(model_path)
    if member_exists(prefix + ".pdparams"):
        params = [v for v in _select(program, var_list, is_parameter) if is_parameter(v)]
        opts = [v for v in _select(program, var_list, is_belong_to_optimizer)
                if is_belong_to_optimizer(v)]
        values = _read_pickled_vars(prefix + ".pdparams", params)
        if opts:
            values.update(_read_pickled_vars(prefix + ".pdopt", opts))
        _store(global_scope(), values)
    elif os.path.isdir(resolve_dir(model_path)):
        folder = resolve_dir(model_path)
        present = {os.path.relpath(os.path.join(d, f), folder)
                   for d, _, fs in os.walk(folder) for f in fs if not is_own_file(f)}
        chosen = [v for v in _select(program, var_list, is_persistable) if v.name in present]
        load_vars(executor, folder, program, vars=chosen)
    elif os.path.isfile(model_path):
        if var_list is None:
            raise ValueError(f"paddle.static.load: '{model_path}' is one combined file; pass "
                             f"var_list to say which vars it holds")
        load_vars(executor, os.path.dirname(os.path.abspath(model_path)), program,
                  vars=[block.var(v) if isinstance(v, str) else v for v in var_list],
                  filename=os.path.basename(model_path))
    else:
        raise FormatError(f"{model_path}: no {prefix}.pdparams, directory or file to load")


def _read_pickled_vars(path: str, chosen: list[Variable]) -> dict[str, LoDTensor]:
    saved = _unpickle(_read(path, "pickled state dict"), path, allow_pickle=False)
    if not isinstance(saved, dict):
        raise FormatError(f"{path}: holds a {type(saved).__name__}, expected a dict of name -> array")
    out = {}
    for v in chosen:
        if v.name not in saved:
            raise FormatError(f"{path}: has no value for the program's var '{v.name}'")
        value = saved[v.name]
        if not isinstance(value, (np.ndarray, np.generic)):
            raise FormatError(f"{path}: the value of var '{v.name}' is a {type(value).__name__}, "
                              f"not an array")
        out[v.name] = _check(v, _as_lodtensor(value, v.name, path, v), path)
    return out


# -- paddle.save / paddle.load ------------------------------------------------------------------

def _eval_data(expr, namespace=None):
    """Paddle pickles a LoDTensor as eval('data', {'data': array}); only that form is honoured."""
    if expr == "data" and isinstance(namespace, dict) and isinstance(namespace.get("data"), np.ndarray):
        return namespace["data"]
    raise pickle.UnpicklingError("eval in a pickle is refused (only Paddle's tensor form is read)")


class _FullUnpickler(pickle.Unpickler):
    """allow_pickle=True: any class (the caller trusts the file), eval only in Paddle's form."""

    def find_class(self, module: str, name: str):
        if (module, name) == ("builtins", "eval"):
            return _eval_data
        return super().find_class(module, name)


def _unpickle(data: bytes, where: str, allow_pickle: bool):
    """A pickle's object: by safe_pickle (arrays, containers, scalars; bounded), or, with
    allow_pickle=True for a trusted file, by pickle itself."""
    return _unpickle_first(data, where, allow_pickle)[0]


def _unpickle_first(data: bytes, where: str, allow_pickle: bool):
    """(object, end) of the first pickle in data, as _unpickle reads it."""
    if not allow_pickle:
        try:
            return safe_pickle.loads_first(data, where)
        except FormatError as e:
            if "is not allowed" in str(e):
                raise FormatError(f"{e} (pass allow_pickle=True to paddle.load if you trust "
                                  f"the file)") from None
            raise
    import io as _bio
    buf = _bio.BytesIO(data)
    try:
        return _FullUnpickler(buf).load(), buf.tell()
    except pickle.UnpicklingError as e:
        raise FormatError(f"{where}: cannot unpickle: {e}") from None
    except (EOFError, ValueError, TypeError, AttributeError, IndexError, KeyError, SystemError,
            RecursionError, MemoryError, ImportError, UnicodeDecodeError) as e:
        raise FormatError(f"{where}: truncated or corrupt pickle: {type(e).__name__}: {e}") from None


def _tensor_pickle(arr: np.ndarray):
    """Paddle's pickled form of a tensor: eval('data', {'data': array})."""
    return eval, ("data", {"data": arr})


class _PaddlePickler(pickle.Pickler):
    """Pickles as paddle.save does: tensors (LoDTensors, static vars' values) in Paddle's eval
    form, numpy arrays and containers as themselves."""

    def __init__(self, file, protocol: int, scope: Scope) -> None:
        super().__init__(file, protocol=protocol)
        self._scope = scope

    def reducer_override(self, obj):
        if isinstance(obj, SelectedRows):
            raise NotImplementedError("`paddle.save` do not support saving 'SelectedRows' "
                                      "(save one with use_binary_format=True)")
        if isinstance(obj, LoDTensor):
            return _tensor_pickle(obj.numpy().copy())
        if isinstance(obj, Variable):
            return _tensor_pickle(_value(self._scope, obj.name).numpy().copy())
        return NotImplemented


def _pickled(obj, protocol: int) -> bytes:
    import io as _bio
    buf = _bio.BytesIO()
    _PaddlePickler(buf, protocol, global_scope()).dump(obj)
    return buf.getvalue()


def _binary(obj) -> bytes:
    """paddle.save(..., use_binary_format=True): one tensor as a LoDTensor stream, or a
    SelectedRows as its stream."""
    if isinstance(obj, Variable):
        obj = _value(global_scope(), obj.name)
    if isinstance(obj, SelectedRows):
        if not obj.get_tensor()._is_initialized():
            raise ValueError("The saved tensor is not initialized.")
        return selected_rows_to_bytes(obj.rows(), obj.height(), obj.get_tensor())
    if not isinstance(obj, LoDTensor):
        raise NotImplementedError(f"When use_binary_format = True, `paddle.save` expected "
                                  f"Tensor, but received {type(obj)}.")
    if not obj._is_initialized():
        raise ValueError("The saved tensor is not initialized.")
    return tensor_to_bytes(obj)


def save(obj, path, protocol: int = 4, **configs) -> None:
    """paddle.save to a file path or a BytesIO: a Program as ProgramDesc bytes, a tensor as a
    LoDTensor stream with use_binary_format=True; anything else (state dicts, tensors, nests of
    them) pickled in Paddle's layout."""
    import io as _bio
    _check_configs(configs, ("use_binary_format", "pickle_protocol"), "paddle.save")
    protocol = _protocol(protocol, configs)
    binary = configs.get("use_binary_format", False)
    if not isinstance(binary, bool):
        raise TypeError(f"Type of `use_binary_format` should be bool, but received "
                        f"{type(binary)}.")
    if isinstance(path, str):
        if not os.path.basename(path) or os.path.isdir(path):
            raise ValueError(f"paddle.save: path must be dirname/filename, got {path!r}")
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)  # even if obj is refused
    elif not isinstance(path, _bio.BytesIO):
        raise ValueError(f"paddle.save only supports saving objects to file and `BytesIO`, but "
                         f"got {type(path)}")
    data = (_binary(obj) if binary else _serialize(obj, "paddle.save") if isinstance(obj, Program)
            else _pickled(obj, protocol))
    if isinstance(path, str):
        atomic_write(path, data)
    else:
        path.write(data)


def _load_dir(path: str, configs: dict) -> dict[str, np.ndarray]:
    path = resolve_dir(path)
    model = configs.get("model_filename") or "__model__"
    mpath = file_name_of(model, path)
    if os.path.isfile(mpath):
        program = parse_program(_read(mpath, "model"), mpath)
        return _program_values(program, path, configs.get("params_filename"))
    return {name: tensor_from_bytes(_read(full, f"var '{name}'"), full, name).numpy()
            for name, full in dir_files(path)}


def dir_files(path: str):
    """(var name, file path) of every data file under a directory saved without its program
    (names relative to it, checked as UTF-8); a save's temp files and journal are skipped."""
    for d, dirs, files in os.walk(path):
        dirs[:] = sorted(x for x in dirs if not is_own_file(x))
        for f in sorted(files):
            if is_own_file(f):
                continue  # a save's temp file or journal: never data
            full = os.path.join(d, f)
            yield check_name(os.path.relpath(full, path), full, "file"), full


def _program_values(program: Program, folder: str, filename: str | None) -> dict[str, np.ndarray]:
    chosen = _select(program, None, is_persistable)
    return {n: t.numpy() for n, t in _read_vars(folder, chosen, filename).items()}


def load(path: str, **configs):
    """paddle.load: a pickle (state dict, tensor, nest), a saved Program, a single tensor file,
    a save_params/save_persistables dir, or an inference model's path prefix (-> name -> array).

    Pickles are read with a restricted unpickler (arrays, containers, scalars) unless
    allow_pickle=True is passed for a trusted file.
    """
    import io as _bio
    _check_configs(configs, ("model_filename", "params_filename", "keep_name_table",
                             "return_numpy", "allow_pickle"), "paddle.load")
    if isinstance(path, _bio.BytesIO):
        start = path.tell()
        obj, used = _load_bytes(path.read(), "<BytesIO>", configs)
        path.seek(start + used)  # the next load reads what a next save wrote
        return obj
    if not isinstance(path, str):
        raise ValueError(f"paddle.load only supports loading objects from a file path or a "
                         f"`BytesIO`, but got {type(path)}")
    if os.path.isdir(resolve_dir(path)):
        return _load_dir(path, configs)
    if not os.path.exists(path) and member_exists(path + ".pdmodel"):
        for key in ("model_filename", "params_filename"):
            if configs.get(key) is not None:
                warnings.warn(f"When loading the result saved with the specified file prefix, "
                              f"the ``{key}`` config does not take effect.", stacklevel=2)
        program = parse_program(_read(path + ".pdmodel", "model"), path + ".pdmodel")
        folder, base = os.path.split(os.path.abspath(path))
        return _program_values(program, folder, base + ".pdiparams")
    return _load_bytes(_read(path, "paddle.load"), path, configs)[0]


def _load_bytes(data: bytes, where: str, configs: dict):
    """(object, bytes used): a pickle, one tensor stream or a ProgramDesc, told apart by their
    first bytes. Tensors come back as LoDTensors (Paddle's static mode) unless return_numpy."""
    return_numpy = bool(configs.get("return_numpy", False))
    if data[:1] == b"\x80":  # a pickle (protocol 2+)
        obj, used = _unpickle_first(data, where, bool(configs.get("allow_pickle", False)))
        return parse_load_result(obj, return_numpy, bool(configs.get("keep_name_table"))), used
    if data[:4] == b"\0\0\0\0":  # a SelectedRows or LoDTensor stream: version 0
        try:  # SelectedRows first, as Paddle tries them (a whole tensor stream does not parse)
            rows, height, value = selected_rows_from_bytes(data, where)
        except FormatError:
            t = tensor_from_bytes(data, where, os.path.basename(where))
            return (t.numpy() if return_numpy else t), len(data)
        sr = SelectedRows(rows, height)
        sr.get_tensor().set(value)
        return sr, len(data)
    return parse_program(data, where), len(data)


def load_program_state(model_path: str, var_list=None) -> dict[str, np.ndarray]:
    """paddle.static.load_program_state: name -> array from .pdparams + .pdopt (or a dir)."""
    prefix = _static_prefix(model_path)
    if not member_exists(prefix + ".pdparams"):
        return load(model_path, return_numpy=True)
    state = {}
    for ext, what in ((".pdparams", "params"), (".pdopt", "optimizer state")):
        if ext == ".pdopt" and not member_exists(prefix + ext):
            continue
        part = _unpickle(_read(prefix + ext, what), prefix + ext, False)
        if not isinstance(part, dict):
            raise FormatError(f"{prefix + ext}: holds a {type(part).__name__}, expected a dict of "
                              f"name -> array")
        state.update(part)
    names = None if var_list is None else {v if isinstance(v, str) else v.name for v in var_list}
    return {k: v for k, v in state.items() if names is None or k in names}


def set_program_state(program: Program, state_dict: dict) -> None:
    """paddle.static.set_program_state: set_state_dict for a program."""
    set_state_dict(program, state_dict)


def static_serialize_program(feed_vars, fetch_vars, program=None, **kwargs) -> bytes:
    """paddle.static.serialize_program: the pruned inference program's ProgramDesc bytes."""
    program = program if program is not None else default_main_program()
    return serialize_program(_inference_program(getattr(program, "_program", program),
                                                _names(feed_vars, "feed_vars"),
                                                _names(fetch_vars, "fetch_vars")))


def deserialize_program(data: bytes) -> Program:
    """paddle.static.deserialize_program: a Program from ProgramDesc bytes."""
    return parse_program(data)
