"""Port of Paddle's test_lod_tensor.py, 1.x version (python/paddle/fluid/tests/test_lod_tensor.py;
the current test/legacy_test version is empty).

fluid.lod_tensor.create_lod_tensor / create_random_int_lodtensor are fluid.create_lod_tensor /
fluid.create_random_int_lodtensor. Dropped: the tensor._dtype() == core.VarDesc.VarType checks
(private method + core enum), test_dlpack_support (tensor._to_dlpack / core.from_dlpack), CUDA
places.
Paddle 3.x renamed LoDTensor to DenseTensor and dropped its recursive_sequence_lengths() /
has_valid_recursive_sequence_lengths() methods (only lod() offsets remain): the helpers below use
the 1.x methods where the tensor has them and read lod() otherwise, so the port runs on both.
Added (fluidc): TestFetchLoDTensor, Executor.run's as_numpy rule (Paddle 3.3.1's message): a
fetched tensor holding a LoD raises RuntimeError with return_numpy=True and comes back as a
tensor with its LoD with return_numpy=False.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


def new_lod_tensor():
    # Paddle 3.x: fluid.LoDTensor is gone, DenseTensor is its new name
    cls = getattr(fluid, 'LoDTensor', None) or getattr(fluid, 'DenseTensor')
    return cls()


def get_seq_lens(tensor):
    if hasattr(tensor, 'recursive_sequence_lengths'):
        return tensor.recursive_sequence_lengths()
    return [[b - a for a, b in zip(level, level[1:])] for level in tensor.lod()]


def has_valid_seq_lens(tensor):
    if hasattr(tensor, 'has_valid_recursive_sequence_lengths'):
        return tensor.has_valid_recursive_sequence_lengths()
    # Paddle 3.x: each level's offsets end at the next level's length, the last at the height
    lod = tensor.lod()
    sizes = [len(level) - 1 for level in lod[1:]] + [tensor.shape()[0]]
    return all(level[-1] == size for level, size in zip(lod, sizes))


class TestLoDTensor(unittest.TestCase):
    def test_pybind_recursive_seq_lens(self):
        tensor = new_lod_tensor()
        tensor.set_recursive_sequence_lengths([])
        # an empty level, or a level of zero length, is invalid
        self.assertRaises(Exception, tensor.set_recursive_sequence_lengths, [[], [1], [3]])
        self.assertRaises(Exception, tensor.set_recursive_sequence_lengths, [[0], [2], [3]])

        seq_lens = [[1, 2, 3]]
        tensor.set_recursive_sequence_lengths(seq_lens)
        self.assertEqual(get_seq_lens(tensor), seq_lens)
        tensor.set(np.random.random([6, 1]), fluid.CPUPlace())
        self.assertTrue(has_valid_seq_lens(tensor))
        tensor.set(np.random.random([9, 1]), fluid.CPUPlace())
        self.assertFalse(has_valid_seq_lens(tensor))

        # each level sums to the next level's length, the last one to the tensor's height
        seq_lens = [[2, 3], [1, 3, 1, 2, 2]]
        tensor.set_recursive_sequence_lengths(seq_lens)
        self.assertEqual(get_seq_lens(tensor), seq_lens)
        tensor.set(np.random.random([8, 1]), fluid.CPUPlace())
        self.assertFalse(has_valid_seq_lens(tensor))
        tensor.set_recursive_sequence_lengths([[2, 3], [1, 3, 1, 2, 1]])
        self.assertTrue(has_valid_seq_lens(tensor))
        tensor.set(np.random.random([9, 1]), fluid.CPUPlace())
        self.assertFalse(has_valid_seq_lens(tensor))

    def test_create_lod_tensor(self):
        # from a list of sequences
        data = [[np.int64(1), np.int64(2), np.int64(3)], [np.int64(3), np.int64(4)]]
        self.assertRaises(AssertionError, fluid.create_lod_tensor, data, [[2, 2]],
                          fluid.CPUPlace())
        correct = [[3, 2]]
        tensor = fluid.create_lod_tensor(data, correct, fluid.CPUPlace())
        self.assertEqual(get_seq_lens(tensor), correct)
        self.assertEqual(tensor.shape(), [5, 1])
        self.assertTrue(np.array_equal(
            np.array(tensor), np.array([1, 2, 3, 3, 4]).reshape(tensor.shape()).astype('int64')))

        # from a numpy array
        data = np.random.random([10, 1]).astype('float64')
        seq_lens = [[2, 1], [3, 3, 4]]
        tensor = fluid.create_lod_tensor(data, seq_lens, fluid.CPUPlace())
        self.assertEqual(get_seq_lens(tensor), seq_lens)
        self.assertEqual(tensor.shape(), [10, 1])
        self.assertTrue(np.array_equal(np.array(tensor), data))

        # from another LoDTensor: a new instance, the old one keeps its lengths
        new_seq_lens = [[2, 2, 1], [1, 2, 2, 3, 2]]
        new_tensor = fluid.create_lod_tensor(tensor, new_seq_lens, fluid.CPUPlace())
        self.assertEqual(get_seq_lens(tensor), seq_lens)
        self.assertEqual(get_seq_lens(new_tensor), new_seq_lens)

    def test_create_random_int_lodtensor(self):
        # a word's shape in speech / NLP data is [1]
        seq_lens = [[2, 3, 5]]
        dict_size = 10000
        tensor = fluid.create_random_int_lodtensor(seq_lens, [1], fluid.CPUPlace(), 0,
                                                   dict_size - 1)
        self.assertEqual(get_seq_lens(tensor), seq_lens)
        self.assertEqual(tensor.shape(), [10, 1])

    def test_print_lodtensor(self):
        tensor = fluid.create_random_int_lodtensor([[2, 3, 5]], [1], fluid.CPUPlace(), 0, 99)
        self.assertTrue(isinstance(str(tensor), str))


if __name__ == '__main__':
    unittest.main()


class TestFetchLoDTensor(unittest.TestCase):
    MESSAGE = ("Some of your fetched tensors hold LoD information. They can not be completely "
               "cast to Python ndarray. Please set the parameter 'return_numpy' as 'False' to "
               "return DenseTensor itself directly.")

    def test_fetch(self):
        paddle.enable_static()
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            x = paddle.static.data('x', [-1, 2], 'float32', lod_level=1)
            y = x * 2
        exe = fluid.Executor(fluid.CPUPlace())
        t = fluid.create_lod_tensor(np.ones((3, 2), 'float32'), [[1, 2]], fluid.CPUPlace())
        for fetch in (x, y):
            with self.assertRaises(RuntimeError) as ctx:
                exe.run(main, feed={'x': t}, fetch_list=[fetch])
            # Paddle's message has its source's line-continuation spaces: compared word by word
            self.assertEqual(' '.join(str(ctx.exception).split()), self.MESSAGE)
        (got,) = exe.run(main, feed={'x': t}, fetch_list=[y], return_numpy=False)
        self.assertEqual(got.lod(), [[0, 1, 3]])
        np.testing.assert_array_equal(np.array(got), np.full((3, 2), 2, 'float32'))
        # a tensor fed without LoD fetches as an array
        (plain,) = exe.run(main, feed={'x': np.ones((3, 2), 'float32')}, fetch_list=[y])
        np.testing.assert_array_equal(plain, np.full((3, 2), 2, 'float32'))
