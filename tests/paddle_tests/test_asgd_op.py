"""Port of Paddle test/legacy_test/test_asgd_op.py: the asgd op and paddle.optimizer.ASGD.

Kept: TestASGDOp (float64), TestCase1 (float32), TestCase4 (n = 1): the op appended to a
Program's block with param / grad / learning_rate / d / y / n fed, as OpTest runs it, the three
outputs against the file's formulas; TestASGDV2 (a dygraph step, the ValueErrors, parameter
groups); TestASGDValidationCase1 / 2 (five dygraph steps, each checked against the file's numpy
ASGD: stored gradients, their sum d, n = min(step, batch_num)), which the file runs only where
Paddle has CUDA: here on the CPU (Paddle 3.3.1 passes them there too).
Dropped: TestCase2 / TestCase3 (float16 / bfloat16 on CUDA only), TestASGDMultiPrecision and
TestASGDSimple (CUDA only; their static halves are PIR programs).
"""
import unittest

import numpy as np

import fluidc as paddle

from .update_op import run_update_op

paddle.enable_static()


class ASGDOpMixin:  # (the file's TestASGDOpMixin: a name pytest would collect)
    def setUp(self):
        self.init_basic_info()
        self.init_input()
        self.update_input_dtype()
        self.init_output()
        self.update_output_dtype()

        self.inputs = {
            "param": self.params,
            "grad": self.grads,
            "learning_rate": self.learning_rate,
            "d": self.ds,
            "y": self.ys,
            "n": self.n,
        }

        self.outputs = {
            "param_out": self.params_out,
            "d_out": self.ds_out,
            "y_out": self.ys_out,
        }

    def init_basic_info(self):
        self.op_type = "asgd"
        self.h = 102
        self.w = 105

    def init_input(self):
        self.params = np.random.random((self.h, self.w))
        self.learning_rate = np.array([0.001])
        self.n = np.array([1000])
        self.grads = np.random.random((self.h, self.w))
        self.ds = np.random.random((self.h, self.w))
        self.ys = np.random.random((self.h, self.w))

    def init_output(self):
        self.ds_out = self.ds - self.ys + self.grads
        self.ys_out = self.grads.copy()
        self.params_out = (
            self.params - (self.learning_rate / self.n) * self.ds_out
        )

    def update_input_dtype(self):
        pass

    def update_output_dtype(self):
        pass

    def test_check_output(self):
        got = run_update_op(self.op_type, self.inputs, self.outputs, {})
        for name, want in self.outputs.items():
            self.assertEqual(got[name].dtype, self.params.dtype, name)
            np.testing.assert_allclose(got[name], want, rtol=1e-6, atol=1e-6, err_msg=name)


class TestASGDOp(ASGDOpMixin, unittest.TestCase):
    pass


class TestCase1(TestASGDOp):
    def update_input_dtype(self):
        self.params = self.params.astype("float32")
        self.learning_rate = self.learning_rate.astype("float32")
        self.n = self.n.astype("float32")
        self.grads = self.grads.astype("float32")
        self.ds = self.ds.astype("float32")
        self.ys = self.ys.astype("float32")


class TestCase4(TestASGDOp):
    def init_input(self):
        self.params = np.random.random((self.h, self.w))
        self.learning_rate = np.array([0.001])
        self.n = np.array([1])
        self.grads = np.random.random((self.h, self.w))
        self.ds = np.random.random((self.h, self.w))
        self.ys = np.random.random((self.h, self.w))


class TestASGDV2(unittest.TestCase):
    def test_asgd_dygraph(self):
        paddle.disable_static()
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear = paddle.nn.Linear(13, 5)

        asgd = paddle.optimizer.ASGD(
            learning_rate=0.001,
            batch_num=2,
            parameters=linear.parameters(),
        )
        out = linear(a)
        out.backward()
        asgd.step()
        asgd.clear_gradients()

    def test_raise_error(self):
        self.assertRaises(
            ValueError,
            paddle.optimizer.ASGD,
            batch_num=2,
            learning_rate=None,
        )
        self.assertRaises(
            ValueError,
            paddle.optimizer.ASGD,
            batch_num=None,
        )
        self.assertRaises(
            ValueError,
            paddle.optimizer.ASGD,
            batch_num=-2,
        )

    def test_asgd_group_dygraph(self):
        paddle.disable_static()
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear_1 = paddle.nn.Linear(13, 5)
        linear_2 = paddle.nn.Linear(5, 3)
        asgd = paddle.optimizer.ASGD(
            learning_rate=0.001,
            batch_num=2,
            parameters=[
                {'params': linear_1.parameters()},
                {
                    'params': linear_2.parameters(),
                    'learning_rate': 0.0001,
                },
            ],
        )
        out = linear_1(a)
        out = linear_2(out)
        out.backward()
        asgd.step()
        asgd.clear_gradients()


class ASGDValidation:  # (the file's TestASGDValidation, renamed likewise)
    def setUp(self) -> None:
        self.init_all_size()
        self.init_batch_size()
        self.init_batch_num()
        self.data = np.random.random(size=(self.all_size, 2)).astype('float32')

    def init_all_size(self):
        self.all_size = 64

    def init_batch_size(self):
        self.batch_size = 8

    def init_batch_num(self):
        self.batch_num = (int)(self.all_size / self.batch_size)

    def run_validation(self) -> None:
        paddle.disable_static()  # the file's dygraph_guard()
        try:
            paddle.seed(10)
            np.random.seed(10)

            param_validation = {}
            grad_validation = {}
            lr_validation = {}
            d_validation = {}
            ys_validation = {}
            y_validation = {}
            n_validation = {}

            model = paddle.nn.Linear(2, 2)
            optimizer = paddle.optimizer.ASGD(
                batch_num=self.batch_num, parameters=model.parameters()
            )

            for param in model.parameters():
                d_validation[param.name] = np.zeros(param.shape)
                ys_validation[param.name] = np.zeros(
                    [self.batch_num] + param.shape
                )

            for i in range(5):
                data_start = i * self.batch_size % self.all_size
                data_end = data_start + self.batch_size
                cur_data = self.data[data_start:data_end]
                output = model(paddle.to_tensor(cur_data))
                loss = paddle.mean(output)
                loss = output
                loss.backward()

                for param in model.parameters():
                    param_validation[param.name] = param.numpy()

                optimizer.step()

                for param in model.parameters():
                    grad_validation[param.name] = param.grad.numpy()
                    lr_validation[param.name] = optimizer.get_lr()
                    y_validation[param.name] = ys_validation[param.name][
                        i % self.batch_num
                    ]
                    d_validation[param.name] = (
                        d_validation[param.name]
                        - y_validation[param.name]
                        + grad_validation[param.name]
                    )
                    ys_validation[param.name][i % self.batch_num] = (
                        grad_validation[param.name]
                    )
                    n_validation[param.name] = min(i + 1, self.batch_num)
                    param_validation[param.name] = (
                        param_validation[param.name]
                        - lr_validation[param.name]
                        * d_validation[param.name]
                        / n_validation[param.name]
                    )

                    np.testing.assert_allclose(
                        param.numpy(),
                        param_validation[param.name],
                    )

                optimizer.clear_grad()
        finally:
            paddle.enable_static()

    def test_main(self):
        # the file returns here without CUDA; its numbers hold on the CPU
        self.run_validation()


class TestASGDValidationCase1(ASGDValidation, unittest.TestCase):
    pass


class TestASGDValidationCase2(TestASGDValidationCase1):
    def init_batch_num(self):
        self.batch_num = 2


if __name__ == "__main__":
    unittest.main()
