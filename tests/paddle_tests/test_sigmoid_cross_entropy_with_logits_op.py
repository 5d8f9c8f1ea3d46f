"""Port of Paddle test/legacy_test/test_sigmoid_cross_entropy_with_logits_op.py.

Kept: the forward output of the 8 OpTest cases (binary, probabilistic and ignore_index labels,
pos_weight, normalize; [64, 20] and [10, 10, 20] float64) against the file's numpy outputs,
and, for each, the gradient of the output's sum w.r.t. X (static.gradients) against central
differences of the op (OpTest's check_grad, its max_relative_error); TestSigmoidCrossEntropy
WithLogitsOpError.
Changed: the file's python_api is paddle._C_ops.sigmoid_cross_entropy_with_logits (private;
Paddle 3.3.1 has no public layer giving normalize / ignore_index), so the op is appended to a
legacy Program by Block.append_op, as OpTest's Operator runs it; scipy's expit / logit written
in numpy.
Dropped: the prim / PIR variants of the checks.
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

from .op_forward import assert_grad_close

base = fluid  # Paddle's `from paddle import base`

paddle.enable_static()


def expit(x):
    return 1 / (1 + np.exp(-x))


def logit(p):
    return np.log(p / (1 - p))


def _run(inputs, attrs, dout=None):
    """The op's Out for `inputs` (slot -> array), and d(sum(Out * dout))/dX if dout is given."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        ins, feed = {}, {}
        for slot, value in inputs.items():
            var = paddle.static.data('in_' + slot, list(value.shape), str(value.dtype))
            var.stop_gradient = slot != 'X'
            ins[slot], feed['in_' + slot] = [var], value
        out = block.create_var(name='out', dtype=inputs['X'].dtype, shape=inputs['X'].shape)
        block.append_op(type='sigmoid_cross_entropy_with_logits', inputs=ins,
                        outputs={'Out': [out]}, attrs=attrs)
        fetch = [out]
        if dout is not None:
            d = paddle.static.data('dout', list(dout.shape), str(dout.dtype))
            feed['dout'] = dout
            fetch += paddle.static.gradients([out], [ins['X'][0]], target_gradients=[d])
        return paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=fetch)


class TestSigmoidCrossEntropyWithLogitsOp1(unittest.TestCase):
    """Test sigmoid_cross_entropy_with_logit_op with binary label"""

    max_relative_error = 0.005

    def setUp(self):
        self.attrs = {}
        batch_size = 64
        num_classes = 20
        self.inputs = {
            'X': logit(np.random.uniform(0, 1, (batch_size, num_classes)).astype("float64")),
            'Label': np.random.randint(0, 2, (batch_size, num_classes)).astype("float64"),
        }

        # Fw Pass is implemented as elementwise sigmoid followed by
        # elementwise logistic loss
        # Label * -log(sigmoid(X)) + (1 - label) * -log(1 - sigmoid(X))
        sigmoid_X = expit(self.inputs['X'])
        term1 = self.inputs['Label'] * np.log(sigmoid_X)
        term2 = (1 - self.inputs['Label']) * np.log(1 - sigmoid_X)
        self.outputs = {'Out': -term1 - term2}

    def test_check_output(self):
        (out,) = _run(self.inputs, self.attrs)
        np.testing.assert_allclose(out, self.outputs['Out'], rtol=1e-7, atol=1e-7)

    def test_check_grad(self):
        # OpTest's check_grad: the gradient of mean(Out) against central differences
        # (delta 0.005) of the op itself, compared by OpTest's rule
        x = self.inputs['X']
        dout = np.full(x.shape, 1.0 / x.size)
        _, grad = _run(self.inputs, self.attrs, dout)
        delta = 0.005
        numeric = np.zeros_like(x)
        for sign in (1, -1):
            # every element moved at once: Out is elementwise (normalize's count does not
            # depend on X), so d(mean(Out))/dX[i] only sees X[i]
            shifted = dict(self.inputs, X=x + sign * delta)
            (out,) = _run(shifted, self.attrs)
            numeric += sign * out * dout / (2 * delta)
        assert_grad_close(numeric, grad, self.max_relative_error)


class TestSigmoidCrossEntropyWithLogitsOp2(TestSigmoidCrossEntropyWithLogitsOp1):
    """Test sigmoid_cross_entropy_with_logit_op with probabilistic label"""

    def setUp(self):
        batch_size = 64
        num_classes = 20
        ignore_index = -1
        self.inputs = {
            'X': logit(np.random.uniform(0, 1, (batch_size, num_classes)).astype("float64")),
            'Label': np.random.randint(-1, 2, (batch_size, num_classes)).astype("float64"),
        }
        self.attrs = {'ignore_index': ignore_index}
        # Fw Pass is implemented as elementwise sigmoid followed by
        # elementwise logistic loss
        # Label * -log(sigmoid(X)) + (1 - label) * -log(1 - sigmoid(X))
        sigmoid_X = expit(self.inputs['X'])
        term1 = self.inputs['Label'] * np.log(sigmoid_X)
        term2 = (1 - self.inputs['Label']) * np.log(1 - sigmoid_X)
        out = -term1 - term2
        out[np.where(self.inputs['Label'] == ignore_index)] = 0
        self.outputs = {'Out': out}


class TestSigmoidCrossEntropyWithLogitsOp3(TestSigmoidCrossEntropyWithLogitsOp1):
    """Test sigmoid_cross_entropy_with_logit_op with probabilistic label"""

    def setUp(self):
        self.attrs = {}
        batch_size = 64
        num_classes = 20
        self.inputs = {
            'X': logit(np.random.uniform(0, 1, (batch_size, num_classes)).astype("float64")),
            'Label': np.random.uniform(0, 1, (batch_size, num_classes)).astype("float64"),
        }
        sigmoid_X = expit(self.inputs['X'])
        term1 = self.inputs['Label'] * np.log(sigmoid_X)
        term2 = (1 - self.inputs['Label']) * np.log(1 - sigmoid_X)
        self.outputs = {'Out': -term1 - term2}


class TestSigmoidCrossEntropyWithLogitsOp4(TestSigmoidCrossEntropyWithLogitsOp1):
    """Test sigmoid_cross_entropy_with_logit_op with probabilistic label"""

    max_relative_error = 0.0005

    def setUp(self):
        self.attrs = {}
        batch_size = 64
        num_classes = 20

        x = logit(np.random.uniform(0, 1, (batch_size, num_classes)).astype("float64"))
        label = np.random.uniform(0, 1, (batch_size, num_classes)).astype("float64")
        pos_weight = np.random.uniform(0, 1, (batch_size, num_classes)).astype("float64")
        self.inputs = {'X': x, 'Label': label, 'pos_weight': pos_weight}

        # Fw Pass is implemented as elementwise sigmoid followed by
        # elementwise logistic loss
        max_val = np.clip(-self.inputs['X'], 0, np.finfo(np.float64).max)
        term1 = (1 - label) * self.inputs['X']
        term2 = np.log(np.exp(-max_val) + np.exp(-self.inputs['X'] - max_val))
        out = term1 + pos_weight * (term2 + max_val)

        self.outputs = {'Out': out}


class TestSigmoidCrossEntropyWithNorm(TestSigmoidCrossEntropyWithLogitsOp1):
    shape = [64]

    def setUp(self):
        num_classes = 20
        ignore_index = -1
        self.inputs = {
            'X': logit(np.random.uniform(0, 1, (*self.shape, num_classes)).astype("float64")),
            'Label': np.random.randint(-1, 2, (*self.shape, num_classes)).astype("float64"),
        }
        self.attrs = {'ignore_index': ignore_index, 'normalize': True}
        sigmoid_X = expit(self.inputs['X'])
        term1 = self.inputs['Label'] * np.log(sigmoid_X)
        term2 = (1 - self.inputs['Label']) * np.log(1 - sigmoid_X)
        out = -term1 - term2
        out[np.where(self.inputs['Label'] == ignore_index)] = 0
        if self.attrs['normalize']:
            out = out / float(np.where(self.inputs['Label'] != ignore_index)[0].size)
        self.outputs = {'Out': out}


class TestSigmoidCrossEntropyWithLogitsOp5(TestSigmoidCrossEntropyWithLogitsOp3):
    """Test sigmoid_cross_entropy_with_logit_op with probabilistic label"""

    def setUp(self):
        self.attrs = {}
        batch_size = [10, 10]
        num_classes = 20
        self.inputs = {
            'X': logit(np.random.uniform(0, 1, (*batch_size, num_classes)).astype("float64")),
            'Label': np.random.uniform(0, 1, (*batch_size, num_classes)).astype("float64"),
        }
        sigmoid_X = expit(self.inputs['X'])
        term1 = self.inputs['Label'] * np.log(sigmoid_X)
        term2 = (1 - self.inputs['Label']) * np.log(1 - sigmoid_X)
        self.outputs = {'Out': -term1 - term2}


class TestSigmoidCrossEntropyWithNorm2(TestSigmoidCrossEntropyWithNorm):
    shape = [10, 10]


class TestSigmoidCrossEntropyWithLogitsOp6(TestSigmoidCrossEntropyWithLogitsOp1):
    """Test sigmoid_cross_entropy_with_logit_op with binary label"""

    def setUp(self):
        self.attrs = {}
        batch_size = [10, 10]
        num_classes = 20
        self.inputs = {
            'X': logit(np.random.uniform(0, 1, (*batch_size, num_classes)).astype("float64")),
            'Label': np.random.randint(0, 2, (*batch_size, num_classes)).astype("float64"),
        }
        sigmoid_X = expit(self.inputs['X'])
        term1 = self.inputs['Label'] * np.log(sigmoid_X)
        term2 = (1 - self.inputs['Label']) * np.log(1 - sigmoid_X)
        self.outputs = {'Out': -term1 - term2}


class TestSigmoidCrossEntropyWithLogitsOpError(unittest.TestCase):

    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):

            def test_Variable():
                # the input of sigmoid_cross_entropy_with_logits must be Variable.
                x1 = base.create_lod_tensor(np.array([-1, 3, 5, 5]), [[1, 1, 1, 1]],
                                            base.CPUPlace())
                lab1 = base.create_lod_tensor(np.array([-1, 3, 5, 5]), [[1, 1, 1, 1]],
                                              base.CPUPlace())
                paddle.nn.functional.binary_cross_entropy_with_logits(x1, lab1)

            self.assertRaises(TypeError, test_Variable)

            def test_dtype():
                # the input dtype of sigmoid_cross_entropy_with_logits must be float16 or
                # float32 or float64
                # float16 only can be set on GPU place
                x2 = paddle.static.data(name='x2', shape=[-1, 3, 4, 5, 6], dtype="int32")
                lab2 = paddle.static.data(name='lab2', shape=[-1, 3, 4, 5, 6], dtype="int32")
                paddle.nn.functional.binary_cross_entropy_with_logits(x2, lab2)

            self.assertRaises(TypeError, test_dtype)


if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
