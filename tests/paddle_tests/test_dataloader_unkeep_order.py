"""Port of Paddle test/legacy_test/test_dataloader_unkeep_order.py (all six cases).

With fluid.reader.keep_data_loader_order(False), a DataLoader.from_generator over numbered
batches, iterable or started / reset, left after break_num batches or run to the end, for
three epochs: every batch, fed or fetched, is whole (one number throughout), no batch comes
twice in an epoch, and each epoch gives the expected count.
Changed: Paddle sets keep_data_loader_order(False) when the module is imported, for the whole
process; here setUpModule sets it and tearDownModule restores it, so the ports run after this
one see the default.
Dropped: the CUDA places; the final private loader._reset() after an early break (as in
test_dataloader_keep_order.py).
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

_saved_order = []


def setUpModule():
    _saved_order.append(fluid.reader.keep_data_loader_order())
    fluid.reader.keep_data_loader_order(False)


def tearDownModule():
    fluid.reader.keep_data_loader_order(_saved_order.pop())


def create_reader(shape, batch_number):
    def __impl__():
        idx = 0
        for _ in range(batch_number):
            yield np.ones(shape).astype('float32') * idx,
            idx += 1

    return __impl__


class DataLoaderKeepOrderTestBase(unittest.TestCase):
    def initParameters(self):
        self.iterable = False
        self.break_num = 10000

    def setUp(self):
        self.epoch_num = 3
        self.batch_num = 40
        self.shape = [3, 4, 5]
        self.initParameters()

    def clear_visited(self):
        self.visited = set()

    def build_network(self, places):
        input_data = paddle.static.data(shape=self.shape, dtype='float32', name="input")
        loader = fluid.io.DataLoader.from_generator(capacity=16, feed_list=[input_data],
                                                    iterable=self.iterable)

        fc = paddle.static.nn.fc(input_data, size=10)
        loss = paddle.mean(fc)

        loader.set_batch_generator(create_reader(self.shape, self.batch_num),
                                   places=places if loader.iterable else None)

        return input_data, loss, loader

    def assertInputData(self, batch_id, input_data, dev_cnt, check_visited=True):
        if isinstance(input_data, list):
            self.assertTrue(len(input_data), dev_cnt)
            for each_input_dict in input_data:
                input_tensor = np.array(each_input_dict["input"])
                self.assertEqual(self.shape, list(input_tensor.shape))

                num = input_tensor.flatten()[0]
                equal = (input_tensor == num).all()
                self.assertTrue(equal)
                if check_visited:
                    self.assertTrue(num not in self.visited)
                    self.visited.add(num)
        else:
            self.assertEqual(list(input_data.shape), [self.shape[0] * dev_cnt] + self.shape[1:])
            for idx in range(dev_cnt):
                data_part = input_data[idx * self.shape[0]: (idx + 1) * self.shape[0], :]
                num = data_part.flatten()[0]
                self.assertTrue((data_part == num).all())
                if check_visited:
                    self.assertTrue(num not in self.visited)
                    self.visited.add(num)

    def get_places(self):
        place_list = [fluid.cpu_places(1)]
        return place_list

    def test_main(self):
        for p in self.get_places():
            self.run_main_with_place(p)

    def run_main_with_place(self, places):
        with fluid.scope_guard(fluid.Scope()):
            with fluid.program_guard(fluid.Program(), fluid.Program()):
                input_data, loss, loader = self.build_network(places)
                fetch_list = [input_data]

                exe = fluid.Executor(places[0])
                exe.run(fluid.default_startup_program())

                dev_cnt = len(places)
                self.assertTrue(dev_cnt == 1)

                main_program = fluid.default_main_program()

                max_batch_num = min(self.break_num, int(self.batch_num / dev_cnt))

                if loader.iterable:
                    for epoch_id in range(self.epoch_num):
                        self.clear_visited()
                        batch_id = 0
                        for data in loader():
                            if batch_id >= self.break_num:
                                break
                            self.assertInputData(batch_id, data, dev_cnt, check_visited=False)
                            (fetch_val,) = exe.run(program=main_program, feed=data,
                                                   fetch_list=fetch_list)
                            self.assertInputData(batch_id, fetch_val, dev_cnt)
                            batch_id += 1

                        self.assertEqual(batch_id, max_batch_num)
                else:
                    for epoch_id in range(self.epoch_num):
                        batch_id = 0
                        self.clear_visited()
                        loader.start()
                        try:
                            while True:
                                if batch_id >= self.break_num:
                                    loader.reset()
                                    break
                                (fetch_val,) = exe.run(program=main_program,
                                                       fetch_list=fetch_list)
                                self.assertInputData(batch_id, fetch_val, dev_cnt)
                                batch_id += 1
                        except fluid.core.EOFException:
                            loader.reset()

                        self.assertEqual(batch_id, max_batch_num)


class IterableDataLoaderKeepOrderTest2(DataLoaderKeepOrderTestBase):
    def initParameters(self):
        self.iterable = True
        self.break_num = 10000


class IterableDataLoaderKeepOrderTest3(DataLoaderKeepOrderTestBase):
    def initParameters(self):
        self.iterable = False
        self.break_num = 2


class IterableDataLoaderKeepOrderTest4(DataLoaderKeepOrderTestBase):
    def initParameters(self):
        self.iterable = True
        self.break_num = 2


class IterableDataLoaderKeepOrderTest5(DataLoaderKeepOrderTestBase):
    def initParameters(self):
        self.iterable = False
        self.break_num = 0


class IterableDataLoaderKeepOrderTest6(DataLoaderKeepOrderTestBase):
    def initParameters(self):
        self.iterable = True
        self.break_num = 0


if __name__ == '__main__':
    unittest.main()
