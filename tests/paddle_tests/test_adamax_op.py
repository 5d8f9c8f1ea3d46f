"""Port of Paddle test/legacy_test/test_adamax_op.py: the adamax op and
paddle.optimizer.Adamax.

Kept: TestAdamaxOp1 / TestAdamaxOp2 (the op appended to a Program's block with Param / Grad /
Moment / InfNorm / LearningRate / Beta1Pow fed, as OpTest runs it: the three outputs against the
file's adamax_step), TestAdamaxOpMultipleSteps (10 chained steps, each checked), TestAdamaxOpV2
(the ValueErrors for a negative beta1 / beta2 / epsilon), TestAdamaxOpMultiPrecision on the CPU
without AMP (two dygraph steps).
Dropped: TestAdamaxMultiPrecision2_0 (GPU only: AMP O2 decoration, float16).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()

OUTS = ('ParamOut', 'MomentOut', 'InfNormOut')


def run_adamax_op(inputs, attrs):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        ins = {slot: paddle.static.data(slot.lower(), list(v.shape), str(v.dtype))
               for slot, v in inputs.items()}
        outs = {name: block.create_var(name=name.lower(), dtype='float32') for name in OUTS}
        block.append_op(type='adamax', inputs=ins, outputs=outs, attrs=attrs)
        exe = paddle.static.Executor(paddle.CPUPlace())
        got = exe.run(main, feed={s.lower(): v for s, v in inputs.items()},
                      fetch_list=list(outs.values()))
    return dict(zip(outs, got))


class OpCase(unittest.TestCase):
    def check_output(self):
        got = run_adamax_op(self.inputs, self.attrs)
        for name, want in self.outputs.items():
            np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-6, err_msg=name)


class TestAdamaxOp1(OpCase):
    def setUp(self):
        '''Test Adamax Operator with supplied attributes'''
        self.op_type = "adamax"
        param = np.random.uniform(-1, 1, (102, 105)).astype("float32")
        grad = np.random.uniform(-1, 1, (102, 105)).astype("float32")
        moment = np.random.uniform(-1, 1, (102, 105)).astype("float32")
        # The infinity norm is positive
        inf_norm = np.random.random((102, 105)).astype("float32")

        learning_rate = 0.002
        beta1 = 0.78
        beta2 = 0.899
        epsilon = 1e-5
        beta1_pow = beta1**10

        self.inputs = {
            'Param': param,
            'Grad': grad,
            'Moment': moment,
            'InfNorm': inf_norm,
            'LearningRate': np.array([learning_rate]).astype("float32"),
            'Beta1Pow': np.array([beta1_pow]).astype("float32"),
        }

        self.attrs = {'beta1': beta1, 'beta2': beta2, 'epsilon': epsilon}

        param_out, moment_out, inf_norm_out = adamax_step(
            self.inputs, self.attrs
        )

        self.outputs = {
            'ParamOut': param_out,
            'MomentOut': moment_out,
            'InfNormOut': inf_norm_out,
        }

    def test_check_output(self):
        self.check_output()


class TestAdamaxOp2(OpCase):
    '''Test Adamax Operator with default attributes'''

    def setUp(self):
        self.op_type = "adamax"
        param = np.random.uniform(-1, 1, (102, 105)).astype("float32")
        grad = np.random.uniform(-1, 1, (102, 105)).astype("float32")
        moment = np.random.uniform(-1, 1, (102, 105)).astype("float32")
        # The infinity norm is positive
        inf_norm = np.random.random((102, 105)).astype("float32")

        learning_rate = 0.002
        beta1 = 0.9
        beta2 = 0.999
        epsilon = 1e-8
        beta1_pow = beta1**8

        self.inputs = {
            'Param': param,
            'Grad': grad,
            'Moment': moment,
            'InfNorm': inf_norm,
            'LearningRate': np.array([learning_rate]).astype("float32"),
            'Beta1Pow': np.array([beta1_pow]).astype("float32"),
        }

        attrs = {'beta1': beta1, 'beta2': beta2, 'epsilon': epsilon}
        param_out, moment_out, inf_norm_out = adamax_step(self.inputs, attrs)
        self.attrs = {}  # the op's defaults are these attrs

        self.outputs = {
            'ParamOut': param_out,
            'MomentOut': moment_out,
            'InfNormOut': inf_norm_out,
        }

    def test_check_output(self):
        self.check_output()


class TestAdamaxOpMultipleSteps(OpCase):
    def setUp(self):
        '''Test Adamax Operator with supplied attributes'''
        self.op_type = "adamax"
        self.num_steps = 10

        param = np.random.uniform(-1, 1, (102, 105)).astype("float32")
        grad = np.random.uniform(-1, 1, (102, 105)).astype("float32")
        moment = np.random.uniform(-1, 1, (102, 105)).astype("float32")
        # The infinity norm is positive
        inf_norm = np.random.random((102, 105)).astype("float32")

        learning_rate = 0.002
        beta1 = 0.8
        beta2 = 0.99
        epsilon = 1e-5
        beta1_pow = 1

        self.inputs = {
            'Param': param,
            'Grad': grad,
            'Moment': moment,
            'InfNorm': inf_norm,
            'LearningRate': np.array([learning_rate]).astype("float32"),
            'Beta1Pow': np.array([beta1_pow]).astype("float32"),
        }

        self.attrs = {'beta1': beta1, 'beta2': beta2, 'epsilon': epsilon}

    def test_check_output(self):
        for _ in range(self.num_steps):
            param_out, moment_out, inf_norm_out = adamax_step(
                self.inputs, self.attrs
            )

            self.outputs = {
                'ParamOut': param_out,
                'MomentOut': moment_out,
                'InfNormOut': inf_norm_out,
            }

            # Verify output for this step
            self.check_output()

            # Output of this step becomes input for next step
            self.inputs['Param'] = param_out
            self.inputs['Moment'] = moment_out
            self.inputs['InfNorm'] = inf_norm_out

            # Update Beta1 Power accumulator for next step
            self.inputs['Beta1Pow'] *= self.attrs['beta1']

            # Randomize gradient for next step
            self.inputs['Grad'] = np.random.uniform(-1, 1, (102, 105)).astype(
                "float32"
            )


def adamax_step(inputs, attributes):
    '''
    Simulate one step of the adamax optimizer
    :param inputs: dict of inputs
    :param attributes: dict of attributes
    :return tuple: tuple of output param, moment, inf_norm and
    beta1 power accumulator
    '''
    param = inputs['Param']
    grad = inputs['Grad']
    moment = inputs['Moment']
    inf_norm = inputs['InfNorm']
    lr = inputs['LearningRate']
    beta1_pow = inputs['Beta1Pow']

    beta1 = attributes['beta1']
    beta2 = attributes['beta2']
    epsilon = attributes['epsilon']

    moment_out = beta1 * moment + (1 - beta1) * grad
    inf_norm_out = np.maximum(beta2 * inf_norm + epsilon, np.abs(grad))
    lr_t = lr / (1 - beta1_pow)
    param_out = param - lr_t * np.divide(moment_out, inf_norm_out)

    return param_out, moment_out, inf_norm_out


class TestAdamaxOpV2(unittest.TestCase):
    def test_adamax_op_invalid_input(self):
        paddle.disable_static()
        linear = paddle.nn.Linear(10, 10)
        with self.assertRaises(ValueError):
            adam = paddle.optimizer.Adamax(
                0.1, beta1=-1, parameters=linear.parameters()
            )
        with self.assertRaises(ValueError):
            adam = paddle.optimizer.Adamax(
                0.1, beta2=-1, parameters=linear.parameters()
            )
        with self.assertRaises(ValueError):
            adam = paddle.optimizer.Adamax(
                0.1, epsilon=-1, parameters=linear.parameters()
            )
        paddle.enable_static()


class TestAdamaxOpMultiPrecision(unittest.TestCase):
    def _test_adamax_op_dygraph_place_amp(self, place, use_amp=False):
        paddle.disable_static()
        paddle.seed(10)
        paddle.set_device(place)
        input = paddle.randn((5, 5))

        model = paddle.nn.Linear(5, 5)
        optimizer = paddle.optimizer.Adamax(
            0.1, beta1=0.1, parameters=model.parameters()
        )
        for idx in range(2):
            output = model(input)
            loss = paddle.mean(output)
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
        paddle.enable_static()

    def test_main(self):
        # the CPU place without AMP (Paddle's file adds use_amp=True, which is a no-op there)
        self._test_adamax_op_dygraph_place_amp('cpu', False)


if __name__ == "__main__":
    unittest.main()
