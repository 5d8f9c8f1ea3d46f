"""Port of Paddle test/legacy_test/test_softmax_with_cross_entropy_op.py: the OpTest forwards.

Kept: the forward check (`test_check_output`: Loss and Softmax) of every CPU OpTest case -
TestSoftmaxWithCrossEntropyOp and its Int32 / Int16 / Int8 / UInt8 label variants, Op2 (soft
labels), Op3 (ignore_index), NoCudnn, the Axis1..4 / AxisDimEqualOne / SoftLabelAxis /
IgnoreIndexNoCudnnAxis cases, Boundary0 / 1, the zero-size case - through the public API
F.softmax_with_cross_entropy(logits, label, soft_label, ignore_index, numeric_stable_mode,
return_softmax=True, axis) on the case's data against the file's numpy `cross_entropy` /
`stable_softmax`, with OpTest's default atol 1e-5. The NotWithSoftmax cases (Paddle calls the
internal `_C_ops.cross_entropy_with_softmax(use_softmax=False)` on softmax-ed inputs) use its
public form, F.cross_entropy(input, label, soft_label, ignore_index, reduction='none',
use_softmax=False, axis), and check its Loss. TestSoftmaxWithCrossEntropyOpError is kept.
Dropped: OpTest's gradient checks, the fp16 classes (CUDA only).
"""
import unittest

import numpy as np

import fluidc as paddle

from .op_forward import run_forward

paddle.enable_static()
F = paddle.nn.functional


def stable_softmax(x):
    """Paddle's (test_softmax_op.py): softmax of a vector, the shift clipped at -64."""
    shiftx = (x - np.max(x)).clip(-64.0)
    exps = np.exp(shiftx)
    return exps / np.sum(exps)


def cross_entropy(softmax, label, soft_label, axis, ignore_index=-1):
    """Paddle's numpy reference (the test file's own)."""
    if soft_label:
        return (-label * np.log(softmax)).sum(axis=axis, keepdims=True)
    shape = softmax.shape
    axis %= len(shape)
    n = int(np.prod(shape[:axis]))
    axis_dim = shape[axis]
    remain = int(np.prod(shape[axis + 1:]))
    softmax_reshape = softmax.reshape((n, axis_dim, remain))
    label_reshape = label.reshape((n, 1, remain))
    result = np.zeros_like(label_reshape, dtype=softmax.dtype)
    for i in range(n):
        for j in range(remain):
            lbl = label_reshape[i, 0, j]
            if lbl != ignore_index:
                result[i, 0, j] -= np.log(softmax_reshape[i, lbl, j])
    return result.reshape(label.shape)


class TestSoftmaxWithCrossEntropyOp(unittest.TestCase):
    """softmax with cross entropy, discrete one-hot labels."""

    def initParams(self):
        self.numeric_stable_mode = False
        self.soft_label = False
        self.dtype = np.float64
        self.axis = -1
        self.ignore_index = -1
        self.shape = [41, 37]
        self.use_softmax = True

    def hard_label_dtype(self):
        return "int64"

    def setUp(self):
        self.initParams()
        logits = getattr(self, "logits",
                         np.random.uniform(0.1, 1.0, self.shape).astype(self.dtype))
        softmax = (logits if logits.size == 0
                   else np.apply_along_axis(stable_softmax, self.axis, logits))
        if self.soft_label:
            labels = np.random.uniform(0.1, 1.0, self.shape).astype(self.dtype)
            labels /= np.sum(labels, axis=self.axis, keepdims=True)
        else:
            axis_dim = self.shape[self.axis]
            self.shape[self.axis] = 1
            labels = np.random.randint(0, axis_dim, self.shape, dtype=self.hard_label_dtype())
        self.loss = cross_entropy(softmax, labels, self.soft_label, self.axis,
                                  self.ignore_index).astype(self.dtype)
        self.softmax = softmax.astype(self.dtype)
        self.inputs = {"logits": logits if self.use_softmax else softmax, "label": labels}

    def test_check_output(self):
        if self.use_softmax:
            loss, softmax = run_forward(
                lambda x, y: F.softmax_with_cross_entropy(
                    x, y, soft_label=self.soft_label, ignore_index=self.ignore_index,
                    numeric_stable_mode=self.numeric_stable_mode, return_softmax=True,
                    axis=self.axis), self.inputs)
            np.testing.assert_allclose(softmax, self.softmax, rtol=0, atol=1e-5)
        else:
            loss = run_forward(
                lambda x, y: F.cross_entropy(
                    x, y, soft_label=self.soft_label, ignore_index=self.ignore_index,
                    reduction='none', use_softmax=False, axis=self.axis),
                self.inputs)
        np.testing.assert_allclose(loss, self.loss, rtol=0, atol=1e-5)


def case(name, base=TestSoftmaxWithCrossEntropyOp, logits=None, **params):
    """One of Paddle's initParams subclasses: `params` over the base case's."""
    def initParams(self):
        base.initParams(self)
        for k, v in params.items():
            setattr(self, k, list(v) if isinstance(v, list) else v)
        if logits is not None:
            self.logits = logits(self.shape, self.dtype)

    globals()[name] = type(name, (base,), {'initParams': initParams})


for _suffix, _bits in (("Int32", "int32"), ("Int16", "int16"), ("Int8", "int8"),
                      ("UInt8", "uint8")):
    globals()[f"TestSoftmaxWithCrossEntropyOp{_suffix}"] = type(
        f"TestSoftmaxWithCrossEntropyOp{_suffix}", (TestSoftmaxWithCrossEntropyOp,),
        {'hard_label_dtype': lambda self, b=_bits: b})

_NOT = dict(numeric_stable_mode=True, ignore_index=-1, use_softmax=False)
case("TestSoftmaxWithCrossEntropyOp_NotWithSoftmax_SoftLabel_1D", soft_label=True,
     shape=[13, 8], axis=-1, **_NOT)
case("TestSoftmaxWithCrossEntropyOp_NotWithSoftmax_HardLabel_1D", soft_label=False,
     shape=[13, 8], axis=-1, **_NOT)
for _soft in (True, False):
    _kind = "SoftLabel" if _soft else "HardLabel"
    case(f"TestSoftmaxWithCrossEntropyOp_NotWithSoftmax_{_kind}_2D", soft_label=_soft,
         shape=[3, 5, 7, 11], axis=-1, **_NOT)
    for _axis in (1, 2, 3):
        case(f"TestSoftmaxWithCrossEntropyOp_NotWithSoftmax_{_kind}_2D_Axis{_axis + 1}",
             soft_label=_soft, shape=[3, 5, 7, 11], axis=_axis, **_NOT)
_IGN = dict(soft_label=False, ignore_index=2, use_softmax=False)
case("TestSoftmaxWithCrossEntropyOp_NotWithSoftmax_HardLabel_Ignore", numeric_stable_mode=False,
     shape=[13, 8], axis=-1, **_IGN)
case("TestSoftmaxWithCrossEntropyOp_NotWithSoftmax_HardLabel_Ignore_Axis",
     numeric_stable_mode=False, shape=[13, 8], axis=1, **_IGN)
case("TestSoftmaxWithCrossEntropyOp_NotWithSoftmax_HardLabel_2D_Ignore",
     numeric_stable_mode=True, shape=[3, 5, 7, 11], axis=-1, **_IGN)
case("TestSoftmaxWithCrossEntropyOp_NotWithSoftmax_HardLabel_2D_Ignore_Axis3",
     numeric_stable_mode=True, shape=[3, 5, 7, 11], axis=2, **_IGN)

case("TestSoftmaxWithCrossEntropyOpNoCudnn", numeric_stable_mode=True, shape=[3, 5, 7, 11])
case("TestSoftmaxWithCrossEntropyOp2", numeric_stable_mode=True, soft_label=True)  # soft labels
case("TestSoftmaxWithCrossEntropyOp3", ignore_index=5)  # ignore_index
case("TestSoftmaxWithCrossEntropyOp3NoCudnn", numeric_stable_mode=True, shape=[3, 5, 7, 11],
     ignore_index=4)
for _axis in range(4):
    case(f"TestSoftmaxWithCrossEntropyOpAxis{_axis + 1}", numeric_stable_mode=True, axis=_axis,
         shape=[3, 5, 7, 11])
    case(f"TestSoftmaxWithCrossEntropyOpSoftLabelAxis{_axis + 1}", numeric_stable_mode=True,
         soft_label=True, axis=_axis, shape=[3, 5, 7, 11])
case("TestSoftmaxWithCrossEntropyOpAxisDimEqualOne", numeric_stable_mode=True,
     shape=[3, 5, 7, 1])
for _axis, _ignore in ((0, 1), (1, 0), (2, 3), (3, 3)):
    case(f"TestSoftmaxWithCrossEntropyOpIgnoreIndexNoCudnnAxis{_axis + 1}",
         numeric_stable_mode=True, shape=[3, 5, 7, 11], ignore_index=_ignore, axis=_axis)


def _boundary1(shape, dtype):
    logits = np.full(shape, 1000.0).astype(dtype)
    logits[:, :, 0, :] = -1000.0
    return logits


# stable softmax gives no INF with small / large logits
case("TestSoftmaxWithCrossEntropyOpBoundary0", numeric_stable_mode=True, shape=[3, 5, 7, 11],
     logits=lambda shape, dtype: np.full(shape, -500.0).astype(dtype))
case("TestSoftmaxWithCrossEntropyOpBoundary1", numeric_stable_mode=True, shape=[3, 5, 7, 11],
     logits=_boundary1)
case("TestSoftmaxWithCrossEntropyOp_ZeroSize", dtype=np.float32, shape=[0, 10])


class TestSoftmaxWithCrossEntropyOpError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):

            def test_input_dims1():
                # the input dims of cross_entropy can't be 0,
                x1 = paddle.static.data(name='x1', shape=[], dtype="int32")
                lab1 = paddle.static.data(name='lab1', shape=[-1, 3, 4, 5, 6], dtype="int32")
                F.softmax_with_cross_entropy(x1, lab1)

            self.assertRaises(ValueError, test_input_dims1)

            def test_input_dims2():
                # "input_dims - 1 != label_dims and input_dims != label_dims" must be false.
                x2 = paddle.static.data(name='x2', shape=[-1, 3, 4, 5], dtype="int32")
                lab2 = paddle.static.data(name='lab2', shape=[-1, 3, 4, 5, 6], dtype="int32")
                F.softmax_with_cross_entropy(x2, lab2)

            self.assertRaises(ValueError, test_input_dims2)


del _axis, _bits, _ignore, _kind, _soft, _suffix

if __name__ == "__main__":
    unittest.main()
