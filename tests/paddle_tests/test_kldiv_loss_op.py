"""Port of Paddle test/legacy_test/test_kldiv_loss_op.py: F.kl_div and nn.KLDivLoss against the
file's numpy kldiv_loss (`run-on-paddle: pir`: Paddle 3.3.1 builds kl_div on PIR programs only,
as test_layers_book_pir.py's make_kldiv_loss).

Kept: the forward of TestKLDivLossOp / 2 / 3 / 4 (the kldiv_loss op's Loss for reductions
batchmean / none / mean / sum, float64, targets in [-10, 10] so that negative ones give 0) through
F.kl_div in a static program; TestKLDivLossDygraph (nn.KLDivLoss for each reduction, a 0-d
input with batchmean, the static API built); TestKLDivLossTypePromotion (float32 with float64).
paddle.base.dygraph.guard() is written fluid.dygraph.guard() (fluid is Paddle 3.x's base).
Dropped: the gradient checks (OpTest's check_grad).
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid


def kldiv_loss(x, target, reduction):
    with np.errstate(invalid='ignore'):  # log of the negative targets, masked below
        output = target * (np.log(target) - x)
    loss = np.where(target >= 0, output, np.zeros_like(x))

    if reduction == "batchmean":
        if len(x.shape) > 0:
            return loss.sum() / x.shape[0]
        else:
            return loss.sum()
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()

    return loss


class TestKLDivLossOp(unittest.TestCase):
    def setUp(self):
        self.initTestCase()
        self.op_type = 'kldiv_loss'
        self.python_api = paddle.nn.functional.kl_div
        x = np.random.uniform(-10, 10, self.x_shape).astype('float64')
        target = np.random.uniform(-10, 10, self.x_shape).astype('float64')

        self.attrs = {"reduction": self.reduction}

        self.inputs = {
            'X': x,
            'Target': target,
        }
        loss = kldiv_loss(x, target, self.reduction)
        self.outputs = {'Loss': loss.astype('float64')}

    def test_check_output(self):
        # OpTest's check_output: the op through its python_api in a static program
        paddle.enable_static()
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.x_shape), 'float64')
            target = paddle.static.data('target', list(self.x_shape), 'float64')
            loss = self.python_api(x, target, self.attrs['reduction'])
            exe = paddle.static.Executor(paddle.CPUPlace())
            (got,) = exe.run(main, feed={'x': self.inputs['X'],
                                         'target': self.inputs['Target']},
                             fetch_list=[loss])
        np.testing.assert_allclose(got, self.outputs['Loss'], rtol=1e-7, atol=1e-7)

    def initTestCase(self):
        self.x_shape = (4, 5, 5)
        self.reduction = 'batchmean'


class TestKLDivLossOp2(TestKLDivLossOp):
    def initTestCase(self):
        self.x_shape = (3, 2, 7, 7)
        self.reduction = 'none'


class TestKLDivLossOp3(TestKLDivLossOp):
    def initTestCase(self):
        self.x_shape = (2, 3, 5, 7, 9)
        self.reduction = 'mean'


class TestKLDivLossOp4(TestKLDivLossOp):
    def initTestCase(self):
        self.x_shape = (5, 20)
        self.reduction = 'sum'


class TestKLDivLossDygraph(unittest.TestCase):
    def run_kl_loss(self, reduction, shape=(5, 20)):
        x = np.random.uniform(-10, 10, shape).astype('float64')
        target = np.random.uniform(-10, 10, shape).astype('float64')
        gt_loss = kldiv_loss(x, target, reduction)

        with fluid.dygraph.guard():
            kldiv_criterion = paddle.nn.KLDivLoss(reduction)
            pred_loss = kldiv_criterion(
                paddle.to_tensor(x), paddle.to_tensor(target)
            )
            np.testing.assert_allclose(pred_loss.numpy(), gt_loss, rtol=1e-05)

    def test_kl_loss_batchmean(self):
        self.run_kl_loss('batchmean')

    def test_kl_loss_batchmean_shape(self):
        self.run_kl_loss('batchmean', ())

    def test_kl_loss_mean(self):
        self.run_kl_loss('mean')

    def test_kl_loss_sum(self):
        self.run_kl_loss('sum')

    def test_kl_loss_none(self):
        self.run_kl_loss('none')

    def test_kl_loss_static_api(self):
        paddle.enable_static()
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            input = paddle.static.data(name='input', shape=[5, 20])
            label = paddle.static.data(name='label', shape=[5, 20])

            paddle.nn.functional.kl_div(input, label)
            paddle.nn.functional.kl_div(input, label, 'sum')
            paddle.nn.functional.kl_div(input, label, 'batchmean')


class TestKLDivLossTypePromotion(unittest.TestCase):
    def test_kl_div_promotion(self):
        with fluid.dygraph.guard():
            x1 = paddle.rand([5, 20], dtype='float32')
            target1 = paddle.rand([5, 20], dtype='float64')

            kldiv_criterion = paddle.nn.KLDivLoss()
            pred_loss1 = kldiv_criterion(x1, target1)

            x2 = paddle.rand([5, 20], dtype='float64')
            target2 = paddle.rand([5, 20], dtype='float32')
            pred_loss2 = paddle.nn.functional.kl_div(x2, target2)


if __name__ == "__main__":
    unittest.main()
