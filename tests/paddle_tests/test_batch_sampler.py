"""Port of Paddle test/legacy_test/test_batch_sampler.py (all cases).

paddle.io samplers are plain Python (no program needed); the names come from `paddle.io`
instead of a `from paddle.io` line so the import swap of the runner covers them.
Dropped: TestSubsetRandomSampler.test_main (Paddle draws the permutation with paddle.randperm,
which in static mode returns a Variable: it only runs in dygraph); TestBatchSamplerWithSamplerDropLast
has no test method in Paddle either.
"""
import unittest

import numpy as np

import fluidc as paddle

IMAGE_SIZE = 32


class RandomDataset(paddle.io.Dataset):
    def __init__(self, sample_num, class_num):
        self.sample_num = sample_num
        self.class_num = class_num

    def __getitem__(self, idx):
        np.random.seed(idx)
        image = np.random.random([IMAGE_SIZE]).astype('float32')
        label = np.random.randint(0, self.class_num - 1, (1,)).astype('int64')
        return image, label

    def __len__(self):
        return self.sample_num


class TestSampler(unittest.TestCase):
    def test_main(self):
        sampler = paddle.io.Sampler(RandomDataset(100, 10))
        with self.assertRaises(NotImplementedError):
            iter(sampler)


class TestSequenceSampler(unittest.TestCase):
    def test_main(self):
        sampler = paddle.io.SequenceSampler(RandomDataset(100, 10))
        self.assertEqual(len(sampler), 100)
        for pos, index in enumerate(iter(sampler)):
            self.assertEqual(pos, index)


class TestRandomSampler(unittest.TestCase):
    def test_main(self):
        sampler = paddle.io.RandomSampler(RandomDataset(100, 10))
        self.assertEqual(len(sampler), 100)
        self.assertEqual(tuple(sorted(iter(sampler))), tuple(range(100)))

    def test_with_num_samples(self):
        sampler = paddle.io.RandomSampler(RandomDataset(100, 10), num_samples=50,
                                          replacement=True)
        self.assertEqual(len(sampler), 50)
        for i in iter(sampler):
            self.assertTrue(0 <= i < 100)

    def test_with_num_samples_and_without_replacement(self):
        sampler = paddle.io.RandomSampler(RandomDataset(100, 10), num_samples=80,
                                          replacement=False)
        self.assertEqual(len(sampler), 80)
        for i in iter(sampler):
            self.assertTrue(0 <= i < 100)

    def test_with_generator(self):
        sampler = paddle.io.RandomSampler(RandomDataset(100, 10), generator=iter(range(60)))
        self.assertEqual(len(sampler), 100)
        self.assertEqual(tuple(sorted(iter(sampler))), tuple(range(60)))

    def test_with_generator_num_samples(self):
        sampler = paddle.io.RandomSampler(RandomDataset(100, 10), generator=iter(range(60)),
                                          num_samples=50, replacement=True)
        self.assertEqual(len(sampler), 50)
        self.assertEqual(tuple(sorted(iter(sampler))), tuple(range(50)))

    def test_with_num_samples_error(self):
        # positional: (data_source, replacement=False, num_samples=120 > len)
        self.assertRaises(ValueError, paddle.io.RandomSampler, RandomDataset(100, 10), False, 120)


class TestSubsetRandomSampler(unittest.TestCase):
    def test_raise(self):
        with self.assertRaises(ValueError):
            paddle.io.SubsetRandomSampler([])


class TestBatchSampler(unittest.TestCase):
    def setUp(self):
        self.num_samples = 1000
        self.num_classes = 10
        self.batch_size = 32
        self.shuffle = False
        self.drop_last = False

    def init_batch_sampler(self):
        return paddle.io.BatchSampler(dataset=RandomDataset(self.num_samples, self.num_classes),
                                      batch_size=self.batch_size, shuffle=self.shuffle,
                                      drop_last=self.drop_last)

    def test_main(self):
        bs = self.init_batch_sampler()
        expected_len = (self.num_samples + int(not self.drop_last) * (self.batch_size - 1)) \
            // self.batch_size
        self.assertEqual(expected_len, len(bs))
        if not self.shuffle:
            expected = 0
            for indices in bs:
                for idx in indices:
                    self.assertEqual(expected, idx)
                    expected += 1


class TestBatchSamplerDropLast(TestBatchSampler):
    def setUp(self):
        super().setUp()
        self.drop_last = True


class TestBatchSamplerShuffle(TestBatchSampler):
    def setUp(self):
        super().setUp()
        self.shuffle = True
        self.drop_last = True


class TestBatchSamplerWithSampler(TestBatchSampler):
    def init_batch_sampler(self):
        sampler = paddle.io.SequenceSampler(RandomDataset(1000, 10))
        return paddle.io.BatchSampler(sampler=sampler, batch_size=self.batch_size,
                                      drop_last=self.drop_last)


class TestBatchSamplerTorchPositionalArg(TestBatchSampler):
    def init_batch_sampler(self):
        sampler = paddle.io.SequenceSampler(RandomDataset(1000, 10))
        # Paddle 3.3.1's first positional parameter is still `dataset` (the torch-style
        # (sampler, batch_size, drop_last) order came later): pass dataset=None first
        return paddle.io.BatchSampler(None, sampler, False, self.batch_size, self.drop_last)


class TestBatchSamplerWithSamplerShuffle(unittest.TestCase):
    def test_main(self):
        # sampler= together with shuffle=True is rejected by an assert
        sampler = paddle.io.RandomSampler(RandomDataset(1000, 10))
        with self.assertRaises(AssertionError):
            paddle.io.BatchSampler(sampler=sampler, shuffle=True, batch_size=32, drop_last=True)


class TestBatchSamplerWithIterableSampler(TestBatchSampler):
    def init_batch_sampler(self):
        return paddle.io.BatchSampler(sampler=range(1000), batch_size=self.batch_size,
                                      drop_last=self.drop_last)


class TestBatchSamplerWithIterableSamplerDropLast(TestBatchSamplerWithIterableSampler):
    def setUp(self):
        super().setUp()
        self.drop_last = True


class TestBatchSamplerWithIterableSamplerShuffle(TestBatchSamplerWithIterableSampler):
    def setUp(self):
        super().setUp()
        self.shuffle = True
        self.drop_last = True


class TestWeightedRandomSampler(unittest.TestCase):
    def init_probs(self, total, pos):
        probs = np.zeros((total,)).astype('float32')
        probs[:pos] = np.random.random((pos,)).astype('float32')
        np.random.shuffle(probs)
        return probs

    def test_replacement(self):
        probs = self.init_probs(20, 10)
        sampler = paddle.io.WeightedRandomSampler(probs, 30, True)
        self.assertEqual(len(sampler), 30)
        for idx in iter(sampler):
            self.assertGreater(probs[idx], 0.0)

    def test_no_replacement(self):
        probs = self.init_probs(20, 10)
        sampler = paddle.io.WeightedRandomSampler(probs, 10, False)
        self.assertEqual(len(sampler), 10)
        idxs = list(iter(sampler))
        for idx in idxs:
            self.assertGreater(probs[idx], 0.0)
        self.assertEqual(len(set(idxs)), len(idxs))

    def _assert_iter_fails(self, sampler):
        with self.assertRaises(AssertionError):
            for _ in iter(sampler):
                pass

    def test_assert(self):
        # all-zero weights
        self._assert_iter_fails(paddle.io.WeightedRandomSampler(
            np.zeros((10,)).astype('float32'), 10, True))
        # fewer positive weights than samples without replacement
        self._assert_iter_fails(paddle.io.WeightedRandomSampler(self.init_probs(10, 5), 10, False))
        # negative weights
        self._assert_iter_fails(paddle.io.WeightedRandomSampler(
            -1.0 * np.ones((10,)).astype('float32'), 10, True))

    def test_raise(self):
        probs = self.init_probs(10, 5)
        with self.assertRaises(ValueError):  # float num_samples
            paddle.io.WeightedRandomSampler(probs, 2.3, True)
        with self.assertRaises(ValueError):  # negative num_samples
            paddle.io.WeightedRandomSampler(probs, -1, True)
        with self.assertRaises(ValueError):  # non-bool replacement
            paddle.io.WeightedRandomSampler(probs, 5, 5)


if __name__ == '__main__':
    unittest.main()
