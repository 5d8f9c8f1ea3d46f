"""fluid.layers.ConditionalBlock (Paddle 1.x) over split_lod_tensor parts: each block runs when
its part has rows, merge_lod_tensor puts the rows back; checked against numpy, also with every
row on one side (a part of no rows)."""
import numpy as np
import pytest

import fluidc as fluid

layers = fluid.layers


def _program():
    prog, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(prog, startup):
        x = layers.data(name='x', shape=[3], dtype='float32')
        limit = layers.fill_constant(shape=[1], dtype='float32', value=0.0)
        first = layers.slice(x, axes=[1], starts=[0], ends=[1])
        cond = layers.less_than(x=first, y=limit)
        part_true, part_false = layers.split_lod_tensor(input=x, mask=cond)
        outs = []
        for part, fn in ((part_true, layers.exp), (part_false, layers.tanh)):
            out = layers.create_tensor(dtype='float32')
            with layers.ConditionalBlock([part]).block():
                layers.assign(input=fn(layers.scale(part, scale=2.0)), output=out)
            outs.append(out)
        merged = layers.merge_lod_tensor(in_true=outs[0], in_false=outs[1], mask=cond, x=x)
    return prog, merged


@pytest.mark.parametrize("sign", [None, 1.0, -1.0])  # mixed rows, all false, all true
def test_rows_go_through_the_block_of_their_part(sign):
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (7, 3)).astype('float32')
    if sign is not None:
        x[:, 0] = sign * np.abs(x[:, 0]) + sign * 0.1
    prog, merged = _program()
    got, = fluid.Executor(fluid.CPUPlace()).run(prog, feed={'x': x}, fetch_list=[merged])
    want = np.where(x[:, :1] < 0, np.exp(2 * x), np.tanh(2 * x))
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_inputs_must_be_a_list_of_variables():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = layers.data(name='x', shape=[3], dtype='float32')
        with pytest.raises(TypeError, match="ConditionalBlock"):
            layers.ConditionalBlock(x)
        with pytest.raises(TypeError, match="ConditionalBlock"):
            layers.ConditionalBlock([x, np.ones(3)])
