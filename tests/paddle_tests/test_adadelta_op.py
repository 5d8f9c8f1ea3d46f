"""Port of Paddle test/legacy_test/test_adadelta_op.py: the adadelta op and
paddle.optimizer.Adadelta.

Kept: TestAdadeltaOp1 / TestAdadeltaOp2 (the op appended to a Program's block with Param / Grad /
AvgSquaredGrad / AvgSquaredUpdate / LearningRate fed, as OpTest runs it: the three outputs
against the file's formulas), TestAdadeltaV2 (a dygraph step with weight_decay, static training
of fc + square_error_cost fed by a DataFeeder, the ValueErrors for learning_rate / rho / epsilon
None), TestAdadeltaV2Group (parameter groups with a group's own weight_decay),
TestAdadeltaOpMultiPrecision on the CPU without AMP (two dygraph steps with weight_decay).
Added (fluidc): the op with a learning rate other than 1 (Paddle's kernel scales the update by
it), and three static steps of fc + mean checked against Adadelta in numpy from the fetched
parameters and gradients.
Dropped: the AMP / multi-precision cases (CUDA, O2 decoration; TestAdadeltaMultiPrecision2_0
runs on GPU only).
Data: paddle.dataset.uci_housing -> book_data.uci_housing_train.
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

from . import book_data

base = fluid

paddle.enable_static()


def run_adadelta_op(inputs, attrs):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        ins = {slot: paddle.static.data(slot.lower(), list(v.shape), str(v.dtype))
               for slot, v in inputs.items()}
        outs = {name: block.create_var(name=name.lower(), dtype='float32')
                for name in ('ParamOut', 'AvgSquaredGradOut', 'AvgSquaredUpdateOut')}
        block.append_op(type='adadelta', inputs=ins, outputs=outs, attrs=attrs)
        exe = paddle.static.Executor(paddle.CPUPlace())
        got = exe.run(main, feed={s.lower(): v for s, v in inputs.items()},
                      fetch_list=list(outs.values()))
    return dict(zip(outs, got))


def adadelta_step(param, grad, avg_squared_grad, avg_squared_update, lr, rho, epsilon):
    avg_squared_grad_out = rho * avg_squared_grad + (1 - rho) * np.square(grad)
    update = -np.multiply(
        np.sqrt(np.divide(avg_squared_update + epsilon, avg_squared_grad_out + epsilon)),
        grad,
    )
    avg_squared_update_out = rho * avg_squared_update + (1 - rho) * np.square(update)
    return param + lr * update, avg_squared_grad_out, avg_squared_update_out


class TestAdadeltaOp1(unittest.TestCase):
    def setUp(self):
        self.op_type = "adadelta"
        param = np.random.uniform(-1, 1, (102, 105)).astype("float32")
        grad = np.random.uniform(-1, 1, (102, 105)).astype("float32")
        # The squared gradient is positive
        avg_squared_grad = np.random.random((102, 105)).astype("float32")
        # The squared update is positive
        avg_squared_update = np.random.random((102, 105)).astype("float32")

        rho = 0.95
        epsilon = 1e-6

        learning_rate = 1.0
        self.inputs = {
            'Param': param,
            'Grad': grad,
            'AvgSquaredGrad': avg_squared_grad,
            'AvgSquaredUpdate': avg_squared_update,
            'LearningRate': np.array([learning_rate]).astype("float32"),
        }

        self.attrs = {'rho': rho, 'epsilon': epsilon}

        avg_squared_grad_out = rho * avg_squared_grad + (1 - rho) * np.square(
            grad
        )
        update = -np.multiply(
            np.sqrt(
                np.divide(
                    avg_squared_update + epsilon, avg_squared_grad_out + epsilon
                )
            ),
            grad,
        )

        avg_squared_update_out = rho * avg_squared_update + (
            1 - rho
        ) * np.square(update)

        param_out = param + update

        self.outputs = {
            'ParamOut': param_out,
            'AvgSquaredGradOut': avg_squared_grad_out,
            'AvgSquaredUpdateOut': avg_squared_update_out,
        }

    def test_check_output(self):
        got = run_adadelta_op(self.inputs, self.attrs)
        for name, want in self.outputs.items():
            np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-6, err_msg=name)


class TestAdadeltaOp2(TestAdadeltaOp1):
    '''Test Adadelta op with default attribute values'''

    def setUp(self):
        super().setUp()
        self.attrs = {}  # rho 0.95, epsilon 1e-6: the defaults


class TestAdadeltaOpLearningRate(TestAdadeltaOp1):
    '''Added: the update scaled by LearningRate, rho 0.9'''

    def setUp(self):
        super().setUp()
        self.inputs['LearningRate'] = np.array([0.3], 'float32')
        self.attrs = {'rho': 0.9, 'epsilon': 1e-5}
        outs = adadelta_step(*(self.inputs[s] for s in (
            'Param', 'Grad', 'AvgSquaredGrad', 'AvgSquaredUpdate')), 0.3, 0.9, 1e-5)
        self.outputs = dict(zip(('ParamOut', 'AvgSquaredGradOut', 'AvgSquaredUpdateOut'),
                                outs))


class TestAdadeltaV2(unittest.TestCase):
    def test_adadelta_dygraph(self):
        paddle.disable_static(paddle.CPUPlace())
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear = paddle.nn.Linear(13, 5)
        # This can be any optimizer supported by dygraph.
        adam = paddle.optimizer.Adadelta(
            learning_rate=0.01,
            parameters=linear.parameters(),
            weight_decay=0.01,
        )
        out = linear(a)
        out.backward()
        adam.step()
        adam.clear_gradients()

    def test_adadelta(self):
        paddle.enable_static()
        place = base.CPUPlace()
        main = base.Program()
        with base.program_guard(main):
            x = paddle.static.data(name='x', shape=[-1, 13], dtype='float32')
            y = paddle.static.data(name='y', shape=[-1, 1], dtype='float32')
            y_predict = paddle.static.nn.fc(x, size=1)
            cost = paddle.nn.functional.square_error_cost(
                input=y_predict, label=y
            )
            avg_cost = paddle.mean(cost)

            rms_optimizer = paddle.optimizer.Adadelta(learning_rate=0.1)
            rms_optimizer.minimize(avg_cost)

            fetch_list = [avg_cost]
            train_reader = paddle.batch(
                book_data.uci_housing_train(), batch_size=1
            )
            feeder = base.DataFeeder(place=place, feed_list=[x, y])
            exe = base.Executor(place)
            exe.run(base.default_startup_program())
            for data in train_reader():
                exe.run(main, feed=feeder.feed(data), fetch_list=fetch_list)

    def test_raise_error(self):
        self.assertRaises(ValueError, paddle.optimizer.Adadelta, None)
        self.assertRaises(
            ValueError, paddle.optimizer.Adadelta, learning_rate=0.1, rho=None
        )
        self.assertRaises(
            ValueError,
            paddle.optimizer.Adadelta,
            learning_rate=0.1,
            epsilon=None,
        )


class TestAdadeltaV2Group(TestAdadeltaV2):
    def test_adadelta_dygraph(self):
        paddle.disable_static(paddle.CPUPlace())
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear_1 = paddle.nn.Linear(13, 5)
        linear_2 = paddle.nn.Linear(5, 5)
        # This can be any optimizer supported by dygraph.
        adam = paddle.optimizer.Adadelta(
            learning_rate=0.01,
            parameters=[
                {'params': linear_1.parameters()},
                {
                    'params': linear_2.parameters(),
                    'weight_decay': 0.001,
                },
            ],
            weight_decay=0.1,
        )
        out = linear_1(a)
        out = linear_2(out)
        out.backward()
        adam.step()
        adam.clear_gradients()


class TestAdadeltaOpMultiPrecision(unittest.TestCase):
    def _test_adadelta_op_dygraph_place_amp(self, place, use_amp=False):
        paddle.disable_static()
        paddle.seed(10)
        paddle.set_device(place)
        input = paddle.randn((5, 5))

        model = paddle.nn.Linear(5, 5)
        optimizer = paddle.optimizer.Adadelta(
            learning_rate=0.01,
            parameters=model.parameters(),
            weight_decay=0.1,
        )

        for idx in range(2):
            output = model(input)
            loss = paddle.mean(output)
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
        paddle.enable_static()

    def test_main(self):
        # the CPU place without AMP (Paddle's file adds the GPU and use_amp=True there)
        self._test_adadelta_op_dygraph_place_amp('cpu', False)


class TestAdadeltaStaticSteps(unittest.TestCase):
    '''Added: three static steps against Adadelta in numpy (lr 0.5, rho 0.9, epsilon 1e-4)'''

    def test_steps(self):
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data(name='x', shape=[-1, 4], dtype='float32')
            out = paddle.static.nn.fc(x, size=3)
            loss = paddle.mean(out * out)
            opt = paddle.optimizer.Adadelta(learning_rate=0.5, epsilon=1e-4, rho=0.9)
            _, params_grads = opt.minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        scope = paddle.static.global_scope()
        names = [p.name for p, _ in params_grads]
        state = {n: np.array(scope.find_var(n).get_tensor()) for n in names}
        avg_g = {n: np.zeros_like(v) for n, v in state.items()}
        avg_u = {n: np.zeros_like(v) for n, v in state.items()}
        rng = np.random.RandomState(3)
        for _ in range(3):
            feed = {'x': rng.uniform(-1, 1, (6, 4)).astype('float32')}
            grads = exe.run(main, feed=feed, fetch_list=[g for _, g in params_grads])
            for n, g in zip(names, grads):
                state[n], avg_g[n], avg_u[n] = adadelta_step(
                    state[n], g, avg_g[n], avg_u[n], 0.5, 0.9, 1e-4)
                np.testing.assert_allclose(np.array(scope.find_var(n).get_tensor()), state[n],
                                           rtol=1e-5, atol=1e-6, err_msg=n)


if __name__ == "__main__":
    unittest.main()
