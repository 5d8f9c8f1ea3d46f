"""Port of Paddle test/legacy_test/test_regularizer.py: the ops a regularizer appends.

Paddle's current file checks L1Decay on a PIR program (paddle.pir.core.create_parameter,
ir_backward.grad, `pd_op.*` names); the same check on a ProgramDesc program is the file's
pre-PIR form, ported here: TestL2DecayRegularizer and TestL1DecayRegularizer build mul + mean by
hand, append the backward, and count the ops Optimizer.append_regularization_ops adds
(scale + sum for L2, sign + scale + sum for L1). fluid.regularizer.L{1,2}DecayRegularizer are
the 2.x paddle.regularizer.L{1,2}Decay (Paddle 3.x has only those names).

Not repeated here: TestRegularizer (test_l2, the static half of test_repeated_regularization),
the same test as in test_regularizer_api.py, where it is ported. Dropped: the dygraph half of
test_repeated_regularization.
"""
import unittest

import fluidc as paddle

paddle.enable_static()
regularizer = paddle.regularizer


def _mul_mean_program(reg):
    """mean(mul(mul.x, mul.y)) with mul.x a parameter carrying `reg`; returns the program's
    block, mul.x and the loss."""
    program = paddle.static.Program()
    block = program.global_block()
    mul_x = block.create_parameter(dtype="float32", shape=[5, 10], lod_level=0, name="mul.x",
                                   regularizer=reg)
    mul_y = block.create_var(dtype="float32", shape=[10, 8], lod_level=0, name="mul.y")
    mul_out = block.create_var(dtype="float32", shape=[5, 8], lod_level=0, name="mul.out")
    block.append_op(type="mul", inputs={"X": mul_x, "Y": mul_y}, outputs={"Out": mul_out},
                    attrs={"x_num_col_dims": 1})
    mean_out = block.create_var(dtype="float32", shape=[1], lod_level=0, name="mean.out")
    block.append_op(type="mean", inputs={"X": mul_out}, outputs={"Out": mean_out})
    return block, mul_x, mean_out


class TestL2DecayRegularizer(unittest.TestCase):
    def test_l2decay_regularizer(self):
        block, mul_x, mean_out = _mul_mean_program(regularizer.L2Decay(0.5))
        self.assertIsNotNone(mul_x.regularizer)
        self.assertTrue(isinstance(mul_x.regularizer, regularizer.L2Decay))
        params_grads = paddle.static.append_backward(mean_out)
        self.assertEqual(len(params_grads), 1)
        count_ops = len(block.ops)
        optimizer = paddle.optimizer.Adam()
        params_grads = optimizer.append_regularization_ops(params_grads)
        self.assertEqual(len(params_grads), 1)
        self.assertEqual(len(block.ops), count_ops + 2)
        self.assertEqual(block.ops[-1].type, 'sum')
        self.assertEqual(block.ops[-2].type, 'scale')


class TestL1DecayRegularizer(unittest.TestCase):
    def test_l2decay_regularizer(self):
        block, mul_x, mean_out = _mul_mean_program(regularizer.L1Decay(0.5))
        self.assertIsNotNone(mul_x.regularizer)
        self.assertTrue(isinstance(mul_x.regularizer, regularizer.L1Decay))
        params_grads = paddle.static.append_backward(mean_out)
        self.assertEqual(len(params_grads), 1)
        count_ops = len(block.ops)
        optimizer = paddle.optimizer.Adam()
        params_grads = optimizer.append_regularization_ops(params_grads)
        self.assertEqual(len(params_grads), 1)
        self.assertEqual(len(block.ops), count_ops + 3)
        self.assertEqual(block.ops[-1].type, 'sum')
        self.assertEqual(block.ops[-2].type, 'scale')
        self.assertEqual(block.ops[-3].type, 'sign')


if __name__ == '__main__':
    unittest.main()
