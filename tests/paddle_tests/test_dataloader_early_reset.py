"""Port of Paddle test/legacy_test/test_dataloader_early_reset.py (both cases).

A DataLoader.from_generator over an infinite batch generator, left early (break in the
iterable case, loader.reset() in the non-iterable one) in each of 10 epochs: each epoch must
restart from the first batch.
Dropped: the CUDA place, the final private `loader._reset()`. `fluid.optimizer.SGD` (gone from
Paddle 3.x's base) is written `paddle.optimizer.SGD`.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


def infinite_reader():
    num = 0
    while True:
        yield ((np.ones([8, 32]) * num).astype('float32'),)
        num += 1


class TestDataLoaderEarlyReset(unittest.TestCase):
    def setUp(self):
        self.stop_batch = 10
        self.iterable = True

    def build_network(self):
        y = paddle.static.nn.fc(self.x, size=10)
        loss = paddle.mean(y)
        paddle.optimizer.SGD(learning_rate=1e-3).minimize(loss)

    def create_data_loader(self):
        self.x = paddle.static.data(name='x', shape=[None, 32], dtype='float32')
        return fluid.io.DataLoader.from_generator(feed_list=[self.x], capacity=10,
                                                  iterable=self.iterable)

    def test_main(self):
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            with fluid.scope_guard(fluid.Scope()):
                self.run_network()

    def run_network(self):
        loader = self.create_data_loader()
        self.build_network()
        place = fluid.CPUPlace()
        exe = fluid.Executor(place)
        exe.run(fluid.default_startup_program())
        prog = fluid.default_main_program()
        loader.set_batch_generator(infinite_reader, places=place)
        for _ in range(10):
            batch_id = 0
            if loader.iterable:
                for data in loader():
                    (x_val,) = exe.run(prog, feed=data, fetch_list=[self.x])
                    self.assertTrue(np.all(x_val == batch_id))
                    batch_id += 1
                    if batch_id >= self.stop_batch:
                        break
            else:
                loader.start()
                while True:
                    exe.run(prog, fetch_list=[self.x])
                    batch_id += 1
                    if batch_id >= self.stop_batch:
                        loader.reset()
                        break
            self.assertEqual(batch_id, self.stop_batch)


class TestDataLoaderEarlyReset2(TestDataLoaderEarlyReset):
    def setUp(self):
        self.stop_batch = 20
        self.iterable = False


if __name__ == '__main__':
    unittest.main()
