"""Port of Paddle test/legacy_test/test_py_reader_combination.py (all 3 cases).

Two iterable PyReaders over paddle.reader.cache'd batch generators, zipped with the raw
generators: each fed batch must equal the generator's arrays, and zip stops at the shorter one.
Dropped: the CUDA place; the final `py_reader._loader._reset()` (private; a Python 3.5 SIGABRT
workaround). `np.random.random_integers(0, 9)` (removed from recent numpy) is written
`np.random.randint(0, 10)`, the same distribution.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


class TestPyReaderCombination(unittest.TestCase):
    def setUp(self):
        self.n1 = 10
        self.n2 = 20
        self.batch_size = 2

    def create_reader(self, batch_num):
        def __impl__():
            for _ in range(batch_num):
                image = np.random.uniform(low=-1, high=1, size=[batch_num, 784]).astype('float32')
                label = np.random.randint(0, 10, size=[batch_num, 1]).astype('int64')
                yield image, label
        return __impl__

    def assertFeedVarEqual(self, reader_list_data, py_reader_dict_data):
        np.testing.assert_array_equal(reader_list_data[0],
                                      np.array(py_reader_dict_data[0]['image']))
        np.testing.assert_array_equal(reader_list_data[1],
                                      np.array(py_reader_dict_data[0]['label']))

    def main_impl(self, place):
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            image = paddle.static.data(name='image', dtype='float32', shape=[-1, 784])
            label = paddle.static.data(name='label', dtype='int64', shape=[-1, 1])
            py_reader1 = fluid.io.PyReader(feed_list=[image, label], capacity=16, iterable=True)
            py_reader2 = fluid.io.PyReader(feed_list=[image, label], capacity=16, iterable=True)
            reader1 = paddle.reader.cache(self.create_reader(self.n1))
            reader2 = paddle.reader.cache(self.create_reader(self.n2))
            py_reader1.decorate_batch_generator(reader1, places=place)
            py_reader2.decorate_batch_generator(reader2, places=place)

            for _ in range(10):
                batch_num = 0
                for np1, dict1, np2, dict2 in zip(reader1(), py_reader1(), reader2(),
                                                  py_reader2()):
                    self.assertFeedVarEqual(np1, dict1)
                    self.assertFeedVarEqual(np2, dict2)
                    batch_num += 1
                self.assertEqual(batch_num, min(self.n1, self.n2))

    def test_main(self):
        self.main_impl(fluid.CPUPlace())


class TestPyReaderCombination2(TestPyReaderCombination):
    def setUp(self):
        self.n1 = 20
        self.n2 = 10
        self.batch_size = 2


class TestPyReaderCombination3(TestPyReaderCombination):
    def setUp(self):
        self.n1 = 10
        self.n2 = 10
        self.batch_size = 2


if __name__ == '__main__':
    unittest.main()
