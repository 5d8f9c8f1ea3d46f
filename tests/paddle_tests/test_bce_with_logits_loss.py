"""Port of Paddle test/legacy_test/test_bce_with_logits_loss.py: nn.BCEWithLogitsLoss and
F.binary_cross_entropy_with_logits, static and dygraph, against the file's numpy
calc_bce_with_logits_loss (`run-on-paddle: pir`: Paddle 3.3.1 builds the loss's reductions on
PIR programs only, as test_bce_loss.py).

Kept whole: TestBCEWithLogitsLoss (reductions sum / mean / none, an elementwise weight,
pos_weight broadcast over the batch, layer and functional, the ValueErrors for an unknown
reduction) and TestBinaryCrossEntropyWithLogits / 1 / 2 / 3 (dygraph against jit.to_static of
the functional, with weight and / or pos_weight). Paddle runs the latter in dygraph mode, its
default; the port switches to it in setUp (this folder's tests start static).
paddle.base.dygraph.base.guard() is written fluid.dygraph.guard() (fluid is Paddle 3.x's base);
the file's module functions test_static / test_dygraph are run_static / run_dygraph here (pytest
would collect them as tests).
Added (fluidc): TestBinaryCrossEntropyWithLogits* also check the numbers, against
weighted_bce_with_logits: the file's calc_bce_with_logits_loss weights only the log term by
pos_weight, right for the positive logits of its own cases but not for these randn ones; Paddle's
kernel weights the whole softplus(-logit) of a positive label.
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

base = fluid


def call_bce_layer(
    logit, label, weight=None, reduction='mean', pos_weight=None
):
    bce_logit_loss = paddle.nn.loss.BCEWithLogitsLoss(
        weight=weight, reduction=reduction, pos_weight=pos_weight
    )
    res = bce_logit_loss(logit, label)
    return res


def call_bce_functional(
    logit, label, weight=None, reduction='mean', pos_weight=None
):
    res = paddle.nn.functional.binary_cross_entropy_with_logits(
        logit, label, weight=weight, reduction=reduction, pos_weight=pos_weight
    )
    return res


def run_static(
    place,
    logit_np,
    label_np,
    weight_np=None,
    reduction='mean',
    pos_weight_np=None,
    functional=False,
):
    paddle.enable_static()

    with paddle.static.program_guard(
        paddle.static.Program(), paddle.static.Program()
    ):
        logit = paddle.static.data(
            name='logit', shape=logit_np.shape, dtype='float64'
        )
        label = paddle.static.data(
            name='label', shape=label_np.shape, dtype='float64'
        )
        feed_dict = {"logit": logit_np, "label": label_np}

        pos_weight = None
        weight = None
        if pos_weight_np is not None:
            pos_weight = paddle.static.data(
                name='pos_weight', shape=pos_weight_np.shape, dtype='float64'
            )
            feed_dict["pos_weight"] = pos_weight_np
        if weight_np is not None:
            weight = paddle.static.data(
                name='weight', shape=weight_np.shape, dtype='float64'
            )
            feed_dict["weight"] = weight_np
        if functional:
            res = call_bce_functional(
                logit, label, weight, reduction, pos_weight
            )
        else:
            res = call_bce_layer(logit, label, weight, reduction, pos_weight)
        exe = paddle.static.Executor(place)
        (static_result,) = exe.run(feed=feed_dict, fetch_list=[res])
    return static_result


def run_dygraph(
    place,
    logit_np,
    label_np,
    weight_np=None,
    reduction='mean',
    pos_weight_np=None,
    functional=False,
):
    with fluid.dygraph.guard():
        logit = paddle.to_tensor(logit_np)
        label = paddle.to_tensor(label_np)
        weight = None
        pos_weight = None
        if weight_np is not None:
            weight = paddle.to_tensor(weight_np)
        if pos_weight_np is not None:
            pos_weight = paddle.to_tensor(pos_weight_np)
        if functional:
            dy_res = call_bce_functional(
                logit, label, weight, reduction, pos_weight
            )
        else:
            dy_res = call_bce_layer(logit, label, weight, reduction, pos_weight)
        dy_result = dy_res.numpy()
        return dy_result


def calc_bce_with_logits_loss(
    logit_np, label_np, reduction='mean', weight_np=None, pos_weight=None
):
    item1 = np.maximum(logit_np, 0)
    item2 = logit_np * label_np
    item3 = np.log(1 + np.exp(-np.abs(logit_np)))

    if pos_weight is not None:
        pos_weight = (pos_weight - 1) * label_np + 1
        expected = item1 - item2 + item3 * pos_weight
    else:
        expected = item1 - item2 + item3

    if weight_np is not None:
        expected = weight_np * expected

    if reduction == 'mean':
        expected = np.mean(expected)
    elif reduction == 'sum':
        expected = np.sum(expected)
    else:
        expected = expected

    return expected


def weighted_bce_with_logits(x, label, reduction, weight=None, pos_weight=None):
    """(1 - label) * x + (1 + (pos_weight - 1) * label) * softplus(-x), times weight, reduced."""
    softplus = np.maximum(-x, 0) + np.log1p(np.exp(-np.abs(x)))
    scale = 1 if pos_weight is None else 1 + (pos_weight - 1) * label
    out = (1 - label) * x + scale * softplus
    if weight is not None:
        out = weight * out
    return {'mean': np.mean, 'sum': np.sum}.get(reduction, lambda v: v)(out)


class TestBCEWithLogitsLoss(unittest.TestCase):
    def test_BCEWithLogitsLoss(self):
        logit_np = np.random.uniform(0.1, 0.8, size=(20, 30)).astype(np.float64)
        label_np = np.random.randint(0, 2, size=(20, 30)).astype(np.float64)
        places = [base.CPUPlace()]
        reductions = ['sum', 'mean', 'none']
        for place in places:
            for reduction in reductions:
                dy_result = run_dygraph(
                    place, logit_np, label_np, reduction=reduction
                )
                dy_functional = run_dygraph(
                    place,
                    logit_np,
                    label_np,
                    reduction=reduction,
                    functional=True,
                )
                expected = calc_bce_with_logits_loss(
                    logit_np, label_np, reduction
                )

                np.testing.assert_allclose(dy_result, expected, rtol=1e-05)
                np.testing.assert_allclose(dy_functional, expected, rtol=1e-05)

                static_result = run_static(
                    place, logit_np, label_np, reduction=reduction
                )
                static_functional = run_static(
                    place,
                    logit_np,
                    label_np,
                    reduction=reduction,
                    functional=True,
                )
                np.testing.assert_allclose(
                    static_result, expected, rtol=1e-05
                )
                np.testing.assert_allclose(
                    static_result, dy_result, rtol=1e-05
                )

                np.testing.assert_allclose(
                    static_functional, expected, rtol=1e-05
                )
                np.testing.assert_allclose(
                    static_functional, dy_functional, rtol=1e-05
                )

    def test_BCEWithLogitsLoss_weight(self):
        logit_np = np.random.uniform(0.1, 0.8, size=(2, 3, 4, 10)).astype(
            np.float64
        )
        label_np = np.random.randint(0, 2, size=(2, 3, 4, 10)).astype(
            np.float64
        )
        weight_np = np.random.random(size=(2, 3, 4, 10)).astype(np.float64)
        place = base.CPUPlace()
        for reduction in ['sum', 'mean', 'none']:
            dy_result = run_dygraph(
                place,
                logit_np,
                label_np,
                weight_np=weight_np,
                reduction=reduction,
            )
            expected = calc_bce_with_logits_loss(
                logit_np, label_np, reduction, weight_np=weight_np
            )
            dy_functional = run_dygraph(
                place,
                logit_np,
                label_np,
                weight_np=weight_np,
                reduction=reduction,
                functional=True,
            )
            np.testing.assert_allclose(dy_result, expected, rtol=1e-05)
            np.testing.assert_allclose(dy_functional, expected, rtol=1e-05)

            static_result = run_static(
                place,
                logit_np,
                label_np,
                weight_np=weight_np,
                reduction=reduction,
            )

            static_functional = run_static(
                place,
                logit_np,
                label_np,
                weight_np=weight_np,
                reduction=reduction,
                functional=True,
            )
            np.testing.assert_allclose(static_result, expected, rtol=1e-05)
            np.testing.assert_allclose(static_result, dy_result, rtol=1e-05)

            np.testing.assert_allclose(
                static_functional, expected, rtol=1e-05
            )
            np.testing.assert_allclose(
                static_functional, dy_functional, rtol=1e-05
            )

    def test_BCEWithLogitsLoss_pos_weight(self):
        logit_np = np.random.uniform(0.1, 0.8, size=(2, 3, 4, 10)).astype(
            np.float64
        )
        label_np = np.random.randint(0, 2, size=(2, 3, 4, 10)).astype(
            np.float64
        )
        pos_weight_np = np.random.random(size=(3, 4, 10)).astype(np.float64)
        weight_np = np.random.random(size=(2, 3, 4, 10)).astype(np.float64)
        place = base.CPUPlace()
        reduction = "mean"

        dy_result = run_dygraph(
            place, logit_np, label_np, weight_np, reduction, pos_weight_np
        )
        expected = calc_bce_with_logits_loss(
            logit_np, label_np, reduction, weight_np, pos_weight_np
        )
        dy_functional = run_dygraph(
            place,
            logit_np,
            label_np,
            weight_np,
            reduction,
            pos_weight_np,
            functional=True,
        )
        np.testing.assert_allclose(dy_result, expected, rtol=1e-05)
        np.testing.assert_allclose(dy_functional, expected, rtol=1e-05)

        static_result = run_static(
            place, logit_np, label_np, weight_np, reduction, pos_weight_np
        )
        static_functional = run_static(
            place,
            logit_np,
            label_np,
            weight_np,
            reduction,
            pos_weight_np,
            functional=True,
        )

        np.testing.assert_allclose(static_result, expected, rtol=1e-05)
        np.testing.assert_allclose(static_result, dy_result, rtol=1e-05)
        np.testing.assert_allclose(static_functional, expected, rtol=1e-05)
        np.testing.assert_allclose(
            static_functional, dy_functional, rtol=1e-05
        )

    def test_BCEWithLogitsLoss_error(self):
        paddle.disable_static()
        self.assertRaises(
            ValueError,
            paddle.nn.BCEWithLogitsLoss,
            reduction="unsupport reduction",
        )
        logit = paddle.to_tensor([[0.1, 0.3]], dtype='float32')
        label = paddle.to_tensor([[0.0, 1.0]], dtype='float32')
        self.assertRaises(
            ValueError,
            paddle.nn.functional.binary_cross_entropy_with_logits,
            logit=logit,
            label=label,
            reduction="unsupport reduction",
        )
        paddle.enable_static()


class TestBinaryCrossEntropyWithLogits(unittest.TestCase):
    def setUp(self):
        paddle.disable_static()  # Paddle's default mode, in which its file runs this class
        self.x = np.random.randn(10, 5).astype("float32")
        self.y = np.random.randint(0, 2, (10, 5)).astype("float32")
        self.logits = paddle.to_tensor(self.x)
        self.labels = paddle.to_tensor(self.y)
        self.weight = None
        self.reduction = ["none", "mean", "sum"]
        self.pos_weight = None

    def tearDown(self):
        paddle.enable_static()

    def test_binary_cross_entropy_with_logits(self):
        for reduction in self.reduction:
            dynamic_result = (
                paddle.nn.functional.binary_cross_entropy_with_logits(
                    self.logits,
                    self.labels,
                    weight=self.weight,
                    reduction=reduction,
                    pos_weight=self.pos_weight,
                )
            )
            static_result = paddle.jit.to_static(
                paddle.nn.functional.binary_cross_entropy_with_logits
            )(
                self.logits,
                self.labels,
                weight=self.weight,
                reduction=reduction,
                pos_weight=self.pos_weight,
            )
            self.assertTrue(
                np.allclose(dynamic_result.numpy(), static_result.numpy())
            )
            # added: the numbers themselves
            weight = None if self.weight is None else self.weight.numpy()
            pos_weight = None if self.pos_weight is None else self.pos_weight.numpy()
            np.testing.assert_allclose(
                dynamic_result.numpy(),
                weighted_bce_with_logits(self.x, self.y, reduction, weight, pos_weight),
                rtol=1e-5, atol=1e-6)


class TestBinaryCrossEntropyWithLogits1(TestBinaryCrossEntropyWithLogits):
    def setUp(self):
        super().setUp()
        self.weight = paddle.to_tensor(np.random.randn(10, 5).astype("float32"))


class TestBinaryCrossEntropyWithLogits2(TestBinaryCrossEntropyWithLogits):
    def setUp(self):
        super().setUp()
        self.pos_weight = paddle.to_tensor(np.random.randn(5).astype("float32"))


class TestBinaryCrossEntropyWithLogits3(TestBinaryCrossEntropyWithLogits):
    def setUp(self):
        super().setUp()
        self.weight = paddle.to_tensor(np.random.randn(10, 5).astype("float32"))
        self.pos_weight = paddle.to_tensor(np.random.randn(5).astype("float32"))


if __name__ == "__main__":
    unittest.main()
