"""Port of Paddle test/legacy_test/test_optimizer.py: its static-program cases.

Paddle's current file has no static case left (TestOptimizerDtype is dygraph-only,
TestMasterWeightSaveForFP16 needs CUDA and AMP-O2); its static cases are those of the file's
fluid-era form, ported here in the 2.x spelling Paddle 3.x still has
(fluid.optimizer.SGDOptimizer -> paddle.optimizer.SGD, MomentumOptimizer -> Momentum,
AdamOptimizer -> Adam, fluid.backward.append_backward -> paddle.static.append_backward):
TestOptimizer, TestOptimizerBackwardApplygrad (a per-parameter learning rate adds a scale op),
TestMomentumOptimizer, TestAdamOptimizer (the accumulators and the startup program's
fill_constants, read through the same Mock subclasses over the optimizer's _accumulators and
_*_acc_str names).

Paddle 2.x creates the learning-rate var before the accumulators, so the startup program's
learning-rate fill_constant is its first op, not its last as the fluid-era assertions had it:
the port checks Paddle 3.3.1's order.

Dropped: the optimizers Paddle 3.x no longer has (Dpsgd, DecayedAdagrad, Ftrl), LookAhead and the
Recompute / GradientMerge / pipeline optimizers (paddle.incubate / fleet meta-optimizers).
"""
import unittest

import fluidc as paddle

paddle.enable_static()


def _mul_mean(optimizer_attr):
    """mean(mul(mul.x, mul.y)) in a fresh program, mul.x a parameter with `optimizer_attr`;
    returns (program, mul.x, the mean)."""
    program = paddle.static.Program()
    block = program.global_block()
    mul_x = block.create_parameter(dtype="float32", shape=[5, 10], lod_level=0, name="mul.x",
                                   optimize_attr=optimizer_attr)
    mul_y = block.create_var(dtype="float32", shape=[10, 8], lod_level=0, name="mul.y")
    mul_out = block.create_var(dtype="float32", shape=[5, 8], lod_level=0, name="mul.out")
    mean_out = block.create_var(dtype="float32", shape=[1], lod_level=0, name="mean.out")
    block.append_op(type="mul", inputs={"X": mul_x, "Y": mul_y}, outputs={"Out": mul_out},
                    attrs={"x_num_col_dims": 1})
    block.append_op(type="mean", inputs={"X": mul_out}, outputs={"Out": mean_out})
    return program, mul_x, mean_out


class TestOptimizer(unittest.TestCase):
    def test_sgd_optimizer(self):
        def check_sgd_optimizer(optimizer_attr):
            init_program = paddle.static.Program()
            _, _, mean_out = _mul_mean(optimizer_attr)
            sgd_optimizer = paddle.optimizer.SGD(learning_rate=0.01)
            opts, _ = sgd_optimizer.minimize(mean_out, init_program)
            return opts

        opts = check_sgd_optimizer({'learning_rate': 1.1})
        self.assertEqual(len(opts), 2)
        self.assertEqual([op.type for op in opts], ["scale", "sgd"])

        opts = check_sgd_optimizer({'learning_rate': 1.0})
        self.assertEqual(len(opts), 1)
        self.assertEqual([op.type for op in opts], ["sgd"])


class TestOptimizerBackwardApplygrad(unittest.TestCase):
    def test_sgd_optimizer(self):
        def check_sgd_optimizer(optimizer_attr):
            init_program = paddle.static.Program()
            program, _, mean_out = _mul_mean(optimizer_attr)
            sgd_optimizer = paddle.optimizer.SGD(learning_rate=0.01)
            with paddle.static.program_guard(program, init_program):
                p_g = sgd_optimizer.backward(mean_out)
                opts = sgd_optimizer.apply_gradients(p_g)
            return opts

        opts = check_sgd_optimizer({'learning_rate': 1.1})
        self.assertEqual(len(opts), 2)
        self.assertEqual([op.type for op in opts], ["scale", "sgd"])

        opts = check_sgd_optimizer({'learning_rate': 1.0})
        self.assertEqual(len(opts), 1)
        self.assertEqual([op.type for op in opts], ["sgd"])


class TestMomentumOptimizer(unittest.TestCase):
    class MockMomentum(paddle.optimizer.Momentum):
        def get_accumulators(self):
            return self._accumulators

        def get_velocity_str(self):
            return self._velocity_acc_str

    def _check(self, use_nesterov):
        init_program = paddle.static.Program()
        program, mul_x, mean_out = _mul_mean({'learning_rate': 1.1})
        learning_rate = 0.01
        momentum_optimizer = self.MockMomentum(learning_rate=learning_rate, momentum=0.2,
                                               use_nesterov=use_nesterov)
        params_grads = paddle.static.append_backward(mean_out)
        self.assertEqual(len(params_grads), 1)
        self.assertEqual(len(momentum_optimizer.get_accumulators()), 0)
        with paddle.static.program_guard(program, init_program):
            opts = momentum_optimizer.apply_gradients(params_grads)
        self.assertEqual(len(opts), 2)
        sgd_op = opts[-1]
        self.assertEqual([op.type for op in opts], ["scale", "momentum"])
        self.assertEqual(sgd_op.attr('use_nesterov'), use_nesterov)

        # Check accumulators
        accumulators = momentum_optimizer.get_accumulators()
        self.assertEqual(len(accumulators), 1)
        self.assertTrue(momentum_optimizer.get_velocity_str() in accumulators)
        velocity_acc = accumulators[momentum_optimizer.get_velocity_str()]
        self.assertEqual(len(velocity_acc), 1)
        self.assertTrue(mul_x.name in velocity_acc)

        # Check init_program (the learning rate's fill_constant comes first since Paddle 2.x)
        init_ops = init_program.global_block().ops
        self.assertEqual(len(init_ops), 2)
        self.assertEqual(init_ops[0].type, "fill_constant")
        self.assertAlmostEqual(init_ops[0].attr('value'), learning_rate)
        self.assertEqual(init_ops[1].type, "fill_constant")
        self.assertAlmostEqual(init_ops[1].attr('value'), 0.0)

    def test_vanilla_momentum_optimizer(self):
        self._check(use_nesterov=False)

    def test_nesterov_momentum_optimizer(self):
        self._check(use_nesterov=True)


class TestAdamOptimizer(unittest.TestCase):
    class MockAdam(paddle.optimizer.Adam):
        def get_accumulators(self):
            return self._accumulators

        def get_moment1_str(self):
            return self._moment1_acc_str

        def get_moment2_str(self):
            return self._moment2_acc_str

    def test_adam_optimizer(self):
        init_program = paddle.static.Program()
        program, mul_x, mean_out = _mul_mean({'learning_rate': 1.1})
        learning_rate = 0.01
        adam_optimizer = self.MockAdam(learning_rate=learning_rate, beta1=0.9, beta2=0.999)
        params_grads = paddle.static.append_backward(mean_out)
        self.assertEqual(len(params_grads), 1)
        self.assertEqual(len(adam_optimizer.get_accumulators()), 0)
        with paddle.static.program_guard(program, init_program):
            opts = adam_optimizer.apply_gradients(params_grads)
        self.assertEqual(len(opts), 2)
        self.assertEqual([op.type for op in opts], ["scale", "adam"])

        # Check accumulators
        accumulators = adam_optimizer.get_accumulators()
        self.assertEqual(len(accumulators), 4)
        self.assertTrue(adam_optimizer.get_moment1_str() in accumulators)
        self.assertTrue(adam_optimizer.get_moment2_str() in accumulators)
        moment1_acc = accumulators[adam_optimizer.get_moment1_str()]
        moment2_acc = accumulators[adam_optimizer.get_moment2_str()]
        self.assertEqual(len(moment1_acc), 1)
        self.assertEqual(len(moment2_acc), 1)
        self.assertTrue(mul_x.name in moment1_acc)
        self.assertTrue(mul_x.name in moment2_acc)

        # Check init_program (the learning rate's fill_constant comes first since Paddle 2.x)
        init_ops = init_program.global_block().ops
        self.assertEqual(len(init_ops), 5)
        self.assertEqual(init_ops[0].type, "fill_constant")
        self.assertAlmostEqual(init_ops[0].attr('value'), learning_rate)


if __name__ == '__main__':
    unittest.main()
