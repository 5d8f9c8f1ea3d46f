"""Port of Paddle test/legacy_test/test_adagrad_op.py: the adagrad op and
paddle.optimizer.Adagrad.

Kept: TestAdagradOp1 / TestAdagradOp2 (the op appended to a Program's block with Param / Grad /
Moment / LearningRate fed, as OpTest runs it: ParamOut and MomentOut against the file's
formulas), TestAdagradOpMultiPrecision on the CPU without AMP (two dygraph steps of a Linear).
Added (fluidc): those two steps checked against Adagrad in numpy.
Dropped: TestSparseAdagradOp (SelectedRows through core.Scope / Operator), the AMP and
multi-precision cases (CUDA, O2 decoration), TestAdagradLrDecay (lr_decay: Paddle 3.3.1's
Adagrad has no such argument).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


def run_adagrad_op(inputs, attrs):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        ins = {slot: paddle.static.data(slot.lower(), list(v.shape), str(v.dtype))
               for slot, v in inputs.items()}
        outs = {name: block.create_var(name=name.lower(), dtype='float32')
                for name in ('ParamOut', 'MomentOut')}
        block.append_op(type='adagrad', inputs=ins, outputs=outs, attrs=attrs)
        exe = paddle.static.Executor(paddle.CPUPlace())
        got = exe.run(main, feed={s.lower(): v for s, v in inputs.items()},
                      fetch_list=list(outs.values()))
    return dict(zip(outs, got))


class TestAdagradOp1(unittest.TestCase):
    '''Test Adagrad operator with explicit attributes'''

    def setUp(self):
        self.op_type = "adagrad"
        param = np.random.random((123, 321)).astype("float32")
        grad = np.random.random((123, 321)).astype("float32")
        moment = np.zeros((123, 321)).astype("float32")
        lr = 0.01
        epsilon = 1e-8

        self.inputs = {'Param': param, 'Grad': grad, 'Moment': moment,
                       'LearningRate': np.array([lr]).astype("float32")}

        self.attrs = {'epsilon': epsilon}

        moment_out = moment + grad * grad
        param_out = param - lr * grad / (np.sqrt(moment_out) + epsilon)

        self.outputs = {'ParamOut': param_out, 'MomentOut': moment_out}

    def test_check_output(self):
        got = run_adagrad_op(self.inputs, self.attrs)
        for name, want in self.outputs.items():
            np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-6, err_msg=name)


class TestAdagradOp2(TestAdagradOp1):
    '''Test Adagrad operator with default attributes'''

    def setUp(self):
        self.op_type = "adagrad"

        param = np.random.random((123, 321)).astype("float32")
        grad = np.random.random((123, 321)).astype("float32")
        moment = np.zeros((123, 321)).astype("float32")
        lr = 0.01
        epsilon = 1e-6

        self.inputs = {'Param': param, 'Grad': grad, 'Moment': moment,
                       'LearningRate': np.array([lr]).astype("float32")}

        self.attrs = {'epsilon': epsilon, "multi_precision": False}

        moment_out = moment + grad * grad
        param_out = param - lr * grad / (np.sqrt(moment_out) + epsilon)

        self.outputs = {'ParamOut': param_out, 'MomentOut': moment_out}


class TestAdagradOpMultiPrecision(unittest.TestCase):
    def _test_adagrad_op_dygraph_place_amp(self, place, use_amp=False):
        paddle.disable_static()
        paddle.seed(10)
        paddle.set_device(place)
        input = paddle.randn((5, 5))

        model = paddle.nn.Linear(5, 5)
        optimizer = paddle.optimizer.Adagrad(0.1, parameters=model.parameters())
        # fluidc addition: the steps in numpy (d mean(x W + b) / dW = x^T 1 / 25)
        x = input.numpy()
        w, b = model.weight.numpy().astype("float64"), model.bias.numpy().astype("float64")
        mw, mb = np.zeros_like(w), np.zeros_like(b)
        for idx in range(2):
            output = model(input)
            loss = paddle.mean(output)
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
            gw, gb = x.T @ np.full((5, 5), 1 / 25), np.full(5, 5 / 25)
            mw, mb = mw + gw * gw, mb + gb * gb
            w, b = w - 0.1 * gw / (np.sqrt(mw) + 1e-6), b - 0.1 * gb / (np.sqrt(mb) + 1e-6)
            np.testing.assert_allclose(model.weight.numpy(), w, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(model.bias.numpy(), b, rtol=1e-5, atol=1e-6)
        paddle.enable_static()

    def test_main(self):
        self._test_adagrad_op_dygraph_place_amp('cpu', False)


if __name__ == "__main__":
    paddle.enable_static()
    unittest.main()
