"""Port of Paddle's test/legacy_test/test_beam_search_decode_op.py: beam_search_decode over
tensor arrays of 5 steps (2 source sentences, beam_size 2, end_id 1), SentenceIds /
SentenceScores and their two-level LoD vs the expectations.

Changed: Paddle's scope tensor arrays appended to by hand and its `Operator(...).run(scope,
place)` (its op.py test helper) are a legacy Program: each step fed as a LoDTensor and written
with write_to_array at a fill_constant index, then beam_search_decode, run by the Executor (so
the file also runs on Paddle 3.3.1's legacy executor). Dropped: TestBeamSearchDecodeOpGPU.
Kept: the steps, attributes and expectations.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


class TestBeamSearchDecodeOp(unittest.TestCase):
    """unittest of beam_search_decode_op"""

    def setUp(self):
        self.place = fluid.CPUPlace()
        self.main = paddle.static.Program()
        self.block = self.main.global_block()
        self.feed = {}
        self.arrays = {
            slot: self.block.create_var(name=slot, dtype=dtype,
                                        type=fluid.core.VarDesc.VarType.LOD_TENSOR_ARRAY)
            for slot, dtype in (("ids", "int64"), ("scores", "float32"))}
        self.steps = 0

    def append_lod_tensor(self, tensor_array, lod, data):
        """Write a fed LoDTensor at the next index of the array."""
        name = f"{tensor_array.name}_{self.steps // 2}"
        lod_tensor = fluid.core.LoDTensor()
        lod_tensor.set_lod(lod)
        lod_tensor.set(data, self.place)
        self.feed[name] = lod_tensor
        with paddle.static.program_guard(self.main, paddle.static.Program()):
            x = paddle.static.data(name=name, shape=list(data.shape), dtype=str(data.dtype),
                                   lod_level=2)
        i = self.block.create_var(name=f"{name}_i", dtype="int64", shape=[1])
        self.block.append_op(type="fill_constant", outputs={"Out": [i]},
                             attrs={"shape": [1], "dtype": fluid.core.VarDesc.VarType.INT64,
                                    "value": float(self.steps // 2), "force_cpu": True})
        self.block.append_op(type="write_to_array", inputs={"X": [x], "I": [i]},
                             outputs={"Out": [tensor_array]})
        self.steps += 1

    def test_get_set(self):
        ids, scores = self.arrays["ids"], self.arrays["scores"]
        # Construct sample data with 5 steps and 2 source sentences
        # beam_size = 2, end_id = 1
        # start with start_id
        [self.append_lod_tensor(array, [[0, 1, 2], [0, 1, 2]], np.array([0, 0], dtype=dtype))
         for array, dtype in ((ids, "int64"), (scores, "float32"))]
        [self.append_lod_tensor(array, [[0, 1, 2], [0, 2, 4]],
                                np.array([2, 3, 4, 5], dtype=dtype))
         for array, dtype in ((ids, "int64"), (scores, "float32"))]
        [self.append_lod_tensor(array, [[0, 2, 4], [0, 2, 2, 4, 4]],
                                np.array([3, 1, 5, 4], dtype=dtype))
         for array, dtype in ((ids, "int64"), (scores, "float32"))]
        [self.append_lod_tensor(array, [[0, 2, 4], [0, 1, 2, 3, 4]],
                                np.array([1, 1, 3, 5], dtype=dtype))
         for array, dtype in ((ids, "int64"), (scores, "float32"))]
        [self.append_lod_tensor(array, [[0, 2, 4], [0, 0, 0, 2, 2]],
                                np.array([5, 1], dtype=dtype))
         for array, dtype in ((ids, "int64"), (scores, "float32"))]

        sentence_ids = self.block.create_var(name="sentence_ids", dtype="int64", lod_level=2)
        sentence_scores = self.block.create_var(name="sentence_scores", dtype="float32",
                                                lod_level=2)
        self.block.append_op(type="beam_search_decode",
                             # inputs
                             inputs={"Ids": [ids], "Scores": [scores]},
                             # outputs
                             outputs={"SentenceIds": [sentence_ids],
                                      "SentenceScores": [sentence_scores]},
                             attrs={"beam_size": 2, "end_id": 1})

        exe = fluid.Executor(self.place)
        with paddle.static.scope_guard(paddle.static.Scope()):
            sentence_ids, sentence_scores = exe.run(
                self.main, feed=self.feed, fetch_list=["sentence_ids", "sentence_scores"],
                return_numpy=False)

        expected_lod = [[0, 2, 4], [0, 4, 7, 12, 17]]
        self.assertEqual(sentence_ids.lod(), expected_lod)
        self.assertEqual(sentence_scores.lod(), expected_lod)

        expected_data = np.array([0, 2, 3, 1, 0, 2, 1, 0, 4, 5, 3, 5, 0, 4, 5, 3, 1], "int64")
        np.testing.assert_array_equal(np.array(sentence_ids), expected_data)
        np.testing.assert_array_equal(np.array(sentence_scores), expected_data)


if __name__ == '__main__':
    unittest.main()
