"""Port of Paddle test/legacy_test/test_multiprocess_reader_exception.py.

paddle.reader.multiprocess_reader feeding a DataLoader.from_generator (iterable, CPU), with
queue and pipe, with and without an exception in the sample generator. base.io.DataLoader is
fluid.io.DataLoader. Dropped: CUDA / custom-device places (the non-iterable branch, which
Paddle's test_main never runs, is dropped too: it needs core.EOFException).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


class ReaderException(Exception):
    pass


class TestMultiprocessReaderExceptionWithQueueSuccess(unittest.TestCase):
    def setUp(self):
        self.use_pipe = False
        self.raise_exception = False

    def main_impl(self, place):
        sample_num, batch_size = 40, 4

        def fake_reader():
            def __impl__():
                for _ in range(sample_num):
                    if self.raise_exception:
                        raise ValueError
                    yield (list(np.random.uniform(low=-1, high=1, size=[10])),)
            return __impl__

        with fluid.program_guard(fluid.Program(), fluid.Program()):
            image = paddle.static.data(name='image', dtype='float32', shape=[None, 10])
            reader = fluid.io.DataLoader.from_generator(feed_list=[image], capacity=2,
                                                        iterable=True)
            image_p_1 = image + 1
            decorated = paddle.reader.multiprocess_reader([fake_reader(), fake_reader()],
                                                          use_pipe=self.use_pipe)
            reader.set_sample_generator(decorated, batch_size=batch_size,
                                        places=fluid.cpu_places(1))
            exe = fluid.Executor(place)
            exe.run(fluid.default_startup_program())
            batch_num = int(sample_num * 2 / batch_size)
            for _ in range(3):
                num = 0
                try:
                    for data in reader():
                        exe.run(feed=data, fetch_list=[image_p_1])
                        num += 1
                    self.assertEqual(num, batch_num)
                except SystemError:
                    self.assertEqual(num, 0)
                    raise ReaderException

    def test_main(self):
        try:
            with fluid.scope_guard(fluid.Scope()):
                self.main_impl(fluid.CPUPlace())
            self.assertTrue(not self.raise_exception)
        except ReaderException:
            self.assertTrue(self.raise_exception)


class TestMultiprocessReaderExceptionWithQueueFailed(
        TestMultiprocessReaderExceptionWithQueueSuccess):
    def setUp(self):
        self.use_pipe = False
        self.raise_exception = True


class TestMultiprocessReaderExceptionWithPipeSuccess(
        TestMultiprocessReaderExceptionWithQueueSuccess):
    def setUp(self):
        self.use_pipe = True
        self.raise_exception = False


class TestMultiprocessReaderExceptionWithPipeFailed(
        TestMultiprocessReaderExceptionWithQueueSuccess):
    def setUp(self):
        self.use_pipe = True
        self.raise_exception = True


if __name__ == '__main__':
    unittest.main()
