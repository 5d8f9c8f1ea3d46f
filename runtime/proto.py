"""framework.proto's messages for ProgramDesc, built at import time from a compact table.

The field numbers, names and enum values are PaddlePaddle's (framework.proto, proto2); Paddle 3.x
renamed lod_tensor/lod_level to dense_tensor/legacy_lod_level with the same numbers, so files of
either era read alike. No protoc: the table becomes a FileDescriptorProto and message classes.
"""
from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

PACKAGE = "paddle.framework.proto"

ENUMS = {
    "AttrType": ["INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS", "BOOLEAN", "BOOLEANS",
                 "BLOCK", "LONG", "BLOCKS", "LONGS", "FLOAT64S", "VAR", "VARS", "FLOAT64",
                 "SCALAR", "SCALARS"],
    "VarType.Type": {"BOOL": 0, "INT16": 1, "INT32": 2, "INT64": 3, "FP16": 4, "FP32": 5,
                     "FP64": 6, "LOD_TENSOR": 7, "SELECTED_ROWS": 8, "FEED_MINIBATCH": 9,
                     "FETCH_LIST": 10, "STEP_SCOPES": 11, "LOD_RANK_TABLE": 12,
                     "LOD_TENSOR_ARRAY": 13, "PLACE_LIST": 14, "READER": 15, "RAW": 17,
                     "TUPLE": 18, "SIZE_T": 19, "UINT8": 20, "INT8": 21, "BF16": 22,
                     "COMPLEX64": 23, "COMPLEX128": 24, "STRING": 25, "STRINGS": 26,
                     "VOCAB": 27, "FEED_LIST": 28, "PSTRING": 29, "SPARSE_COO": 30,
                     "SPARSE_CSR": 31, "FP8_E4M3FN": 32, "FP8_E5M2": 33, "UINT16": 36,
                     "UINT32": 37, "UINT64": 38},
    "Scalar.Type": {"BOOLEAN": 1, "LONG": 2, "FLOAT64": 3, "COMPLEX128": 4},
}

# message -> [(number, label, type, name, default)]; label o/r/* = optional/required/repeated;
# a type naming another message or enum of this table refers to it; dots nest messages.
MESSAGES = {
    "Version": [(1, "o", "int64", "version", "0")],
    "Complex": [(1, "r", "double", "r"), (2, "r", "double", "i")],
    "Scalar": [(1, "r", "Scalar.Type", "type"), (2, "o", "bool", "b"), (3, "o", "int64", "i"),
               (4, "o", "double", "r"), (5, "o", "Complex", "c")],
    "OpDesc.Attr": [(1, "r", "string", "name"), (2, "r", "AttrType", "type"),
                    (3, "o", "int32", "i"), (4, "o", "float", "f"), (5, "o", "string", "s"),
                    (6, "*", "int32", "ints"), (7, "*", "float", "floats"),
                    (8, "*", "string", "strings"), (10, "o", "bool", "b"),
                    (11, "*", "bool", "bools"), (12, "o", "int32", "block_idx"),
                    (13, "o", "int64", "l"), (14, "*", "int32", "blocks_idx"),
                    (15, "*", "int64", "longs"), (16, "*", "double", "float64s"),
                    (17, "o", "string", "var_name"), (18, "*", "string", "vars_name"),
                    (19, "o", "double", "float64"), (20, "o", "Scalar", "scalar"),
                    (21, "*", "Scalar", "scalars")],
    "OpDesc.Var": [(1, "r", "string", "parameter"), (2, "*", "string", "arguments")],
    "OpDesc": [(3, "r", "string", "type"), (1, "*", "OpDesc.Var", "inputs"),
               (2, "*", "OpDesc.Var", "outputs"), (4, "*", "OpDesc.Attr", "attrs"),
               (5, "o", "bool", "is_target", "false")],
    "VarType.TensorDesc": [(1, "r", "VarType.Type", "data_type"), (2, "*", "int64", "dims")],
    "VarType.LoDTensorDesc": [(1, "r", "VarType.TensorDesc", "tensor"),
                              (2, "o", "int32", "lod_level", "0")],
    "VarType.LoDTensorArrayDesc": [(1, "r", "VarType.TensorDesc", "tensor"),
                                   (2, "o", "int32", "lod_level", "0")],
    "VarType.ReaderDesc": [(1, "*", "VarType.LoDTensorDesc", "lod_tensor")],
    "VarType.Tuple": [(1, "*", "VarType.Type", "element_type")],
    "VarType": [(1, "r", "VarType.Type", "type"),
                (2, "o", "VarType.TensorDesc", "selected_rows"),
                (3, "o", "VarType.LoDTensorDesc", "lod_tensor"),
                (4, "o", "VarType.LoDTensorArrayDesc", "tensor_array"),
                (5, "o", "VarType.ReaderDesc", "reader"), (7, "o", "VarType.Tuple", "tuple"),
                (8, "o", "VarType.TensorDesc", "string"), (9, "o", "VarType.TensorDesc", "strings"),
                (10, "o", "VarType.TensorDesc", "vocab"),
                (11, "o", "VarType.TensorDesc", "sparse_coo"),
                (12, "o", "VarType.TensorDesc", "sparse_csr")],
    "VarDesc.Attr": [(1, "r", "string", "name"), (2, "r", "AttrType", "type"),
                     (3, "o", "int32", "i"), (4, "o", "string", "s"), (5, "*", "int32", "ints")],
    "VarDesc": [(1, "r", "string", "name"), (2, "r", "VarType", "type"),
                (3, "o", "bool", "persistable", "false"), (4, "o", "bool", "need_check_feed", "false"),
                (5, "o", "bool", "is_parameter", "false"), (6, "o", "bool", "stop_gradient", "false"),
                (7, "*", "VarDesc.Attr", "attrs")],
    "BlockDesc": [(1, "r", "int32", "idx"), (2, "r", "int32", "parent_idx"),
                  (3, "*", "VarDesc", "vars"), (4, "*", "OpDesc", "ops"),
                  (5, "o", "int32", "forward_block_idx", "-1")],
    "OpVersion": [(1, "r", "int32", "version")],
    "OpVersionMap.OpVersionPair": [(1, "r", "string", "op_name"), (2, "r", "OpVersion", "op_version")],
    "OpVersionMap": [(1, "*", "OpVersionMap.OpVersionPair", "pair")],
    "ProgramDesc": [(1, "*", "BlockDesc", "blocks"), (4, "o", "Version", "version"),
                    (5, "o", "OpVersionMap", "op_version_map")],
}

_F = descriptor_pb2.FieldDescriptorProto
_LABELS = {"o": _F.LABEL_OPTIONAL, "r": _F.LABEL_REQUIRED, "*": _F.LABEL_REPEATED}
_SCALARS = {"int32": _F.TYPE_INT32, "int64": _F.TYPE_INT64, "float": _F.TYPE_FLOAT,
            "double": _F.TYPE_DOUBLE, "bool": _F.TYPE_BOOL, "string": _F.TYPE_STRING}


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    fdp = descriptor_pb2.FileDescriptorProto(name="fluidc/framework.proto", package=PACKAGE,
                                             syntax="proto2")
    protos: dict[str, object] = {}

    def container(path: str):  # the message (or the file) a dotted name nests in
        parent = path.rpartition(".")[0]
        return protos[parent].nested_type if parent else fdp.message_type

    for path in sorted(MESSAGES, key=lambda p: p.count(".")):  # parents before children
        protos[path] = container(path).add(name=path.rpartition(".")[2])
    for path, values in ENUMS.items():
        parent = path.rpartition(".")[0]
        enum = (protos[parent].enum_type if parent else fdp.enum_type).add(name=path.rpartition(".")[2])
        items = values.items() if isinstance(values, dict) else ((v, i) for i, v in enumerate(values))
        for name, number in items:
            enum.value.add(name=name, number=number)
    for path, fields in MESSAGES.items():
        for number, label, ftype, name, *default in fields:
            f = protos[path].field.add(name=name, number=number, label=_LABELS[label])
            if ftype in _SCALARS:
                f.type = _SCALARS[ftype]
            else:
                f.type = _F.TYPE_ENUM if ftype in ENUMS else _F.TYPE_MESSAGE
                f.type_name = f".{PACKAGE}.{ftype}"
            if default:
                f.default_value = default[0]
    return fdp


_pool = descriptor_pool.DescriptorPool()
_pool.Add(_file_descriptor())


def message_class(name: str):
    """The generated message class for a message of the table ('ProgramDesc', 'VarType.TensorDesc')."""
    desc = _pool.FindMessageTypeByName(f"{PACKAGE}.{name}")
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(_pool).GetPrototype(desc)  # protobuf < 4.22


ProgramDesc = message_class("ProgramDesc")
BlockDesc = message_class("BlockDesc")
VarDesc = message_class("VarDesc")
OpDescProto = message_class("OpDesc")
TensorDesc = message_class("VarType.TensorDesc")
AttrType = _pool.FindEnumTypeByName(f"{PACKAGE}.AttrType").values_by_name
