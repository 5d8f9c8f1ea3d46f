"""Port of Paddle test/legacy_test/test_bce_loss.py: nn.BCELoss and
nn.functional.binary_cross_entropy, static and dygraph, against the file's numpy calc_bceloss
(`run-on-paddle: pir`: Paddle 3.3.1 reduces the loss with paddle.sum / multiply, which take PIR
values only).

Kept: TestBCELoss (reductions sum / mean / none, with a broadcast weight, the ValueErrors for an
unknown reduction), TestBceLossOp's forward (the bce_loss op's Out, float64 [10, 10]) through
F.binary_cross_entropy(reduction='none').
Dropped: TestBceLossOp's gradient / prim checks (OpTest), TestBceLossOpCase1 / Case2 (OpTest
subclasses without a setUp: they test nothing), the float16 cases (CUDA only).
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

base = fluid


def test_static_layer(
    place, input_np, label_np, reduction='mean', weight_np=None
):
    prog = paddle.static.Program()
    startup_prog = paddle.static.Program()
    with paddle.static.program_guard(prog, startup_prog):
        input = paddle.static.data(
            name='input', shape=input_np.shape, dtype='float64'
        )
        label = paddle.static.data(
            name='label', shape=label_np.shape, dtype='float64'
        )
        if weight_np is not None:
            weight = paddle.static.data(
                name='weight', shape=weight_np.shape, dtype='float64'
            )
            bce_loss = paddle.nn.loss.BCELoss(
                weight=weight, reduction=reduction
            )
        else:
            bce_loss = paddle.nn.loss.BCELoss(reduction=reduction)
        res = bce_loss(input, label)
        exe = paddle.static.Executor(place)
        (static_result,) = exe.run(
            prog,
            feed=(
                {"input": input_np, "label": label_np}
                if weight_np is None
                else {"input": input_np, "label": label_np, "weight": weight_np}
            ),
            fetch_list=[res],
        )
    return static_result


def test_static_functional(
    place, input_np, label_np, reduction='mean', weight_np=None
):
    prog = paddle.static.Program()
    startup_prog = paddle.static.Program()
    with paddle.static.program_guard(prog, startup_prog):
        input = paddle.static.data(
            name='input', shape=input_np.shape, dtype='float64'
        )
        label = paddle.static.data(
            name='label', shape=label_np.shape, dtype='float64'
        )
        if weight_np is not None:
            weight = paddle.static.data(
                name='weight', shape=weight_np.shape, dtype='float64'
            )
            res = paddle.nn.functional.binary_cross_entropy(
                input, label, weight=weight, reduction=reduction
            )
        else:
            res = paddle.nn.functional.binary_cross_entropy(
                input, label, reduction=reduction
            )
        exe = paddle.static.Executor(place)
        (static_result,) = exe.run(
            prog,
            feed=(
                {"input": input_np, "label": label_np}
                if weight_np is None
                else {"input": input_np, "label": label_np, "weight": weight_np}
            ),
            fetch_list=[res],
        )
    return static_result


def test_dygraph_layer(
    place, input_np, label_np, reduction='mean', weight_np=None
):
    paddle.disable_static()
    if weight_np is not None:
        weight = paddle.to_tensor(weight_np)
        bce_loss = paddle.nn.loss.BCELoss(weight=weight, reduction=reduction)
    else:
        bce_loss = paddle.nn.loss.BCELoss(reduction=reduction)
    dy_res = bce_loss(paddle.to_tensor(input_np), paddle.to_tensor(label_np))
    dy_result = dy_res.numpy()
    paddle.enable_static()
    return dy_result


def test_dygraph_functional(
    place, input_np, label_np, reduction='mean', weight_np=None
):
    paddle.disable_static()
    input = paddle.to_tensor(input_np)
    label = paddle.to_tensor(label_np)

    if weight_np is not None:
        weight = paddle.to_tensor(weight_np)
        dy_res = paddle.nn.functional.binary_cross_entropy(
            input, label, weight=weight, reduction=reduction
        )
    else:
        dy_res = paddle.nn.functional.binary_cross_entropy(
            input, label, reduction=reduction
        )
    dy_result = dy_res.numpy()
    paddle.enable_static()
    return dy_result


# the helpers above are named test_* in Paddle's file: not tests here
for _helper in (test_static_layer, test_static_functional, test_dygraph_layer,
                test_dygraph_functional):
    _helper.__test__ = False


def calc_bceloss(input_np, label_np, reduction='mean', weight_np=None):
    if weight_np is None:
        expected = -1 * (
            label_np * np.log(input_np)
            + (1.0 - label_np) * np.log(1.0 - input_np)
        )
    else:
        expected = (
            -1
            * weight_np
            * (
                label_np * np.log(input_np)
                + (1.0 - label_np) * np.log(1.0 - input_np)
            )
        )

    if reduction == 'mean':
        expected = np.mean(expected)
    elif reduction == 'sum':
        expected = np.sum(expected)
    else:
        expected = expected

    return expected


class TestBCELoss(unittest.TestCase):

    def test_BCELoss(self):
        input_np = np.random.uniform(0.1, 0.8, size=(20, 30)).astype(np.float64)
        label_np = np.random.randint(0, 2, size=(20, 30)).astype(np.float64)
        places = [base.CPUPlace()]
        reductions = ['sum', 'mean', 'none']
        for place in places:
            for reduction in reductions:
                static_result = test_static_layer(
                    place, input_np, label_np, reduction
                )
                dy_result = test_dygraph_layer(
                    place, input_np, label_np, reduction
                )
                expected = calc_bceloss(input_np, label_np, reduction)
                np.testing.assert_allclose(static_result, expected, rtol=1e-05)
                np.testing.assert_allclose(static_result, dy_result, rtol=1e-05)
                np.testing.assert_allclose(dy_result, expected, rtol=1e-05)
                static_functional = test_static_functional(
                    place, input_np, label_np, reduction
                )
                dy_functional = test_dygraph_functional(
                    place, input_np, label_np, reduction
                )
                np.testing.assert_allclose(
                    static_functional, expected, rtol=1e-05
                )
                np.testing.assert_allclose(
                    static_functional, dy_functional, rtol=1e-05
                )
                np.testing.assert_allclose(dy_functional, expected, rtol=1e-05)

    def test_BCELoss_weight(self):
        input_np = np.random.uniform(0.1, 0.8, size=(2, 3, 4, 10)).astype(
            np.float64
        )
        label_np = np.random.randint(0, 2, size=(2, 3, 4, 10)).astype(
            np.float64
        )
        weight_np = np.random.random(size=(3, 4, 10)).astype(np.float64)
        place = base.CPUPlace()
        for reduction in ['sum', 'mean', 'none']:
            static_result = test_static_layer(
                place, input_np, label_np, reduction, weight_np=weight_np
            )
            dy_result = test_dygraph_layer(
                place, input_np, label_np, reduction, weight_np=weight_np
            )
            expected = calc_bceloss(
                input_np, label_np, reduction, weight_np=weight_np
            )
            np.testing.assert_allclose(static_result, expected, rtol=1e-05)
            np.testing.assert_allclose(static_result, dy_result, rtol=1e-05)
            np.testing.assert_allclose(dy_result, expected, rtol=1e-05)
            static_functional = test_static_functional(
                place, input_np, label_np, reduction, weight_np=weight_np
            )
            dy_functional = test_dygraph_functional(
                place, input_np, label_np, reduction, weight_np=weight_np
            )
            np.testing.assert_allclose(static_functional, expected, rtol=1e-05)
            np.testing.assert_allclose(
                static_functional, dy_functional, rtol=1e-05
            )
            np.testing.assert_allclose(dy_functional, expected, rtol=1e-05)

    def test_BCELoss_error(self):
        paddle.disable_static()
        self.assertRaises(
            ValueError,
            paddle.nn.loss.BCELoss,
            reduction="unsupported reduction",
        )
        input = paddle.to_tensor([[0.1, 0.3]], dtype='float32')
        label = paddle.to_tensor([[0.0, 1.0]], dtype='float32')
        self.assertRaises(
            ValueError,
            paddle.nn.functional.binary_cross_entropy,
            input=input,
            label=label,
            reduction="unsupported reduction",
        )
        paddle.enable_static()


def bce_loss(input, label):
    return -1 * (label * np.log(input) + (1.0 - label) * np.log(1.0 - input))


class TestBceLossOp(unittest.TestCase):
    def setUp(self):
        self.init_test_dtype()
        self.init_test_case()
        self.op_type = "bce_loss"
        input_np = np.random.uniform(0.1, 0.8, self.shape).astype(self.dtype)
        label_np = np.random.randint(0, 2, self.shape).astype(self.dtype)
        output_np = bce_loss(input_np, label_np)

        self.inputs = {'X': input_np, 'Label': label_np}
        self.outputs = {'Out': output_np}

    def test_check_output(self):
        # OpTest's check_output: the op through its layer function, reduction 'none'
        got = test_static_functional(base.CPUPlace(), self.inputs['X'],
                                     self.inputs['Label'], reduction='none')
        np.testing.assert_allclose(got, self.outputs['Out'], rtol=1e-7, atol=1e-7)

    def init_test_case(self):
        self.shape = [10, 10]

    def init_test_dtype(self):
        self.dtype = "float64"


if __name__ == "__main__":
    paddle.enable_static()
    unittest.main()
