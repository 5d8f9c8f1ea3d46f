"""Port of Paddle test/legacy_test/test_shard_index_op.py: the shard_index op's forward.

Kept: TestShardIndexShardId0Op / ShardId1Op / IgnoreValueOp / NotEvenlyDividedOp (the file's
common_setup data: 45 int32 ids over the LoD [0, 1, ..., 9], against its reference loop) via
paddle.shard_index on a LoD data var, fetched with return_numpy=False so the output's LoD is
checked too (OpTest compares Out's LoD; read as lod() offsets, which Paddle 3.x's DenseTensor
keeps), and TestShardIndexOp_ZeroSize (an int64 [0, 2, 1]
input, which the OpTest builds in dygraph) as a static program fed the empty array.
Dropped: nothing else (the file has no gradient checks).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from .op_forward import run_forward

paddle.enable_static()


def common_setup(self, index_num, nshards, shard_id, ignore_value):
    self.op_type = 'shard_index'
    x_lod = [list(range(10))]
    N = sum(x_lod[0])
    x = [np.random.randint(0, index_num - 1) for i in range(N)]
    x = np.array(x).astype('int32').reshape([N, 1])

    shard_size = (index_num + nshards - 1) // nshards
    out = np.zeros(shape=x.shape).astype('int32')
    for i in range(N):
        if x[i] // shard_size == shard_id:
            out[i] = x[i] % shard_size
        else:
            out[i] = ignore_value

    self.inputs = {'X': (x, x_lod)}
    self.attrs = {
        'index_num': index_num,
        'nshards': nshards,
        'shard_id': shard_id,
        'ignore_value': ignore_value,
    }
    self.outputs = {'Out': (out, x_lod)}


def check_output(self):
    """OpTest's check_output through the public API: Out's values, dtype and LoD."""
    x, x_lod = self.inputs['X']
    want, want_lod = self.outputs['Out']
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        data = paddle.static.data('x', [-1, 1], 'int32', lod_level=1)
        out = paddle.shard_index(data, **self.attrs)
        exe = paddle.static.Executor(paddle.CPUPlace())
        feed = fluid.create_lod_tensor(x, x_lod, paddle.CPUPlace())
        (got,) = exe.run(main, feed={'x': feed}, fetch_list=[out], return_numpy=False)
    np.testing.assert_array_equal(np.array(got), want)
    self.assertEqual(np.array(got).dtype, np.int32)
    self.assertEqual([list(level) for level in got.lod()], [list(np.cumsum([0] + want_lod[0]))])


class TestShardIndexShardId0Op(unittest.TestCase):
    def setUp(self):
        common_setup(self, 20, 2, 0, -1)

    def test_check_output(self):
        check_output(self)


class TestShardIndexShardId1Op(unittest.TestCase):
    def setUp(self):
        common_setup(self, 20, 2, 1, -1)

    def test_check_output(self):
        check_output(self)


class TestShardIndexIgnoreValueOp(unittest.TestCase):
    def setUp(self):
        common_setup(self, 20, 2, 0, -2)

    def test_check_output(self):
        check_output(self)


class TestShardIndexNotEvenlyDividedOp(unittest.TestCase):
    def setUp(self):
        common_setup(self, 15, 2, 1, -1)

    def test_check_output(self):
        check_output(self)


class TestShardIndexOp_ZeroSize(unittest.TestCase):
    def setUp(self):
        shape = [0, 2, 1]
        self.x = np.random.random(shape).astype(np.int64)
        self.out = np.zeros(shape=self.x.shape).astype(np.int64)
        self.attrs = {'index_num': 20, 'nshards': 2, 'shard_id': 0, 'ignore_value': -1}

    def test_check_output(self):
        got = run_forward(paddle.shard_index, {'x': self.x}, **self.attrs)
        np.testing.assert_array_equal(got, self.out)
        self.assertEqual(got.shape, (0, 2, 1))
        self.assertEqual(got.dtype, np.int64)


if __name__ == '__main__':
    unittest.main()
