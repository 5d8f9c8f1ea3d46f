"""Port of Paddle test/legacy_test/test_data_feeder.py (2.x-era version, commit 0d8253da, which
still imported paddle.fluid): fluid.DataFeeder turning samples into LoD tensors of lod_level 0, 1
and 2 (shapes and recursive sequence lengths), and the ValueError for a sample of the wrong size.
Kept whole. Paddle 3.x's DenseTensor dropped recursive_sequence_lengths() (only lod() offsets
remain): seq_lens reads it where the tensor has it and lod() otherwise, so the port runs on both.
"""
import unittest

import fluidc as paddle
import fluidc as fluid

paddle.enable_static()


def seq_lens(tensor):
    if hasattr(tensor, 'recursive_sequence_lengths'):
        return tensor.recursive_sequence_lengths()
    return [[b - a for a, b in zip(level, level[1:])] for level in tensor.lod()]


class TestDataFeeder(unittest.TestCase):
    def test_lod_level_0_converter(self):
        img = paddle.static.data(name='image', shape=[-1, 1, 28, 28])
        label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')
        feeder = fluid.DataFeeder([img, label], fluid.CPUPlace())
        result = feeder.feed([([0] * 784, [9]), ([1] * 784, [1])])

        self.assertEqual(result['image'].shape(), [2, 1, 28, 28])
        self.assertEqual(result['label'].shape(), [2, 1])
        self.assertEqual(seq_lens(result['image']), [])
        self.assertEqual(seq_lens(result['label']), [])

        try:
            result = feeder.feed([([0] * 783, [9]), ([1] * 783, [1])])
            self.assertTrue(False)
        except ValueError:
            self.assertTrue(True)

    def test_lod_level_1_converter(self):
        # lod_level = 1
        # each sentence has a different number of words
        sentences = paddle.static.data(
            name='sentences', shape=[-1, 1], dtype='int64', lod_level=1
        )
        label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')
        feeder = fluid.DataFeeder([sentences, label], fluid.CPUPlace())

        # lod = [[0, 3, 5, 9]]
        # data = [[1, 2, 3], [4, 5], [6, 7, 8, 9]]
        # label = [1] * len(data)
        result = feeder.feed(
            [([1, 2, 3], [1]), ([4, 5], [1]), ([6, 7, 8, 9], [1])]
        )

        self.assertEqual(result['sentences'].shape(), [9, 1])
        self.assertEqual(result['label'].shape(), [3, 1])
        self.assertEqual(
            seq_lens(result['sentences']), [[3, 2, 4]]
        )
        self.assertEqual(seq_lens(result['label']), [])

    def test_lod_level_2_converter(self):
        # lod_level = 2
        # paragraphs -> sentences -> words
        paragraphs = paddle.static.data(
            name='paragraphs', shape=[-1, 1], dtype='int64', lod_level=2
        )
        label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')
        feeder = fluid.DataFeeder([paragraphs, label], fluid.CPUPlace())

        # lod = [[0, 2, 3], [0, 3, 5, 9]]
        # data = [[[1, 2, 3], [4, 5]], [[6, 7, 8, 9]]]
        # label = [1] * len(data)
        result = feeder.feed(
            [([[1, 2, 3], [4, 5]], [1]), ([[6, 7, 8, 9]], [1])]
        )

        self.assertEqual(result['paragraphs'].shape(), [9, 1])
        self.assertEqual(result['label'].shape(), [2, 1])
        self.assertEqual(
            seq_lens(result['paragraphs']),
            [[2, 1], [3, 2, 4]],
        )
        self.assertEqual(seq_lens(result['label']), [])


if __name__ == '__main__':
    unittest.main()
