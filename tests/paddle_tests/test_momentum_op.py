"""Port of Paddle test/legacy_test/test_momentum_op.py: the cases that go through
paddle.optimizer.Momentum in a static program.

Kept: TestMomentumV2.test_momentum and test_raise_error, TestMomentumOpWithDecayAPI.
test_momentum_static, TestFusedMomentumWithDecayAPI (how an L2Decay, the optimizer's or a
parameter's own, is folded into the momentum op while an L1Decay is appended as sign/scale/sum),
and TestMultiTensorMomentumStatic.test_main on CPU without AMP (use_multi_tensor=True and False
train to the same losses).

Dropped: the OpTest / Operator classes (TestMomentumOp1/2, TestLarsMomentumOp*,
TestSparseMomentumOp*, TestMomentumOpWithDecay*: fluidc's momentum op is checked against
Paddle's numbers in tests/test_optimizers_more.py), the dygraph cases (test_momentum_dygraph and
its Group subclass, test_momentum_dygraph_1, TestMomentumOpVsMomentumOpWithDecayAPI,
TestMultiTensorMomentumDygraph), AMP and CUDA variants.
Data: paddle.dataset.uci_housing -> book_data.uci_housing_train.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from . import book_data

paddle.enable_static()


def _train_uci_housing(make_optimizer):
    """fc regression on uci_housing, one sample per run, as TestMomentumV2 trains it."""
    place = paddle.CPUPlace()
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data(name='x', shape=[-1, 13], dtype='float32')
        y = paddle.static.data(name='y', shape=[-1, 1], dtype='float32')
        y_predict = paddle.static.nn.fc(x, size=1, activation=None)
        cost = paddle.nn.functional.square_error_cost(input=y_predict, label=y)
        avg_cost = paddle.mean(cost)

        make_optimizer().minimize(avg_cost)

        fetch_list = [avg_cost]
        train_reader = paddle.batch(book_data.uci_housing_train(), batch_size=1)
        feeder = fluid.DataFeeder(place=place, feed_list=[x, y])
        exe = paddle.static.Executor(place)
        exe.run(paddle.static.default_startup_program())
        for data in train_reader():
            exe.run(main, feed=feeder.feed(data), fetch_list=fetch_list)


class TestMomentumV2(unittest.TestCase):
    def test_momentum(self):
        _train_uci_housing(lambda: paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9))

    def test_raise_error(self):
        self.assertRaises(ValueError, paddle.optimizer.Momentum, learning_rate=None)
        self.assertRaises(ValueError, paddle.optimizer.Momentum, momentum=None)


class TestMomentumOpWithDecayAPI(unittest.TestCase):
    def test_momentum_static(self):
        _train_uci_housing(lambda: paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9))


class TestFusedMomentumWithDecayAPI(unittest.TestCase):
    def get_program(self, weight_attr, bias_attr=False):
        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program=main_program,
                                         startup_program=startup_program):
            x = paddle.static.data(name='x', shape=[10, 10])
            linear = paddle.nn.Linear(10, 10, weight_attr=weight_attr, bias_attr=bias_attr)
            out = linear(x)
            loss = paddle.mean(out)
            optimizer = paddle.optimizer.Momentum(
                learning_rate=0.01, momentum=0.9,
                weight_decay=paddle.regularizer.L2Decay(0.5))
            optimizer.minimize(loss)
        return main_program

    def test_param_has_l2decay(self):
        weight_attr = paddle.ParamAttr(name="weight",
                                       initializer=paddle.nn.initializer.Constant(value=0.5),
                                       regularizer=paddle.regularizer.L2Decay(0.1))
        program = self.get_program(weight_attr, bias_attr=False)
        ops = program.global_block().ops

        self.assertEqual(ops[-1].attr('regularization_method'), 'l2_decay')
        self.assertEqual(ops[-1].attr('regularization_coeff'), np.float32(0.1))
        for i in range(len(ops)):
            self.assertTrue('sum' not in ops[i].type)
            self.assertTrue('scale' not in ops[i].type)

    def test_param_has_l1decay(self):
        weight_attr = paddle.ParamAttr(name="weight",
                                       initializer=paddle.nn.initializer.Constant(value=0.5),
                                       regularizer=paddle.regularizer.L1Decay(0.1))
        bias_attr = paddle.ParamAttr(name="bias",
                                     initializer=paddle.nn.initializer.Constant(value=0.0),
                                     regularizer=None)
        program = self.get_program(weight_attr, bias_attr)
        ops = program.global_block().ops

        self.assertEqual(ops[-1].type, 'momentum')
        self.assertEqual(ops[-2].type, 'momentum')
        self.assertEqual(ops[-3].type, 'sum')
        self.assertEqual(ops[-4].type, 'scale')
        self.assertEqual(ops[-5].type, 'sign')
        self.assertEqual(ops[-6].type, 'matmul_v2_grad')
        if 'weight' in ops[-1].input('Param'):
            self.assertEqual(ops[-1].attr('regularization_method'), '')
            self.assertEqual(ops[-1].attr('regularization_coeff'), 0)
        if 'bias' in ops[-2].input('Param'):
            self.assertEqual(ops[-2].attr('regularization_method'), 'l2_decay')
            self.assertEqual(ops[-2].attr('regularization_coeff'), np.float32(0.5))

    def test_param_has_no_regularizer(self):
        program = self.get_program(weight_attr=None)
        ops = program.global_block().ops
        self.assertEqual(ops[-1].attr('regularization_method'), 'l2_decay')
        self.assertEqual(ops[-1].attr('regularization_coeff'), np.float32(0.5))
        for i in range(len(ops)):
            self.assertTrue('sum' not in ops[i].type)
            self.assertTrue('scale' not in ops[i].type)


class TestMultiTensorMomentumStatic(unittest.TestCase):
    def _momentum_optimize_static(self, place, use_amp=False, use_multi_tensor=False):
        paddle.seed(10)
        np.random.seed(10)
        exe = paddle.static.Executor(place=place)
        train_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        optimizer = paddle.optimizer.Momentum(multi_precision=use_amp,
                                              use_multi_tensor=use_multi_tensor)
        with paddle.static.program_guard(train_program, startup_program):
            data = paddle.static.data(shape=[2, 2], name='X', dtype='float32')
            hidden = paddle.static.nn.fc(x=data, size=10)
            loss = paddle.mean(hidden)
            optimizer.minimize(loss)
        exe.run(startup_program)
        x = np.random.random(size=(2, 2)).astype('float32')
        out = []
        for _ in range(5):
            (loss_data,) = exe.run(train_program, feed={"X": x}, fetch_list=[loss.name])
            out.append(loss_data)
        return out

    def _check_with_place_amp(self, place, use_amp):
        output1 = self._momentum_optimize_static(place=place, use_amp=use_amp,
                                                 use_multi_tensor=True)
        output2 = self._momentum_optimize_static(place=place, use_amp=use_amp,
                                                 use_multi_tensor=False)
        for idx in range(len(output1)):
            np.testing.assert_allclose(output1[idx], output2[idx], rtol=1e-05)

    def test_main(self):
        for place in ['cpu']:
            for use_amp in [False]:
                self._check_with_place_amp(place, use_amp)


if __name__ == "__main__":
    unittest.main()
