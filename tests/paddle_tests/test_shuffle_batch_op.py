"""Port of Paddle test/legacy_test/test_shuffle_batch_op.py: the shuffle_batch op.

Kept: TestShuffleBatchOpBase and TestShuffleBatchOp2 (shapes (10, 10, 5) and (4, 30), a fed
Seed, startup_seed 1): verify_output (Out is X's rows reordered, compared sorted, as Paddle)
and check_grad (X@GRAD through static.gradients of mean(Out * W): W's rows, over W's size, put
back in X's order by ShuffleIdx; exact, so compared with numpy's gather, not a numeric
gradient).
Changed: the op is appended to a Program's block (OpTest's harness otherwise); float64 as in
Paddle.
Added (fluidc): SeedOut, the first draw of std::minstd_rand0 seeded by Seed, and a Seed var
that holds nothing when the op runs (incubate.layers.shuffle_batch binds such a fresh var for
an int seed): the op then seeds from startup_seed, on every run, as Paddle 3.3.1 does.
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()

MINSTD_A, MINSTD_M = 16807, 2147483647


def build_shuffle(x_shape, dtype, seed=None, startup_seed=1):
    """The op with X fed, Seed fed (seed given) or a fresh var holding nothing."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        x = paddle.static.data('x', list(x_shape), dtype)
        x.stop_gradient = False
        if seed is None:
            seed_var = block.create_var(name='shuffle_seed', dtype='int64', persistable=False)
        else:
            seed_var = paddle.static.data('seed', [1], 'int64')
        out = block.create_var(name='out', dtype=dtype, shape=list(x_shape))
        idx = block.create_var(name='idx', dtype='int64')
        seed_out = block.create_var(name='seed_out', dtype='int64')
        block.append_op(type='shuffle_batch', inputs={'X': x, 'Seed': seed_var},
                        outputs={'Out': out, 'ShuffleIdx': idx, 'SeedOut': seed_out},
                        attrs={'startup_seed': startup_seed})
    return main, x, out, idx, seed_out


class TestShuffleBatchOpBase(unittest.TestCase):
    def gen_random_array(self, shape, low=0, high=1):
        rnd = (high - low) * np.random.random(shape) + low
        return rnd.astype(self.dtype)

    def get_shape(self):
        return (10, 10, 5)

    def setUp(self):
        self.dtype = np.float64
        self.shape = self.get_shape()
        x = self.gen_random_array(self.shape)
        seed = np.random.randint(low=10, high=101, size=(1,)).astype('int64')
        self.inputs = {'X': x, 'Seed': seed}
        self.attrs = {'startup_seed': 1}
        self.exe = paddle.static.Executor(paddle.CPUPlace())

    def test_check_output(self):
        main, _, out, idx, seed_out = build_shuffle(self.shape, 'float64', seed=True)
        outs = self.exe.run(main, feed={'x': self.inputs['X'], 'seed': self.inputs['Seed']},
                            fetch_list=[out, idx, seed_out])
        self.verify_output(outs)
        # fluidc addition: Out[i] = X[j] where ShuffleIdx[j] = i; SeedOut is minstd_rand0's
        # first draw from Seed
        rows = self.inputs['X'].reshape(-1, self.shape[-1])
        np.testing.assert_array_equal(outs[0].reshape(rows.shape)[outs[1]], rows)
        self.assertEqual(int(outs[2][0]), int(self.inputs['Seed'][0]) * MINSTD_A % MINSTD_M)

    def verify_output(self, outs):
        x = np.copy(self.inputs['X'])
        y = None
        for out in outs:
            if out.shape == x.shape:
                y = np.copy(out)
                break

        assert y is not None
        sort_x = self.sort_array(x)
        sort_y = self.sort_array(y)
        np.testing.assert_array_equal(sort_x, sort_y)

    def sort_array(self, array):
        shape = array.shape
        new_shape = [-1, shape[-1]]
        arr_list = np.reshape(array, new_shape).tolist()
        arr_list.sort(key=lambda x: x[0])
        return np.reshape(np.array(arr_list), shape)

    def test_check_grad(self):
        main, x, out, idx, _ = build_shuffle(self.shape, 'float64', seed=True)
        w_np = self.gen_random_array(self.shape)
        with paddle.static.program_guard(main):
            w = paddle.static.data('w', list(self.shape), 'float64')
            loss = paddle.mean(out * w)
            (dx,) = paddle.static.gradients([loss], [x])
        got_idx, got_dx = self.exe.run(
            main, feed={'x': self.inputs['X'], 'seed': self.inputs['Seed'], 'w': w_np},
            fetch_list=[idx, dx])
        w_rows = w_np.reshape(-1, self.shape[-1])
        np.testing.assert_allclose(got_dx.reshape(w_rows.shape), w_rows[got_idx] / w_np.size,
                                   rtol=1e-15)


class TestShuffleBatchOp2(TestShuffleBatchOpBase):
    def get_shape(self):
        return (4, 30)


class TestShuffleBatchEmptySeed(unittest.TestCase):
    """fluidc addition: a Seed var holding nothing seeds from startup_seed on every run."""

    def test_empty_seed(self):
        main, _, out, idx, seed_out = build_shuffle((6, 3), 'float32', startup_seed=5)
        exe = paddle.static.Executor(paddle.CPUPlace())
        x = np.arange(18, dtype='float32').reshape(6, 3)
        for _ in range(2):
            got, got_idx, got_seed = exe.run(main, feed={'x': x},
                                             fetch_list=[out, idx, seed_out])
            np.testing.assert_array_equal(got[got_idx], x)
            self.assertEqual(int(got_seed[0]), 5 * MINSTD_A % MINSTD_M)

    def test_layer_int_seed(self):
        x = paddle.static.data('x', [6, 3], 'float32')
        out = paddle.incubate.layers.shuffle_batch(x, seed=7)
        op = paddle.static.default_main_program().global_block().ops[-1]
        self.assertEqual(op.type, 'shuffle_batch')
        self.assertEqual(op.input('Seed'), op.output('SeedOut'))
        exe = paddle.static.Executor(paddle.CPUPlace())
        x_np = np.random.rand(6, 3).astype('float32')
        got, seed_out = exe.run(feed={'x': x_np},
                                fetch_list=[out, op.output('SeedOut')[0]])
        np.testing.assert_array_equal(np.sort(got, axis=0), np.sort(x_np, axis=0))
        self.assertEqual(int(seed_out[0]), 7 * MINSTD_A % MINSTD_M)


if __name__ == '__main__':
    unittest.main()
