"""Port of Paddle test/legacy_test/test_adam_op.py: the cases that go through paddle.optimizer.Adam
in a static program.

Kept: TestAdamOpV2.test_adam_op (Adam with beta1/beta2 given as global vars, and weight decay, on
a conv net), TestAdamOpV2.test_adam_op_invalid_input (argument checks, which do not depend on the
mode; the Linear whose parameters are passed is built in a static program), and the static half
of TestMultiTensorAdam.test_main (use_multi_tensor=True and False train to the same losses).

Dropped: the OpTest / Operator classes (TestAdamOp1, TestAdamOp2, TestAdamOnlyTailOp,
TestAdamOpMultipleSteps, TestSparseAdamOp, TestAdamOpBetaVariable,
TestAdamOpBetaEpsilonVariable, TestAdamOpWithGlobalBetaPow, TestAdamOpWithSkipUpdate: fluidc's
adam op is checked against Paddle's numbers in tests/test_optimizers_more.py), test_pir_adam_op,
the dygraph cases of TestAdamOpV2 and TestAdamOpV2Group, TestMultiTensorAdam's dygraph and AMP
halves, CUDA places.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

paddle.enable_static()


class TestAdamOpV2(unittest.TestCase):
    def test_adam_op(self):
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
                opt = paddle.optimizer.Adam(learning_rate=1e-5, beta1=beta1, beta2=beta2,
                                            weight_decay=0.01, epsilon=1e-8)
                opt.minimize(loss)

        exe.run(startup)
        data_np = np.random.random(shape).astype('float32')
        rets = exe.run(train_prog, feed={"data": data_np}, fetch_list=[loss])
        assert rets[0] is not None

    def test_adam_op_invalid_input(self):
        linear = paddle.nn.Linear(10, 10)
        with self.assertRaises(ValueError):
            paddle.optimizer.Adam(0.1, beta1=-1, parameters=linear.parameters())
        with self.assertRaises(ValueError):
            paddle.optimizer.Adam(0.1, beta2=-1, parameters=linear.parameters())
        with self.assertRaises(ValueError):
            paddle.optimizer.Adam(0.1, epsilon=-1, parameters=linear.parameters())


class TestMultiTensorAdam(unittest.TestCase):
    def _adam_optimize_static(self, place, use_amp=False, use_multi_tensor=False):
        paddle.seed(10)
        np.random.seed(10)
        exe = paddle.static.Executor(place=place)
        train_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        optimizer = paddle.optimizer.Adam(multi_precision=use_amp,
                                          use_multi_tensor=use_multi_tensor)
        with paddle.static.program_guard(train_program, startup_program):
            data = paddle.static.data(shape=[2, 2], name='X', dtype='float32')
            hidden_layer = paddle.nn.Linear(2, 10)
            hidden = hidden_layer(data)
            loss = paddle.mean(hidden)
            optimizer.minimize(loss)
        exe.run(startup_program)
        x = np.random.random(size=(2, 2)).astype('float32')
        out = []
        for _ in range(5):
            (loss_data,) = exe.run(train_program, feed={"X": x}, fetch_list=[loss])
            out.append(loss_data)
        return out

    def _check_with_place_amp(self, place, use_amp):
        output_static1 = self._adam_optimize_static(place=place, use_amp=use_amp,
                                                    use_multi_tensor=True)
        output_static2 = self._adam_optimize_static(place=place, use_amp=use_amp,
                                                    use_multi_tensor=False)
        for idx in range(len(output_static1)):
            np.testing.assert_allclose(output_static1[idx], output_static2[idx], rtol=1e-05)

    def test_main(self):
        for place in ['cpu']:
            for use_amp in [False]:
                self._check_with_place_amp(place, use_amp)


if __name__ == "__main__":
    unittest.main()
