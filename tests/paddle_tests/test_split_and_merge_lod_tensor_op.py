"""Port of Paddle's 1.x-tree python/paddle/fluid/tests/unittests/
test_split_and_merge_lod_tensor_op.py (the 2.0-era version, commit 0f173936): split_lod_tensor
and merge_lod_tensor (and merge_lod_tensor_infer) on rows and on LoD sequences, their LoDs,
and the gradient through both.

run-on-paddle: none -- Paddle 3.3.1 has no split_lod_tensor / merge_lod_tensor ops, so this
file comes from Paddle's 1.x tree and is checked against its expected values only.

Kept: TestCPULoDTensorArrayOps (3), TestCPUSplitMergeLoDTensorGrad, TestMergeLodTensorOpError
(its test_x / test_mask: Paddle's test_xtrue / test_xfalse are defined but never called, and
their assertRaises name an undefined test_level), TestSplitLodTensorWithError.
Renamed: core.LoDTensor / core.CPUPlace / core.Scope -> fluid.LoDTensor / fluid.CPUPlace /
fluid.Scope.
Changed: TestCPULoDTensorArrayOps.main declares x int32 and y bool, the dtypes it feeds (Paddle
2.0's fluid.layers.data did not check a feed's dtype, fluidc's executor always does).
"""
import unittest

import numpy as np

import fluidc as fluid
from fluidc.layer_helper import LayerHelper
from fluidc.layers.control_flow import merge_lod_tensor, split_lod_tensor

layers = fluid.layers
Program = fluid.Program
program_guard = fluid.program_guard
Executor = fluid.Executor
append_backward = fluid.backward.append_backward


class TestCPULoDTensorArrayOps(unittest.TestCase):
    def place(self):
        return fluid.CPUPlace()

    def test_split_and_merge_lod_tensor_no_lod(self):
        tensor = fluid.LoDTensor()
        tensor.set(np.arange(10).reshape(10, 1).astype('int32'), self.place())

        mask_np = np.array([0, 0, 1, 1, 1, 1, 0, 0, 0, 0]).astype('bool')
        mask_np = np.expand_dims(mask_np, axis=1)

        mask = fluid.LoDTensor()
        mask.set(mask_np, self.place())

        expect_true_tensor = np.array([2, 3, 4, 5]).astype('int32')
        expect_true_tensor = np.expand_dims(expect_true_tensor, axis=1)
        expect_true = fluid.LoDTensor()
        expect_true.set(expect_true_tensor, self.place())

        expect_false_tensor = np.array([0, 1, 6, 7, 8, 9]).astype('int32')
        expect_false_tensor = np.expand_dims(expect_false_tensor, axis=1)

        expect_false = fluid.LoDTensor()
        expect_false.set(expect_false_tensor, self.place())

        self.main(tensor=tensor, mask=mask, expect_true=expect_true,
                  expect_false=expect_false, expect_out=tensor)

    def split_and_merge_lod_tensor_level_0(self, use_merge_lod_infer=False):
        tensor = fluid.LoDTensor()
        tensor.set(np.arange(10).reshape(10, 1).astype('int32'), self.place())
        tensor.set_recursive_sequence_lengths([[3, 6, 1]])

        mask_np = np.array([0, 1, 0]).astype('bool')
        mask_np = np.expand_dims(mask_np, axis=1)

        mask = fluid.LoDTensor()
        mask.set(mask_np, self.place())

        expect_true_tensor = np.array([3, 4, 5, 6, 7, 8]).astype('int32')
        expect_true_tensor = np.expand_dims(expect_true_tensor, axis=1)
        expect_true = fluid.LoDTensor()
        expect_true.set(expect_true_tensor, self.place())
        expect_true.set_recursive_sequence_lengths([[6]])

        expect_false_tensor = np.array([0, 1, 2, 9]).astype('int32')
        expect_false_tensor = np.expand_dims(expect_false_tensor, axis=1)
        expect_false_lod = [[3, 1]]

        expect_false = fluid.LoDTensor()
        expect_false.set(expect_false_tensor, self.place())
        expect_false.set_recursive_sequence_lengths(expect_false_lod)

        self.main(tensor=tensor, mask=mask, expect_true=expect_true,
                  expect_false=expect_false, expect_out=tensor,
                  use_merge_lod_infer=use_merge_lod_infer)

    def test_split_and_merge_lod_tensor_1(self):
        self.split_and_merge_lod_tensor_level_0()

    def test_split_and_merge_lod_tensor_2(self):
        self.split_and_merge_lod_tensor_level_0(True)

    def main(self, tensor, mask, expect_true, expect_false, expect_out, level=0,
             use_merge_lod_infer=False):
        place = self.place()
        program = Program()
        with program_guard(program):
            # declared with the fed dtypes (Paddle's: float32 fed int32 / bool, see above)
            x = layers.data(name='x', shape=[1], dtype='int32')
            x.persistable = True

            y = layers.data(name='y', shape=[1], dtype='bool')
            y.persistable = True

            out_true, out_false = split_lod_tensor(input=x, mask=y, level=level)
            out_true.persistable = True
            out_false.persistable = True
            if use_merge_lod_infer:
                helper = LayerHelper('merge_lod_tensor_infer')
                out = helper.create_variable_for_type_inference(dtype=out_true.dtype)
                helper.append_op(type='merge_lod_tensor_infer',
                                 inputs={'X': x, 'Mask': y, 'InTrue': out_true,
                                         'InFalse': out_false},
                                 outputs={'Out': out},
                                 attrs={'level': level})
                out.persistable = True
            else:
                out = merge_lod_tensor(in_true=out_true, in_false=out_false, mask=y, x=x,
                                       level=level)
                out.persistable = True

        exe = Executor(place)
        scope = fluid.Scope()
        exe.run(program, feed={'x': tensor, 'y': mask}, scope=scope, return_numpy=False)

        var_true = scope.find_var(out_true.name).get_tensor()

        var_false = scope.find_var(out_false.name).get_tensor()

        var_out = scope.find_var(out.name).get_tensor()
        if not use_merge_lod_infer:
            self.check_tensor_same(var_true, expect_true)
            self.check_tensor_same(var_false, expect_false)
        self.check_tensor_same(var_out, expect_out)

    def check_tensor_same(self, actual, expect):
        self.assertTrue(np.allclose(np.array(actual), np.array(expect)))
        self.assertEqual(actual.recursive_sequence_lengths(),
                         expect.recursive_sequence_lengths())


class TestCPUSplitMergeLoDTensorGrad(unittest.TestCase):
    def test_grad(self):
        place = fluid.CPUPlace()
        program = Program()
        with program_guard(program):
            x = layers.data(name='x', shape=[1], dtype='float32', stop_gradient=False)
            y = layers.data(name='y', shape=[1], dtype='bool', stop_gradient=False)

            level = 0

            out_true, out_false = split_lod_tensor(input=x, mask=y, level=level)
            out = merge_lod_tensor(in_true=out_true, in_false=out_false, mask=y, x=x,
                                   level=level)
            mean = layers.mean(out)

            append_backward(mean)

        tensor = fluid.LoDTensor()
        tensor.set(np.arange(10).reshape(10, 1).astype('float32'), place)
        tensor.set_recursive_sequence_lengths([[3, 6, 1]])

        mask_np = np.array([0, 1, 0]).astype('bool')
        mask_np = np.expand_dims(mask_np, axis=1)

        mask = fluid.LoDTensor()
        mask.set(mask_np, place)

        exe = Executor(place)
        scope = fluid.Scope()

        g_vars = program.global_block().var(x.name + "@GRAD")
        g_out = [item.sum() for item in map(np.array, exe.run(
            program, feed={'x': tensor, 'y': mask}, fetch_list=[g_vars], scope=scope,
            return_numpy=False))]

        g_out_sum = np.array(g_out).sum()

        self.assertAlmostEqual(1.0, g_out_sum, delta=0.1)


class TestMergeLodTensorOpError(unittest.TestCase):
    def test_errors(self):
        with program_guard(Program(), Program()):
            input_data = layers.data(name='x', shape=[1], dtype='float32',
                                     stop_gradient=False)
            y = layers.data(name='y', shape=[1], dtype='bool', stop_gradient=False)
            x_true = layers.data(name='x_true', shape=[1], dtype='float32',
                                 stop_gradient=False)
            x_false = layers.data(name='x_false', shape=[1], dtype='float32',
                                  stop_gradient=False)
            level = 0

            def test_x():
                layers.merge_lod_tensor(int_true=x_true, in_false=x_false, x=set(), mask=y,
                                        level=level)

            self.assertRaises(TypeError, test_x)

            def test_mask():
                layers.merge_lod_tensor(int_true=x_true, in_false=x_false, x=input_data,
                                        mask=set(), level=level)

            self.assertRaises(TypeError, test_mask)


class TestSplitLodTensorWithError(unittest.TestCase):
    def test_error(self):
        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            x = layers.data(name='x', shape=[1], dtype='float32', stop_gradient=False)
            y = layers.data(name='y', shape=[1], dtype='bool', stop_gradient=False)
            level = 0

            with self.assertRaises(TypeError):
                split_lod_tensor(input=set(), mask=y, level=level)

            with self.assertRaises(TypeError):
                split_lod_tensor(input=x, mask=set(), level=level)

            with self.assertRaises(TypeError):
                split_lod_tensor(input=x, mask=set(), level=None)


if __name__ == '__main__':
    unittest.main()
