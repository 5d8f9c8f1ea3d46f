"""Files made to hurt the loader: every one must end in a FormatError naming the file (or the var),
never a crash, a numpy/torch error, a read or write outside the checkpoint directory, or gigabytes.

Whatever could crash the interpreter (a numpy dtype rebuilt from the file, C recursion) or eat the
machine's memory runs in a child process with an address-space limit.
"""
import json
import os
import pickle
import random
import shutil
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import fluidc as fluid
import fluidc.io
from fluidc.cli import main as cli_main
from fluidc.frontend.errors import FluidcError, FormatError
from fluidc.runtime import io as rio
from fluidc.runtime import proto
from fluidc.runtime.inspect_files import describe
from fluidc.runtime.program_desc import parse_program, serialize_program

from test_io_paddle_files import _bytes, _fix, build_mlp

HERE = os.path.dirname(os.path.abspath(__file__))
RECONSTRUCT = np.zeros(0).__reduce__()[0]


# -- helpers ------------------------------------------------------------------------------------

def _checkpoint(tmp_path):
    """A real static.save checkpoint of build_mlp: (prefix, main program)."""
    main, startup, _, _, _ = build_mlp()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    prefix = str(tmp_path / "ckpt" / "model")
    fluid.static.save(main, prefix)
    return prefix, main


class FakeDtype:
    """Pickles as numpy.dtype(code, False, True) with any BUILD state."""

    def __init__(self, code, state=(3, "<", None, None, None, -1, -1, 0)):
        self.code, self.state = code, state

    def __reduce__(self):
        return (np.dtype, (self.code, False, True), self.state)


class FakeArray:
    """Pickles as numpy's _reconstruct(ndarray, (0,), b'b') with any BUILD state."""

    def __init__(self, state):
        self.state = state

    def __reduce__(self):
        return (RECONSTRUCT, (np.ndarray, (0,), b"b"), self.state)


def _array_state(shape, code="f4", data=None, dstate=(3, "<", None, None, None, -1, -1, 0), version=1):
    size = int(np.prod(shape)) * np.dtype("f4").itemsize if data is None else None
    return (version, tuple(shape), FakeDtype(code, dstate), False,
            data if data is not None else b"\0" * size)


M8_STATE = (4, "<", None, None, None, -1, -1, 0, (None, (b"generic", 1, 1, 1)))

# name -> an object whose pickle must be refused; each stands for fc_0.w_0 ([4, 8] float32).
MUTANTS = {
    # 'f4' turned into 'm8' or 'M8' in a real file (float32's dtype state kept): numpy segfaulted
    "m8": FakeArray(_array_state((4, 8), "m8", b"\0" * 256)),
    "M8": FakeArray(_array_state((4, 8), "M8", b"\0" * 256)),
    "m8 with its own state": FakeArray(_array_state((4, 8), "m8", b"\0" * 256, M8_STATE)),
    "M8 with its own state": FakeArray(_array_state((4, 8), "M8", b"\0" * 256,
                                 (4, "<", None, None, None, -1, -1, 0, (None, (b"s", 1, 1, 1))))),
    "object dtype": FakeArray(_array_state((2,), "O", [1, 2], (3, "|", None, None, None, -1, -1, 63))),
    "unicode dtype": FakeArray(_array_state((2,), "U3", b"\0" * 24, (3, "<", None, None, None, 12, 4, 8))),
    "void dtype": FakeArray(_array_state((2,), "V8", b"\0" * 16, (3, "|", None, None, None, 8, 1, 0))),
    "bad elsize": FakeArray(_array_state((4, 8), "f4", None, (3, "<", None, None, None, 4096, -1, 0))),
    "bad byteorder": FakeArray(_array_state((4, 8), "f4", None, (3, "x", None, None, None, -1, -1, 0))),
    "names": FakeArray(_array_state((4, 8), "f4", None, (3, "<", None, ("a",), None, -1, -1, 0))),
    "subarray": FakeArray(_array_state((4, 8), "f4", None, (3, "<", (np.dtype("f4"), (2,)), None,
                                                            None, -1, -1, 0))),
    "flags": FakeArray(_array_state((4, 8), "f4", None, (3, "<", None, None, None, -1, -1, 0x7f))),
    "short data": FakeArray(_array_state((4, 8), "f4", b"\0" * 12)),
    "long data": FakeArray(_array_state((4, 8), "f4", b"\0" * 1000)),
    "negative dim": FakeArray(_array_state((-4, 8), "f4", b"\0" * 128)),
    "overflowing dims": FakeArray(_array_state((2**40, 2**40, 2**40), "f4", b"")),
    "huge zero-size": FakeArray(_array_state((0, 10**12, 10**12), "f4", b"")),
    "10^12 elements": FakeArray(_array_state((10**12,), "f4", b"\0" * 64)),
    "list data": FakeArray(_array_state((4, 8), "f4", [0.0] * 32)),
    "state version 2": FakeArray(_array_state((4, 8), version=2)),
    "state not a tuple": FakeArray([1, (4, 8), FakeDtype("f4"), False, b"\0" * 128]),
    "dtype of ints": FakeArray(_array_state((4, 8), 5, b"\0" * 128)),
}


def _shared_lists_bomb(levels=10, fan=10):
    """A few hundred bytes of lists that share their children: fan**levels leaves."""
    leaf = [0.0]
    for _ in range(levels):
        leaf = [leaf] * fan
    return leaf


def _deep_dicts(n: int) -> bytes:
    # d0 = {'k': d1}, d1 = {'k': d2}, ...: push d0, then for each level the key and a new dict,
    # then SETITEM all the way back.
    return b"\x80\x04}\x8c\x08fc_0.w_0" + b"}" + b"\x8c\x01k}" * n + b"s" * n + b"s."


def _deep_tuple_key(n: int) -> bytes:
    # {<tuple nested n deep>: 1}: hashing it recurses in C.
    return b"\x80\x04}" + b")" + b"\x85" * n + b"K\x01s."


def _isolated(code: str, *args, mem_gb: float = 3.0, timeout: int = 240):
    """Run `code` in a fresh interpreter under an address-space limit (current + mem_gb);
    its last stdout line is JSON. Returns (returncode, parsed or None, output)."""
    prelude = textwrap.dedent(f"""
        import json, os, resource, sys, time
        sys.path.insert(0, {HERE!r})
        import fluidc as fluid, fluidc.io
        from fluidc.runtime import io as rio
        from fluidc.frontend.errors import FormatError
        def _limit():
            try:
                with open("/proc/self/status") as f:
                    vm = [int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize")][0]
                lim = vm + int({mem_gb} * 2**30)
                resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
            except Exception:
                pass
        def outcome(fn):
            t = time.perf_counter()
            try:
                fn()
                r = "ok"
            except FormatError as e:
                r = "FormatError: " + str(e)
            except BaseException as e:
                r = "OTHER " + type(e).__name__ + ": " + str(e)[:200]
            return r, time.perf_counter() - t
    """)
    proc = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)
    out = proc.stdout.strip().splitlines()
    try:
        parsed = json.loads(out[-1]) if out else None
    except ValueError:
        parsed = None
    return proc.returncode, parsed, proc.stdout[-3000:] + proc.stderr[-3000:]


# Every reader of pickles, on one path: paddle.load, static.load, load_program_state, inspect.
READERS = """
    def readers(prefix):
        from fluidc.runtime.inspect_files import describe
        from test_io_paddle_files import build_mlp
        def static_load():
            with fluid.scope_guard(fluid.Scope()), fluid.unique_name.guard():
                main, startup, _, _, _ = build_mlp()
                exe = fluid.Executor(fluid.CPUPlace())
                fluid.static.load(main, prefix, exe)
        return {"paddle.load": lambda: fluid.load(prefix + ".pdparams"),
                "static.load": static_load,
                "load_program_state": lambda: fluid.static.load_program_state(prefix),
                "inspect": lambda: describe(prefix + ".pdparams")}
"""


def _assert_all_format_errors(rc, results, out, name_in_message):
    assert rc == 0 and results is not None, f"the child crashed (rc {rc}):\n{out}"
    bad = {k: v for k, v in results.items() if not v[0].startswith("FormatError")
           or name_in_message not in v[0]}
    assert not bad, bad


# -- 1. pickles -----------------------------------------------------------------------------------

def test_mutated_pickles_are_format_errors_in_every_reader(tmp_path):
    """numpy dtypes (m8, M8, object, ...) and array states the file makes up: no segfault, no
    SystemError, a FormatError naming the file from paddle.load, static.load,
    load_program_state and inspect alike."""
    prefix, _ = _checkpoint(tmp_path)
    good = pickle.loads(_read(prefix + ".pdparams"))
    cases = {}
    for i, (name, obj) in enumerate(MUTANTS.items()):
        p = tmp_path / f"m{i}"
        shutil.copytree(tmp_path / "ckpt", p)
        state = dict(good, **{"fc_0.w_0": obj})
        (p / "model.pdparams").write_bytes(pickle.dumps(state, protocol=4))
        cases[name] = str(p / "model")
    code = READERS + """
    cases = json.loads(sys.argv[1])
    _limit()
    out = {}
    for name, prefix in cases.items():
        for api, fn in readers(prefix).items():
            out[name + " / " + api] = outcome(fn)
    print(json.dumps(out))
    """
    rc, results, out = _isolated(code, json.dumps(cases))
    _assert_all_format_errors(rc, results, out, "model.pdparams")


def test_random_pickle_mutants_never_escape_format_error(tmp_path):
    """Bytes flipped, dropped, repeated or cut anywhere in real checkpoints: a value or a
    FormatError, nothing else, and no crash."""
    prefix, _ = _checkpoint(tmp_path)
    seeds = [_read(prefix + ".pdparams"), _read(prefix + ".pdopt"),
             _bytes("pickles", "tensor.pdtensor"), _bytes("pickles", "nested.pkl")]
    rng = random.Random(7)
    paths = []
    for i in range(400):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(2, len(data))
            how = rng.random()
            if how < 0.5:
                data[pos] = rng.randrange(256)
            elif how < 0.7:
                del data[pos:pos + rng.randint(1, 8)]
            elif how < 0.85:
                data[pos:pos] = data[pos:pos + rng.randint(1, 16)]
            else:
                del data[pos:]
                break
        p = tmp_path / f"fuzz{i}.pdparams"
        p.write_bytes(bytes(data))
        paths.append(str(p))
    code = """
    from fluidc.runtime.inspect_files import describe
    _limit()
    counts, other = {"ok": 0, "FormatError": 0}, []
    for path in json.loads(sys.argv[1]):
        for fn in (lambda: fluid.load(path), lambda: describe(path)):
            r, _ = outcome(fn)
            if r == "ok":
                counts["ok"] += 1
            elif r.startswith("FormatError") and os.path.basename(path) in r:
                counts["FormatError"] += 1
            else:
                other.append((path, r))
    print(json.dumps({"counts": counts, "other": other[:10]}))
    """
    rc, results, out = _isolated(code, json.dumps(paths))
    assert rc == 0 and results is not None, f"the child crashed (rc {rc}):\n{out}"
    assert results["other"] == [], results
    assert results["counts"]["FormatError"] > 100


def test_shared_list_bomb_is_refused_fast_and_small(tmp_path):
    """A few hundred bytes of shared nested lists (10**10 leaves) as a var's value: refused in
    well under a second without growing the process, by every reader."""
    prefix, _ = _checkpoint(tmp_path)
    good = pickle.loads(_read(prefix + ".pdparams"))
    bomb = pickle.dumps(dict(good, **{"fc_0.w_0": _shared_lists_bomb()}), protocol=4)
    assert len(bomb) < 1500
    (tmp_path / "ckpt" / "model.pdparams").write_bytes(bomb)
    lone = tmp_path / "bomb.pkl"
    lone.write_bytes(pickle.dumps(_shared_lists_bomb(), protocol=4))
    assert len(lone.read_bytes()) < 400
    code = READERS + """
    import resource
    _limit()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = {api: outcome(fn) for api, fn in readers(sys.argv[1]).items()}
    out["paddle.load(lone)"] = outcome(lambda: fluid.load(sys.argv[2]))
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(json.dumps({"out": out, "grown_kb": grown}))
    """
    rc, results, out = _isolated(code, prefix, lone, mem_gb=2.0)
    assert rc == 0 and results is not None, f"the child crashed (rc {rc}):\n{out}"
    for api, (r, seconds) in results["out"].items():
        assert r.startswith("FormatError") and ("model.pdparams" in r or "bomb.pkl" in r), (api, r)
        assert seconds < 5, (api, seconds)
    assert results["grown_kb"] < 300 * 1024, results["grown_kb"]


@pytest.mark.parametrize("kind", ["lists", "dicts", "tuple key"])
def test_deep_nesting_is_refused(tmp_path, kind):
    """100 000 levels of lists, dicts or a tuple used as a key: a FormatError, no RecursionError,
    no C stack overflow, from every reader."""
    prefix, _ = _checkpoint(tmp_path)
    n = 100_000
    data = {"lists": b"\x80\x04}\x8c\x08fc_0.w_0" + b"]" * n + b"a" * (n - 1) + b"s.",
            "dicts": _deep_dicts(n), "tuple key": _deep_tuple_key(n)}[kind]
    (tmp_path / "ckpt" / "model.pdparams").write_bytes(data)
    code = READERS + """
    _limit()
    print(json.dumps({api: outcome(fn) for api, fn in readers(sys.argv[1]).items()}))
    """
    rc, results, out = _isolated(code, prefix)
    _assert_all_format_errors(rc, results, out, "model.pdparams")


def test_safe_pickles_still_load_everything_paddle_writes(tmp_path):
    """Arrays of every dtype Paddle writes, scalars, nests, OrderedDicts, protocols 2 to 4."""
    import collections
    dtypes = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "float16", "float32",
              "float64", "complex64", "complex128"]
    obj = collections.OrderedDict(
        (d, np.arange(6).astype(d).reshape(2, 3)) for d in dtypes)
    obj["nest"] = {"a": [np.float32(1.5), (1, "s"), None, True, b"raw"], "empty": np.zeros((0, 3))}
    obj["fortran"] = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    obj["big_endian"] = np.arange(4, dtype=">i4")
    for protocol in (2, 3, 4):
        p = tmp_path / f"p{protocol}.pkl"
        p.write_bytes(pickle.dumps(obj, protocol=protocol))
        got = fluid.load(str(p), return_numpy=True)
        assert list(got) == list(obj)
        for d in dtypes:
            assert got[d].dtype == np.dtype(d) and np.array_equal(got[d], obj[d])
            got[d][0, 0] = 1  # writable, as numpy's own unpickling gives
        assert got["nest"]["a"] == [1.5, (1, "s"), None, True, b"raw"]
        assert np.array_equal(got["fortran"], obj["fortran"])
        assert got["big_endian"].dtype == np.dtype("int32") and list(got["big_endian"]) == [0, 1, 2, 3]


def test_bfloat16_goes_through_pickles_as_uint16_like_paddle(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fluid.layers.create_parameter([2, 3], "bfloat16", name="w")
    want = np.arange(16256, 16262, dtype=np.uint16).reshape(2, 3)  # bfloat16 bits: 1.0, ...
    fluid.global_scope().var("w").get_tensor().set(want, fluid.CPUPlace())
    prefix = str(tmp_path / "m")
    fluid.static.save(main, prefix)
    assert fluid.load(prefix + ".pdparams", return_numpy=True)["w"].dtype == np.uint16
    with fluid.scope_guard(fluid.Scope()):
        fluid.static.load(main, prefix, fluid.Executor(fluid.CPUPlace()))
        np.testing.assert_array_equal(fluid.global_scope().find_var("w").get_tensor(), want)


def test_non_utf8_pickle_keys_are_refused(tmp_path):
    # pickle writes lone surrogates with 'surrogatepass': such a key loads in pickle but no
    # ProgramDesc, file name or terminal can hold it.
    p = tmp_path / "keys.pdparams"
    p.write_bytes(b"\x80\x04}X\x03\x00\x00\x00\xed\xa0\x80K\x01s.")
    with pytest.raises(FormatError, match="keys.pdparams"):
        fluid.load(str(p))
    with pytest.raises(SystemExit, match="keys.pdparams"):
        cli_main(["inspect", str(p)])


def test_allow_pickle_still_reads_trusted_objects(tmp_path):
    p = tmp_path / "t.pkl"
    p.write_bytes(pickle.dumps({"when": __import__("datetime").date(2020, 1, 2)}, protocol=4))
    with pytest.raises(FormatError, match="allow_pickle"):
        fluid.load(str(p))
    assert fluid.load(str(p), allow_pickle=True)["when"].year == 2020


# -- 2. shapes and attributes ---------------------------------------------------------------------

def _stream(dims, dtype=5, data=b""):
    desc = proto.TensorDesc(data_type=dtype, dims=list(dims)).SerializeToString()
    return struct.pack("<IQ", 0, 0) + struct.pack("<Ii", 0, len(desc)) + desc + data


@pytest.mark.parametrize("dims", [[2**31, 2**33], [2**62, 4], [3, 2**62], [2**40] * 3,
                                  [0, 10**12, 10**12], [10**12], [1] * 40])
def test_overflowing_or_implausible_tensor_dims_are_format_errors(tmp_path, dims):
    p = tmp_path / "fc_0.w_0"
    p.write_bytes(_stream(dims, data=b"\0" * 64))
    with pytest.raises(FormatError, match="fc_0.w_0"):
        fluid.load(str(p))
    with pytest.raises(FormatError, match="fc_0.w_0"):
        describe(str(p))


def _model_with(mutate) -> bytes:
    msg = proto.ProgramDesc()
    msg.ParseFromString(_bytes("infer_dir", "__model__"))
    mutate(msg)
    return msg.SerializeToString()


def _var(msg, name):
    return next(v for v in msg.blocks[0].vars if v.name == name)


def _set_dims(name, dims):
    def mutate(msg):
        tensor = _var(msg, name).type.lod_tensor.tensor
        del tensor.dims[:]
        tensor.dims.extend(dims)
    return mutate


@pytest.mark.parametrize("dims", [[10**12], [2**40, 2**40], [2**62, 2**62], [-1, 10**12],
                                  [-5, 8], [1] * 40])
def test_overflowing_var_shapes_in_a_model_are_format_errors(tmp_path, dims):
    data = _model_with(_set_dims("fc_0.w_0", dims))
    with pytest.raises(FormatError, match=r"where.pdmodel.*fc_0\.w_0"):
        parse_program(data, "where.pdmodel")
    d = tmp_path / "m"
    shutil.copytree(_fix("infer_dir"), d)
    (d / "__model__").write_bytes(data)
    with pytest.raises(FormatError, match="fc_0.w_0"):
        fluidc.io.load_inference_model(str(d), fluid.Executor(fluid.CPUPlace()))
    with pytest.raises(SystemExit, match="fc_0.w_0"):
        cli_main(["inspect", str(d)])


def _set_attr(op_type, name, atype, field, value):
    def mutate(msg):
        op = next(o for o in msg.blocks[0].ops if o.type == op_type)
        attr = next((a for a in op.attrs if a.name == name), None) or op.attrs.add(name=name)
        for f in ("i", "f", "s", "b", "l", "float64"):
            attr.ClearField(f)
        for f in ("ints", "floats", "strings", "longs", "bools"):
            attr.ClearField(f)
        attr.type = proto.AttrType[atype].number
        if isinstance(value, list):
            getattr(attr, field).extend(value)
        else:
            setattr(attr, field, value)
    return mutate


@pytest.mark.parametrize("op_type,name,atype,field,value", [
    ("scale", "scale", "STRING", "s", "2.0"),
    ("scale", "bias_after_scale", "STRING", "s", "yes"),
    ("scale", "scale", "BOOLEAN", "b", True),
    ("softmax", "axis", "FLOAT", "f", 1.5),
    ("softmax", "axis", "INTS", "ints", [1]),
    ("mul", "x_num_col_dims", "STRINGS", "strings", ["1"]),
    ("scale", "op_role", "STRING", "s", "forward"),
])
def test_wrong_typed_attributes_are_refused_at_load(op_type, name, atype, field, value):
    data = _model_with(_set_attr(op_type, name, atype, field, value))
    with pytest.raises(FormatError, match=rf"where.pdmodel.*op '{op_type}' attribute '{name}'"):
        parse_program(data, "where.pdmodel")


def test_string_or_huge_shape_attribute_is_refused_at_load():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.fill_constant([2, 3], "float32", 1.0)
        fluid.layers.reshape(x, [3, 2])
    data = serialize_program(main)
    parse_program(data, "ok")  # the program as written loads

    def mutated(value_type, field, value):
        msg = proto.ProgramDesc()
        msg.ParseFromString(data)
        op = next(o for o in msg.blocks[0].ops if o.type == "fill_constant")
        attr = next(a for a in op.attrs if a.name == "shape")
        attr.ClearField("longs")
        attr.ClearField("ints")
        attr.type = proto.AttrType[value_type].number
        if isinstance(value, list):
            getattr(attr, field).extend(value)
        else:
            setattr(attr, field, value)
        return msg.SerializeToString()
    with pytest.raises(FormatError, match="op 'fill_constant' attribute 'shape'"):
        parse_program(mutated("STRING", "s", "[2, 3]"), "m")
    with pytest.raises(FormatError, match="op 'fill_constant' attribute 'shape'"):
        parse_program(mutated("LONGS", "longs", [10**6, 10**6, 10**6]), "m")


def test_paddle_and_fluidc_models_still_load():
    for name in ("infer/mlp.pdmodel", "ckpt/train.pdmodel", "pickles/program.pdmodel",
                 "infer_dir/__model__"):
        data = _bytes(*name.split("/"))
        assert serialize_program(parse_program(data, name)) == data
    models = os.path.join(HERE, "fixtures", "models")
    for f in sorted(os.listdir(models)):
        if f.endswith(".pdmodel"):
            parse_program(open(os.path.join(models, f), "rb").read(), f)


# -- 3. non-UTF-8 names ---------------------------------------------------------------------------

def test_non_utf8_names_in_a_model_are_refused_at_load(tmp_path):
    bad = _bytes("infer_dir", "__model__").replace(b"\x08fc_0.b_0", b"\x08fc_0.b_\xff")
    assert bad != _bytes("infer_dir", "__model__")
    with pytest.raises(FormatError, match="where.pdmodel"):
        parse_program(bad, "where.pdmodel")
    d = tmp_path / "m"
    shutil.copytree(_fix("infer_dir"), d)
    (d / "__model__").write_bytes(bad)
    with pytest.raises(FormatError, match="__model__"):
        fluidc.io.load_inference_model(str(d), fluid.Executor(fluid.CPUPlace()))
    with pytest.raises(SystemExit, match="__model__"):
        cli_main(["inspect", str(d)])


def test_non_utf8_file_names_in_a_dir_are_refused(tmp_path):
    d = tmp_path / "params"
    shutil.copytree(_fix("infer_dir"), d)
    os.remove(d / "__model__")
    bad = os.path.join(os.fsencode(str(d)), b"fc_\xff")
    shutil.copy(os.path.join(str(d), "fc_0.w_0"), bad)
    with pytest.raises(FormatError, match="not valid UTF-8"):
        fluid.load(str(d))
    with pytest.raises(SystemExit, match="not valid UTF-8"):
        cli_main(["inspect", str(d)])


def test_saving_a_var_whose_name_is_not_utf8_fails_before_writing(tmp_path):
    main, startup, _, _, _ = build_mlp()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    block = main.global_block()
    var = block.vars.pop("fc_0.b_0")
    var.name = "fc_0.b_\udcff"
    block.vars[var.name] = var
    fluid.global_scope().var(var.name).get_tensor().set(np.zeros(8, "float32"))
    for save in (lambda: fluidc.io.save_persistables(exe, str(tmp_path / "d"), main),
                 lambda: fluidc.io.save_persistables(exe, str(tmp_path / "c"), main, "all"),
                 lambda: fluid.static.save(main, str(tmp_path / "s" / "model"))):
        with pytest.raises(FluidcError, match="fc_0.b_"):
            save()
    assert sorted(os.listdir(tmp_path)) in ([], ["s"])
    assert not os.path.exists(tmp_path / "s") or os.listdir(tmp_path / "s") == []


# -- 4. names that leave the directory ------------------------------------------------------------

TRAVERSALS = ["../outside", "../../outside", "sub/../../outside", "/ABS/outside", ""]


def _escaping_model(tmp_path, name):
    """infer_dir with fc_0.b_0 renamed to `name` (ABS -> an absolute path under tmp_path), and
    a good tensor file where the name points outside the model directory."""
    d = tmp_path / "model" / "dir"
    shutil.copytree(_fix("infer_dir"), d)
    name = name.replace("/ABS", str(tmp_path))

    def rename(msg):
        _var(msg, "fc_0.b_0").name = name
        for op in msg.blocks[0].ops:
            for slot in op.inputs:
                for i, arg in enumerate(slot.arguments):
                    if arg == "fc_0.b_0":
                        slot.arguments[i] = name
    (d / "__model__").write_bytes(_model_with(rename))
    outside = os.path.normpath(os.path.join(str(d), name)) if name else None
    if outside and not outside.startswith(str(d)):
        os.makedirs(os.path.dirname(outside), exist_ok=True)
        shutil.copy(d / "fc_0.b_0", outside)  # old fluidc read this
    return d, name


@pytest.mark.parametrize("name", TRAVERSALS)
def test_var_names_leaving_the_model_dir_are_refused_on_load(tmp_path, name):
    d, name = _escaping_model(tmp_path, name)
    with pytest.raises(FormatError, match="resolve outside"):
        fluidc.io.load_inference_model(str(d), fluid.Executor(fluid.CPUPlace()))
    with pytest.raises(FormatError, match="resolve outside"):
        fluid.load(str(d))


@pytest.mark.parametrize("name", TRAVERSALS)
def test_var_names_leaving_the_target_dir_are_refused_on_save(tmp_path, name):
    d, name = _escaping_model(tmp_path, name)
    program = parse_program((d / "__model__").read_bytes(), "m")
    scope = fluid.global_scope()
    for v in program.list_vars():
        if rio.is_persistable(v):
            scope.var(v.name).get_tensor().set(np.zeros(v.shape, "float32"))
    exe = fluid.Executor(fluid.CPUPlace())
    out = tmp_path / "save" / "here"
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    feeds = [op.output("Out")[0] for op in program.global_block().ops if op.type == "feed"]
    fetches = [op.input("X")[0] for op in program.global_block().ops if op.type == "fetch"]
    for save in (lambda: fluidc.io.save_persistables(exe, str(out), program),
                 lambda: fluidc.io.save_vars(exe, str(out), program, vars=[name]),
                 lambda: fluidc.io.save_inference_model(str(out), feeds, fetches, exe, program)):
        with pytest.raises(FluidcError, match="resolve outside"):
            save()
    after = sorted(str(p) for p in tmp_path.rglob("*"))
    assert after == before  # nothing written anywhere: no target dir, no temp dir, no escapee


def test_names_with_subdirectories_inside_still_work(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fluid.layers.create_parameter([2, 2], "float32", name="block1/conv.w")
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    want = np.array(fluid.global_scope().find_var("block1/conv.w").get_tensor())
    fluidc.io.save_persistables(exe, str(tmp_path / "d"), main)
    assert os.path.isfile(tmp_path / "d" / "block1" / "conv.w")
    with fluid.scope_guard(fluid.Scope()):
        fluidc.io.load_persistables(exe, str(tmp_path / "d"), main)
        got = np.array(fluid.global_scope().find_var("block1/conv.w").get_tensor())
    assert np.array_equal(got, want)
    assert list(fluid.load(str(tmp_path / "d"))) == ["block1/conv.w"]


# -- 6. temp files of killed saves ---------------------------------------------------------------

def _dead_pid():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_temp_files_are_never_read_and_are_cleaned_by_the_next_save(tmp_path):
    main, startup, _, _, _ = build_mlp()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    d = tmp_path / "ckpt"
    fluidc.io.save_persistables(exe, str(d), main)
    pid = _dead_pid()
    junk = [d / ".fc_0.w_0.k3j_9x2a.tmp",  # fluidc's old mkstemp names
            d / f".fc_0.w_0.fluidc-tmp.{pid}.0123abcd",
            tmp_path / f".ckpt.fluidc-tmp.{pid}.89abcdef",  # a half-written directory
            tmp_path / f".ckpt.fluidc-old.{pid}.00ff00ff"]
    for j in junk[:2]:
        j.write_bytes(b"\0\0\0\0 half a tensor")
    for j in junk[2:]:
        j.mkdir()
        (j / "fc_0.w_0").write_bytes(b"garbage")
    live = tmp_path / f".ckpt.fluidc-tmp.{os.getpid()}.aaaaaaaa"  # a save in progress
    live.mkdir()

    assert sorted(fluid.load(str(d))) == sorted(v.name for v in main.list_vars()
                                                  if rio.is_persistable(v))
    assert "fluidc-tmp" not in describe(str(d)) and ".tmp" not in describe(str(d))
    fluidc.io.load_persistables(exe, str(d), main)
    fluid.static.load(main, str(d), exe)

    fluidc.io.save_persistables(exe, str(d), main)
    assert not any(j.exists() for j in junk)
    assert live.exists()
    assert not [n for n in os.listdir(d) if n.startswith(".")]


def test_stale_prefix_temp_files_are_ignored_and_cleaned(tmp_path):
    prefix, main = _checkpoint(tmp_path)
    folder = tmp_path / "ckpt"
    pid = _dead_pid()
    junk = [folder / f".model.pdparams.fluidc-tmp.{pid}.0123abcd", folder / ".model.pdopt.a1b2c3d4.tmp"]
    for j in junk:
        j.write_bytes(b"\x80\x04 half a pickle")
    exe = fluid.Executor(fluid.CPUPlace())
    fluid.static.load(main, prefix, exe)
    fluid.static.load_program_state(prefix)
    describe(prefix)
    fluid.static.save(main, prefix)
    assert sorted(os.listdir(folder)) == ["model.pdmodel", "model.pdopt", "model.pdparams"]


def _read(path):
    with open(path, "rb") as f:
        return f.read()


@pytest.mark.parametrize("mutants,seed", [(60, 5), pytest.param(2000, 7, marks=pytest.mark.slow)])
def test_mutated_files_never_crash_hang_or_fail_unclearly(tmp_path, mutants, seed):
    """Every reader, in a worker process, over mutants of every saved form (tests/file_campaign.py):
    each read loads (with the declared shapes) or is a FormatError naming the file."""
    from file_campaign import campaign
    report = campaign(mutants, seed=seed, root=str(tmp_path))
    assert report["bug_count"] == 0, report["bugs"]
    assert sum(sum(c.values()) for c in report["counts"].values()) > mutants


class _EvalOfArray:
    """Pickles as eval(array, {'data': array}): an argument whose == is elementwise."""

    def __reduce__(self):
        return eval, (np.arange(3), {"data": np.arange(3)})


class _FrombufferWithArrayOrder:
    """Pickles as numpy's _frombuffer(buffer, dtype, shape, order) with an array as the order."""

    def __reduce__(self):
        numeric = getattr(np, "_core", None) or np.core
        return numeric.numeric._frombuffer, (b"\0" * 8, np.dtype("float32"), (2,), np.arange(2))


@pytest.mark.parametrize("obj", [_EvalOfArray(), _FrombufferWithArrayOrder()])
def test_arrays_where_the_pickle_wants_text_are_format_errors(tmp_path, obj):
    path = tmp_path / "x.pdparams"
    path.write_bytes(pickle.dumps({"w": obj}, protocol=2))
    with pytest.raises(FormatError, match="x.pdparams"):
        fluid.load(str(path))
