"""Port of Paddle test/legacy_test/test_rmsprop_op.py: the cases that go through
paddle.optimizer.RMSProp in a static program.

Kept: TestRMSPropV2.test_rmsprop (a Linear regression on uci_housing, one sample per run),
test_raise_error and test_rmsprop_op_invalid_input (argument checks, which do not depend on the
mode; the Linear whose parameters are passed is built in a static program).

Dropped: TestBase / TestRmspropOp (Operator runs on dense and SelectedRows gradients: fluidc's
rmsprop op is checked against Paddle's numbers in tests/test_optimizers_more.py), the dygraph
cases (test_rmsprop_dygraph, TestRMSPropV2Group, TestRMSOpMultiPrecison), the PIR run of
test_rmsprop (@test_with_pir_api), TestRMSPropMultiPrecision2_0 (CUDA AMP).
Data: paddle.dataset.uci_housing -> book_data.uci_housing_train.
"""
import unittest

import fluidc as fluid
import fluidc as paddle

from . import book_data

paddle.enable_static()


class TestRMSPropV2(unittest.TestCase):
    def test_rmsprop(self):
        place = paddle.CPUPlace()
        main = paddle.static.Program()
        startup = paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data(name='x', shape=[-1, 13], dtype='float32')
            y = paddle.static.data(name='y', shape=[-1, 1], dtype='float32')
            y_predict = paddle.nn.Linear(in_features=x.shape[-1], out_features=1)(x)
            cost = paddle.nn.functional.square_error_cost(input=y_predict, label=y)
            avg_cost = paddle.mean(cost)

            rms_optimizer = paddle.optimizer.RMSProp(learning_rate=0.1)
            rms_optimizer.minimize(avg_cost)

            fetch_list = [avg_cost]
            train_reader = paddle.batch(book_data.uci_housing_train(), batch_size=1)
            feeder = fluid.DataFeeder(place=place, feed_list=[x, y])
            exe = paddle.static.Executor(place)
            exe.run(startup)
            for data in train_reader():
                exe.run(main, feed=feeder.feed(data), fetch_list=fetch_list)

    def test_raise_error(self):
        self.assertRaises(ValueError, paddle.optimizer.RMSProp, None)
        self.assertRaises(ValueError, paddle.optimizer.RMSProp, learning_rate=0.1, rho=None)
        self.assertRaises(ValueError, paddle.optimizer.RMSProp, learning_rate=0.1,
                          epsilon=None)
        self.assertRaises(ValueError, paddle.optimizer.RMSProp, learning_rate=0.1,
                          momentum=None)

    def test_rmsprop_op_invalid_input(self):
        linear = paddle.nn.Linear(10, 10)
        with self.assertRaises(ValueError):
            paddle.optimizer.RMSProp(0.1, epsilon=-1, parameters=linear.parameters())
        with self.assertRaises(ValueError):
            paddle.optimizer.RMSProp(0.1, momentum=-1, parameters=linear.parameters())
        with self.assertRaises(ValueError):
            paddle.optimizer.RMSProp(0.1, rho=-1, parameters=linear.parameters())


if __name__ == "__main__":
    unittest.main()
