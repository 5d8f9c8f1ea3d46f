"""Port of Paddle test/legacy_test/test_py_reader_sample_generator.py (all 4 cases).

An iterable PyReader (no double buffer) fed through decorate_sample_list_generator(paddle.batch)
or decorate_sample_generator(batch_size, drop_last), with and without drop_last: every fetched
batch must equal the batch paddle.batch builds from the same cached reader.
Dropped: nothing of what Paddle runs (its test_main only runs iterable=True; the
non-iterable branch is kept as written). `np.random.random_integers(0, 9)` (removed from recent
numpy) is written `np.random.randint(0, 10)`.
"""
import math
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


def random_reader(sample_num):
    def __impl__():
        for _ in range(sample_num):
            yield (np.random.random(size=[784]).astype('float32'),
                   np.random.randint(0, 10, size=[1]).astype('int64'))
    return paddle.reader.cache(__impl__)


class TestCaseBase(unittest.TestCase):
    def setUp(self):
        self.batch_size = 32
        self.epoch_num = 2
        self.sample_num = 165

    def generate_all_data(self, reader):
        batches = []
        for batch in reader():
            images = np.array([item[0] for item in batch])
            labels = np.array([item[1] for item in batch])
            batches.append([images, labels])
        return batches

    def run_main(self, reader, use_sample_generator, iterable, drop_last):
        image = paddle.static.data(name='image', dtype='float32', shape=[-1, 784])
        label = paddle.static.data(name='label', dtype='int64', shape=[-1, 1])
        py_reader = fluid.io.PyReader(feed_list=[image, label], capacity=16, iterable=iterable,
                                      use_double_buffer=False)
        batch_reader = paddle.batch(reader, self.batch_size, drop_last)
        all_datas = self.generate_all_data(batch_reader)
        if not use_sample_generator:
            py_reader.decorate_sample_list_generator(batch_reader, places=fluid.cpu_places())
        else:
            py_reader.decorate_sample_generator(reader, self.batch_size, drop_last,
                                                places=fluid.cpu_places())
        if drop_last:
            batch_num = int(self.sample_num / self.batch_size)
        else:
            batch_num = math.ceil(float(self.sample_num) / self.batch_size)
        self.assertEqual(batch_num, len(all_datas))

        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(fluid.default_startup_program())
        for _ in range(self.epoch_num):
            if py_reader.iterable:
                step = 0
                for data in py_reader():
                    img, lbl = exe.run(feed=data, fetch_list=[image, label])
                    self.assertArrayEqual(img, all_datas[step][0])
                    self.assertArrayEqual(lbl, all_datas[step][1])
                    step += 1
                self.assertEqual(step, len(all_datas))
            else:
                step = 0
                try:
                    py_reader.start()
                    while True:
                        img, lbl = exe.run(fetch_list=[image, label])
                        self.assertArrayEqual(img, all_datas[step][0])
                        self.assertArrayEqual(lbl, all_datas[step][1])
                        step += 1
                except fluid.core.EOFException:
                    py_reader.reset()
                    self.assertEqual(step, len(all_datas))
                    break

    def assertArrayEqual(self, arr1, arr2):
        self.assertEqual(arr1.shape, arr2.shape)
        self.assertTrue((arr1 == arr2).all())

    def test_main(self):
        reader = random_reader(self.sample_num)
        for use_sample_generator in [False, True]:
            for iterable in [True]:
                for drop_last in [False, True]:
                    with fluid.program_guard(fluid.Program(), fluid.Program()):
                        self.run_main(reader, use_sample_generator, iterable, drop_last)


class TestCase1(TestCaseBase):
    def setUp(self):
        self.batch_size = 32
        self.epoch_num = 10
        self.sample_num = 160


class TestCase2(TestCaseBase):
    def setUp(self):
        self.batch_size = 32
        self.epoch_num = 2
        self.sample_num = 200


class TestCase3(TestCaseBase):
    def setUp(self):
        self.batch_size = 32
        self.epoch_num = 2
        self.sample_num = 159


if __name__ == '__main__':
    unittest.main()
