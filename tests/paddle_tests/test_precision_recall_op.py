"""Port of Paddle test/legacy_test/test_precision_recall_op.py (run-on-paddle: none: Paddle
3.3.1 no longer registers the precision_recall op, so the file keeps the numpy references it
carries, get_states and compute_metrics, and is not run on Paddle).

The OpTests' check_output runs through public API: the precision_recall op appended to a legacy
Program with Block.append_op (OpTest's Operator machinery is internal; Paddle never had a layer
for it), fed the case's MaxProbs / Indices / Labels and, where the case has them, Weights and
StatesInfo. BatchMetrics, AccumMetrics and AccumStatesInfo are compared with the file's
references at OpTest's float32 tolerance. np.random is seeded in setUp so each run draws the same
case. Added: TestPrecisionRecallAccumulated, the states accumulated across three batches in one
persistable var (StatesInfo and AccumStatesInfo bound to it, as a metric's state lives), against
get_states summed over the batches; TestPrecisionRecallLabelRange, a label outside
[0, class_number) is an error naming it.
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()

OUTPUTS = ['BatchMetrics', 'AccumMetrics', 'AccumStatesInfo']


def calc_precision(tp_count, fp_count):
    if tp_count > 0.0 or fp_count > 0.0:
        return tp_count / (tp_count + fp_count)
    return 1.0


def calc_recall(tp_count, fn_count):
    if tp_count > 0.0 or fn_count > 0.0:
        return tp_count / (tp_count + fn_count)
    return 1.0


def calc_f1_score(precision, recall):
    if precision > 0.0 or recall > 0.0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def get_states(idxs, labels, cls_num, weights=None):
    ins_num = idxs.shape[0]
    # TP FP TN FN
    states = np.zeros((cls_num, 4)).astype('float32')
    for i in range(ins_num):
        # weights[i][0]: numpy 2 no longer stores a (1,) array into one element
        w = weights[i][0] if weights is not None else 1.0
        idx = idxs[i][0]
        label = labels[i][0]
        if idx == label:
            states[idx][0] += w
            for j in range(cls_num):
                states[j][2] += w
            states[idx][2] -= w
        else:
            states[label][3] += w
            states[idx][1] += w
            for j in range(cls_num):
                states[j][2] += w
            states[label][2] -= w
            states[idx][2] -= w
    return states


def compute_metrics(states, cls_num):
    total_tp_count = 0.0
    total_fp_count = 0.0
    total_fn_count = 0.0
    macro_avg_precision = 0.0
    macro_avg_recall = 0.0
    for i in range(cls_num):
        total_tp_count += states[i][0]
        total_fp_count += states[i][1]
        total_fn_count += states[i][3]
        macro_avg_precision += calc_precision(states[i][0], states[i][1])
        macro_avg_recall += calc_recall(states[i][0], states[i][3])
    metrics = []
    macro_avg_precision /= cls_num
    macro_avg_recall /= cls_num
    metrics.append(macro_avg_precision)
    metrics.append(macro_avg_recall)
    metrics.append(calc_f1_score(macro_avg_precision, macro_avg_recall))
    micro_avg_precision = calc_precision(total_tp_count, total_fp_count)
    metrics.append(micro_avg_precision)
    micro_avg_recall = calc_recall(total_tp_count, total_fn_count)
    metrics.append(micro_avg_recall)
    metrics.append(calc_f1_score(micro_avg_precision, micro_avg_recall))
    return np.array(metrics).astype('float32')


def append_precision_recall(block, inputs, attrs, states_var=None):
    """The op appended with data vars for `inputs` (slot -> array); AccumStatesInfo is
    states_var when given (which StatesInfo then reads too), else a fresh var."""
    ins = {slot: paddle.static.data(slot.lower(), list(v.shape), str(v.dtype))
           for slot, v in inputs.items()}
    outs = {n: block.create_var(name='pr_' + n.lower(), dtype='float64')
            for n in OUTPUTS[:2]}
    outs['AccumStatesInfo'] = states_var if states_var is not None else \
        block.create_var(name='pr_accumstatesinfo', dtype='float32')
    if states_var is not None:
        ins['StatesInfo'] = states_var
    block.append_op(type='precision_recall', inputs=ins, outputs=outs, attrs=attrs)
    return outs


class OpForward:
    """check_output of a case (mixed into each case's TestCase)."""

    def test_check_output(self):
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            outs = append_precision_recall(main.global_block(), self.inputs, self.attrs)
        exe = paddle.static.Executor(paddle.CPUPlace())
        got = exe.run(main, feed={k.lower(): v for k, v in self.inputs.items()},
                      fetch_list=[outs[n] for n in OUTPUTS])
        for name, value in zip(OUTPUTS, got):
            want = self.outputs[name]
            np.testing.assert_allclose(np.asarray(value).reshape(want.shape), want,
                                       rtol=1e-5, atol=1e-5, err_msg=name)


class TestPrecisionRecallOp_0(OpForward, unittest.TestCase):
    def setUp(self):
        np.random.seed(2024)
        self.op_type = "precision_recall"
        ins_num = 64
        cls_num = 10
        max_probs = np.random.uniform(0, 1.0, (ins_num, 1)).astype('float32')
        idxs = (
            np.random.choice(range(cls_num), ins_num)
            .reshape((ins_num, 1))
            .astype('int32')
        )
        labels = (
            np.random.choice(range(cls_num), ins_num)
            .reshape((ins_num, 1))
            .astype('int32')
        )
        states = get_states(idxs, labels, cls_num)
        metrics = compute_metrics(states, cls_num)

        self.attrs = {'class_number': cls_num}

        self.inputs = {'MaxProbs': max_probs, 'Indices': idxs, 'Labels': labels}

        self.outputs = {
            'BatchMetrics': metrics,
            'AccumMetrics': metrics,
            'AccumStatesInfo': states,
        }


class TestPrecisionRecallOp_1(OpForward, unittest.TestCase):
    def setUp(self):
        np.random.seed(2024)
        self.op_type = "precision_recall"
        ins_num = 64
        cls_num = 10
        max_probs = np.random.uniform(0, 1.0, (ins_num, 1)).astype('float32')
        idxs = (
            np.random.choice(range(cls_num), ins_num)
            .reshape((ins_num, 1))
            .astype('int32')
        )
        weights = np.random.uniform(0, 1.0, (ins_num, 1)).astype('float32')
        labels = (
            np.random.choice(range(cls_num), ins_num)
            .reshape((ins_num, 1))
            .astype('int32')
        )

        states = get_states(idxs, labels, cls_num, weights)
        metrics = compute_metrics(states, cls_num)

        self.attrs = {'class_number': cls_num}

        self.inputs = {
            'MaxProbs': max_probs,
            'Indices': idxs,
            'Labels': labels,
            'Weights': weights,
        }

        self.outputs = {
            'BatchMetrics': metrics,
            'AccumMetrics': metrics,
            'AccumStatesInfo': states,
        }


class TestPrecisionRecallOp_2(OpForward, unittest.TestCase):
    def setUp(self):
        np.random.seed(2024)
        self.op_type = "precision_recall"
        ins_num = 64
        cls_num = 10
        max_probs = np.random.uniform(0, 1.0, (ins_num, 1)).astype('float32')
        idxs = (
            np.random.choice(range(cls_num), ins_num)
            .reshape((ins_num, 1))
            .astype('int32')
        )
        weights = np.random.uniform(0, 1.0, (ins_num, 1)).astype('float32')
        labels = (
            np.random.choice(range(cls_num), ins_num)
            .reshape((ins_num, 1))
            .astype('int32')
        )
        states = np.random.randint(0, 30, (cls_num, 4)).astype('float32')

        accum_states = get_states(idxs, labels, cls_num, weights)
        batch_metrics = compute_metrics(accum_states, cls_num)
        accum_states += states
        accum_metrics = compute_metrics(accum_states, cls_num)

        self.attrs = {'class_number': cls_num}

        self.inputs = {
            'MaxProbs': max_probs,
            'Indices': idxs,
            'Labels': labels,
            'Weights': weights,
            'StatesInfo': states,
        }

        self.outputs = {
            'BatchMetrics': batch_metrics,
            'AccumMetrics': accum_metrics,
            'AccumStatesInfo': accum_states,
        }


class TestPrecisionRecallAccumulated(unittest.TestCase):
    """Added: three batches through one persistable state var."""

    def test_states_accumulate_across_runs(self):
        np.random.seed(7)
        cls_num, ins_num = 5, 32
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            states = paddle.static.create_global_var([cls_num, 4], 0.0, 'float32',
                                                     persistable=True, name='pr_states')
            feed_like = {'MaxProbs': np.zeros((ins_num, 1), 'float32'),
                         'Indices': np.zeros((ins_num, 1), 'int32'),
                         'Labels': np.zeros((ins_num, 1), 'int32'),
                         'Weights': np.zeros((ins_num, 1), 'float32')}
            outs = append_precision_recall(main.global_block(), feed_like,
                                           {'class_number': cls_num}, states)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        total = np.zeros((cls_num, 4), 'float32')
        for _ in range(3):
            idxs = np.random.randint(0, cls_num, (ins_num, 1)).astype('int32')
            labels = np.random.randint(0, cls_num, (ins_num, 1)).astype('int32')
            weights = np.random.uniform(0, 1, (ins_num, 1)).astype('float32')
            batch = get_states(idxs, labels, cls_num, weights)
            total += batch
            got_batch, got_accum, got_states = exe.run(
                main, feed={'maxprobs': np.random.uniform(0, 1, (ins_num, 1)).astype('float32'),
                            'indices': idxs, 'labels': labels, 'weights': weights},
                fetch_list=[outs[n] for n in OUTPUTS])
            np.testing.assert_allclose(got_batch, compute_metrics(batch, cls_num), rtol=1e-5,
                                       atol=1e-5)
            np.testing.assert_allclose(got_states, total, rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(got_accum, compute_metrics(total, cls_num), rtol=1e-5,
                                       atol=1e-5)


class TestPrecisionRecallLabelRange(unittest.TestCase):
    """Added: labels must lie in [0, class_number), as Paddle's kernel enforces."""

    def test_label_out_of_range(self):
        inputs = {'MaxProbs': np.ones((3, 1), 'float32'),
                  'Indices': np.array([[0], [1], [2]], 'int32'),
                  'Labels': np.array([[0], [1], [3]], 'int32')}
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            outs = append_precision_recall(main.global_block(), inputs, {'class_number': 3})
        exe = paddle.static.Executor(paddle.CPUPlace())
        with self.assertRaisesRegex(IndexError, 'Labels'):
            exe.run(main, feed={k.lower(): v for k, v in inputs.items()},
                    fetch_list=[outs['BatchMetrics']])


if __name__ == '__main__':
    unittest.main()
