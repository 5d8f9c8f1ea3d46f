"""Port of Paddle's 1.x-tree python/paddle/fluid/tests/unittests/test_lod_rank_table.py (commit
02c53c2d): lod_rank_table of LoD level 1 of a three-level LoD (items longest first, ties in
order), and its argument TypeErrors.

run-on-paddle: none -- Paddle 3.3.1 has no lod_rank_table op, so this file comes from Paddle's
1.x tree and is checked against its expected values only.

Kept: TestLoDRankTable, TestLoDRankTableError.
Renamed: core.CPUPlace / core.Scope / core.LoDTensor -> fluid.*.
Changed: the fed tensor is float32 (numpy.random.random's float64 fed to a float32 var: Paddle's
fluid.layers.data did not check a feed's dtype, fluidc's executor always does).
"""
import unittest

import numpy

import fluidc as fluid
from fluidc import Program, program_guard
from fluidc.layers import data
from fluidc.layers.control_flow import lod_rank_table

Executor = fluid.Executor


class TestLoDRankTable(unittest.TestCase):
    def test_lod_rank_table(self):
        x = data(name='x', shape=[100])
        cpu = fluid.CPUPlace()
        rank_table = lod_rank_table(x=x, level=1)
        rank_table.persistable = True
        exe = Executor(cpu)
        scope = fluid.Scope()

        tensor = fluid.LoDTensor()
        tensor.set(numpy.random.random(size=(17, 100)).astype('float32'), cpu)
        tensor.set_recursive_sequence_lengths([[1, 2], [5, 1, 1], [3, 1, 5, 1, 3, 3, 1]])
        exe.run(scope=scope, feed={'x': tensor})
        var = scope.find_var(rank_table.name)
        table = var.get_lod_rank_table()
        self.assertEqual([(0, 5), (1, 1), (2, 1)], list(table.items()))


class TestLoDRankTableError(unittest.TestCase):
    def test_errors(self):
        with program_guard(Program(), Program()):
            x = numpy.random.random((2, 4)).astype("float32")

            def test_Variable():
                lod_rank_table(x=x, level=1)

            self.assertRaises(TypeError, test_Variable)

            def test_list_Variable():
                lod_rank_table(x=[x], level=1)

            self.assertRaises(TypeError, test_list_Variable)

            x = data(name='x', shape=[10], dtype='float32', lod_level=1)
            lod_rank_table(x=x, level=0)
            lod_rank_table(x=[x], level=0)


if __name__ == '__main__':
    unittest.main()
