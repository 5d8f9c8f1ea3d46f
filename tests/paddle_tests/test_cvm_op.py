"""Port of Paddle test/legacy_test/test_cvm_op.py.

The three OpTest cases (a LoD input with use_cvm False; plain inputs with use_cvm True and
False) check Y through paddle.static.nn.continuous_value_model (the cvm op) against the file's
cvm_compute, at OpTest's float32 tolerance; the LoD case's Y keeps X's LoD. Their
user_defined_grads checks are kept as X's gradient through paddle.static.gradients of mean(Y)
against the file's expected gradient (CVM's two columns, then 1 / numel of Y per element),
as check_grad computes it.
"""
import unittest
from math import log

import numpy as np

import fluidc as fluid
import fluidc as paddle


def cvm_compute(X, item_width, use_cvm):
    cvm_offset = 0 if use_cvm else 2
    batch_size = X.shape[0]

    Y = np.ones([batch_size, item_width - cvm_offset], np.float32)

    for idx in range(batch_size):
        if use_cvm:
            Y[idx] = X[idx]
            Y[idx][0] = log(Y[idx][0] + 1)
            Y[idx][1] = log(Y[idx][1] + 1) - Y[idx][0]
        else:
            Y[idx] = X[idx][2:]

    return Y


def run_cvm(x, cvm, use_cvm, lod=None):
    """Y and X's gradient of mean(Y), by the public layer on a static program."""
    paddle.enable_static()
    main = paddle.static.Program()
    place = paddle.CPUPlace()
    with paddle.static.program_guard(main, paddle.static.Program()):
        xv = paddle.static.data('x', [-1, x.shape[1]], 'float32', lod_level=1 if lod else 0)
        xv.stop_gradient = False
        cv = paddle.static.data('cvm', [-1, 2], 'float32')
        y = paddle.static.nn.continuous_value_model(xv, cv, use_cvm)
        (gx,) = paddle.static.gradients([paddle.mean(y)], [xv])
    feed = {'x': fluid.create_lod_tensor(x, lod, place) if lod else x, 'cvm': cvm}
    return paddle.static.Executor(place).run(main, feed=feed, fetch_list=[y, gx],
                                             return_numpy=False)


class TestCVMOpWithLodTensor(unittest.TestCase):
    """
    Test cvm op with discrete one-hot labels.
    """

    def setUp(self):
        self.use_cvm = True

        self.batch_size = 1
        self.item_width = 11

        lod = [[1]]
        self.inputs = {
            'X': (
                np.random.uniform(0, 1, [self.batch_size, self.item_width]).astype("float32"),
                lod,
            ),
            'CVM': np.array([[0.6, 0.4]]).astype("float32"),
        }
        self.attrs = {'use_cvm': False}
        out = []
        for index, emb in enumerate(self.inputs["X"][0]):
            out.append(emb[2:])
        self.outputs = {'Y': (np.array(out), lod)}

    def run_case(self):
        x, lod = self.inputs['X']
        return run_cvm(x, self.inputs['CVM'], self.attrs['use_cvm'], lod)

    def test_check_output(self):
        y, _ = self.run_case()
        want, lod = self.outputs['Y']
        np.testing.assert_allclose(np.array(y), want, rtol=1e-5, atol=1e-5)
        self.assertEqual(y.lod(), [[0, 1]])  # offsets of lod [[1]]

    def test_check_grad(self):
        user_grads = (
            np.array([1.0 / (self.item_width - 2)] * self.item_width)
            .reshape((self.batch_size, self.item_width))
            .astype("float32")
        )
        user_grads[:, :2] = self.inputs['CVM'].reshape(self.batch_size, 2)
        _, gx = self.run_case()
        np.testing.assert_allclose(np.array(gx), user_grads, rtol=1e-5, atol=1e-6)


class TestCVMOpWithOutLodTensor1(unittest.TestCase):
    """
    Test cvm op with discrete one-hot labels.
    """

    def setUp(self):
        self.use_cvm = True

        self.batch_size = 2
        self.item_width = 11

        input = np.random.uniform(0, 1, (self.batch_size, self.item_width)).astype('float32')
        output = cvm_compute(input, self.item_width, self.use_cvm)
        cvm = (
            np.array([[0.6, 0.4] * self.batch_size])
            .reshape((self.batch_size, 2))
            .astype("float32")
        )

        self.inputs = {'X': input, 'CVM': cvm}
        self.attrs = {'use_cvm': self.use_cvm}
        self.outputs = {'Y': output}

    def run_case(self):
        return run_cvm(self.inputs['X'], self.inputs['CVM'], self.attrs['use_cvm'])

    def grad_numel(self):
        return self.batch_size * self.item_width

    def test_check_output(self):
        y, _ = self.run_case()
        np.testing.assert_allclose(np.array(y), self.outputs['Y'], rtol=1e-5, atol=1e-5)

    def test_check_grad(self):
        numel = self.batch_size * self.item_width
        user_grads = (
            np.array([1.0 / self.grad_numel()] * numel)
            .reshape((self.batch_size, self.item_width))
            .astype("float32")
        )
        user_grads[:, :2] = self.inputs['CVM'].reshape(self.batch_size, 2)
        _, gx = self.run_case()
        np.testing.assert_allclose(np.array(gx), user_grads, rtol=1e-5, atol=1e-6)


class TestCVMOpWithOutLodTensor2(TestCVMOpWithOutLodTensor1):
    """
    Test cvm op with discrete one-hot labels.
    """

    def setUp(self):
        self.use_cvm = False

        self.batch_size = 2
        self.item_width = 11

        input = np.random.uniform(0, 1, (self.batch_size, self.item_width)).astype('float32')
        output = cvm_compute(input, self.item_width, self.use_cvm)
        cvm = (
            np.array([[0.6, 0.4] * self.batch_size])
            .reshape((self.batch_size, 2))
            .astype("float32")
        )

        self.inputs = {'X': input, 'CVM': cvm}
        self.attrs = {'use_cvm': self.use_cvm}
        self.outputs = {'Y': output}

    def grad_numel(self):
        return self.batch_size * (self.item_width - 2)


if __name__ == '__main__':
    unittest.main()
