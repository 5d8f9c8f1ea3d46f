"""Port of Paddle test/legacy_test/test_lamb_op.py: the lamb op.

Kept: TestLambOp1 / 2 / 3 and TestLambOpMultipleSteps (10 steps, each step's outputs fed to the
next): the op appended to a Program's block with its inputs fed, as OpTest runs it, every
output against the file's lamb_step (OpTest's float32 tolerance, atol 1e-5).
Dropped: the FP16 / BF16 cases (float16 / bfloat16 lamb runs on CUDA in Paddle's test; here
float32 only), TestSparseLambOp (SelectedRows through core.Scope / Operator), the
static multi-precision cases (CUDA).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()

OUTPUTS = ('Moment1Out', 'Moment2Out', 'ParamOut', 'Beta1PowOut', 'Beta2PowOut')


def run_lamb_op(inputs, attrs):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        ins = {slot: paddle.static.data(slot.lower(), list(v.shape), str(v.dtype))
               for slot, v in inputs.items()}
        outs = {name: block.create_var(name=name.lower(), dtype='float32') for name in OUTPUTS}
        block.append_op(type='lamb', inputs=ins, outputs=outs, attrs=attrs)
        exe = paddle.static.Executor(paddle.CPUPlace())
        got = exe.run(main, feed={s.lower(): v for s, v in inputs.items()},
                      fetch_list=list(outs.values()))
    return dict(zip(outs, got))


class TestLambOp1(unittest.TestCase):
    def set_attrs(self):
        self.attrs = {'epsilon': 1e-4, 'beta1': 0.78, 'beta2': 0.836, 'weight_decay': 0.01,
                      'always_adapt': False}

    def set_dtype(self):
        self.dtype = np.float32

    def setUp(self):
        '''Test Lamb Op with supplied attributes'''
        self.op_type = "lamb"
        self.set_dtype()

        param = np.random.uniform(-1, 1, (102, 105)).astype(self.dtype)
        grad = np.random.uniform(-1, 1, (102, 105)).astype(self.dtype)
        moment1 = np.random.uniform(-1, 1, (102, 105)).astype(self.dtype)
        moment2 = np.random.random((102, 105)).astype(self.dtype)

        learning_rate = 0.001
        self.set_attrs()

        beta1_pow = self.attrs['beta1']
        beta2_pow = self.attrs['beta2']

        self.inputs = {
            'Param': param,
            'Grad': grad,
            'Moment1': moment1,
            'Moment2': moment2,
            'LearningRate': np.array([learning_rate]).astype(self.dtype),
            'Beta1Pow': np.array([beta1_pow]).astype(self.dtype),
            'Beta2Pow': np.array([beta2_pow]).astype(self.dtype),
        }

        self.outputs = dict(zip(('ParamOut', 'Moment1Out', 'Moment2Out', 'Beta1PowOut',
                                 'Beta2PowOut'), lamb_step(self.inputs, self.attrs)))

    def check_output(self):
        got = run_lamb_op(self.inputs, self.attrs)
        for name, want in self.outputs.items():
            np.testing.assert_allclose(got[name].reshape(np.shape(want)), want, rtol=1e-5,
                                       atol=1e-5, err_msg=name)

    def test_check_output(self):
        self.check_output()


class TestLambOp2(TestLambOp1):
    def set_attrs(self):
        self.attrs = {'epsilon': 1e-8, 'beta1': 0.9, 'beta2': 0.999, 'weight_decay': 0.01,
                      'always_adapt': False}


class TestLambOp3(TestLambOp1):
    def set_attrs(self):
        self.attrs = {'epsilon': 1e-8, 'beta1': 0.9, 'beta2': 0.999, 'weight_decay': 0.0,
                      'always_adapt': False}


class TestLambOpMultipleSteps(TestLambOp1):
    def set_attrs(self):
        self.attrs = {'epsilon': 1e-8, 'beta1': 0.9, 'beta2': 0.999, 'weight_decay': 0.01,
                      'always_adapt': False}
        self.num_steps = 10

    def test_check_output(self):
        for i in range(self.num_steps):
            (param_out, moment1_out, moment2_out, beta1_pow_out,
             beta2_pow_out) = lamb_step(self.inputs, self.attrs)

            self.outputs = {
                'Moment1Out': moment1_out,
                'Moment2Out': moment2_out,
                'ParamOut': param_out,
                'Beta1PowOut': beta1_pow_out,
                'Beta2PowOut': beta2_pow_out,
            }

            # Verify output for this step
            self.check_output()

            # Output of this step becomes input for next step
            self.inputs['Param'] = param_out
            self.inputs['Moment1'] = moment1_out
            self.inputs['Moment2'] = moment2_out

            # Update powers of Beta1 and Beta2 for next time step
            self.inputs['Beta1Pow'] = beta1_pow_out
            self.inputs['Beta2Pow'] = beta2_pow_out

            # Randomize gradient for next step
            self.inputs['Grad'] = np.random.uniform(-1, 1, (102, 105)).astype(self.dtype)


def lamb_step(inputs, attributes):
    '''
    Simulate one step of the lamb optimizer
    :param inputs: dict of inputs
    :param attributes: dict of attributes
    :return tuple: tuple of output param, moment1, moment2,
    beta1 power accumulator and beta2 power accumulator
    '''
    param = inputs['Param']
    grad = inputs['Grad']
    moment1 = inputs['Moment1']
    moment2 = inputs['Moment2']
    lr = inputs['LearningRate']
    beta1_pow = inputs['Beta1Pow']
    beta2_pow = inputs['Beta2Pow']

    beta1 = attributes['beta1']
    beta2 = attributes['beta2']
    epsilon = attributes['epsilon']
    weight_decay = attributes['weight_decay']
    always_adapt = attributes['always_adapt']

    moment1_out = beta1 * moment1 + (1 - beta1) * grad
    moment2_out = beta2 * moment2 + (1 - beta2) * np.square(grad)

    moment1_unbiased = moment1_out / (1 - beta1_pow)
    moment2_unbiased = moment2_out / (1 - beta2_pow)

    if weight_decay > 0 or always_adapt:
        r_1 = np.linalg.norm(param)
        r_2 = np.linalg.norm(moment1_unbiased / (np.sqrt(moment2_unbiased) + epsilon)
                             + weight_decay * param)
        lr_t = lr * r_1 / r_2
    else:
        lr_t = lr

    param_out = param - lr_t * (moment1_unbiased / (np.sqrt(moment2_unbiased) + epsilon)
                                + weight_decay * param)

    beta1_pow_out = beta1_pow * beta1
    beta2_pow_out = beta2_pow * beta2

    return param_out, moment1_out, moment2_out, beta1_pow_out, beta2_pow_out


if __name__ == "__main__":
    unittest.main()
