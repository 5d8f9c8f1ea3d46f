"""Port of Paddle test/legacy_test/test_sgd_op.py: the sgd op and paddle.optimizer.SGD.

Kept: TestSGDOp and TestSGDOpCase8X (the op appended to a Program's block with Param / Grad /
LearningRate fed, as OpTest runs it: ParamOut = w - lr * g), TestSGDV2 (test_sgd_dygraph,
test_sgd: a parameter's optimize_attr learning rate adds a scale op before sgd,
test_raise_error, test_sgd_group_dygraph).
Added (fluidc): test_sgd_dygraph and test_sgd_group_dygraph also check the step against numpy
(weight_decay is an L2 decay added to the gradient; a group's learning_rate multiplies the
optimizer's).
Dropped: the SelectedRows cases (core.Scope / Operator internals), TestSGDOpWithLargeInput
(a 10,000,000 x 150 embedding: 6 GB), TestSGDMultiPrecision2_0 and TestSGDSimple (they return
early without CUDA).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


def run_sgd_op(inputs):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        ins = {slot: paddle.static.data(slot.lower(), list(v.shape), str(v.dtype))
               for slot, v in inputs.items()}
        out = block.create_var(name='param_out', dtype='float32')
        block.append_op(type='sgd', inputs=ins, outputs={'ParamOut': out})
        exe = paddle.static.Executor(paddle.CPUPlace())
        return exe.run(main, feed={s.lower(): v for s, v in inputs.items()},
                       fetch_list=[out])[0]


class TestSGDOp(unittest.TestCase):
    def setUp(self):
        self.op_type = "sgd"
        self.conf()
        w = np.random.random((self.h, self.w)).astype("float32")
        g = np.random.random((self.h, self.w)).astype("float32")
        lr = np.array([0.1]).astype("float32")

        self.inputs = {'Param': w, 'Grad': g, 'LearningRate': lr}
        self.outputs = {'ParamOut': w - lr * g}

    def conf(self):
        self.h = 102
        self.w = 105

    def test_check_output(self):
        np.testing.assert_allclose(run_sgd_op(self.inputs), self.outputs['ParamOut'],
                                   rtol=1e-6, atol=1e-7)


class TestSGDOpCase8X(TestSGDOp):
    def conf(self):
        self.h = 10
        self.w = 64


class TestSGDV2(unittest.TestCase):
    def test_sgd_dygraph(self):
        paddle.disable_static()
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear = paddle.nn.Linear(13, 5)
        # This can be any optimizer supported by dygraph.
        adam = paddle.optimizer.SGD(learning_rate=0.01, parameters=linear.parameters(),
                                    weight_decay=0.01)
        out = linear(a)
        out.backward()
        # fluidc addition: the step against numpy (out.backward() seeds ones)
        w0, b0 = linear.weight.numpy().copy(), linear.bias.numpy().copy()
        adam.step()
        dw, db = value.T @ np.ones((2, 5), "float32"), np.full(5, 2.0, "float32")
        np.testing.assert_allclose(linear.weight.numpy(), w0 - 0.01 * (dw + 0.01 * w0),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(linear.bias.numpy(), b0 - 0.01 * (db + 0.01 * b0),
                                   rtol=1e-5, atol=1e-6)
        adam.clear_gradients()

    def test_sgd(self):
        paddle.enable_static()

        def check_sgd_optimizer(optimizer_attr):
            init_program = paddle.static.Program()
            program = paddle.static.Program()
            block = program.global_block()
            mul_x = block.create_parameter(dtype="float32", shape=[5, 10], lod_level=0,
                                           name="mul.x", optimize_attr=optimizer_attr)
            mul_y = block.create_var(dtype="float32", shape=[10, 8], lod_level=0, name="mul.y")
            mul_out = block.create_var(dtype="float32", shape=[5, 8], lod_level=0,
                                       name="mul.out")
            mean_out = block.create_var(dtype="float32", shape=[1], lod_level=0,
                                        name="mean.out")
            block.append_op(type="mul", inputs={"X": mul_x, "Y": mul_y},
                            outputs={"Out": mul_out}, attrs={"x_num_col_dims": 1})
            block.append_op(type="mean", inputs={"X": mul_out}, outputs={"Out": mean_out})
            sgd_optimizer = paddle.optimizer.SGD(learning_rate=0.01)
            opts, _ = sgd_optimizer.minimize(mean_out, init_program)
            return opts

        opts = check_sgd_optimizer({'learning_rate': 1.1})
        self.assertEqual(len(opts), 2)
        self.assertEqual([op.type for op in opts], ["scale", "sgd"])

        opts = check_sgd_optimizer({'learning_rate': 1.0})
        self.assertEqual(len(opts), 1)
        self.assertEqual([op.type for op in opts], ["sgd"])

    def test_raise_error(self):
        self.assertRaises(ValueError, paddle.optimizer.SGD, learning_rate=None)

    def test_sgd_group_dygraph(self):
        paddle.disable_static()
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear_1 = paddle.nn.Linear(13, 5)
        linear_2 = paddle.nn.Linear(5, 3)
        # This can be any optimizer supported by dygraph.
        adam = paddle.optimizer.SGD(
            learning_rate=0.01,
            parameters=[
                {'params': linear_1.parameters()},
                {
                    'params': linear_2.parameters(),
                    'weight_decay': 0.001,
                    'learning_rate': 0.1,
                },
            ],
            weight_decay=0.01,
        )
        out = linear_1(a)
        out = linear_2(out)
        out.backward()
        # fluidc addition: each group's step in numpy (group 2: lr 0.01 * 0.1, decay 0.001)
        w1, b1, w2, b2 = (p.numpy().astype("float64") for p in
                          (linear_1.weight, linear_1.bias, linear_2.weight, linear_2.bias))
        d_hidden = np.ones((2, 3)) @ w2.T
        hidden = value @ w1 + b1
        adam.step()
        for p, p0, g, lr, decay in (
                (linear_1.weight, w1, value.T @ d_hidden, 0.01, 0.01),
                (linear_1.bias, b1, d_hidden.sum(0), 0.01, 0.01),
                (linear_2.weight, w2, hidden.T @ np.ones((2, 3)), 0.01 * 0.1, 0.001),
                (linear_2.bias, b2, np.full(3, 2.0), 0.01 * 0.1, 0.001)):
            np.testing.assert_allclose(p.numpy(), p0 - lr * (g + decay * p0), rtol=1e-5,
                                       atol=1e-5)
        adam.clear_gradients()


if __name__ == "__main__":
    unittest.main()
