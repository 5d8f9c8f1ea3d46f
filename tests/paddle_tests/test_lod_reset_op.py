"""Port of Paddle test/legacy_test/test_lod_reset_op.py.

The five OpTest cases (target LoD by attribute, by a Y tensor of offsets, both (Y wins), by Y's
own LoD, and append=True) append the lod_reset op with Block.append_op (Paddle 3.3.1 has no
public lod_reset layer; op_append.run_op), fed X as a LoD tensor; Out is fetched as a
LoDTensor and its data (X's, unchanged) and LoD (as offsets) checked against the
file's. The gradient checks are kept as X's gradient of mean(Out) through paddle.static.gradients:
lod_reset passes the output gradient through unchanged.
"""
import unittest

import numpy as np

from .op_append import run_op


def offsets(lengths):
    """Recursive sequence lengths as the offset-based LoD that LoDTensor.lod() gives."""
    return [np.concatenate([[0], np.cumsum(level)]).tolist() for level in lengths]


class TestLodResetOpByAttr(unittest.TestCase):
    def setUp(self):
        x = np.random.random((10, 20)).astype("float64")
        lod = [[3, 2, 5]]
        # target_offset_lod and target_lod are the same lod info represented
        # in offset-based format and length-based format, respectively.
        target_offset_lod = [0, 7, 10]
        target_lod = [7, 3]
        self.inputs = {'X': (x, lod)}
        # The `target_lod` attribute is still based on offset
        self.attrs = {'target_lod': target_offset_lod}
        self.outputs = {'Out': (x, [target_lod])}

    def test_check_output(self):
        got = run_op('lod_reset', self.inputs, {'Out': 'float64'}, self.attrs,
                     return_numpy=False)['Out']
        want, lod = self.outputs['Out']
        np.testing.assert_array_equal(np.array(got), want)
        self.assertEqual(got.lod(), offsets(lod))

    def test_check_grad(self):
        """X@GRAD of mean(Out) is 1 / numel everywhere: lod_reset passes dOut through."""
        got = run_op('lod_reset', self.inputs, {'Out': 'float64'}, self.attrs,
                     return_numpy=False, grad_inputs=('X',))['X@GRAD']
        x = self.inputs['X'][0]
        np.testing.assert_allclose(np.array(got), np.full(x.shape, 1.0 / x.size), rtol=1e-7)


class TestLodResetOpByInput(TestLodResetOpByAttr):
    def setUp(self):
        x = np.random.random((10, 20)).astype("float64")
        lod = [[3, 2, 5]]
        # target_offset_lod and target_lod are the same lod info represented
        # in offset-based format and length-based format, respectively.
        target_offset_lod = [0, 4, 7, 10]
        target_lod = [4, 3, 3]
        self.inputs = {
            'X': (x, lod),
            'Y': np.array([target_offset_lod]).astype('int32'),
        }
        self.attrs = {}
        self.outputs = {'Out': (x, [target_lod])}


class TestLodResetOpBoth(TestLodResetOpByAttr):
    def setUp(self):
        x = np.random.random((10, 20)).astype("float64")
        lod = [[3, 2, 5]]
        target_offset_lod_attr = [0, 7, 10]
        target_offset_lod_in = [0, 4, 7, 10]
        target_lod_in = [4, 3, 3]
        self.inputs = {
            'X': (x, lod),
            'Y': np.array(target_offset_lod_in).astype('int32'),
        }
        self.attrs = {'target_lod': target_offset_lod_attr}
        self.outputs = {'Out': (x, [target_lod_in])}


class TestLodResetOpYIsLoDTensor(TestLodResetOpByAttr):
    def setUp(self):
        x = np.random.random((10, 20)).astype("float64")
        lod = [[3, 2, 5]]
        y = np.random.random((10, 10)).astype("float64")
        target_lod = [[4, 3, 3]]
        self.inputs = {'X': (x, lod), 'Y': (y, target_lod)}
        self.attrs = {}
        self.outputs = {'Out': (x, target_lod)}


class TestLodAppendOpByAttr(TestLodResetOpByAttr):
    def setUp(self):
        x = np.random.random((10, 20)).astype("float64")
        lod = [[3, 2, 5]]
        # target_offset_lod and target_lod are the same lod info represented
        # in offset-based format and length-based format, respectively.
        target_offset_lod = list(range(11))
        self.inputs = {'X': (x, lod)}
        out_lod = [[3, 2, 5], [1] * 10]
        # The `target_lod` attribute is still based on offset
        self.attrs = {'target_lod': target_offset_lod, 'append': True}
        self.outputs = {'Out': (x, out_lod)}


if __name__ == '__main__':
    unittest.main()
