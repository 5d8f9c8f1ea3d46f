"""Port of Paddle's test/legacy_test/test_beam_search_op.py: one beam_search step per case
(BeamSearchOpTester 1-6: accumulated scores, a finished prefix, a pruned source,
is_accumulated=False, beam_size=1), outputs and LoD vs the numpy expectations.

Changed: Paddle's `Operator('beam_search', ...).run(scope, place)` over scope vars (its op.py
test helper) is the same op appended to a legacy Program with block.append_op and run by the
Executor in a fresh scope, the inputs fed as LoDTensors (so the file also runs on Paddle 3.3.1's
legacy executor). Kept: every case's inputs, attributes and expectations.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


def create_tensor(np_data, lod=None):
    tensor = fluid.core.LoDTensor()
    tensor.set(np_data, fluid.CPUPlace())
    if lod is not None:
        tensor.set_lod(lod)
    return tensor


def run_op(op_type, feeds, outputs, attrs):
    """Append op_type over fed vars (feeds: slot -> (name, np array, lod or None)) and run it;
    returns the fetched LoDTensors, one per (slot, name, dtype) of outputs."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        inputs, feed = {}, {}
        for slot, (name, data, lod) in feeds.items():
            inputs[slot] = [paddle.static.data(name=name, shape=list(data.shape),
                                               dtype=str(data.dtype),
                                               lod_level=len(lod) if lod else 0)]
            feed[name] = create_tensor(data, lod)
        block = main.global_block()
        outs = {slot: [block.create_var(name=name, dtype=dtype, lod_level=2)]
                for slot, name, dtype in outputs}
        block.append_op(type=op_type, inputs=inputs, outputs=outs, attrs=attrs)
    exe = fluid.Executor(fluid.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        return exe.run(main, feed=feed, fetch_list=[name for _, name, _ in outputs],
                       return_numpy=False)


class BeamSearchOpTester(unittest.TestCase):
    """unittest of beam_search_op"""

    def setUp(self):
        self._create_ids()
        self._create_pre_scores()
        self._create_scores()
        self._create_pre_ids()
        self.set_outputs()

    def test_run(self):
        selected_ids, selected_scores, parent_idx = run_op(
            'beam_search',
            {'pre_ids': ('pre_ids', self.pre_ids, None),
             'pre_scores': ('pre_scores', self.pre_scores, None),
             'ids': ('ids', self.ids, self.lod),
             'scores': ('scores', self.scores, self.lod)},
            [('selected_ids', 'selected_ids', 'int64'),
             ('selected_scores', 'selected_scores', 'float32'),
             ('parent_idx', 'parent_idx', 'int32')],
            {'level': 0, 'beam_size': self.beam_size, 'end_id': 0,
             'is_accumulated': self.is_accumulated})
        np.testing.assert_allclose(np.array(selected_ids), self.output_ids, rtol=1e-05)
        np.testing.assert_allclose(np.array(selected_scores), self.output_scores, rtol=1e-05)
        self.assertEqual(selected_ids.lod(), self.output_lod)
        np.testing.assert_allclose(np.array(parent_idx), self.output_parent_idx, rtol=1e-05)

    def _create_pre_ids(self):
        self.pre_ids = np.array([[1, 2, 3, 4]], dtype='int64')

    def _create_pre_scores(self):
        self.pre_scores = np.array([[0.1, 0.2, 0.3, 0.4]], dtype='float32')

    def _create_ids(self):
        self.lod = [[0, 2, 4], [0, 1, 2, 3, 4]]
        self.ids = np.array([[4, 2, 5], [2, 1, 3], [3, 5, 2], [8, 2, 1]], dtype='int64')

    def _create_scores(self):
        self.scores = np.array([[0.5, 0.3, 0.2], [0.6, 0.3, 0.1], [0.9, 0.5, 0.1],
                                [0.7, 0.5, 0.1]], dtype='float32')

    def set_outputs(self):
        self.beam_size = 2
        self.is_accumulated = True
        self.output_ids = np.array([4, 2, 3, 8])[:, np.newaxis]
        self.output_scores = np.array([0.5, 0.6, 0.9, 0.7])[:, np.newaxis]
        self.output_lod = [[0, 2, 4], [0, 1, 2, 3, 4]]
        self.output_parent_idx = np.array([0, 1, 2, 3])


class BeamSearchOpTester2(BeamSearchOpTester):
    def _create_pre_ids(self):
        self.pre_ids = np.array([[1], [2], [3], [4]], dtype='int64')

    def _create_pre_scores(self):
        self.pre_scores = np.array([[0.1, 0.2, 0.3, 0.4]], dtype='float32')

    def _create_ids(self):
        self.lod = [[0, 2, 4], [0, 1, 2, 3, 4]]
        self.ids = np.array([[4, 2], [7, 3], [3, 5], [8, 1]], dtype='int64')

    def _create_scores(self):
        self.scores = np.array([[0.6, 0.9], [0.5, 0.3], [0.9, 0.5], [0.1, 0.7]],
                               dtype='float32')

    def set_outputs(self):
        self.beam_size = 2
        self.is_accumulated = True
        self.output_ids = np.array([2, 4, 3, 1])[:, np.newaxis]
        self.output_scores = np.array([0.9, 0.6, 0.9, 0.7])[:, np.newaxis]
        self.output_lod = [[0, 2, 4], [0, 2, 2, 3, 4]]
        self.output_parent_idx = np.array([0, 0, 2, 3])


class BeamSearchOpTester3(BeamSearchOpTester):
    # pre_id = end_id
    def _create_pre_ids(self):
        self.pre_ids = np.array([[1], [0], [0], [4]], dtype='int64')

    def _create_pre_scores(self):
        self.pre_scores = np.array([[0.1], [1.2], [0.5], [0.4]], dtype='float32')

    def _create_ids(self):
        self.lod = [[0, 2, 4], [0, 1, 2, 3, 4]]
        self.ids = np.array([[4, 2], [7, 3], [3, 5], [8, 1]], dtype='int64')

    def _create_scores(self):
        self.scores = np.array([[0.6, 0.9], [0.5, 0.3], [0.9, 0.5], [0.6, 0.7]],
                               dtype='float32')

    def set_outputs(self):
        self.beam_size = 2
        self.is_accumulated = True
        self.output_ids = np.array([2, 0, 1, 8])[:, np.newaxis]
        self.output_scores = np.array([0.9, 1.2, 0.7, 0.6])[:, np.newaxis]
        self.output_lod = [[0, 2, 4], [0, 1, 2, 2, 4]]
        self.output_parent_idx = np.array([0, 1, 3, 3])


class BeamSearchOpTester4(BeamSearchOpTester):
    # prune beam search while pre_id of in all beams is end_id
    def _create_pre_ids(self):
        self.pre_ids = np.array([[0], [0], [0], [4]], dtype='int64')

    def _create_pre_scores(self):
        self.pre_scores = np.array([[0.1], [1.2], [0.5], [0.4]], dtype='float32')

    def _create_ids(self):
        self.lod = [[0, 2, 4], [0, 1, 2, 3, 4]]
        self.ids = np.array([[4, 2], [7, 3], [3, 5], [8, 1]], dtype='int64')

    def _create_scores(self):
        self.scores = np.array([[0.6, 0.9], [0.5, 0.3], [0.9, 0.5], [0.6, 0.7]],
                               dtype='float32')

    def set_outputs(self):
        self.beam_size = 2
        self.is_accumulated = True
        self.output_ids = np.array([1, 8])[:, np.newaxis]
        self.output_scores = np.array([0.7, 0.6])[:, np.newaxis]
        self.output_lod = [[0, 2, 4], [0, 0, 0, 0, 2]]
        self.output_parent_idx = np.array([3, 3])


class BeamSearchOpTester5(BeamSearchOpTester):
    # is_accumulated = False
    def _create_pre_ids(self):
        self.pre_ids = np.array([[1], [2], [3], [4]], dtype='int64')

    def _create_pre_scores(self):
        self.pre_scores = np.array([[0.1, 2.2, 0.3, 0.4]], dtype='float32')

    def _create_ids(self):
        self.lod = [[0, 2, 4], [0, 1, 2, 3, 4]]
        self.ids = np.array([[4, 2], [7, 3], [3, 5], [8, 1]], dtype='int64')

    def _create_scores(self):
        self.scores = np.array([[0.6, 0.9], [0.5, 0.3], [0.9, 0.5], [0.1, 0.7]],
                               dtype='float32')

    def set_outputs(self):
        self.beam_size = 2
        self.is_accumulated = False
        self.output_ids = np.array([7, 3, 3, 1])[:, np.newaxis]
        self.output_scores = np.array([1.50685, 0.996027, 0.194639, 0.043325])[:, np.newaxis]
        self.output_lod = [[0, 2, 4], [0, 0, 2, 3, 4]]
        self.output_parent_idx = np.array([1, 1, 2, 3])


class BeamSearchOpTester6(BeamSearchOpTester):
    # beam_size = 1
    def _create_pre_ids(self):
        self.pre_ids = np.array([[1], [2], [3], [4]], dtype='int64')

    def _create_pre_scores(self):
        self.pre_scores = np.array([[0.1, 0.2, 0.3, 0.4]], dtype='float32')

    def _create_ids(self):
        self.lod = [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]
        self.ids = np.array([[4, 2], [7, 3], [3, 5], [8, 1]], dtype='int64')

    def _create_scores(self):
        self.scores = np.array([[0.6, 0.9], [0.5, 0.3], [0.9, 0.5], [0.1, 0.7]],
                               dtype='float32')

    def set_outputs(self):
        self.beam_size = 1
        self.is_accumulated = True
        self.output_ids = np.array([2, 7, 3, 1])[:, np.newaxis]
        self.output_scores = np.array([0.9, 0.5, 0.9, 0.7])[:, np.newaxis]
        self.output_lod = [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]
        self.output_parent_idx = np.array([0, 1, 2, 3])


if __name__ == '__main__':
    unittest.main()
