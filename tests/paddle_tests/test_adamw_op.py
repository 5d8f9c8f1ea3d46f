"""Port of Paddle test/legacy_test/test_adamw_op.py: the cases that go through
paddle.optimizer.AdamW in a static program.

Kept: TestAdamWOp.test_adamw_op (AdamW with beta1/beta2 given as global vars on a conv net),
TestAdamWOp.test_adamw_op_invalid_input and TestAdamWOpError.test_api_errors (argument checks;
the Linear layers are built in a static program). Of test_api_errors' cases, three are checks
Paddle makes in dygraph mode only and are left out: weight_decay=1 (test_weight_decay_dtype),
parameters=paddle.randn(...) (test_parameters_dtype1) and parameters=None
(test_parameters_dtype3).

Dropped: the OpTest classes (TestAdamW, TestAdamW2: fluidc's adamw op is checked against Paddle's
numbers in tests/test_optimizers_more.py), test_pir_adam_op, the dygraph cases of TestAdamWOp and
of its Group / GroupWithLR subclasses (which add nothing static), TestAdamWOpMultiPrecison*,
TestAdamWOpLayerwiseLR (CUDA only: Paddle's CPU adamw kernel refuses lr_ratio != 1).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

paddle.enable_static()


class TestAdamWOp(unittest.TestCase):
    def test_adamw_op(self):
        place = paddle.CPUPlace()
        shape = [2, 3, 8, 8]
        exe = paddle.static.Executor(place)
        train_prog = paddle.static.Program()
        startup = paddle.static.Program()
        with paddle.static.program_guard(train_prog, startup):
            with fluid.unique_name.guard():
                data = paddle.static.data(name="data", shape=shape)
                conv = paddle.static.nn.conv2d(data, 8, 3)
                loss = paddle.mean(conv)

                beta1 = paddle.static.create_global_var(shape=[1], value=0.85,
                                                        dtype='float32', persistable=True)
                beta2 = paddle.static.create_global_var(shape=[1], value=0.95,
                                                        dtype='float32', persistable=True)
                opt = paddle.optimizer.AdamW(learning_rate=1e-5, beta1=beta1, beta2=beta2,
                                             weight_decay=0.01, epsilon=1e-8)
                opt.minimize(loss)

        exe.run(startup)
        data_np = np.random.random(shape).astype('float32')
        rets = exe.run(train_prog, feed={"data": data_np}, fetch_list=[loss])
        assert rets[0] is not None

    def test_adamw_op_invalid_input(self):
        linear = paddle.nn.Linear(10, 10)
        with self.assertRaises(ValueError):
            paddle.optimizer.AdamW(0.1, beta1=-1, parameters=linear.parameters())
        with self.assertRaises(ValueError):
            paddle.optimizer.AdamW(0.1, beta2=-1, parameters=linear.parameters())
        with self.assertRaises(ValueError):
            paddle.optimizer.AdamW(0.1, epsilon=-1, parameters=linear.parameters())


class TestAdamWOpError(unittest.TestCase):
    def test_api_errors(self):
        def test_parameters_dtype2():
            linear = paddle.nn.Linear(13, 5)
            paddle.optimizer.AdamW(learning_rate=0.01,
                                   parameters={'params': linear.parameters()},
                                   weight_decay=0.1)

        def test_parameters_dtype4():
            linear = paddle.nn.Linear(13, 5)
            paddle.optimizer.AdamW(learning_rate=0.01,
                                   parameters={'params': set(linear.parameters())},
                                   weight_decay=0.1)

        def test_learning_rate_dtype():
            linear = paddle.nn.Linear(13, 5)
            paddle.optimizer.AdamW(learning_rate=1, parameters=linear.parameters(),
                                   weight_decay=0.1)

        def test_grad_clip_dtype():
            linear = paddle.nn.Linear(13, 5)
            paddle.optimizer.AdamW(learning_rate=0.01, parameters=linear.parameters(),
                                   weight_decay=0.1, grad_clip=0.1)

        self.assertRaises(TypeError, test_parameters_dtype2)
        self.assertRaises(TypeError, test_parameters_dtype4)
        self.assertRaises(TypeError, test_learning_rate_dtype)
        self.assertRaises(TypeError, test_grad_clip_dtype)


if __name__ == "__main__":
    unittest.main()
