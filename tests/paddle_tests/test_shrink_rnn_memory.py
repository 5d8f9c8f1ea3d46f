"""Port of Paddle's 1.x-tree python/paddle/fluid/tests/unittests/test_shrink_rnn_memory.py
(commit 136fe0a4): shrink_memory (the shrink_rnn_memory op) at steps 0, 1, 2 of a rank table,
over a LoD tensor (whole sequences kept) and a plain one (rows kept), and the gradient back
through three shrinks.

run-on-paddle: none -- Paddle 3.3.1 has no shrink_rnn_memory / lod_rank_table ops, so this file
comes from Paddle's 1.x tree and is checked against its expected values only.

Kept: TestShrinkRNNMemoryReferLoD, TestShrinkRNNMemoryNoLoD.
Renamed: core.CPUPlace / core.LoDTensor -> fluid.*; xrange -> range (Python 3); np.product -> np.prod (numpy 2).
Changed: sum_lodtensor sums np.array(tensor) instead of LoDTensor._get_float_element (a Paddle
internal).
"""
import unittest

import numpy as np

import fluidc as fluid
from fluidc.framework import Program, switch_main_program
from fluidc.layers.control_flow import lod_rank_table, shrink_memory

layers = fluid.layers
Executor = fluid.Executor
append_backward = fluid.backward.append_backward


class TestShrinkRNNMemoryBase(unittest.TestCase):
    def setUp(self):
        self.main_program = Program()
        switch_main_program(self.main_program)
        x = layers.data('x', shape=[100], dtype='float32')
        x.stop_gradient = False
        rank_table_tensor = layers.data('rank_table_tensor', shape=[1], dtype='float32',
                                        lod_level=1)
        table = lod_rank_table(x=rank_table_tensor)
        i = layers.zeros(dtype='int64', shape=[1])
        self.mem1 = shrink_memory(x=x, i=i, table=table)
        i = layers.increment(x=i)
        i.stop_gradient = True
        self.mem2 = shrink_memory(x=self.mem1, i=i, table=table)
        i = layers.increment(x=i)
        i.stop_gradient = True
        self.mem3 = shrink_memory(x=self.mem2, i=i, table=table)
        mem3_mean = layers.mean(self.mem3)
        append_backward(loss=mem3_mean)
        self.x_grad = self.main_program.global_block().var('x@GRAD')

    def sum_lodtensor(self, tensor):
        return float(np.array(tensor).sum())


class TestShrinkRNNMemoryReferLoD(TestShrinkRNNMemoryBase):
    def test_refer_lod(self):
        cpu = fluid.CPUPlace()
        x_tensor = fluid.LoDTensor()
        x_tensor.set_recursive_sequence_lengths([[2, 3, 1]])
        tensor_np = np.random.random(size=(6, 100)).astype('float32')
        x_tensor.set(tensor_np, cpu)

        rank_table_tensor = fluid.LoDTensor()
        rank_table_tensor.set_recursive_sequence_lengths([[1, 2, 3]])
        rank_table_tensor.set(np.random.random(size=(6, 1)).astype('float32'), cpu)

        exe = Executor(cpu)
        outs = exe.run(feed={'x': x_tensor, 'rank_table_tensor': rank_table_tensor},
                       fetch_list=[self.mem1, self.mem2, self.mem3, self.x_grad],
                       return_numpy=False)
        self.assertTrue(np.allclose(tensor_np[0:6], outs[0]))
        self.assertTrue(np.allclose(tensor_np[0:5], outs[1]))
        self.assertTrue(np.allclose(tensor_np[0:2], outs[2]))
        self.assertAlmostEqual(1.0, self.sum_lodtensor(outs[3]), delta=0.01)


class TestShrinkRNNMemoryNoLoD(TestShrinkRNNMemoryBase):
    def test_no_lod(self):
        cpu = fluid.CPUPlace()
        x_tensor = fluid.LoDTensor()
        tensor_np = np.random.random(size=(3, 100)).astype('float32')
        x_tensor.set(tensor_np, cpu)

        rank_table_tensor = fluid.LoDTensor()
        rank_table_tensor.set_recursive_sequence_lengths([[1, 2, 3]])
        rank_table_tensor.set(np.random.random(size=(6, 1)).astype('float32'), cpu)

        exe = Executor(cpu)
        outs = exe.run(feed={'x': x_tensor, 'rank_table_tensor': rank_table_tensor},
                       fetch_list=[self.mem1, self.mem2, self.mem3, self.x_grad],
                       return_numpy=False)
        self.assertTrue(np.allclose(tensor_np[0:3], outs[0]))
        self.assertTrue(np.allclose(tensor_np[0:2], outs[1]))
        self.assertTrue(np.allclose(tensor_np[0:1], outs[2]))
        self.assertAlmostEqual(1.0, self.sum_lodtensor(outs[3]), delta=0.01)


if __name__ == '__main__':
    unittest.main()
