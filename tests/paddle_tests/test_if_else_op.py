"""Port of Paddle's 1.x-tree python/paddle/fluid/tests/unittests/test_if_else_op.py (the 2.x-era
version that calls paddle.enable_static()): fluid.layers.IfElse (split_lod_tensor, two
conditional_blocks on a per-row condition, merge_lod_tensor) against numpy.

run-on-paddle: none -- Paddle 3.3.1 has no IfElse and no split_lod_tensor / merge_lod_tensor
ops, so this file comes from Paddle's 1.x tree and is checked against its numpy reference only.

Kept: TestIfElse, TestIfElseTrueBranch, TestIfElseFalseBranch (test_cpu), TestIfElseError.
Dropped: TestMNISTIfElseOp (not_test_raw_api / not_test_ifelse: disabled in Paddle itself, an
MNIST download; tests/test_ifelse.py trains an IfElse net and checks its gradients instead),
test_cuda (CUDA only).
Renamed: paddle.fluid.core -> fluid.
"""
import unittest

import numpy as np

import fluidc as fluid

layers = fluid.layers
Program = fluid.Program
program_guard = fluid.program_guard


class TestIfElse(unittest.TestCase):

    def set_test_case(self):
        # condiction is: self.data < self.cond_value
        self.cond_value = 0.5
        self.data = np.random.rand(25, 1).astype(np.float32)

    def numpy_cal(self):
        s1 = self.data[np.where(self.data < self.cond_value)]
        res = np.sum(np.exp(s1))
        s2 = self.data[np.where(self.data >= self.cond_value)]
        res += np.sum(np.tanh(s2))
        return res

    def compare_ifelse_op_and_numpy(self, place):
        self.set_test_case()

        prog = Program()
        startup_prog = Program()
        with program_guard(prog, startup_prog):
            src = layers.data(name='data', shape=[1], dtype='float32')
            cond = layers.fill_constant([1], dtype='float32', value=self.cond_value)
            ifcond = layers.less_than(x=src, y=cond)
            ie = layers.IfElse(ifcond)
            with ie.true_block():
                true_target = ie.input(src)
                true_target = fluid.layers.exp(true_target)
                ie.output(true_target)

            with ie.false_block():
                false_target = ie.input(src)
                false_target = fluid.layers.tanh(false_target)
                ie.output(false_target)
            if_out = ie()
            out = layers.reduce_sum(if_out[0])

            exe = fluid.Executor(place)
            exe.run(fluid.default_startup_program())
            o1, = exe.run(fluid.default_main_program(), feed={'data': self.data},
                          fetch_list=[out])
            o2 = self.numpy_cal()

            np.testing.assert_allclose(o1, o2, rtol=1e-05, atol=1e-08)

    def test_cpu(self):
        self.compare_ifelse_op_and_numpy(fluid.CPUPlace())


class TestIfElseTrueBranch(TestIfElse):

    def set_test_case(self):
        # condiction is: self.data < self.cond_value
        self.cond_value = 10.
        self.data = np.random.rand(25, 1).astype(np.float32)


class TestIfElseFalseBranch(TestIfElse):

    def set_test_case(self):
        # condiction is: self.data < self.cond_value
        self.cond_value = -10.
        self.data = np.random.rand(25, 1).astype(np.float32)


class TestIfElseError(unittest.TestCase):

    def test_input_type_error(self):
        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            src = layers.data(name='data', shape=[1], dtype='float32')
            const_value = layers.fill_constant([1], dtype='float32', value=123.0)
            ifcond = layers.less_than(x=src, y=const_value)
            with self.assertRaises(TypeError):
                ie = layers.IfElse(set())
            with self.assertRaises(TypeError):
                ie = layers.IfElse(ifcond, set())

            with self.assertRaises(TypeError):
                ie = layers.IfElse(ifcond)
                with ie.true_block():
                    true_target = ie.input(src)
                    true_target = fluid.layers.exp(true_target)
                    ie.output([])


if __name__ == '__main__':
    unittest.main()
