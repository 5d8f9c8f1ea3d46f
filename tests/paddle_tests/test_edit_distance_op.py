"""Port of Paddle test/legacy_test/test_edit_distance_op.py.

The OpTests' check_output runs through the file's own python_api,
paddle.nn.functional.loss.edit_distance, on a static program: LoD Hyps / Refs fed as LoD
tensors (TestEditDistanceOp, TestEditDistanceOpNormalizedCase0 / 1 / 2, whose empty hypotheses
give the reference's length) and padded rows with HypsLength / RefsLength
(TestEditDistanceOpNormalizedTensor). Out and SequenceNum are compared with the file's
Levenshtein reference at OpTest's float32 tolerance. Added: edit_distance's ValueError for
ignored_tokens, as Paddle 3.3.1 raises it.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

paddle.enable_static()


def python_edit_distance(
    input,
    label,
    input_length=None,
    label_length=None,
    normalized=True,
    ignored_tokens=None,
):
    return paddle.nn.functional.loss.edit_distance(
        input,
        label,
        normalized=normalized,
        ignored_tokens=ignored_tokens,
        input_length=input_length,
        label_length=label_length,
    )


def Levenshtein(hyp, ref):
    """Compute the Levenshtein distance between two strings.

    :param hyp: hypothesis string in index
    :type hyp: list
    :param ref: reference string in index
    :type ref: list
    """
    m = len(hyp)
    n = len(ref)
    if m == 0:
        return n
    if n == 0:
        return m

    dist = np.zeros((m + 1, n + 1)).astype("float32")
    for i in range(0, m + 1):
        dist[i][0] = i
    for j in range(0, n + 1):
        dist[0][j] = j

    for i in range(1, m + 1):
        for j in range(1, n + 1):
            cost = 0 if hyp[i - 1] == ref[j - 1] else 1
            deletion = dist[i - 1][j] + 1
            insertion = dist[i][j - 1] + 1
            substitution = dist[i - 1][j - 1] + cost
            dist[i][j] = min(deletion, insertion, substitution)
    return dist[m][n]


class OpForward(unittest.TestCase):
    """check_output of an edit_distance case through python_api on a static program."""

    def check_output(self):
        main = paddle.static.Program()
        place = paddle.CPUPlace()
        feed, args = {}, []
        with paddle.static.program_guard(main, paddle.static.Program()):
            for slot, name in (('Hyps', 'hyps'), ('Refs', 'refs'), ('HypsLength', 'hyps_len'),
                               ('RefsLength', 'refs_len')):
                if slot not in self.inputs:
                    args.append(None)
                    continue
                value = self.inputs[slot]
                if isinstance(value, tuple):  # (data, [lengths]): a LoD tensor
                    data, lod = value
                    args.append(paddle.static.data(name, [-1, 1], 'int64', lod_level=1))
                    feed[name] = fluid.create_lod_tensor(data, lod, place)
                else:
                    args.append(paddle.static.data(name, list(value.shape), 'int64'))
                    feed[name] = value
            out, seq_num = python_edit_distance(*args, normalized=self.attrs['normalized'])
        exe = paddle.static.Executor(place)
        got_out, got_num = exe.run(main, feed=feed, fetch_list=[out, seq_num])
        want = self.outputs['Out']
        np.testing.assert_allclose(np.asarray(got_out).reshape(want.shape), want,
                                   rtol=1e-5, atol=1e-5)
        self.assertEqual(np.asarray(got_out).dtype, np.float32)
        np.testing.assert_array_equal(np.asarray(got_num).reshape(-1),
                                      self.outputs['SequenceNum'])


class TestEditDistanceOp(OpForward):
    def setUp(self):
        self.op_type = "edit_distance"
        self.python_api = python_edit_distance
        normalized = False
        x1 = np.array([[12, 3, 5, 8, 2]]).astype("int64")
        x2 = np.array([[12, 4, 7, 8]]).astype("int64")
        x1 = np.transpose(x1)
        x2 = np.transpose(x2)
        self.x1_lod = [1, 4]
        self.x2_lod = [3, 1]

        num_strs = len(self.x1_lod)
        distance = np.zeros((num_strs, 1)).astype("float32")
        sequence_num = np.array([2]).astype("int64")

        x1_offset = 0
        x2_offset = 0
        for i in range(0, num_strs):
            distance[i] = Levenshtein(
                hyp=x1[x1_offset : (x1_offset + self.x1_lod[i])],
                ref=x2[x2_offset : (x2_offset + self.x2_lod[i])],
            )
            x1_offset += self.x1_lod[i]
            x2_offset += self.x2_lod[i]
            if normalized is True:
                len_ref = self.x2_lod[i]
                distance[i] = distance[i] / len_ref

        self.attrs = {'normalized': normalized}
        self.inputs = {'Hyps': (x1, [self.x1_lod]), 'Refs': (x2, [self.x2_lod])}
        self.outputs = {'Out': distance, 'SequenceNum': sequence_num}

    def test_check_output(self):
        self.check_output()


class TestEditDistanceOpNormalizedCase0(OpForward):
    def reset_config(self):
        pass

    def post_config(self):
        pass

    def setUp(self):
        self.op_type = "edit_distance"
        self.python_api = python_edit_distance
        normalized = True
        self.x1 = np.array([[10, 3, 6, 5, 8, 2]]).astype("int64")
        self.x2 = np.array([[10, 4, 6, 7, 8]]).astype("int64")
        self.x1_lod = [3, 0, 3]
        self.x2_lod = [2, 1, 2]
        self.x1 = np.transpose(self.x1)
        self.x2 = np.transpose(self.x2)

        self.reset_config()

        num_strs = len(self.x1_lod)
        distance = np.zeros((num_strs, 1)).astype("float32")
        sequence_num = np.array([num_strs]).astype("int64")

        x1_offset = 0
        x2_offset = 0
        for i in range(0, num_strs):
            distance[i] = Levenshtein(
                hyp=self.x1[x1_offset : (x1_offset + self.x1_lod[i])],
                ref=self.x2[x2_offset : (x2_offset + self.x2_lod[i])],
            )
            x1_offset += self.x1_lod[i]
            x2_offset += self.x2_lod[i]
            if normalized is True:
                len_ref = self.x2_lod[i]
                distance[i] = distance[i] / len_ref

        self.attrs = {'normalized': normalized}
        self.inputs = {
            'Hyps': (self.x1, [self.x1_lod]),
            'Refs': (self.x2, [self.x2_lod]),
        }
        self.outputs = {'Out': distance, 'SequenceNum': sequence_num}

        self.post_config()

    def test_check_output(self):
        self.check_output()


class TestEditDistanceOpNormalizedCase1(TestEditDistanceOpNormalizedCase0):
    def reset_config(self):
        self.x1_lod = [0, 6, 0]
        self.x2_lod = [2, 1, 2]


class TestEditDistanceOpNormalizedCase2(TestEditDistanceOpNormalizedCase0):
    def reset_config(self):
        self.x1_lod = [0, 0, 6]
        self.x2_lod = [2, 2, 1]


class TestEditDistanceOpNormalizedTensor(OpForward):
    def reset_config(self):
        self.x1 = np.array([[10, 3, 0, 0], [6, 5, 8, 2]], dtype=np.int64)
        self.x2 = np.array([[10, 4, 0], [6, 7, 8]], dtype=np.int64)
        self.x1_lod = np.array([2, 4], dtype=np.int64)
        self.x2_lod = np.array([2, 3], dtype=np.int64)

    def setUp(self):
        self.op_type = "edit_distance"
        self.python_api = python_edit_distance
        normalized = True

        self.reset_config()

        num_strs = len(self.x1_lod)
        distance = np.zeros((num_strs, 1)).astype("float32")
        sequence_num = np.array([num_strs]).astype("int64")

        for i in range(0, num_strs):
            distance[i] = Levenshtein(
                hyp=self.x1[i][0 : self.x1_lod[i]],
                ref=self.x2[i][0 : self.x2_lod[i]],
            )
            if normalized is True:
                len_ref = self.x2_lod[i]
                distance[i] = distance[i] / len_ref

        self.attrs = {'normalized': normalized}
        self.inputs = {
            'Hyps': self.x1,
            'Refs': self.x2,
            'HypsLength': self.x1_lod,
            'RefsLength': self.x2_lod,
        }
        self.outputs = {'Out': distance, 'SequenceNum': sequence_num}

    def test_check_output(self):
        self.check_output()


class TestEditDistanceIgnoredTokens(unittest.TestCase):
    """Added: Paddle 3.3.1's edit_distance refuses ignored_tokens before building anything."""

    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x = paddle.static.data('x', [-1, 1], 'int64', lod_level=1)
            with self.assertRaises(ValueError):
                python_edit_distance(x, x, ignored_tokens=[0])


if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
