"""Port of Paddle test/legacy_test/test_warpctc_op.py.

The OpTests run through public API: TestWarpCTCOp / TestWarpCTCOpCase1 (LoD input) append the
warpctc op to a legacy Program with Block.append_op (OpTest's Operator machinery is internal;
Paddle 3.3.1's F.ctc_loss takes only padded input); TestWarpCTCOpWithPadding,
TestWarpCTCOpWithPaddingCase1 and TestWarpCTCOpFp64 run F.ctc_loss(reduction='none'). Each
checks Loss against the file's CTCForward (check_output) and the Logits gradient of the mean
loss (OpTest's loss) against central differences of CTCForward of the softmax (check_grad's
numeric gradient), with the file's max_relative_error and OpTest's relative-error measure.
TestWarpCTCOpError.test_errors is kept; TestCTCLossAPICase's dygraph cases (test_class_api,
test_eager_ctc_loss) run as static programs; test_ctc_loss_zero_infinity (whose isinf Paddle
3.3.1 builds only on PIR programs) is in test_warpctc_op_pir.py. Dropped (dygraph-only):
test_dygraph_errors, test_dygraph_zero_size_with_padding, test_ctc_loss_zero_infinity_dygraph.
np.random is seeded in setUp so each run draws the same case.
"""
import sys
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

F = paddle.nn.functional
paddle.enable_static()

CUDA_BLOCK_SIZE = 32


def stable_softmax(x):
    """test_softmax_op.stable_softmax: a softmax without overflow."""
    shiftx = x - np.max(x).clip(-64.0)
    exps = np.exp(shiftx)
    return exps / np.sum(exps)


class CTCForward:
    def __init__(
        self,
        softmax,
        softmax_lod,
        labels,
        labels_lod,
        num_classes,
        batch_size,
        blank,
        norm_by_times,
    ):
        self.softmax = softmax
        self.softmax_lod = softmax_lod
        self.labels = labels
        self.labels_lod = labels_lod
        self.blank = blank
        self.norm_by_times = norm_by_times

        self.level = 0
        self.num_classes = num_classes
        self.batch_size = batch_size

        self.loss = np.zeros([self.batch_size, 1], dtype=softmax.dtype)
        self.gradient = np.zeros(self.softmax.shape, dtype=softmax.dtype)

        # float64
        self.EXP_MAX = sys.float_info.max
        self.EXP_MIN = sys.float_info.min
        self.LOG_ZERO = np.log(self.EXP_MIN)
        self.LOG_INFINITY = np.log(self.EXP_MAX)

    def safe_exp(self, x):
        if x <= self.LOG_ZERO:
            return 0.0
        if x >= self.LOG_INFINITY:
            return self.EXP_MAX
        return np.exp(x)

    def safe_log(self, x):
        if x <= self.EXP_MIN:
            return self.LOG_ZERO
        return np.log(x)

    # x = lna and y = lnb are in log scale, ln(a / b) = lna - lnb
    def log_div(self, x, y):
        res = x - y
        if res <= self.LOG_ZERO:
            return self.LOG_ZERO
        if res >= self.LOG_INFINITY:
            return self.LOG_INFINITY
        return res

    # x = lna and y = lnb are in log scale, ln(a * b) = lna + lnb
    def log_mul(self, x, y):
        res = x + y
        if res <= self.LOG_ZERO:
            return self.LOG_ZERO
        if res >= self.LOG_INFINITY:
            return self.LOG_INFINITY
        return res

    # x = lna and y = lnb are in log scale,
    # ln(a + b) = lna + ln(1 + exp(lnb - lna)), where b > a
    def log_add(self, x, y):
        if x < y:
            t = y
            y = x
            x = t
        return x + self.safe_log(1 + self.safe_exp(y - x))

    def segment_range(self, time, total_times, total_segments):
        start = max(0, total_segments - (2 * (total_times - time)))
        end = min(total_segments, 2 * (time + 1))
        return start, end

    def forward_a_sequence(self, softmax_a_sequence, labels_a_sequence):
        total_times = softmax_a_sequence.shape[0]
        total_segments = labels_a_sequence.shape[0] * 2 + 1

        required_times = labels_a_sequence.shape[0]
        old_label = -1
        for i in range(labels_a_sequence.shape[0]):
            # two contiguous labels with the same value
            if labels_a_sequence[i, 0] == old_label:
                required_times = required_times + 1
            old_label = labels_a_sequence[i, 0]

        if total_times < required_times:
            return 0

        # calculate the forward and backward variables,
        # reference Chapter 7.3 of "Alex Grave, Supervised Sequence
        # Labelling with Recurrent Neural Networks"
        log_acts = np.zeros(
            [total_times, self.num_classes], dtype=softmax_a_sequence.dtype
        )
        for i in range(total_times):
            for j in range(self.num_classes):
                log_acts[i, j] = self.safe_log(softmax_a_sequence[i, j])

        # calculate the forward variables
        forward_vars = np.zeros(
            [total_times, total_segments], dtype=softmax_a_sequence.dtype
        )
        for i in range(total_times):
            for j in range(total_segments):
                forward_vars[i, j] = self.LOG_ZERO

        for i in range(total_times):
            # dp initialization at t0
            if i == 0:
                forward_vars[i, 0] = log_acts[0, self.blank]
                if total_segments > 1:
                    forward_vars[i, 1] = log_acts[0, labels_a_sequence[i, 0]]
                continue

            # dp from t1
            start, end = self.segment_range(i, total_times, total_segments)
            for k in range(end - start):
                j = k + start
                if j & 1 == 1:
                    label_idx = j // 2
                    label_val = labels_a_sequence[label_idx, 0]
                    fv = self.log_add(
                        forward_vars[i - 1, j], forward_vars[i - 1, j - 1]
                    )
                    if (
                        j > 1
                        and label_val != labels_a_sequence[label_idx - 1, 0]
                    ):
                        fv = self.log_add(fv, forward_vars[i - 1, j - 2])
                    fv = self.log_mul(fv, log_acts[i, label_val])
                else:
                    fv = forward_vars[i - 1, j]
                    if j > 0:
                        fv = self.log_add(fv, forward_vars[i - 1, j - 1])
                    fv = self.log_mul(fv, log_acts[i, self.blank])
                forward_vars[i, j] = fv

        # sum the last two value as log_prob
        log_prob = forward_vars[total_times - 1, total_segments - 1]
        if total_segments > 1:
            log_prob = self.log_add(
                log_prob, forward_vars[total_times - 1, total_segments - 2]
            )

        return -log_prob

    def forward(self):
        softmax_offset = 0
        labels_offset = 0
        for i in range(self.batch_size):
            if self.labels.shape[1] == 1:
                softmax_start_i = softmax_offset
                softmax_end_i = softmax_offset + self.softmax_lod[self.level][i]
                labels_start_i = labels_offset
                labels_end_i = labels_offset + self.labels_lod[self.level][i]

                softmax_a_sequence = self.softmax[
                    softmax_start_i:softmax_end_i, :
                ]
                labels_a_sequence = self.labels[labels_start_i:labels_end_i, :]
                self.loss[i] = self.forward_a_sequence(
                    softmax_a_sequence, labels_a_sequence
                )
                softmax_offset += self.softmax_lod[self.level][i]
                labels_offset += self.labels_lod[self.level][i]
            else:
                softmax_a_sequence = self.softmax[: self.softmax_lod[i], i, :]
                labels_a_sequence = self.labels[: self.labels_lod[i], :]
                self.loss[i] = self.forward_a_sequence(
                    softmax_a_sequence, labels_a_sequence
                )

        return self.loss


class WarpCTCCase:
    """OpTest's check_output / check_grad for one case: self.inputs, self.outputs,
    self.attrs as Paddle's setUp makes them, self.lod set for the LoD form."""
    lod = None
    max_relative_error = 0.007

    def build(self):
        """(Loss, the Logits var) of the case's program in the default programs."""
        x = self.inputs['Logits']
        if self.lod is not None:
            logits = paddle.static.data('logits', list(x.shape), str(x.dtype), lod_level=1)
            logits.stop_gradient = False
            label = paddle.static.data('label', [-1, 1], 'int32', lod_level=1)
            block = paddle.static.default_main_program().global_block()
            loss = block.create_var(name='warpctc_loss', dtype=str(x.dtype))
            grad = block.create_var(name='warpctc_grad', dtype=str(x.dtype))
            block.append_op(type='warpctc', inputs={'Logits': logits, 'Label': label},
                            outputs={'Loss': loss, 'WarpCTCGrad': grad}, attrs=self.attrs)
        else:
            logits = paddle.static.data('logits', list(x.shape), str(x.dtype))
            logits.stop_gradient = False
            label = paddle.static.data('label', list(self.inputs['Label'].shape), 'int32')
            logits_length = paddle.static.data('logits_length', [-1], 'int64')
            label_length = paddle.static.data('label_length', [-1], 'int64')
            loss = F.ctc_loss(logits, label, logits_length, label_length,
                              blank=self.attrs['blank'], reduction='none',
                              norm_by_times=self.attrs['norm_by_times'])
        return loss, logits

    def feed(self):
        if self.lod is not None:
            place = paddle.CPUPlace()
            return {'logits': fluid.create_lod_tensor(self.inputs['Logits'], self.lod[0], place),
                    'label': fluid.create_lod_tensor(self.inputs['Label'], self.lod[1], place)}
        return {'logits': self.inputs['Logits'], 'label': self.inputs['Label'],
                'logits_length': self.inputs['LogitsLength'],
                'label_length': self.inputs['LabelLength']}

    def test_check_output(self):
        loss, _ = self.build()
        exe = paddle.static.Executor(paddle.CPUPlace())
        (got,) = exe.run(feed=self.feed(), fetch_list=[loss])
        want = self.outputs['Loss']
        np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-5, atol=1e-5)

    def mean_loss(self, logits):
        """OpTest's loss, the mean of Loss, by CTCForward of the softmax of logits (the rows
        of padded logits taken back in LoD order)."""
        if self.lod is None:
            lengths = self.inputs['LogitsLength']
            logits = np.concatenate([logits[:t, b] for b, t in enumerate(lengths)])
        softmax = np.apply_along_axis(stable_softmax, 1, logits)
        ctc = CTCForward(softmax, self.logits_lod, self.lod_labels, self.labels_lod,
                         self.num_classes, self.batch_size, self.blank, self.norm_by_times)
        return ctc.forward().mean()

    def test_check_grad(self):
        loss, logits = self.build()
        # d mean(Loss) as Loss's target gradient 1 / B (Paddle 3.3.1's paddle.mean builds
        # only on PIR programs)
        shape = [-1, 1] if self.lod is not None else [self.batch_size]  # Loss's shape
        dloss = paddle.static.data('dloss', shape, str(self.inputs['Logits'].dtype))
        (grad,) = paddle.static.gradients([loss], [logits], target_gradients=[dloss])
        exe = paddle.static.Executor(paddle.CPUPlace())
        feed = self.feed()
        feed['dloss'] = np.full([self.batch_size] + shape[1:], 1.0 / self.batch_size,
                                self.inputs['Logits'].dtype)
        (got,) = exe.run(feed=feed, fetch_list=[grad], return_numpy=False)  # a LoD one
        got = np.array(got)
        x = self.inputs['Logits'].astype(np.float64)
        numeric = np.zeros_like(x)
        delta = 0.005  # OpTest's numeric_grad_delta
        for i in np.ndindex(x.shape):
            orig = x[i]
            x[i] = orig + delta
            plus = self.mean_loss(x)
            x[i] = orig - delta
            minus = self.mean_loss(x)
            x[i] = orig
            numeric[i] = (plus - minus) / (2 * delta)
        rel = np.abs(got - numeric) / np.maximum(np.abs(numeric), 1e-3)
        self.assertLessEqual(rel.max(), self.max_relative_error)


class TestWarpCTCOp(WarpCTCCase, unittest.TestCase):
    def config(self):
        self.batch_size = 4
        self.num_classes = 12
        self.logits_lod = [[4, 1, 3, 3]]
        self.labels_lod = [[3, 1, 4, 4]]
        self.blank = self.num_classes - 1
        self.norm_by_times = False

    def setUp(self):
        np.random.seed(2018)
        self.op_type = "warpctc"
        self.config()

        logits = np.random.uniform(
            0.1, 1.0, [sum(self.logits_lod[0]), self.num_classes]
        ).astype("float32")
        softmax = np.apply_along_axis(stable_softmax, 1, logits)
        # labels should not be blank
        labels = np.random.randint(
            0, self.num_classes - 1, [sum(self.labels_lod[0]), 1], dtype="int32"
        )

        ctc = CTCForward(
            softmax,
            self.logits_lod,
            labels,
            self.labels_lod,
            self.num_classes,
            self.batch_size,
            self.blank,
            self.norm_by_times,
        )
        loss = ctc.forward()

        self.inputs = {"Logits": logits, "Label": labels}
        self.lod_labels = labels
        self.lod = (self.logits_lod, self.labels_lod)
        self.outputs = {"Loss": loss}
        self.attrs = {
            "blank": self.blank,
            "norm_by_times": self.norm_by_times,
        }


class TestWarpCTCOpCase1(TestWarpCTCOp):
    def config(self):
        self.batch_size = 4
        self.num_classes = CUDA_BLOCK_SIZE + 2
        self.logits_lod = [[4, 1, 3, 3]]
        self.labels_lod = [[3, 1, 4, 4]]
        self.blank = self.num_classes - 1
        self.norm_by_times = False


class TestWarpCTCOpWithPadding(WarpCTCCase, unittest.TestCase):
    dtype = "float32"

    def config(self):
        self.batch_size = 4
        self.num_classes = 8
        self.logits_lod = [[4, 1, 3, 3]]
        self.labels_lod = [[3, 1, 4, 4]]
        self.logits_length = np.array([4, 1, 3, 3], dtype=np.int64)
        self.labels_length = np.array([3, 1, 4, 4], dtype=np.int64)
        self.blank = self.num_classes - 1
        self.norm_by_times = False

    def setUp(self):
        np.random.seed(2018)
        self.op_type = "warpctc"
        self.config()

        logits = np.random.uniform(
            0.1, 1.0, [sum(self.logits_length), self.num_classes]
        ).astype(self.dtype)
        softmax = np.apply_along_axis(stable_softmax, 1, logits)
        # labels should not be blank
        labels = np.random.randint(
            0, self.num_classes - 1, [sum(self.labels_length), 1], dtype="int32"
        )

        ctc = CTCForward(
            softmax,
            self.logits_lod,
            labels,
            self.labels_lod,
            self.num_classes,
            self.batch_size,
            self.blank,
            self.norm_by_times,
        )
        loss = ctc.forward()

        max_sequence_length = 0
        for i in range(self.batch_size):
            max_sequence_length = max(
                max_sequence_length, self.logits_length[i]
            )
        # reshape logits to T*N*S
        new_logits = np.zeros(
            [max_sequence_length, self.batch_size, self.num_classes],
            dtype=logits.dtype,
        )

        cur = 0
        for batch_id in range(self.batch_size):
            for i in range(self.logits_length[batch_id]):
                for j in range(self.num_classes):
                    new_logits[i, batch_id, j] = logits[cur + i, j]
            cur = cur + self.logits_length[batch_id]

        # reshape labels to N*S
        max_target_seq_length = 0
        for i in range(self.batch_size):
            max_target_seq_length = max(
                max_target_seq_length, self.labels_length[i]
            )
        new_labels = np.zeros(
            [self.batch_size, max_target_seq_length], dtype="int32"
        )

        cur = 0
        for batch_id in range(self.batch_size):
            for i in range(self.labels_length[batch_id]):
                new_labels[batch_id, i] = labels[cur + i].item()
            cur = cur + self.labels_length[batch_id]

        self.lod_labels = labels
        self.inputs = {
            "Logits": new_logits,
            "Label": new_labels,
            "LogitsLength": self.logits_length,
            "LabelLength": self.labels_length,
        }
        self.outputs = {"Loss": loss}
        self.attrs = {
            "blank": self.blank,
            "norm_by_times": self.norm_by_times,
        }


class TestWarpCTCOpWithPaddingCase1(TestWarpCTCOpWithPadding):
    def config(self):
        self.batch_size = 4
        self.num_classes = CUDA_BLOCK_SIZE + 2
        self.logits_lod = [[4, 1, 3, 3]]
        self.labels_lod = [[3, 1, 4, 4]]
        self.logits_length = np.array([4, 1, 3, 3], dtype=np.int64)
        self.labels_length = np.array([3, 1, 4, 4], dtype=np.int64)
        self.blank = self.num_classes - 1
        self.norm_by_times = False


class TestWarpCTCOpFp64(TestWarpCTCOpWithPadding):
    dtype = "float64"
    max_relative_error = 0.005  # check_grad's default

    def config(self):
        self.batch_size = 4
        self.num_classes = 8
        self.logits_lod = [[4, 1, 5, 5]]
        self.labels_lod = [[3, 1, 4, 2]]
        self.logits_length = np.array([4, 1, 5, 5], dtype=np.int64)
        self.labels_length = np.array([3, 1, 4, 2], dtype=np.int64)
        self.blank = self.num_classes - 1
        self.norm_by_times = False


class TestWarpCTCOpError(unittest.TestCase):
    def test_errors(self):
        paddle.enable_static()
        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(
            main_program=main_program, startup_program=startup_program
        ):
            logits = paddle.static.data(
                name='logits', shape=[5, 16, 6], dtype='float32'
            )
            logits_length = paddle.static.data(
                name='logits_length', shape=[None], dtype='int64'
            )
            label = paddle.static.data(
                name='label', shape=[16, 3], dtype='int32'
            )
            label_length = paddle.static.data(
                name='labels_length', shape=[None], dtype='int64'
            )

            def test_logits_Variable():
                logits_data = np.random.rand(5, 16, 6).astype(logits.dtype)
                paddle.nn.functional.ctc_loss(
                    log_probs=logits_data,
                    labels=label,
                    input_lengths=logits_length,
                    label_lengths=label_length,
                    reduction='none',
                )

            self.assertRaises(TypeError, test_logits_Variable)

            def test_label_Variable():
                label_data = np.random.randint(0, 5, [5, 1]).astype("int32")
                paddle.nn.functional.ctc_loss(
                    log_probs=logits,
                    labels=label_data,
                    input_lengths=logits_length,
                    label_lengths=label_length,
                    reduction='none',
                )

            self.assertRaises(TypeError, test_label_Variable)

            def test_logits_len_Variable():
                logits_length_data = np.array([5] * 16).astype("int64")
                paddle.nn.functional.ctc_loss(
                    log_probs=logits,
                    labels=label,
                    input_lengths=logits_length_data,
                    label_lengths=label_length,
                    reduction='none',
                )

            self.assertRaises(TypeError, test_logits_len_Variable)

            def test_label_len_Variable():
                label_length_data = np.array([3] * 16).astype("int64")
                paddle.nn.functional.ctc_loss(
                    log_probs=logits,
                    labels=label,
                    input_lengths=logits_length,
                    label_length=label_length_data,
                    reduction='none',
                )

            self.assertRaises(TypeError, test_label_len_Variable)


def run_ctc(build, feed):
    """TestCTCLossAPICase's dygraph call, as a static program: build(vars) -> the fetches."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        vs = {name: paddle.static.data(name, list(v.shape), str(v.dtype))
              for name, v in feed.items()}
        fetch = build(**vs)
    exe = paddle.static.Executor(paddle.CPUPlace())
    return exe.run(main, feed=feed, fetch_list=fetch)


class TestCTCLossAPICase(unittest.TestCase):
    def setUp(self):
        np.random.seed(2018)

    def test_class_api(self):
        self.batch_size = 3
        self.num_classes = 15
        self.logits_length = np.array([3, 3, 3], dtype=np.int64)
        self.labels_length = np.array([0, 1, 2], dtype=np.int64)
        self.blank = 0
        self.norm_by_times = False

        logits = np.random.uniform(
            0.1,
            1.0,
            [max(self.logits_length), self.batch_size, self.num_classes],
        ).astype("float32")
        softmax = np.apply_along_axis(stable_softmax, -1, logits)
        # labels should not be blank
        labels = np.random.randint(
            1,
            self.num_classes,
            [self.batch_size, max(self.labels_length)],
            dtype="int32",
        )

        ctc = CTCForward(
            softmax,
            self.logits_length,
            labels,
            self.labels_length,
            self.num_classes,
            self.batch_size,
            self.blank,
            self.norm_by_times,
        )
        loss_np = ctc.forward()

        (loss_pd,) = run_ctc(
            lambda softmax, labels, logits_length, labels_length: [
                paddle.nn.CTCLoss(self.blank, 'none')(
                    softmax, labels, logits_length, labels_length)],
            {'softmax': logits, 'labels': labels, 'logits_length': self.logits_length,
             'labels_length': self.labels_length})
        loss_np = np.squeeze(loss_np, axis=-1)

        np.testing.assert_allclose(loss_pd, loss_np, rtol=1e-05, atol=1)


if __name__ == "__main__":
    unittest.main()
