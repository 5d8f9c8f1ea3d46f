"""Port of Paddle test/legacy_test/test_cross_entropy_loss.py: nn.CrossEntropyLoss and
F.cross_entropy in static programs.

run-on-paddle: pir

Kept: the static half of every CrossEntropyLoss test that has one (soft labels 1-D / 2-D with and
without weight, label smoothing of one-hot and integer labels, hard labels with weight, ignore_index
(0, -1), reductions mean / sum / none, 2-D (N, C) and 4-D (N, H, W, C) inputs, axis=1 on NCHW
input, the `target=` keyword), each checked against Paddle's numpy references
(cross_entropy_loss_1d / _2d, cross_entropy_soft / _soft_2d, label_smooth, and
test_softmax_with_cross_entropy_op.py's cross_entropy / test_softmax_op.py's stable_softmax) with
rtol 1e-5; TestCrossEntropyFAPIError (static program).
Run as static programs instead of dygraph (same arrays fed to paddle.static.data of their shapes,
same calls and numpy references): test_softmax_with_cross_entropy / _alias
(F.softmax_with_cross_entropy and F.cross_entropy on soft labels, `target=` in the alias) and
test_cross_entropy_loss_1d_with_weight_mean_ignore_exceedlabel (label 255 ignored).
Dropped: the dygraph halves (paddle.to_tensor, .numpy(); the static result is compared with the
numpy reference only), test_cross_entropy_loss_2d_with_weight_mean_ignore_exceedlabel (dygraph
only, a [4, 512, 512, 3] input whose reference is a million-step Python loop),
CrossEntropyLossCompatible (dygraph under FLAGS_use_accuracy_compatible_kernel), the device
choice (get_device_place: CPU here) and the ROCm float32 switch.
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


def stable_softmax(x):
    """Compute the softmax of vector x in a numerically stable way."""
    shiftx = x - np.max(x)
    exps = np.exp(shiftx)
    return exps / np.sum(exps)


def cross_entropy(softmax, label, soft_label, axis, ignore_index=-1):
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


def label_smooth(label, C, epsilon, is_onehot=True):
    assert epsilon >= 0.0 and epsilon <= 1.0, "epsilon should be in [0.0, 1.0]"
    confidence = 1.0 - epsilon
    if label.shape[-1] == C and is_onehot is True:
        smooth_labels = label * confidence + epsilon / C
    else:
        eye_matrix = np.eye(C)
        onehot_labels = eye_matrix[label]
        smooth_labels = onehot_labels * confidence + epsilon / C
    return smooth_labels.astype(np.float64)


def log_softmax(x, axis=-1):
    softmax_out = np.apply_along_axis(stable_softmax, axis, x)
    return np.log(softmax_out)


def cross_entropy_loss_1d(input, label, weight=None, reduction='mean', ignore_index=-100):
    log_softmax_out = log_softmax(input)
    input_shape = log_softmax_out.shape
    N = input_shape[0]
    out = np.zeros_like(label).astype(np.float64)
    total_weight = 0
    for i in range(N):
        cur_target = label[i]
        if cur_target == ignore_index:
            out[i] = 0
            continue
        cur_weight = weight[cur_target] if weight is not None else 1
        total_weight += cur_weight
        out[i] = -log_softmax_out[i][cur_target] * cur_weight
    if reduction == 'sum':
        return np.sum(out), np.array([total_weight]).astype('float64')
    elif reduction == 'mean':
        out = out.sum() / total_weight if total_weight != 0 else out.sum()
        return out, np.array([total_weight]).astype('float64')
    elif reduction == 'none':
        return out


def cross_entropy_loss_2d(input, label, weight=None, reduction='mean', ignore_index=-100):
    log_softmax_out = log_softmax(input)
    N, H, W = log_softmax_out.shape[:3]
    out = np.zeros_like(label).astype(np.float64)
    total_weight = 0
    for i in range(N):
        for h in range(H):
            for w in range(W):
                cur_target = label[i][h][w]
                if cur_target == ignore_index:
                    out[i][h][w] = 0
                    continue
                cur_weight = weight[cur_target] if weight is not None else 1
                total_weight += cur_weight
                out[i][h][w] = -log_softmax_out[i][h][w][cur_target] * cur_weight
    if reduction == 'sum':
        return np.sum(out), np.array([total_weight]).astype('float64')
    elif reduction == 'mean':
        out = out.sum() / total_weight if total_weight != 0 else out.sum()
        return out, np.array([total_weight]).astype('float64')
    elif reduction == 'none':
        return out


def _soft_reduce(loss, weighted_loss, total_weight, reduction):
    if reduction == 'none':
        return weighted_loss
    if reduction == 'mean':
        return np.sum(weighted_loss) / total_weight
    return np.sum(weighted_loss)


def cross_entropy_soft(softmax, label, axis, N, weight=None, reduction='mean',
                       ignore_index=-100):
    loss = cross_entropy(softmax, label, True, axis, ignore_index)
    if weight is None and reduction == 'none':
        return loss
    weighted_loss, total_weight = loss, N
    if weight is not None:
        weighted_loss = np.zeros_like(loss).astype(np.float64)
        total_weight = 0
        for i in range(N):
            cur_weight = np.dot(weight, label[i])
            total_weight += cur_weight
            weighted_loss[i] = loss[i] * cur_weight
    return _soft_reduce(loss, weighted_loss, total_weight, reduction)


def cross_entropy_soft_2d(softmax, label, axis, N, H, W, weight=None, reduction='mean',
                          ignore_index=-100):
    loss = cross_entropy(softmax, label, True, axis, ignore_index)
    if weight is None and reduction == 'none':
        return loss
    weighted_loss, total_weight = loss, N
    if weight is not None:
        weighted_loss = np.zeros_like(loss).astype(np.float64)
        total_weight = 0
        for i in range(N):
            for h in range(H):
                for w in range(W):
                    cur_weight = np.dot(weight, label[i][h][w])
                    total_weight += cur_weight
                    weighted_loss[i][h][w] = loss[i][h][w] * cur_weight
    return _soft_reduce(loss, weighted_loss, total_weight, reduction)


def run_static(input_np, label_np, weight_np=None, functional=False, **kwargs):
    """Paddle's static half: input / label (/ weight) fed to paddle.static.data of their
    shapes, nn.loss.CrossEntropyLoss(weight=weight, **kwargs) (F.cross_entropy when functional)
    applied, the loss fetched."""
    prog, startup_prog = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(prog, startup_prog):
        input = paddle.static.data(name='input', shape=list(input_np.shape),
                                   dtype=str(input_np.dtype))
        label = paddle.static.data(name='label', shape=list(label_np.shape),
                                   dtype=str(label_np.dtype))
        feed = {'input': input_np, 'label': label_np}
        weight = None
        if weight_np is not None:
            weight = paddle.static.data(name='weight', shape=list(weight_np.shape),
                                        dtype=str(weight_np.dtype))
            feed['weight'] = weight_np
        if functional:
            ret = paddle.nn.functional.cross_entropy(input, label, weight=weight, **kwargs)
        else:
            ret = paddle.nn.loss.CrossEntropyLoss(weight=weight, **kwargs)(input, label)
        exe = paddle.static.Executor(paddle.CPUPlace())
        static_ret = exe.run(prog, feed=feed, fetch_list=[ret])
    return static_ret


class CrossEntropyLoss(unittest.TestCase):
    def setUp(self):
        self.dtype = 'float64'

    # -- soft labels (and label smoothing): Paddle's per-test setup, shared --------------------
    def soft_case(self, shape, reduction, with_weight, labels='soft', label_smoothing=None):
        """logits / labels / weight as Paddle's soft-label tests draw them, the numpy expected
        value, and the static result of CrossEntropyLoss(soft_label=True, ...)."""
        axis, C = -1, shape[-1]
        weight = np.random.uniform(0.1, 1.0, C).astype(self.dtype) if with_weight else None
        logits = np.random.uniform(0.1, 1.0, shape).astype(self.dtype)
        softmax = np.apply_along_axis(stable_softmax, axis, logits)
        if labels == 'soft':
            fed = np.random.uniform(0.1, 1.0, shape).astype(self.dtype)
            fed /= np.sum(fed, axis=axis, keepdims=True)
            soft = fed
        elif labels == 'onehot':
            fed = np.zeros(shape, dtype=self.dtype)
            if len(shape) == 2:
                fed[np.arange(shape[0]), np.random.randint(0, C, shape[0])] = 1.0
            else:
                indices = np.random.randint(0, C, shape[:-1])
                for i in range(shape[0]):
                    fed[i, np.arange(shape[1]), np.arange(shape[2]), indices[i]] = 1.0
            soft = label_smooth(fed, C, epsilon=label_smoothing)
        else:  # integer labels
            fed = np.random.randint(0, C, shape[:-1]).astype('int64')
            soft = label_smooth(fed, C, epsilon=label_smoothing, is_onehot=False)
        if len(shape) == 2:
            expected = cross_entropy_soft(softmax, soft, axis, shape[0], weight=weight,
                                          reduction=reduction, ignore_index=-100)
        else:
            expected = cross_entropy_soft_2d(softmax, soft, axis, *shape[:3], weight=weight,
                                             reduction=reduction, ignore_index=-100)
        kwargs = {'reduction': reduction, 'soft_label': True}
        if label_smoothing is not None:
            kwargs['label_smoothing'] = label_smoothing
        static_ret = run_static(logits, fed, weight, **kwargs)
        self.assertIsNotNone(static_ret)
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_softmax_with_cross_entropy(self, target_keyword=False):
        # Paddle runs this one in dygraph only; its _alias twin passes the labels as target=
        N, C, axis = 4, 3, -1
        logits = np.random.uniform(0.1, 1.0, [N, C]).astype(self.dtype)
        softmax = np.apply_along_axis(stable_softmax, axis, logits)
        labels = np.random.uniform(0.1, 1.0, [N, C]).astype(self.dtype)
        labels /= np.sum(labels, axis=axis, keepdims=True)
        expected = cross_entropy_soft(softmax, labels, axis, N, weight=None, reduction='none',
                                      ignore_index=-100)
        prog = paddle.static.Program()
        with paddle.static.program_guard(prog, paddle.static.Program()):
            x = paddle.static.data('logits', [N, C], self.dtype)
            y = paddle.static.data('labels', [N, C], self.dtype)
            paddle_loss_swce = paddle.nn.functional.softmax_with_cross_entropy(
                x, y, soft_label=True, axis=axis)
            labels_kw = {'target': y} if target_keyword else {'label': y}
            paddle_loss_ce = paddle.nn.functional.cross_entropy(
                x, **labels_kw, soft_label=True, axis=axis, weight=None, reduction='none')
            swce, ce = paddle.static.Executor(paddle.CPUPlace()).run(
                prog, feed={'logits': logits, 'labels': labels},
                fetch_list=[paddle_loss_swce, paddle_loss_ce])
        np.testing.assert_allclose(swce, expected, rtol=1e-05)
        np.testing.assert_allclose(ce, expected, rtol=1e-05)

    def test_softmax_with_cross_entropy_alias(self):
        self.test_softmax_with_cross_entropy(target_keyword=True)

    def test_cross_entropy_loss_soft_1d(self):
        self.soft_case([4, 3], 'none', False)

    def test_cross_entropy_loss_soft_1d_weight(self):
        self.soft_case([4, 3], 'none', True)

    def test_cross_entropy_loss_soft_1d_mean(self):
        self.soft_case([4, 3], 'mean', False)

    def test_cross_entropy_loss_soft_1d_weight_mean(self):
        self.soft_case([4, 3], 'mean', True)

    def test_cross_entropy_loss_soft_2d(self):
        # Paddle's inner_cross_entropy_loss_soft_2d(True) and (False) both call soft_label=True
        self.soft_case([3, 2, 2, 5], 'none', False)
        self.soft_case([3, 2, 2, 5], 'none', False)

    def test_cross_entropy_loss_soft_2d_weight_mean(self):
        self.soft_case([3, 2, 2, 5], 'mean', True)

    def test_cross_entropy_loss_onehot_label_smoothing_1d(self):
        self.soft_case([4, 3], 'none', False, 'onehot', np.random.uniform(0.1, 1.0))

    def test_cross_entropy_loss_onehot_label_smoothing_1d_weight_mean(self):
        self.soft_case([4, 3], 'mean', True, 'onehot', np.random.uniform(0.1, 1.0))

    def test_cross_entropy_loss_onehot_label_smoothing_2d(self):
        self.soft_case([3, 2, 2, 5], 'none', False, 'onehot', np.random.uniform(0.1, 1.0))

    def test_cross_entropy_loss_onehot_label_smoothing_2d_weight_mean(self):
        self.soft_case([3, 2, 2, 5], 'mean', True, 'onehot', np.random.uniform(0.1, 1.0))

    def test_cross_entropy_loss_integer_label_smoothing_1d(self):
        self.soft_case([4, 3], 'none', False, 'integer', np.random.uniform(0.1, 1.0))

    def test_cross_entropy_loss_integer_label_smoothing_1d_weight_mean(self):
        self.soft_case([4, 3], 'mean', True, 'integer', np.random.uniform(0.1, 1.0))

    def test_cross_entropy_loss_integer_label_smoothing_2d(self):
        self.soft_case([3, 2, 2, 5], 'none', False, 'integer', np.random.uniform(0.1, 1.0))

    def test_cross_entropy_loss_integer_label_smoothing_2d_weight_mean(self):
        self.soft_case([3, 2, 2, 5], 'mean', True, 'integer', np.random.uniform(0.1, 1.0))

    def test_cross_entropy_loss_soft_1d_alias(self):
        N, C, axis = 4, 3, -1
        logits = np.random.uniform(0.1, 1.0, [N, C]).astype(self.dtype)
        softmax = np.apply_along_axis(stable_softmax, axis, logits)
        labels = np.random.uniform(0.1, 1.0, [N, C]).astype(self.dtype)
        labels /= np.sum(labels, axis=axis, keepdims=True)
        expected = cross_entropy_soft(softmax, labels, axis, N, weight=None, reduction='none',
                                      ignore_index=-100)
        prog = paddle.static.Program()
        with paddle.static.program_guard(prog, paddle.static.Program()):
            input = paddle.static.data(name='input', shape=[N, C], dtype=self.dtype)
            label = paddle.static.data(name='label', shape=[N, C], dtype=self.dtype)
            cross_entropy_loss = paddle.nn.loss.CrossEntropyLoss(reduction='none',
                                                                 soft_label=True)
            ret = cross_entropy_loss(input, target=label)
            static_ret = paddle.static.Executor(paddle.CPUPlace()).run(
                prog, feed={'input': logits, 'label': labels}, fetch_list=[ret])
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    # -- hard labels ---------------------------------------------------------------------------
    def test_cross_entropy_loss_1d_with_mean_ignore(self):
        input_np = np.random.random([2, 4]).astype(self.dtype)
        label_np = np.random.randint(0, 4, size=(2)).astype(np.int64)
        static_ret = run_static(input_np, label_np, ignore_index=0)
        expected = cross_entropy_loss_1d(input_np, label_np, ignore_index=0)[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_cross_entropy_loss_1d_with_mean_ignore_negative(self):
        N, C = 100, 200
        input_np = np.random.random([N, C]).astype(self.dtype)
        label_np = -np.ones(N).astype(np.int64)
        static_ret = run_static(input_np, label_np, ignore_index=-1)
        expected = cross_entropy_loss_1d(input_np, label_np, ignore_index=-1)[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_cross_entropy_loss_1d_with_weight_mean_ignore(self):
        N, C = 100, 200
        input_np = np.random.random([N, C]).astype(self.dtype)
        label_np = np.random.randint(0, C, size=(N)).astype(np.int64)
        weight_np = np.random.random([C]).astype(self.dtype)
        static_ret = run_static(input_np, label_np, weight_np, ignore_index=0)
        expected = cross_entropy_loss_1d(input_np, label_np, weight=weight_np, ignore_index=0)[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_cross_entropy_loss_1d_with_weight_mean_ignore_exceedlabel(self):
        # Paddle runs this one in dygraph only
        N, C = 100, 200
        input_np = np.random.random([N, C]).astype(self.dtype)
        label_np = np.random.randint(0, C, size=(N)).astype(np.int64)
        label_np[0] = 255
        weight_np = np.random.random([C]).astype(self.dtype)
        static_ret = run_static(input_np, label_np, weight_np, ignore_index=255)
        expected = cross_entropy_loss_1d(input_np, label_np, weight=weight_np,
                                         ignore_index=255)[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_cross_entropy_loss_1d_with_weight_mean(self):
        input_np = np.random.random([2, 4]).astype(self.dtype)
        label_np = np.random.randint(0, 4, size=(2)).astype(np.int64)
        weight_np = np.random.random([4]).astype(self.dtype)
        static_ret = run_static(input_np, label_np, weight_np)
        expected = cross_entropy_loss_1d(input_np, label_np, weight=weight_np)[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_cross_entropy_loss_1d_with_weight_sum(self):
        input_np = np.random.random([100, 200]).astype(self.dtype)
        label_np = np.random.randint(0, 100, size=(100)).astype(np.int64)
        weight_np = np.random.random([200]).astype(self.dtype)
        static_ret = run_static(input_np, label_np, weight_np, reduction='sum')
        expected = cross_entropy_loss_1d(input_np, label_np, weight=weight_np,
                                         reduction='sum')[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_cross_entropy_loss_1d_with_weight_none(self):
        input_np = np.random.random([100, 200]).astype(self.dtype)
        label_np = np.random.randint(0, 100, size=(100)).astype(np.int64)
        weight_np = np.random.random([200]).astype(self.dtype)
        static_ret = np.squeeze(run_static(input_np, label_np, weight_np, reduction='none'))
        expected = cross_entropy_loss_1d(input_np, label_np, weight=weight_np, reduction='none')
        np.testing.assert_allclose(static_ret, expected, rtol=1e-05)

    def test_cross_entropy_loss_1d_with_weight_none_func(self):
        input_np = np.random.random([100, 200]).astype(self.dtype)
        label_np = np.random.randint(0, 100, size=(100)).astype(np.int64)
        weight_np = np.random.random([200]).astype(self.dtype)
        static_ret = np.squeeze(run_static(input_np, label_np, weight_np, functional=True,
                                           reduction='none'))
        expected = cross_entropy_loss_1d(input_np, label_np, weight=weight_np, reduction='none')
        np.testing.assert_allclose(static_ret, expected, rtol=1e-05)

    def test_cross_entropy_loss_1d_mean(self):
        input_np = np.random.random([100, 200]).astype(self.dtype)
        label_np = np.random.randint(0, 100, size=(100)).astype(np.int64)
        static_ret = run_static(input_np, label_np)
        expected = cross_entropy_loss_1d(input_np, label_np)[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_cross_entropy_loss_1d_sum(self):
        input_np = np.random.random([100, 200]).astype(self.dtype)
        label_np = np.random.randint(0, 100, size=(100)).astype(np.int64)
        static_ret = run_static(input_np, label_np, reduction='sum')
        expected = cross_entropy_loss_1d(input_np, label_np, reduction='sum')[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_cross_entropy_loss_1d_none(self):
        input_np = np.random.random([100, 200]).astype(self.dtype)
        label_np = np.random.randint(0, 100, size=(100)).astype(np.int64)
        static_ret = np.squeeze(run_static(input_np, label_np, reduction='none'))
        expected = cross_entropy_loss_1d(input_np, label_np, reduction='none')
        np.testing.assert_allclose(static_ret, expected, rtol=1e-05)

    def test_cross_entropy_loss_2d_with_weight_none(self):
        input_np = np.random.random(size=(2, 2, 2, 3)).astype(self.dtype)  # NHWC
        label_np = np.random.randint(0, 3, size=(2, 2, 2)).astype(np.int64)  # NHW
        weight_np = np.random.random(size=(3,)).astype(self.dtype)  # C
        static_ret = np.squeeze(run_static(input_np, label_np, weight_np, reduction='none'))
        expected = cross_entropy_loss_2d(input_np, label_np, weight=weight_np, reduction='none')
        np.testing.assert_allclose(static_ret, expected, rtol=1e-05)

    def test_cross_entropy_loss_2d_with_weight_axis_change_mean(self):
        input_np = np.random.random(size=(2, 3, 2, 2)).astype(self.dtype)  # NCHW
        label_np = np.random.randint(0, 3, size=(2, 2, 2)).astype(np.int64)  # NHW
        weight_np = np.random.random(size=(3,)).astype(self.dtype)  # C
        static_ret = run_static(input_np, label_np, weight_np, reduction='mean', axis=1)
        expected = cross_entropy_loss_2d(np.transpose(input_np, [0, 2, 3, 1]), label_np,
                                         weight=weight_np, reduction='mean')[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_cross_entropy_loss_2d_with_weight_mean(self):
        input_np = np.random.random(size=(2, 2, 2, 3)).astype(self.dtype)
        label_np = np.random.randint(0, 3, size=(2, 2, 2)).astype(np.int64)
        weight_np = np.random.random(size=(3,)).astype(self.dtype)
        static_ret = run_static(input_np, label_np, weight_np, reduction='mean')
        expected = cross_entropy_loss_2d(input_np, label_np, weight=weight_np,
                                         reduction='mean')[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_cross_entropy_loss_2d_with_weight_sum(self):
        input_np = np.random.random(size=(2, 2, 2, 3)).astype(self.dtype)
        label_np = np.random.randint(0, 3, size=(2, 2, 2)).astype(np.int64)
        weight_np = np.random.random(size=(3,)).astype(self.dtype)
        static_ret = run_static(input_np, label_np, weight_np, reduction='sum')
        expected = cross_entropy_loss_2d(input_np, label_np, weight=weight_np,
                                         reduction='sum')[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_cross_entropy_loss_2d_none(self):
        input_np = np.random.random(size=(2, 2, 2, 3)).astype(self.dtype)
        label_np = np.random.randint(0, 3, size=(2, 2, 2)).astype(np.int64)
        static_ret = np.squeeze(run_static(input_np, label_np, reduction='none'))
        expected = cross_entropy_loss_2d(input_np, label_np, reduction='none')
        np.testing.assert_allclose(static_ret, expected, rtol=1e-05)

    def test_cross_entropy_loss_2d_mean(self):
        input_np = np.random.random(size=(2, 2, 2, 3)).astype(self.dtype)
        label_np = np.random.randint(0, 3, size=(2, 2, 2)).astype(np.int64)
        static_ret = run_static(input_np, label_np, reduction='mean')
        expected = cross_entropy_loss_2d(input_np, label_np, reduction='mean')[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)

    def test_cross_entropy_loss_2d_sum(self):
        input_np = np.random.random(size=(2, 2, 2, 3)).astype(self.dtype)
        label_np = np.random.randint(0, 3, size=(2, 2, 2)).astype(np.int64)
        static_ret = run_static(input_np, label_np, reduction='sum')
        expected = cross_entropy_loss_2d(input_np, label_np, reduction='sum')[0]
        np.testing.assert_allclose(static_ret[0], expected, rtol=1e-05)


class TestCrossEntropyFAPIError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):

            def test_WeightLength_NotEqual():
                input_data = paddle.rand(shape=[20, 100])
                label_data = paddle.randint(0, 100, shape=[20, 1], dtype="int64")
                weight_data = paddle.rand([100 + 1])
                paddle.nn.functional.cross_entropy(input=input_data, label=label_data,
                                                   weight=weight_data, ignore_index=-100)

            self.assertRaises(ValueError, test_WeightLength_NotEqual)

            def static_test_WeightLength_NotEqual():
                input_np = np.random.random([2, 4]).astype('float32')
                label_np = np.random.randint(0, 4, size=(2)).astype(np.int64)
                weight_np = np.random.random([3]).astype('float32')
                static_ret = run_static(input_np, label_np, weight_np)
                self.assertIsNotNone(static_ret)

            self.assertRaises(ValueError, static_test_WeightLength_NotEqual)


if __name__ == "__main__":
    unittest.main()
