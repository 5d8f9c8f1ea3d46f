"""Reading pickled checkpoints (.pdparams, .pdopt, paddle.save files) that may be hostile.

A small pickle machine of our own, not pickle.Unpickler: it knows the opcodes of protocols 2 to 5
that Python writes for dicts, lists, tuples, sets, strings, numbers and numpy arrays, and builds
arrays itself from a dtype name it has checked, a shape it has checked and exactly the bytes the
shape needs; numpy never rebuilds a dtype or an array from the file's state. Nothing is imported
and nothing is called but the few constructors below.

Bounds: tuples (the only containers a dict key or a set member can be) nest at most MAX_DEPTH
deep while they are built, so hashing them cannot run out of C stack; afterwards the whole result
is walked once, shared references counted each time they are reached, and refused if it nests
deeper than MAX_DEPTH, reaches more than MAX_NODES objects, or holds more than
2 * file size + MAX_EXTRA_BYTES bytes of strings and arrays (a few hundred bytes of shared lists
must not turn into gigabytes in whoever reads the result). Every refusal is a FormatError naming
the file.
"""
from __future__ import annotations

import collections
import struct

import numpy as np

from ..frontend.errors import FormatError

MAX_DEPTH = 100
MAX_NODES = 2_000_000
MAX_EXTRA_BYTES = 64 << 20
MAX_RANK = 32
# Zero-size arrays carry no bytes to check their dims against: their non-zero dims may multiply
# to at most this many elements (64 Gi; no Paddle model holds a tensor that size).
MAX_NUMEL = 1 << 36

# The dtypes Paddle writes (bfloat16 reaches numpy as uint16), by the code numpy pickles.
DTYPES = {"b1": "bool", "i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64", "u1": "uint8",
          "u2": "uint16", "f2": "float16", "f4": "float32", "f8": "float64", "c8": "complex64",
          "c16": "complex128"}
for _name in list(DTYPES.values()):
    DTYPES[_name] = _name  # some writers spell them out
for _code in ("?", "bool_"):
    DTYPES[_code] = "bool"


class _Global:
    """A constructor a pickle may name: only these, by module and name."""

    def __init__(self, kind: str) -> None:
        self.kind = kind


_NUMPY_MODULES = ("numpy.core.multiarray", "numpy._core.multiarray")
_GLOBALS = {}
for _m in _NUMPY_MODULES:
    _GLOBALS[(_m, "_reconstruct")] = "reconstruct"
    _GLOBALS[(_m, "scalar")] = "scalar"
for _m in ("numpy.core.numeric", "numpy._core.numeric"):
    _GLOBALS[(_m, "_frombuffer")] = "frombuffer"  # protocol 5's arrays
for _m in ("builtins", "__builtin__"):
    for _n in ("complex", "set", "frozenset", "tuple", "slice", "bytes", "bytearray", "eval"):
        _GLOBALS[(_m, _n)] = _n
_GLOBALS.update({("numpy", "ndarray"): "ndarray", ("numpy", "dtype"): "dtype",
                 ("collections", "OrderedDict"): "OrderedDict", ("_codecs", "encode"): "encode"})


class _DType:
    """numpy.dtype(code, align, copy) from a pickle, then its BUILD state: checked, then kept."""

    def __init__(self, name: str) -> None:
        self.name, self.dtype = name, None


class _Array:
    """numpy's _reconstruct(ndarray, (0,), b'b') placeholder, until its BUILD state arrives."""

    def __init__(self) -> None:
        self.memo_keys: list[int] = []  # memo entries to point at the built array


_HASHABLE = (str, bytes, int, float, complex, type(None), np.generic)


class _Machine:
    def __init__(self, data: bytes, where: str) -> None:
        self.data, self.mv, self.pos, self.where = data, memoryview(data), 0, where
        self.stack: list = []
        self.marks: list[list] = []
        self.memo: dict[int, object] = {}
        self.memo_size: set[int] = set()  # every key PUT (MEMOIZE numbers by their count)
        self.wanted = _memo_reads(data)
        # id -> (tuple or frozenset, nesting, hashable): the containers a key can be
        self.keys: dict[int, tuple[object, int, bool]] = {}

    def fail(self, msg: str):
        raise FormatError(f"{self.where}: unsafe or corrupt pickle: {msg}")

    # -- reading ---------------------------------------------------------------------------------
    def take(self, n: int) -> memoryview:
        if n < 0 or self.pos + n > len(self.mv):
            self.fail(f"truncated (needs {n} bytes at offset {self.pos}, the file has {len(self.mv)})")
        out = self.mv[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def text(self, n: int) -> str:
        raw = self.take(n)
        try:
            return str(raw, "utf-8")
        except UnicodeDecodeError:
            self.fail(f"a string at offset {self.pos - n} is not UTF-8")

    def line(self) -> str:
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            self.fail("truncated (a line without its end)")
        raw = self.take(end - self.pos)
        self.pos += 1
        try:
            return str(raw, "ascii")
        except UnicodeDecodeError:
            self.fail("a module or name that is not ASCII")

    # -- stack -----------------------------------------------------------------------------------
    def pop(self):
        if not self.stack:
            self.fail("stack underflow")
        return self.stack.pop()

    def top(self):
        if not self.stack:
            self.fail("stack underflow")
        return self.stack[-1]

    def pop_mark(self) -> list:
        if not self.marks:
            self.fail("no MARK to pop")
        items, self.stack = self.stack, self.marks.pop()
        return items

    def tuple_of(self, items) -> tuple:
        return self.hashable_container(tuple(items))

    def hashable_container(self, c):
        """Record how deep a tuple or frozenset nests and whether it can be hashed; hashing
        recurses in C, so no key may nest deeper than MAX_DEPTH."""
        deepest, hashable = 0, True
        for item in c:
            entry = self.keys.get(id(item))
            if entry is not None and entry[0] is item:
                deepest = max(deepest, entry[1])
                hashable = hashable and entry[2]
            elif not isinstance(item, _HASHABLE):
                hashable = False
        if deepest + 1 > MAX_DEPTH:
            self.fail(f"tuples or frozensets nest more than {MAX_DEPTH} deep")
        if c:
            self.keys[id(c)] = (c, deepest + 1, hashable)
        return c

    def put(self, key: int) -> None:
        # Only entries a GET reads later are kept: the raw bytes of each array (and its state
        # tuple) are then freed once the array is built, so a load peaks near twice the file.
        self.memo_size.add(key)
        if key not in self.wanted:
            return
        value = self.top()
        self.memo[key] = value
        if isinstance(value, _Array):
            value.memo_keys.append(key)

    def memo_get(self, i: int):
        if i not in self.memo:
            self.fail(f"memo entry {i} is read before it is written")
        return self.memo[i]

    # -- the constructors ------------------------------------------------------------------------
    def find_class(self, module: str, name: str) -> _Global:
        kind = _GLOBALS.get((module, name))
        if kind is None:
            raise FormatError(f"{self.where}: cannot unpickle: global '{module}.{name}' is not "
                              f"allowed (only arrays, containers and scalars are read)")
        return _Global(kind)

    def reduce(self, func, args):
        if not isinstance(func, _Global):
            self.fail(f"calls a {type(func).__name__}")
        if not isinstance(args, tuple):
            self.fail(f"{func.kind} called with a {type(args).__name__}, not an argument tuple")
        kind, n = func.kind, len(args)
        if kind == "reconstruct":
            if n != 3 or not (isinstance(args[0], _Global) and args[0].kind == "ndarray"):
                self.fail("_reconstruct of something other than numpy.ndarray")
            return _Array()
        if kind == "frombuffer":
            if n != 4 or not isinstance(args[2], tuple) or not _text_in(args[3], ("C", "F")):
                self.fail("_frombuffer with arguments other than (buffer, dtype, shape, order)")
            return self.build_array((args[2], args[1], args[3] == "F", args[0]))
        if kind == "dtype":
            if not 1 <= n <= 3 or not isinstance(args[0], str) or \
                    not all(a in (0, 1) and isinstance(a, int) for a in args[1:]):
                self.fail("numpy.dtype with arguments other than (code, align, copy)")
            if args[0] not in DTYPES:
                self.fail(f"dtype {args[0]!r:.40} is not one Paddle writes "
                          f"(allowed: {sorted(set(DTYPES.values()))})")
            return _DType(DTYPES[args[0]])
        if kind == "scalar":
            if n != 2 or not isinstance(args[0], _DType) or args[0].dtype is None:
                self.fail("numpy scalar without a checked dtype")
            raw = self.raw_bytes(args[1], "numpy scalar")
            if len(raw) != args[0].dtype.itemsize:
                self.fail(f"a {args[0].name} scalar of {len(raw)} bytes")
            return np.frombuffer(raw, args[0].dtype)[0]
        if kind == "eval":  # Paddle's form for one tensor: eval('data', {'data': array})
            if n == 2 and _text_in(args[0], ("data",)) and isinstance(args[1], dict) and \
                    isinstance(args[1].get("data"), np.ndarray):
                return args[1]["data"]
            self.fail("eval in a pickle (only Paddle's eval('data', {'data': array}) is read)")
        if kind == "OrderedDict":
            if n:
                self.fail("OrderedDict with arguments")
            return collections.OrderedDict()
        if kind in ("set", "frozenset"):
            if n > 1 or (n and not isinstance(args[0], (list, tuple))):
                self.fail(f"{kind} of something other than a list")
            return self.add_hashable(set if kind == "set" else frozenset, list(args[0]) if n else [])
        if kind == "tuple":  # Paddle's dygraph form for one tensor: tuple((name, array))
            if n > 1 or (n and not isinstance(args[0], (list, tuple))):
                self.fail("tuple of something other than a list or tuple")
            return tuple(args[0]) if n else ()
        if kind == "complex":
            if not 1 <= n <= 2 or not all(isinstance(a, (int, float)) for a in args):
                self.fail("complex of non-numbers")
            return complex(*args)
        if kind == "slice":
            if not 1 <= n <= 3 or not all(a is None or isinstance(a, int) for a in args):
                self.fail("slice of non-integers")
            return slice(*args)
        if kind in ("bytes", "bytearray"):
            if n == 0:
                return b"" if kind == "bytes" else bytearray()
            if kind == "bytearray" and n == 2 and isinstance(args[0], str) and \
                    _text_in(args[1], ("latin1", "latin-1")):
                return bytearray(self.raw_bytes(args[0], "bytearray"))
            if kind == "bytearray" and n == 1 and isinstance(args[0], bytes):
                return bytearray(args[0])
            self.fail(f"{kind} with unexpected arguments")
        if kind == "encode":  # protocol 2's bytes: _codecs.encode(text, 'latin1')
            if n == 2 and isinstance(args[0], str) and _text_in(args[1], ("latin1", "latin-1")):
                return self.raw_bytes(args[0], "bytes")
            self.fail("_codecs.encode other than (text, 'latin1')")
        self.fail(f"{kind} called")

    def raw_bytes(self, value, what: str) -> bytes:
        if isinstance(value, (bytes, bytearray)):
            return bytes(value)
        if isinstance(value, str):  # Python 2 strings, read as latin-1
            try:
                return value.encode("latin1")
            except UnicodeEncodeError:
                self.fail(f"the {what} data is text, not bytes")
        self.fail(f"the {what} data is a {type(value).__name__}, not bytes")

    def build(self, inst, state):
        if isinstance(inst, _DType):
            return self.build_dtype(inst, state)
        if isinstance(inst, _Array):
            return self.build_array(state)
        self.fail(f"BUILD on a {type(inst).__name__} (only numpy dtypes and arrays are built)")

    def build_dtype(self, d: _DType, state) -> _DType:
        if d.dtype is not None:
            self.fail("a dtype built twice")
        # (3, byteorder, subarray, names, fields, elsize, alignment, flags): plain dtypes only.
        if not isinstance(state, tuple) or len(state) != 8 or state[0] != 3 or \
                state[1] not in ("<", ">", "|", "=") or state[2:5] != (None, None, None) or \
                state[5:7] != (-1, -1) or state[7] != 0:
            self.fail(f"dtype {d.name} with a state other than a plain number type's")
        dt = np.dtype(d.name)
        if state[1] == ">" and dt.itemsize > 1:
            dt = dt.newbyteorder(">")
        d.dtype = dt
        return d

    def build_array(self, state) -> np.ndarray:
        if not isinstance(state, tuple) or len(state) not in (4, 5):
            self.fail("an array state that is not (version, shape, dtype, fortran, data)")
        if len(state) == 5:
            if state[0] != 1:
                self.fail(f"array state version {state[0]!r:.20}")
            state = state[1:]
        shape, dtype, fortran, data = state
        if not isinstance(shape, tuple) or not all(isinstance(d, int) and not isinstance(d, bool)
                                                   for d in shape):
            self.fail("an array shape that is not a tuple of ints")
        if not isinstance(dtype, _DType) or dtype.dtype is None:
            self.fail("an array without a checked dtype")
        if not isinstance(fortran, int) or fortran not in (0, 1):
            self.fail("an array order flag that is not a bool")
        raw = self.raw_bytes(data, "array")
        count = checked_numel(shape, dtype.dtype.itemsize, len(raw), self.where, "an array")
        if count * dtype.dtype.itemsize != len(raw):
            self.fail(f"an array of shape {list(shape)} {dtype.name} needs "
                      f"{count * dtype.dtype.itemsize} bytes, the pickle gives {len(raw)}")
        arr = np.frombuffer(raw, dtype.dtype, count).copy()
        if not arr.dtype.isnative:
            arr = arr.astype(arr.dtype.newbyteorder("="))
        return arr.reshape(shape, order="F" if fortran else "C")

    # -- the machine -----------------------------------------------------------------------------
    def run(self):
        data, stack = self.data, None
        while True:
            if self.pos >= len(data):
                self.fail("truncated (no STOP)")
            op = data[self.pos]
            self.pos += 1
            stack = self.stack
            if op == 0x80:  # PROTO
                proto = self.unpack("<B")
                if not 2 <= proto <= 5:
                    self.fail(f"protocol {proto}")
            elif op == 0x95:  # FRAME: a length hint, the opcodes follow as usual
                self.unpack("<Q")
            elif op == 0x2e:  # STOP
                if len(stack) != 1 or self.marks:
                    self.fail("STOP with a stack that does not hold one object")
                return stack[0]
            elif op == 0x28:  # MARK
                self.marks.append(stack)
                self.stack = []
            elif op == 0x30:  # POP
                self.pop()
            elif op == 0x31:  # POP_MARK
                self.pop_mark()
            elif op == 0x4e:  # NONE
                stack.append(None)
            elif op == 0x88:
                stack.append(True)
            elif op == 0x89:
                stack.append(False)
            elif op == 0x4a:  # BININT
                stack.append(self.unpack("<i"))
            elif op == 0x4b:  # BININT1
                stack.append(self.unpack("<B"))
            elif op == 0x4d:  # BININT2
                stack.append(self.unpack("<H"))
            elif op in (0x8a, 0x8b):  # LONG1, LONG4
                n = self.unpack("<B") if op == 0x8a else self.unpack("<i")
                stack.append(int.from_bytes(self.take(n), "little", signed=True))
            elif op == 0x47:  # BINFLOAT
                stack.append(self.unpack(">d"))
            elif op == 0x8c:  # SHORT_BINUNICODE
                stack.append(self.text(self.unpack("<B")))
            elif op == 0x58:  # BINUNICODE
                stack.append(self.text(self.unpack("<I")))
            elif op == 0x8d:  # BINUNICODE8
                stack.append(self.text(self.unpack("<Q")))
            elif op == 0x43:  # SHORT_BINBYTES
                stack.append(bytes(self.take(self.unpack("<B"))))
            elif op == 0x42:  # BINBYTES
                stack.append(bytes(self.take(self.unpack("<I"))))
            elif op == 0x8e:  # BINBYTES8
                stack.append(bytes(self.take(self.unpack("<Q"))))
            elif op == 0x96:  # BYTEARRAY8
                stack.append(bytearray(self.take(self.unpack("<Q"))))
            elif op in (0x55, 0x54):  # SHORT_BINSTRING, BINSTRING (Python 2 str): latin-1
                n = self.unpack("<B") if op == 0x55 else self.unpack("<i")
                stack.append(str(self.take(n), "latin1"))
            elif op == 0x29:  # EMPTY_TUPLE
                stack.append(())
            elif op == 0x74:  # TUPLE
                items = self.pop_mark()
                self.stack.append(self.tuple_of(items))
            elif op in (0x85, 0x86, 0x87):  # TUPLE1..3
                n = op - 0x84
                if len(stack) < n:
                    self.fail("stack underflow")
                items = stack[-n:]
                del stack[-n:]
                stack.append(self.tuple_of(items))
            elif op == 0x5d:  # EMPTY_LIST
                stack.append([])
            elif op == 0x6c:  # LIST
                items = self.pop_mark()
                self.stack.append(items)
            elif op == 0x61:  # APPEND
                value = self.pop()
                self.append(self.top(), [value])
            elif op == 0x65:  # APPENDS
                items = self.pop_mark()
                self.append(self.top(), items)
            elif op == 0x7d:  # EMPTY_DICT
                stack.append({})
            elif op == 0x64:  # DICT
                items = self.pop_mark()
                d = {}
                self.set_items(d, items)
                self.stack.append(d)
            elif op == 0x73:  # SETITEM
                value = self.pop()
                key = self.pop()
                self.set_items(self.top(), [key, value])
            elif op == 0x75:  # SETITEMS
                items = self.pop_mark()
                self.set_items(self.top(), items)
            elif op == 0x8f:  # EMPTY_SET
                stack.append(set())
            elif op == 0x90:  # ADDITEMS
                items = self.pop_mark()
                target = self.top()
                if not isinstance(target, set):
                    self.fail(f"ADDITEMS to a {type(target).__name__}")
                self.add_hashable(target.update, items)
            elif op == 0x91:  # FROZENSET
                items = self.pop_mark()
                self.stack.append(self.add_hashable(frozenset, items))
            elif op == 0x94:  # MEMOIZE
                self.put(len(self.memo_size))
            elif op == 0x71:  # BINPUT
                self.put(self.unpack("<B"))
            elif op == 0x72:  # LONG_BINPUT
                self.put(self.unpack("<I"))
            elif op == 0x68:  # BINGET
                stack.append(self.memo_get(self.unpack("<B")))
            elif op == 0x6a:  # LONG_BINGET
                stack.append(self.memo_get(self.unpack("<I")))
            elif op == 0x63:  # GLOBAL (protocols 2 and 3)
                module = self.line()
                stack.append(self.find_class(module, self.line()))
            elif op == 0x93:  # STACK_GLOBAL
                name = self.pop()
                module = self.pop()
                if not isinstance(module, str) or not isinstance(name, str):
                    self.fail("STACK_GLOBAL of non-strings")
                self.stack.append(self.find_class(module, name))
            elif op == 0x52:  # REDUCE
                args = self.pop()
                func = self.pop()
                self.stack.append(self.reduce(func, args))
            elif op == 0x62:  # BUILD
                state = self.pop()
                inst = self.pop()
                built = self.build(inst, state)
                self.stack.append(built)
                for k in getattr(inst, "memo_keys", ()):  # memoized placeholders: swap them too
                    if self.memo.get(k) is inst:
                        self.memo[k] = built
            else:
                name = _OPCODE_NAMES.get(op, f"0x{op:02x}")
                self.fail(f"opcode {name} at offset {self.pos - 1} is not read (no objects, "
                          f"persistent ids, extensions or out-of-band buffers)")

    def append(self, target, items) -> None:
        if not isinstance(target, list):
            self.fail(f"APPEND to a {type(target).__name__}")
        target.extend(items)

    def set_items(self, target, items) -> None:
        if not isinstance(target, dict):
            self.fail(f"SETITEM on a {type(target).__name__}")
        if len(items) % 2:
            self.fail("SETITEMS with an odd number of items")
        for i in range(0, len(items), 2):
            self.check_hashable(items[i])
            target[items[i]] = items[i + 1]

    def check_hashable(self, key) -> None:
        if isinstance(key, _HASHABLE) or (isinstance(key, tuple) and not key):
            return
        entry = self.keys.get(id(key))
        if entry is not None and entry[0] is key and entry[2]:
            return
        self.fail(f"a dict key or set member of type {type(key).__name__} (not hashable here)")

    def add_hashable(self, add, items):
        for item in items:
            self.check_hashable(item)
        out = add(items)
        return self.hashable_container(out) if isinstance(out, frozenset) else out


# Opcode -> (size of its length field or fixed argument, whether that many bytes follow).
_ARGS = {0x80: (1, False), 0x95: (8, False), 0x4a: (4, False), 0x4b: (1, False),
         0x4d: (2, False), 0x47: (8, False), 0x71: (1, False), 0x72: (4, False),
         0x68: (1, False), 0x6a: (4, False), 0x8a: (1, True), 0x8b: (4, True), 0x8c: (1, True),
         0x58: (4, True), 0x8d: (8, True), 0x43: (1, True), 0x42: (4, True), 0x8e: (8, True),
         0x96: (8, True), 0x55: (1, True), 0x54: (4, True)}
_NO_ARG = set(b"(.01N\x88\x89)t\x85\x86\x87]lae}dsu\x8f\x90\x91\x94\x93Rb")


def _memo_reads(data: bytes) -> set[int]:
    """The memo keys a pickle's BINGET/LONG_BINGET read: one pass over the opcodes, arguments
    skipped. Stops at STOP or at anything the machine refuses anyway."""
    wanted, pos, n = set(), 0, len(data)
    while pos < n:
        op = data[pos]
        pos += 1
        if op == 0x2e:
            break
        if op in _NO_ARG:
            continue
        if op == 0x63:  # GLOBAL: two lines
            for _ in range(2):
                end = data.find(b"\n", pos)
                if end < 0:
                    return wanted
                pos = end + 1
            continue
        spec = _ARGS.get(op)
        if spec is None:
            break
        size, counted = spec
        if pos + size > n:
            break
        arg = int.from_bytes(data[pos:pos + size], "little", signed=op in (0x8b, 0x54, 0x4a))
        if op in (0x68, 0x6a):
            wanted.add(arg)
        pos += size + (max(arg, 0) if counted else 0)
    return wanted


_OPCODE_NAMES = {}
try:
    import pickletools as _pt
    _OPCODE_NAMES = {ord(o.code) if len(o.code) == 1 else o.code: o.name for o in _pt.opcodes}
except Exception:  # pragma: no cover - names are only for messages
    pass


def checked_numel(shape, itemsize: int, available: int | None, where: str, what: str) -> int:
    """The element count of `shape`, refusing negative dims, too many dims, products past int64
    and more data than `available` bytes (None: no data to check against)."""
    if len(shape) > MAX_RANK:
        raise FormatError(f"{where}: {what} has {len(shape)} dims (at most {MAX_RANK})")
    count, nonzero = 1, 1
    for d in shape:
        if d < 0:
            raise FormatError(f"{where}: {what} has a negative dim in {list(shape)}")
        count *= d
        nonzero *= max(d, 1)
        if nonzero * max(itemsize, 1) >= 1 << 63:
            raise FormatError(f"{where}: {what} has dims {list(shape)} whose product "
                              f"overflows int64")
    if available is not None and count * itemsize > available:
        raise FormatError(f"{where}: {what} of shape {list(shape)} needs {count * itemsize} "
                          f"bytes, the file has {available}")
    if count == 0 and nonzero > MAX_NUMEL:
        raise FormatError(f"{where}: {what} has implausible dims {list(shape)} (more than "
                          f"{MAX_NUMEL} elements)")
    return count


def _walk(obj, where: str, size: int):
    """Refuse results that nest too deep, reach too many objects or hold too many bytes."""
    budget = 2 * size + MAX_EXTRA_BYTES
    nodes, nbytes = 0, 0
    stack = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise FormatError(f"{where}: unsafe pickle: reaches more than {MAX_NODES} objects "
                              f"(shared references expand it far beyond the file)")
        if depth > MAX_DEPTH:
            raise FormatError(f"{where}: unsafe pickle: nests more than {MAX_DEPTH} deep")
        if isinstance(item, (str, bytes, bytearray)):
            nbytes += len(item)
        elif isinstance(item, np.ndarray):
            nbytes += item.nbytes
        elif isinstance(item, dict):
            for k, v in item.items():
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend((x, depth + 1) for x in item)
        elif isinstance(item, (_DType, _Array, _Global)):
            kind = {_DType: "numpy dtype", _Array: "unfinished array"}.get(type(item), "bare global")
            raise FormatError(f"{where}: unsafe or corrupt pickle: a {kind} among the values")
        elif not isinstance(item, (bool, int, float, complex, type(None), np.generic, slice)):
            raise FormatError(f"{where}: unsafe or corrupt pickle: a {type(item).__name__}")
        if nbytes > budget:
            raise FormatError(f"{where}: unsafe pickle: its strings and arrays come to more than "
                              f"{budget} bytes (shared references expand it far beyond the file)")


def _text_in(value, options: tuple[str, ...]) -> bool:
    """Whether a pickled argument is one of the strings `options` (never comparing an array,
    whose == is elementwise)."""
    return isinstance(value, str) and value in options


def loads(data: bytes, where: str):
    """The object a pickle holds, built only from the allowed types; FormatError otherwise."""
    return loads_first(data, where)[0]


def loads_first(data: bytes, where: str):
    """(object, end): the first pickle in `data` (bytes may follow it, as in a buffer that
    paddle.save wrote to twice) and the offset just past its STOP."""
    machine = _Machine(bytes(data), where)
    try:
        obj = machine.run()
    except RecursionError:  # not expected: nothing above recurses
        raise FormatError(f"{where}: unsafe pickle: nests too deep") from None
    except MemoryError:
        raise FormatError(f"{where}: unsafe pickle: needs more memory than is free") from None
    finally:
        machine.memo.clear()
        machine.keys.clear()
    _walk(obj, where, len(data))
    return obj, machine.pos
