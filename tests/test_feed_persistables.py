"""Persistable fed vars stay in the scope as Paddle's feed ops leave them: the fed value (and
LoD) when no op writes the var, the op's result when one does (an optimizer updating a fed
parameter). Both numbers are Paddle 3.3.1's for the same programs."""
import numpy as np

import fluidc as paddle


def test_fed_persistable_kept_with_its_lod():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data('x', [-1, 1], 'int64', lod_level=1)
        x.persistable = True
    t = paddle.LoDTensor()
    t.set(np.arange(5, dtype='int64').reshape(5, 1), paddle.CPUPlace())
    t.set_recursive_sequence_lengths([[2, 3]])
    paddle.static.Executor(paddle.CPUPlace()).run(main, feed={'x': t}, fetch_list=[])
    kept = paddle.static.global_scope().find_var('x').get_tensor()
    np.testing.assert_array_equal(np.array(kept), np.arange(5).reshape(5, 1))
    assert kept.lod() == [[0, 2, 5]]


def test_fed_parameter_updated_by_the_optimizer_keeps_the_update():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data('x', [2, 3], 'float32')
        loss = paddle.mean(paddle.static.nn.fc(x, 1))
        paddle.optimizer.SGD(0.5).minimize(loss)
    w = main.global_block().all_parameters()[0]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    exe.run(main, feed={'x': np.ones((2, 3), 'float32'), w.name: np.ones(w.shape, 'float32')})
    # w's grad of mean(x @ w + b) over 2 rows of ones is 1: 1 - 0.5 * 1 (Paddle: the same)
    got = np.array(paddle.static.global_scope().find_var(w.name).get_tensor())
    np.testing.assert_allclose(got, np.full(w.shape, 0.5, 'float32'))
