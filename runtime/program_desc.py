"""Program <-> ProgramDesc bytes (`__model__`, `.pdmodel`), with framework.proto's numbering.

Ops loaded from a file remember each attribute's AttrType and their empty slots (OpDesc._file),
and programs their version and op-version map (Program._file), so re-saving a Paddle program
writes what Paddle wrote.

A loaded program is checked before it is built: every name is UTF-8 text, every var shape has
at most MAX_RANK dims of -1 or more whose known product is at most MAX_NUMEL, and every
attribute has the type its op declares (the default of each attribute it accepts:
OpDef.attr_default), so a string `scale` or a string `shape` is refused at load, naming
the op and the attribute.
"""
from __future__ import annotations

from google.protobuf.message import DecodeError

from ..frontend.dtypes import VarType
from ..frontend.errors import FluidcError, FormatError
from ..frontend.framework import Block, Operator, Parameter, Program, Variable
from ..frontend.ops import OpDesc, get_op_def, has_op_def, scalar_values
from ..frontend.ops.control_flow import BLOCK_ATTRS
from ..frontend.ops.paddle_attrs import decisions
from ..frontend.ops.var_attrs import attr_slot, slot_attr, var_attrs
from . import proto
from .safe_pickle import MAX_NUMEL, MAX_RANK

A = proto.AttrType
INT, FLOAT, STRING, INTS, FLOATS, STRINGS = (A[n].number for n in
                                             ("INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS"))
BOOLEAN, BOOLEANS, BLOCK, LONG, BLOCKS, LONGS = (A[n].number for n in
                                                 ("BOOLEAN", "BOOLEANS", "BLOCK", "LONG", "BLOCKS", "LONGS"))
FLOAT64S, VAR, VARS, FLOAT64, SCALAR, SCALARS = (A[n].number for n in
                                                 ("FLOAT64S", "VAR", "VARS", "FLOAT64", "SCALAR", "SCALARS"))
# AttrType -> the OpDesc.Attr field holding its value.
_FIELD = {INT: "i", FLOAT: "f", STRING: "s", INTS: "ints", FLOATS: "floats", STRINGS: "strings",
          BOOLEAN: "b", BOOLEANS: "bools", BLOCK: "block_idx", LONG: "l", BLOCKS: "blocks_idx",
          LONGS: "longs", FLOAT64S: "float64s", VAR: "var_name", VARS: "vars_name",
          FLOAT64: "float64"}
# Attributes whose Paddle type the Python value alone does not tell (int64 lists, doubles).
# (Empty lists above all: Paddle reads an attribute only with the type its op declares.)
_KNOWN_TYPES = {"values": SCALARS, "shape": LONGS, "int64_values": LONGS, "fp64_values": FLOAT64S,
                "op_callstack": STRINGS, "op_role_var": STRINGS, "skip_eager_deletion_vars": STRINGS,
                "epmap": STRINGS, "table_names": STRINGS, "height_sections": LONGS}
_INT32 = range(-2**31, 2**31)
# `shape` is int64 (LONGS) for the creation ops, int32 for these (Paddle's op makers).
_INT32_SHAPE_OPS = {"assign_value", "crop_tensor", "expand_v2", "fill_constant_batch_size_like",
                    "reshape2"}
_TENSOR_FIELD = {VarType.LOD_TENSOR: "lod_tensor", VarType.LOD_TENSOR_ARRAY: "tensor_array"}


def attr_type(name: str, value, known: int | None = None) -> int:
    """The AttrType a Python attribute value is written with."""
    if known is not None:
        return known
    if name in BLOCK_ATTRS:  # a control-flow op's block index
        return BLOCK
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, int):
        return INT if value in _INT32 else LONG
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, str):
        return STRING
    if isinstance(value, (list, tuple)):
        if name in _KNOWN_TYPES and (name != "shape" or all(isinstance(v, int) for v in value)):
            return _KNOWN_TYPES[name]
        if value and all(isinstance(v, bool) for v in value):
            return BOOLEANS
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return INTS if all(v in _INT32 for v in value) else LONGS
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return FLOATS
        if all(isinstance(v, str) for v in value):
            return STRINGS
    if hasattr(value, "name") and hasattr(value, "__int__"):  # an enum such as VarType
        return INT
    raise FluidcError(f"attribute {name!r} = {value!r} has no ProgramDesc type")


def _set_attr(msg, name: str, value, atype: int) -> None:
    msg.name, msg.type = name, atype
    if atype == SCALARS:  # a loaded op's are copied as they were: see _op_to_proto
        for v in value:
            _set_scalar(msg.scalars.add(), v)
        return
    field = _FIELD[atype]
    if atype in (INTS, FLOATS, STRINGS, BOOLEANS, BLOCKS, LONGS, FLOAT64S, VARS):
        getattr(msg, field).extend(list(value))
    else:
        setattr(msg, field, int(value) if atype in (INT, LONG, BLOCK) else value)


def _attr_value(msg):
    if msg.type == SCALAR:
        return _scalar(msg.scalar)
    if msg.type == SCALARS:
        return [_scalar(s) for s in msg.scalars]
    value = getattr(msg, _FIELD[msg.type])
    return list(value) if msg.type in (INTS, FLOATS, STRINGS, BOOLEANS, BLOCKS, LONGS,
                                       FLOAT64S, VARS) else value


def _scalar(s):
    return {1: s.b, 2: s.i, 3: s.r}.get(s.type, complex(s.c.r, s.c.i))


def _set_scalar(msg, value) -> None:
    """One Scalar as Paddle writes a Python number: bool, int64, float64 or complex128."""
    S = proto.ENUMS["Scalar.Type"]
    if isinstance(value, bool):
        msg.type, msg.b = S["BOOLEAN"], value
    elif isinstance(value, int):
        msg.type, msg.i = S["LONG"], value
    elif isinstance(value, float):
        msg.type, msg.r = S["FLOAT64"], value
    elif isinstance(value, complex):
        msg.type = S["COMPLEX128"]
        msg.c.r, msg.c.i = value.real, value.imag
    else:
        raise FluidcError(f"a Scalar attribute item {value!r} is not a bool, int, float or "
                          f"complex")


# -- Program -> bytes -------------------------------------------------------------------------

_FLAGS = ("persistable", "need_check_feed", "is_parameter", "stop_gradient")


def _var_to_proto(v: Variable, msg) -> None:
    # Fields Paddle wrote for a loaded var are written again; a new var writes what Paddle's
    # Python front end sets (lod_level on non-persistables, persistable always, flags if true).
    present = getattr(v, "_file_fields", None)
    msg.name = v.name
    msg.type.type = int(v.type)
    field = _TENSOR_FIELD.get(v.type)
    if field is not None:
        desc = getattr(msg.type, field)
        desc.tensor.data_type = int(v.dtype)
        desc.tensor.dims.extend(int(d) for d in v.shape)
        if v.lod_level or ("lod_level" in present if present is not None else not v.persistable):
            desc.lod_level = v.lod_level
    elif v.type == VarType.SELECTED_ROWS:
        msg.type.selected_rows.data_type = int(v.dtype)
        msg.type.selected_rows.dims.extend(int(d) for d in v.shape)
    values = {"persistable": v.persistable, "need_check_feed": v.need_check_feed,
              "is_parameter": isinstance(v, Parameter), "stop_gradient": v.stop_gradient}
    for name in _FLAGS:
        if values[name] or (name in present if present is not None else name == "persistable"):
            setattr(msg, name, values[name])


def _op_to_proto(op: OpDesc, msg) -> None:
    msg.type = op.type
    extra = getattr(op, "_file", {})
    # A loaded op keeps its file's order of slots and attrs; new ones follow, sorted as Paddle's
    # C++ maps write them.
    for side, slots in (("inputs", op.inputs), ("outputs", op.outputs)):
        order = extra.get(side, [])
        for slot in order + sorted(set(slots) - set(order)):
            if slot not in slots and slot not in extra.get("empty_" + side, ()) or \
                    slot_attr(slot) is not None:  # a var attribute: written with the attrs
                continue
            msg_slot = getattr(msg, side).add(parameter=slot)
            msg_slot.arguments.extend(slots.get(slot, []))
    types = extra.get("attr_types", {})
    defaults = get_op_def(op.type).attrs if has_op_def(op.type) else {}
    scalars = extra.get("scalars", {})
    attrs = op.attrs
    if not types:  # built here: Paddle's own writes also hold the attributes fluidc leaves out
        attrs = {**decisions(op.type).written, **attrs}
        if op.type in scalar_values.OPS:  # constants in Paddle 3.3.1's `values`
            attrs = scalar_values.folded(attrs)
    order = extra.get("attr_order", types)
    bound = var_attrs(op.inputs)
    for name in [n for n in order if n in attrs] + sorted(set(attrs) - set(types)):
        value = attrs[name]
        if name in bound:
            many, names = bound[name]
            _set_attr(msg.attrs.add(), name, names if many else names[0], VARS if many else VAR)
            continue
        # A loaded op writes the attrs its file had; defaults fluidc filled in stay out.
        if types and name not in types and name in defaults and value == defaults[name]:
            continue
        if value is None:
            continue
        a = msg.attrs.add()
        if name in scalars:
            a.CopyFrom(scalars[name])
        else:
            known = types.get(name)
            if known is None and name == "shape" and \
                    op.type.removesuffix("_grad") in _INT32_SHAPE_OPS:
                known = INTS
            _set_attr(a, name, value, attr_type(name, value, known))


def program_to_proto(program: Program):
    """The ProgramDesc message of a program."""
    msg = proto.ProgramDesc()
    for b in program.blocks:
        bm = msg.blocks.add(idx=b.idx, parent_idx=b.parent_idx)
        if b.forward_block_idx != -1 or getattr(b, "_file_forward_block_idx", False):
            bm.forward_block_idx = b.forward_block_idx  # as the file had it, or a grad block
        for v in b.vars.values():
            _var_to_proto(v, bm.vars.add())
        for op in b.ops:
            _op_to_proto(op.desc, bm.ops.add())
    extra = getattr(program, "_file", None)
    if extra:
        msg.version.version = extra["version"]
        if extra["op_version_map"]:
            msg.op_version_map.ParseFromString(extra["op_version_map"])
    else:  # built here: the versions of the forms written, so Paddle converts none of them
        types = {op.type for b in program.blocks for op in b.ops}
        for name, version in sorted(scalar_values.CURRENT_VERSIONS.items()):
            if name in types:
                msg.op_version_map.pair.add(op_name=name).op_version.version = version
    return msg


def serialize_program(program: Program) -> bytes:
    """ProgramDesc bytes, as Paddle's `program.desc.serialize_to_string()`."""
    return program_to_proto(program).SerializeToString()


# -- bytes -> Program -------------------------------------------------------------------------

# -- checks of a loaded program ------------------------------------------------------------------

def _text(value, where: str, what: str) -> str:
    """upb hands back a proto2 string field that is not UTF-8 as bytes: refused."""
    if isinstance(value, str):
        return value
    raise FormatError(f"{where}: {what} {bytes(value)!r:.80} is not UTF-8 text")


def check_shape(dims, where: str, what: str) -> list[int]:
    """A declared shape: at most MAX_RANK dims, each -1 (unknown) or more, the known ones
    multiplying to at most MAX_NUMEL."""
    dims = list(dims)
    if len(dims) > MAX_RANK:
        raise FormatError(f"{where}: {what} has {len(dims)} dims (at most {MAX_RANK})")
    known = 1
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool) or d < -1:
            raise FormatError(f"{where}: {what} has dims {dims}: a dim below -1")
        known *= max(d, 1)
        if known > MAX_NUMEL:
            raise FormatError(f"{where}: {what} has dims {dims}: more than {MAX_NUMEL} elements "
                              f"(their product overflows int64 or no tensor that size is "
                              f"plausible)")
    return dims


_KIND = {INT: "int", LONG: "int", FLOAT: "float", FLOAT64: "float", STRING: "str", BOOLEAN: "bool",
         BLOCK: "block", INTS: "ints", LONGS: "ints", FLOATS: "floats", FLOAT64S: "floats",
         STRINGS: "strs", BOOLEANS: "bools", BLOCKS: "blocks", VAR: "var", VARS: "vars",
         SCALAR: "scalar", SCALARS: "scalars"}
_LISTS = {"ints", "floats", "strs", "bools", "blocks", "scalars"}


def _expected_kinds(default) -> set[str]:
    if isinstance(default, bool):
        return {"bool", "int"}  # Paddle's attribute reader turns an int into a bool too
    if isinstance(default, int):
        return {"int", "block", "scalar"}
    if isinstance(default, float):
        return {"float", "int", "scalar"}
    if isinstance(default, str):
        return {"str"}
    if isinstance(default, (list, tuple)):
        if not default:
            return set(_LISTS)
        first = default[0]
        if isinstance(first, bool):
            return {"bools"}
        if isinstance(first, int):
            return {"ints", "blocks", "scalars"}
        if isinstance(first, float):
            return {"floats", "ints", "scalars"}
        if isinstance(first, str):
            return {"strs"}
    return set(_KIND.values())


def _check_attr(op_type: str, name: str, atype: int, value, default, where: str) -> None:
    kind = _KIND[atype]
    if kind in ("str", "var"):
        value = _text(value, where, f"op '{op_type}' attribute '{name}'")
    elif kind in ("strs", "vars"):
        for v in value:
            _text(v, where, f"op '{op_type}' attribute '{name}' item")
    ok = kind in _expected_kinds(default)
    if ok and kind == "scalar":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and \
            (isinstance(value, float) <= isinstance(default, float))
    if not ok and isinstance(value, list) and not value and kind in _LISTS and \
            isinstance(default, (list, tuple)):
        ok = True  # an empty list of any element type
    if not ok:
        want = type(default).__name__ + ("" if not isinstance(default, (list, tuple)) or not default
                                         else f" of {type(default[0]).__name__}")
        raise FormatError(f"{where}: op '{op_type}' attribute '{name}' is {A_NAMES[atype]} "
                          f"{value!r:.60}, but '{op_type}' takes a {want} there (default "
                          f"{default!r:.40})")
    if name == "shape" and kind == "ints":
        check_shape(value, where, f"op '{op_type}' attribute 'shape'")


A_NAMES = {v.number: k for k, v in proto.AttrType.items()}


def _var_from_proto(block: Block, vm, name: str, where: str) -> Variable:
    vtype = VarType(vm.type.type)
    field = _TENSOR_FIELD.get(vtype)
    tdesc = getattr(vm.type, field).tensor if field else (
        vm.type.selected_rows if vtype == VarType.SELECTED_ROWS else None)
    if field and not 0 <= getattr(vm.type, field).lod_level <= 32:
        raise FormatError(f"{where}: var '{name}' has lod_level {getattr(vm.type, field).lod_level}")
    kw = dict(shape=check_shape(tdesc.dims, where, f"var '{name}'")
              if tdesc is not None else [],
              dtype=VarType(tdesc.data_type) if tdesc is not None else VarType.FP32,
              lod_level=getattr(vm.type, field).lod_level if field else 0,
              persistable=vm.persistable, stop_gradient=vm.stop_gradient, type=vtype,
              need_check_feed=vm.need_check_feed, is_data=vm.need_check_feed)
    if vm.is_parameter:
        v = Parameter(block, name, kw.pop("shape"), kw.pop("dtype"),
                      trainable=not vm.stop_gradient, **kw)
    else:
        v = Variable(block, name, **kw)
    v._file_fields = {f.name for f, _ in vm.ListFields()}
    if field and getattr(vm.type, field).HasField("lod_level"):
        v._file_fields.add("lod_level")
    return v


def _op_from_proto(om, where: str) -> OpDesc:
    op_type = _text(om.type, where, "an op type")
    if not has_op_def(op_type):
        raise FormatError(f"{where}: op '{op_type}' is not an op fluidc knows")
    for side in (om.inputs, om.outputs):
        for s in side:
            _text(s.parameter, where, f"op '{op_type}' slot name")
            for arg in s.arguments:
                _text(arg, where, f"op '{op_type}' slot '{s.parameter}' var name")
    ins = {s.parameter: list(s.arguments) for s in om.inputs if s.arguments}
    outs = {s.parameter: list(s.arguments) for s in om.outputs if s.arguments}
    opdef = get_op_def(op_type)
    attrs, types, scalars = {}, {}, {}
    for a in om.attrs:
        name = _text(a.name, where, f"op '{op_type}' attribute name")
        if a.type not in _FIELD and a.type not in (SCALAR, SCALARS):
            raise FormatError(f"{where}: op '{op_type}' attribute '{name}' has unknown type {a.type}")
        value = _attr_value(a)
        if a.type in (VAR, VARS):
            ins[_var_attr_slot(opdef, name, a.type == VARS, where)] = \
                [_text(v, where, f"op '{op_type}' attribute '{name}' var") for v in
                 (value if a.type == VARS else [value])]
            types[name] = a.type
            continue
        default = opdef.attr_default(name)
        if default is not None:
            _check_attr(op_type, name, a.type, value, default, where)
        attrs[name], types[name] = value, a.type
        if a.type in (SCALAR, SCALARS):
            scalars[name] = a
    try:
        opdef.check_slots(ins, outs)
        full = opdef.complete_attrs(attrs)
    except FluidcError as e:
        raise FormatError(f"{where}: {e}") from None
    desc = OpDesc(om.type, ins, outs, full)
    desc._file = {"attr_types": types, "scalars": scalars,
                  # Paddle writes some attributes twice (an extra one it also set at runtime)
                  "attr_order": [a.name for a in om.attrs],
                  "inputs": [s.parameter for s in om.inputs],
                  "outputs": [s.parameter for s in om.outputs],
                  "empty_inputs": [s.parameter for s in om.inputs if not s.arguments],
                  "empty_outputs": [s.parameter for s in om.outputs if not s.arguments]}
    return desc


def _var_attr_slot(opdef, name: str, many: bool, where: str) -> str:
    """The input slot that binds attribute `name` given as var(s); a FormatError if the op
    takes no var there."""
    slot = attr_slot(name, many)
    if not any(s.name == slot for s in opdef.inputs):
        raise FormatError(f"{where}: op '{opdef.type}' attribute '{name}' is a variable "
                          f"attribute ({'VARS' if many else 'VAR'}), which fluidc's "
                          f"'{opdef.type}' does not take there")
    return slot


def parse_program(data: bytes, where: str = "<bytes>") -> Program:
    """A Program from ProgramDesc bytes; a file that is not one raises FormatError naming it."""
    msg = proto.ProgramDesc()
    try:
        msg.ParseFromString(data)
    except DecodeError as e:
        raise FormatError(f"{where}: not a ProgramDesc (truncated or corrupt): {e}") from None
    if not msg.blocks:
        raise FormatError(f"{where}: a ProgramDesc with no blocks (not a Paddle model file?)")
    program = Program()
    program.blocks = []
    for i, bm in enumerate(msg.blocks):
        if bm.idx != i:
            raise FormatError(f"{where}: block #{i} says it is block {bm.idx}")
        if not -1 <= bm.parent_idx < i:
            raise FormatError(f"{where}: block {i} names block {bm.parent_idx} as its parent")
        block = Block(program, bm.idx, bm.parent_idx)
        block._file_forward_block_idx = bm.HasField("forward_block_idx")
        if 0 <= bm.forward_block_idx < i:
            block.forward_block_idx = bm.forward_block_idx
        program.blocks.append(block)
        for vm in bm.vars:
            name = _text(vm.name, where, "a var name")
            try:
                block.vars[name] = _var_from_proto(block, vm, name, where)
            except FormatError:
                raise
            except (ValueError, FluidcError) as e:
                raise FormatError(f"{where}: var '{name}' has an unreadable type: {e}") from None
        for j, om in enumerate(bm.ops):
            op = _op_from_proto(om, f"{where}: block {i} op #{j}")
            # A grad block also reads its forward block's vars (Paddle's forward_block_idx).
            forward = program.blocks[bm.forward_block_idx] \
                if 0 <= bm.forward_block_idx < i else None
            for name in op.input_arg_names + op.output_arg_names:
                if block._find_var_recursive(name) is None and (
                        forward is None or forward._find_var_recursive(name) is None):
                    raise FormatError(f"{where}: block {i} op #{j} ('{op.type}') uses var "
                                      f"'{name}', which the program does not declare")
            block.ops.append(Operator(block, op))
    program._file = {"version": msg.version.version,
                     "op_version_map": msg.op_version_map.SerializeToString()}
    program._bump()
    return program
