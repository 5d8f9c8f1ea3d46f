"""Complex constants in set_value and assign_value (Paddle 3.3.1's `values`: Scalars): a program
Paddle 3.3.1 wrote loads, runs to Paddle's numbers and saves back byte for byte
(tests/fixtures/make_complex_setitem_fixtures.py); the same program built here gives those
numbers and is written as Paddle writes it; random complex writes match numpy on the
reference executor, compiled, and in dygraph."""
import os
import sys

import numpy as np
import pytest

import fluidc as paddle
from fluidc.runtime import proto
from fluidc.runtime.program_desc import parse_program, serialize_program

from test_random_control_flow import assert_reference_and_compiled_give

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
import complex_setitem_case  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "paddle", "complex_setitem.npz")
with np.load(FIXTURE) as _f:
    PADDLE = {k: _f[k] for k in _f.files}
FEED = {k: PADDLE[k] for k in ("x", "z")}
WANT = [PADDLE[f"out/{i}"] for i in range(3)]


def _constant_ops(data: bytes) -> list:
    """The set_value / assign_value ops of ProgramDesc bytes, each as (type, {attr: message})."""
    msg = proto.ProgramDesc()
    msg.ParseFromString(data)
    return [(op.type, {a.name: a for a in op.attrs}) for op in msg.blocks[0].ops
            if op.type in ("set_value", "assign_value")]


def test_paddles_file_loads_runs_and_saves_back_unchanged():
    data = PADDLE["program"].tobytes()
    program = parse_program(data)
    assert serialize_program(program) == data
    assert_reference_and_compiled_give(program, FEED, [str(n) for n in PADDLE["names"]], WANT,
                                       rtol=0, atol=0)


def test_program_built_here_gives_paddles_values_and_is_written_as_paddle_writes_it():
    program, names = complex_setitem_case.build(paddle)
    assert_reference_and_compiled_give(program, FEED, names, WANT, rtol=0, atol=0)
    data = serialize_program(program)
    ours, paddles = _constant_ops(data), _constant_ops(PADDLE["program"].tobytes())
    assert [t for t, _ in ours] == [t for t, _ in paddles]
    for (op_type, mine), (_, theirs) in zip(ours, paddles):
        assert mine["values"] == theirs["values"], op_type  # the same Scalar messages
        assert not {n for n in mine if n.endswith("_values")} - {"values"}
    # Paddle 3.3.1 converts a set_value it takes for an older version (its values lost)
    msg = proto.ProgramDesc()
    msg.ParseFromString(data)
    assert {(p.op_name, p.op_version.version) for p in msg.op_version_map.pair} == \
        {("set_value", 4), ("assign_value", 1)}
    again = parse_program(data)
    assert_reference_and_compiled_give(again, FEED, names, WANT, rtol=0, atol=0)


def _random_case(rng):
    """(shape, index, value): a random basic index and a complex value for its region."""
    shape = tuple(int(d) for d in rng.integers(1, 5, size=rng.integers(1, 4)))
    index = []
    for d in shape[:rng.integers(1, len(shape) + 1)]:
        if rng.random() < 0.3:
            index.append(int(rng.integers(-d, d)))
        else:
            start, stop = sorted(int(v) for v in rng.integers(-d, d + 1, size=2))
            index.append(slice(start, stop if stop != start else None, int(rng.choice([1, 2]))))
    region = np.zeros(shape)[tuple(index)].shape
    if rng.random() < 0.4:
        value = complex(*rng.standard_normal(2))
    else:  # an array of the region's shape or one broadcasting to it
        vshape = tuple(1 if rng.random() < 0.3 else n for n in region)
        value = rng.standard_normal(vshape) + 1j * rng.standard_normal(vshape)
    return shape, tuple(index), value


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_random_complex_writes_match_numpy(dtype):
    rng = np.random.default_rng(7 if dtype == "complex64" else 8)
    for _ in range(12):
        shape, index, value = _random_case(rng)
        x0 = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
        if isinstance(value, np.ndarray):
            value = value.astype(dtype)
        want = x0.copy()
        want[index] = value
        program = paddle.static.Program()
        with paddle.static.program_guard(program, paddle.static.Program()):
            x = paddle.static.data("x", list(shape), dtype)
            y = paddle.static.setitem(x, index, value)
        assert_reference_and_compiled_give(program, {"x": x0}, [y.name], [want], rtol=0, atol=0)
        paddle.disable_static()
        try:
            t = paddle.to_tensor(x0)
            t[index] = value
            np.testing.assert_array_equal(t.numpy(), want, err_msg=f"{index} (dygraph)")
        finally:
            paddle.enable_static()


def test_legacy_value_lists_are_read_and_written_as_values():
    """A set_value holding older Paddle's fp32_values runs, and is written in 3.3.1's form."""
    program = paddle.static.Program()
    with paddle.static.program_guard(program, paddle.static.Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        y = program.current_block().create_var(name="y", dtype=x.dtype)
        program.current_block().append_op(
            "set_value", inputs={"Input": [x]}, outputs={"Out": [y]},
            attrs={"axes": [1], "starts": [0], "ends": [2], "steps": [1], "shape": [2],
                   "fp32_values": [1.5, -2.25], "dtype": 5})
    x0 = np.zeros((2, 3), "float32")
    want = np.array([[1.5, -2.25, 0], [1.5, -2.25, 0]], "float32")
    assert_reference_and_compiled_give(program, {"x": x0}, ["y"], [want], rtol=0, atol=0)
    (_, attrs), = _constant_ops(serialize_program(program))
    assert [s.r for s in attrs["values"].scalars] == [1.5, -2.25]
    assert "fp32_values" not in attrs


def test_complex_values_into_real_tensors_and_unheld_dtypes_are_refused():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        with pytest.raises(TypeError, match="imaginary part would be lost"):
            paddle.static.setitem(x, 0, 1 + 2j)
        with pytest.raises(TypeError, match="imaginary part would be lost"):
            paddle.static.setitem(x, ([0, 1], 0), np.array([1j, 2]))
