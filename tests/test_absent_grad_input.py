"""An op reading a var its program lacks (one made in another Program): refused when appended,
but for a grad op's output gradient the op may go without (rnn_memory_helper_grad's Out@GRAD),
which Paddle takes as zeros at run time."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend.errors import OpError


def _vars(block, names):
    return {n: block.create_var(name=n, shape=[2, 3], dtype="float32") for n in names}


def _memory_helper_grad(out_grad_program):
    prog = fluid.Program()
    block = prog.global_block()
    ins = _vars(block, ["X", "Out"])
    ins["Out@GRAD"] = out_grad_program(prog).global_block().create_var(
        name="Out@GRAD", shape=[2, 3], dtype="float32")
    outs = _vars(block, ["X@GRAD"])
    op = block.append_op(type="rnn_memory_helper_grad", inputs=ins, outputs=outs)
    return prog, op, outs["X@GRAD"]


@pytest.mark.parametrize("tiered", ["0", "1"])
def test_missing_out_grad_gives_zeros(monkeypatch, tiered):
    monkeypatch.setenv("FLUIDC_TIERED", tiered)
    prog, op, x_grad = _memory_helper_grad(lambda own: fluid.Program())
    assert op.input("Out@GRAD") == []
    x = np.random.normal(size=(2, 3)).astype("float32") + 1.0
    got, = fluid.Executor(fluid.CPUPlace()).run(prog, feed={"X": x, "Out": x},
                                                fetch_list=[x_grad])
    np.testing.assert_array_equal(got, np.zeros((2, 3), "float32"))


def test_out_grad_of_the_same_program_is_read():
    prog, op, x_grad = _memory_helper_grad(lambda own: own)
    assert op.input("Out@GRAD") == ["Out@GRAD"]
    x, g = (np.random.normal(size=(2, 3)).astype("float32") for _ in range(2))
    got, = fluid.Executor(fluid.CPUPlace()).run(prog, feed={"X": x, "Out": x, "Out@GRAD": g},
                                                fetch_list=[x_grad])
    np.testing.assert_array_equal(got, g)


def test_other_inputs_of_another_program_are_refused():
    prog, other = fluid.Program(), fluid.Program()
    foreign = other.global_block().create_var(name="foreign", shape=[2, 3], dtype="float32")
    block = prog.global_block()
    out = block.create_var(name="out", shape=[2, 3], dtype="float32")
    with pytest.raises(OpError, match="op 'scale' reads var 'foreign', which block 0 lacks"):
        block.append_op(type="scale", inputs={"X": foreign}, outputs={"Out": out})
    # a grad op whose output gradient is required (relu_grad) refuses it too
    ins = _vars(block, ["Out"])
    ins["Out@GRAD"] = other.global_block().create_var(name="Out@GRAD", shape=[2, 3],
                                                      dtype="float32")
    with pytest.raises(OpError, match="op 'relu_grad' reads var 'Out@GRAD', which block 0 lacks"):
        block.append_op(type="relu_grad", inputs=ins, outputs=_vars(block, ["X@GRAD"]))
    # and so does rnn_memory_helper_grad for its X
    ins = {"X": foreign, "Out": out}
    with pytest.raises(OpError, match="reads var 'foreign', which block 0 lacks"):
        block.append_op(type="rnn_memory_helper_grad", inputs=ins,
                        outputs={"X@GRAD": block.create_var(name="g", shape=[2, 3],
                                                            dtype="float32")})
