"""Port of Paddle test/legacy_test/test_mse_loss.py: its static-graph parts.
run-on-paddle: pir   (reduction="sum" uses paddle.sum, which only works on PIR programs in Paddle 3.3.1)

Every case is kept with its static-graph run and its assertion against numpy; the dygraph halves
(base.dygraph.guard / paddle.to_tensor, and the static-vs-dygraph comparisons) are dropped.
CUDA places dropped (CPU only).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()

DIMS = [[10, 10], [2, 10, 10], [3, 3, 10, 10]]


def _run(build, input_np, label_np, label_name):
    prog, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(prog, startup):
        input = paddle.static.data(name='input', shape=input_np.shape, dtype='float32')
        label = paddle.static.data(name=label_name, shape=label_np.shape, dtype='float32')
        ret = build(input, label)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        (result,) = exe.run(prog, feed={"input": input_np, label_name: label_np},
                            fetch_list=[ret])
    return result


def _expected(sub, reduction):
    return {'mean': np.mean(sub * sub), 'sum': np.sum(sub * sub), 'none': sub * sub}[reduction]


class TestMseLoss(unittest.TestCase):
    def test_mse_loss(self):
        input_val = np.random.uniform(0.1, 0.5, (2, 3)).astype("float32")
        label_val = np.random.uniform(0.1, 0.5, (2, 3)).astype("float32")
        sub = input_val - label_val
        np_result = np.mean(sub * sub)
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            input_var = paddle.static.data(name="input", shape=[-1, 3], dtype="float32")
            label_var = paddle.static.data(name="label", shape=[-1, 3], dtype="float32")
            output = paddle.nn.functional.mse_loss(input=input_var, label=label_var)
            exe = paddle.static.Executor(paddle.CPUPlace())
            (result,) = exe.run(main, feed={"input": input_val, "label": label_val},
                                fetch_list=[output])
        np.testing.assert_allclose(np_result, result, rtol=1e-05)


class TestMseInvalidInput(unittest.TestCase):
    def test_error(self):
        def test_invalid_input():
            label = paddle.static.data(name='label1', shape=[None, 3], dtype='float32')
            paddle.nn.functional.mse_loss([256, 3], label)

        self.assertRaises(TypeError, test_invalid_input)

        def test_invalid_label():
            input = paddle.static.data(name='input1', shape=[None, 3], dtype='float32')
            paddle.nn.functional.mse_loss(input, [256, 3])

        self.assertRaises(TypeError, test_invalid_label)


class TestNNMseLoss(unittest.TestCase):
    def _check(self, reduction):
        for dim in DIMS:
            input_np = np.random.uniform(0.1, 0.5, dim).astype("float32")
            label_np = np.random.uniform(0.1, 0.5, dim).astype("float32")
            if reduction == 'mean':  # the default
                layer = paddle.nn.MSELoss()
            else:
                layer = paddle.nn.MSELoss(reduction=reduction)
            static_result = _run(lambda i, l: layer(i, l), input_np, label_np, 'label')
            np.testing.assert_allclose(static_result, _expected(input_np - label_np, reduction),
                                       rtol=1e-05)

    def test_NNMseLoss_mean(self):
        self._check('mean')

    def test_NNMseLoss_sum(self):
        self._check('sum')

    def test_NNMseLoss_none(self):
        self._check('none')


class TestNNFunctionalMseLoss(unittest.TestCase):
    def _check(self, reduction):
        for dim in DIMS:
            input_np = np.random.uniform(0.1, 0.5, dim).astype("float32")
            target_np = np.random.uniform(0.1, 0.5, dim).astype("float32")
            static_result = _run(
                lambda i, t: paddle.nn.functional.mse_loss(i, t, reduction),
                input_np, target_np, 'target')
            np.testing.assert_allclose(static_result,
                                       _expected(input_np - target_np, reduction), rtol=1e-05)

    def test_NNFunctionalMseLoss_mean(self):
        self._check('mean')

    def test_NNFunctionalMseLoss_sum(self):
        self._check('sum')

    def test_NNFunctionalMseLoss_none(self):
        self._check('none')


if __name__ == "__main__":
    unittest.main()
