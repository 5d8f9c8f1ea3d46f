"""Program <-> ProgramDesc bytes (`__model__`, `.pdmodel`), with framework.proto's numbering.

Ops loaded from a file remember each attribute's AttrType and their empty slots (OpDesc._file),
and programs their version and op-version map (Program._file), so re-saving a Paddle program
writes what Paddle wrote.
"""
from __future__ import annotations

from google.protobuf.message import DecodeError

from ..frontend.dtypes import VarType
from ..frontend.errors import FluidcError, FormatError
from ..frontend.framework import Block, Operator, Parameter, Program, Variable
from ..frontend.ops import OpDesc, get_op_def, has_op_def
from . import proto

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
_KNOWN_TYPES = {"shape": LONGS, "int64_values": LONGS, "fp64_values": FLOAT64S,
                "op_callstack": STRINGS, "op_role_var": STRINGS}
_INT32 = range(-2**31, 2**31)
_TENSOR_FIELD = {VarType.LOD_TENSOR: "lod_tensor", VarType.LOD_TENSOR_ARRAY: "tensor_array"}


def attr_type(name: str, value, known: int | None = None) -> int:
    """The AttrType a Python attribute value is written with."""
    if known is not None:
        return known
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
    if atype in (SCALAR, SCALARS):
        return  # kept as loaded: see _op_to_proto
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
            if slot not in slots and slot not in extra.get("empty_" + side, ()):
                continue
            msg_slot = getattr(msg, side).add(parameter=slot)
            msg_slot.arguments.extend(slots.get(slot, []))
    types = extra.get("attr_types", {})
    defaults = get_op_def(op.type).attrs if has_op_def(op.type) else {}
    scalars = extra.get("scalars", {})
    for name in [n for n in types if n in op.attrs] + sorted(set(op.attrs) - set(types)):
        value = op.attrs[name]
        # A loaded op writes the attrs its file had; defaults fluidc filled in stay out.
        if types and name not in types and name in defaults and value == defaults[name]:
            continue
        if value is None:
            continue
        a = msg.attrs.add()
        if name in scalars:
            a.CopyFrom(scalars[name])
        else:
            _set_attr(a, name, value, attr_type(name, value, types.get(name)))


def program_to_proto(program: Program):
    """The ProgramDesc message of a program."""
    msg = proto.ProgramDesc()
    for b in program.blocks:
        bm = msg.blocks.add(idx=b.idx, parent_idx=b.parent_idx)
        for v in b.vars.values():
            _var_to_proto(v, bm.vars.add())
        for op in b.ops:
            _op_to_proto(op.desc, bm.ops.add())
    extra = getattr(program, "_file", None)
    if extra:
        msg.version.version = extra["version"]
        if extra["op_version_map"]:
            msg.op_version_map.ParseFromString(extra["op_version_map"])
    return msg


def serialize_program(program: Program) -> bytes:
    """ProgramDesc bytes, as Paddle's `program.desc.serialize_to_string()`."""
    return program_to_proto(program).SerializeToString()


# -- bytes -> Program -------------------------------------------------------------------------

def _var_from_proto(block: Block, vm) -> Variable:
    vtype = VarType(vm.type.type)
    field = _TENSOR_FIELD.get(vtype)
    tdesc = getattr(vm.type, field).tensor if field else (
        vm.type.selected_rows if vtype == VarType.SELECTED_ROWS else None)
    kw = dict(shape=list(tdesc.dims) if tdesc is not None else [],
              dtype=VarType(tdesc.data_type) if tdesc is not None else VarType.FP32,
              lod_level=getattr(vm.type, field).lod_level if field else 0,
              persistable=vm.persistable, stop_gradient=vm.stop_gradient, type=vtype,
              need_check_feed=vm.need_check_feed, is_data=vm.need_check_feed)
    if vm.is_parameter:
        v = Parameter(block, vm.name, kw.pop("shape"), kw.pop("dtype"),
                      trainable=not vm.stop_gradient, **kw)
    else:
        v = Variable(block, vm.name, **kw)
    v._file_fields = {f.name for f, _ in vm.ListFields()}
    if field and getattr(vm.type, field).HasField("lod_level"):
        v._file_fields.add("lod_level")
    return v


def _op_from_proto(om, where: str) -> OpDesc:
    if not has_op_def(om.type):
        raise FormatError(f"{where}: op '{om.type}' is not an op fluidc knows")
    ins = {s.parameter: list(s.arguments) for s in om.inputs if s.arguments}
    outs = {s.parameter: list(s.arguments) for s in om.outputs if s.arguments}
    attrs, types, scalars = {}, {}, {}
    for a in om.attrs:
        if a.type not in _FIELD and a.type not in (SCALAR, SCALARS):
            raise FormatError(f"{where}: op '{om.type}' attribute '{a.name}' has unknown type {a.type}")
        attrs[a.name], types[a.name] = _attr_value(a), a.type
        if a.type in (SCALAR, SCALARS):
            scalars[a.name] = a
    opdef = get_op_def(om.type)
    try:
        opdef.check_slots(ins, outs)
        full = opdef.complete_attrs(attrs)
    except FluidcError as e:
        raise FormatError(f"{where}: {e}") from None
    desc = OpDesc(om.type, ins, outs, full)
    desc._file = {"attr_types": types, "scalars": scalars,
                  "inputs": [s.parameter for s in om.inputs],
                  "outputs": [s.parameter for s in om.outputs],
                  "empty_inputs": [s.parameter for s in om.inputs if not s.arguments],
                  "empty_outputs": [s.parameter for s in om.outputs if not s.arguments]}
    return desc


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
        block = Block(program, bm.idx, bm.parent_idx)
        program.blocks.append(block)
        for vm in bm.vars:
            try:
                block.vars[vm.name] = _var_from_proto(block, vm)
            except (ValueError, FluidcError) as e:
                raise FormatError(f"{where}: var '{vm.name}' has an unreadable type: {e}") from None
        for j, om in enumerate(bm.ops):
            block.ops.append(Operator(block, _op_from_proto(om, f"{where}: block {i} op #{j}")))
    program._file = {"version": msg.version.version,
                     "op_version_map": msg.op_version_map.SerializeToString()}
    program._bump()
    return program
