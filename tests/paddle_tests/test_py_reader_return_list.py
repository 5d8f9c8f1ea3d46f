"""Port of Paddle test/legacy_test/test_py_reader_return_list.py.

Kept: the static part of TestPyReader.test_returnlist (iterable PyReader with
return_list=True/False feeding an executor, two epochs).
Dropped: the `fluid.dygraph.guard()` half (dygraph-only). `fluid.core.CPUPlace()` is written
`fluid.CPUPlace()` (the public name of the same place).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


class TestPyReader(unittest.TestCase):
    def setUp(self):
        self.batch_size = 32
        self.epoch_num = 2
        self.sample_num = 10

    def test_returnlist(self):
        def random_image_reader(height, width):
            def reader():
                for _ in range(self.sample_num):
                    yield (np.random.uniform(low=0, high=255, size=[height, width]),)
            return reader

        for return_list in [True, False]:
            with fluid.program_guard(fluid.Program(), fluid.Program()):
                image = paddle.static.data(name='image', shape=[-1, 784, 784], dtype='float32')
                reader = fluid.io.PyReader(feed_list=[image], capacity=4, iterable=True,
                                           return_list=return_list)
                reader.decorate_sample_list_generator(
                    paddle.batch(random_image_reader(784, 784), batch_size=self.batch_size),
                    fluid.CPUPlace())
                # the network itself is empty
                executor = fluid.Executor(fluid.CPUPlace())
                executor.run(fluid.default_main_program())
                for _ in range(self.epoch_num):
                    for data in reader():
                        if return_list:
                            executor.run(feed={'image': data[0][0]})
                        else:
                            executor.run(feed=data)


if __name__ == '__main__':
    unittest.main()
