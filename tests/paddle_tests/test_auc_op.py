"""Port of Paddle test/legacy_test/test_auc_op.py: the auc op and paddle.static.auc.

Kept: TestAucOp (slide_steps 1) and TestGlobalAucOp (slide_steps 0), the op appended to a
Program's block with Predict / Label / StatPos / StatNeg fed, as OpTest runs it: AUC against
paddle.metric.Auc's accumulate(), StatPosOut / StatNegOut against the per-bin counts;
TestAucAPI (static.auc with ins_tag_weight), TestAucOpError.
Changed: Paddle reads the counts from paddle.metric.Auc's private _stat_pos / _stat_neg; here
they are counted by numpy as Auc.update does (bin int(p * num_thresholds) of the positive-class
probability, by label). fluid -> base (Paddle 3.x).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

base = fluid

paddle.enable_static()


def stat_counts(pred, labels, num_thresholds):
    """paddle.metric.Auc.update's histograms: positives and negatives per threshold bin."""
    pos = np.zeros(num_thresholds + 1, 'int64')
    neg = np.zeros(num_thresholds + 1, 'int64')
    for p, lbl in zip(pred[:, 1], labels.reshape(-1)):
        (pos if lbl else neg)[int(p * num_thresholds)] += 1
    return pos, neg


def run_auc_op(inputs, attrs):
    main = base.Program()
    with base.program_guard(main, base.Program()):
        block = main.global_block()
        ins = {slot: paddle.static.data(slot.lower(), list(v.shape), str(v.dtype))
               for slot, v in inputs.items()}
        outs = {name: block.create_var(name=name.lower(), dtype=dtype) for name, dtype in
                (('AUC', 'float64'), ('StatPosOut', 'int64'), ('StatNegOut', 'int64'))}
        block.append_op(type='auc', inputs=ins, outputs=outs, attrs=attrs)
        exe = paddle.static.Executor(paddle.CPUPlace())
        got = exe.run(main, feed={s.lower(): v for s, v in inputs.items()},
                      fetch_list=list(outs.values()))
    return dict(zip(outs, got))


class TestAucOp(unittest.TestCase):
    def setUp(self):
        self.op_type = "auc"
        pred = np.random.random((128, 2)).astype("float32")
        labels = np.random.randint(0, 2, (128, 1)).astype("int64")
        num_thresholds = 200
        slide_steps = 1

        stat_pos = np.zeros((1 + slide_steps) * (num_thresholds + 1) + 1).astype("int64")
        stat_neg = np.zeros((1 + slide_steps) * (num_thresholds + 1) + 1).astype("int64")

        self.inputs = {'Predict': pred, 'Label': labels, "StatPos": stat_pos,
                       "StatNeg": stat_neg}
        self.attrs = {'curve': 'ROC', 'num_thresholds': num_thresholds,
                      "slide_steps": slide_steps}

        python_auc = paddle.metric.Auc(name="auc", curve='ROC', num_thresholds=num_thresholds)
        python_auc.update(pred, labels)

        stat_pos, stat_neg = stat_counts(pred, labels, num_thresholds)
        pos = stat_pos.tolist() * 2
        pos.append(1)
        neg = stat_neg.tolist() * 2
        neg.append(1)
        self.outputs = {'AUC': np.array(python_auc.accumulate()), 'StatPosOut': np.array(pos),
                        'StatNegOut': np.array(neg)}

    def test_check_output(self):
        got = run_auc_op(self.inputs, self.attrs)
        for name, want in self.outputs.items():
            np.testing.assert_allclose(got[name].reshape(want.shape), want, rtol=1e-5,
                                       atol=1e-8, err_msg=name)


class TestGlobalAucOp(TestAucOp):
    def setUp(self):
        self.op_type = "auc"
        pred = np.random.random((128, 2)).astype("float32")
        labels = np.random.randint(0, 2, (128, 1)).astype("int64")
        num_thresholds = 200
        slide_steps = 0

        stat_pos = np.zeros((1, (num_thresholds + 1))).astype("int64")
        stat_neg = np.zeros((1, (num_thresholds + 1))).astype("int64")

        self.inputs = {'Predict': pred, 'Label': labels, "StatPos": stat_pos,
                       "StatNeg": stat_neg}
        self.attrs = {'curve': 'ROC', 'num_thresholds': num_thresholds,
                      "slide_steps": slide_steps}

        python_auc = paddle.metric.Auc(name="auc", curve='ROC', num_thresholds=num_thresholds)
        python_auc.update(pred, labels)

        pos, neg = stat_counts(pred, labels, num_thresholds)
        self.outputs = {'AUC': np.array(python_auc.accumulate()),
                        'StatPosOut': np.array([pos]), 'StatNegOut': np.array([neg])}


class TestAucAPI(unittest.TestCase):
    def test_static(self):
        paddle.enable_static()
        data = paddle.static.data(name="input", shape=[-1, 1], dtype="float32")
        label = paddle.static.data(name="label", shape=[4], dtype="int64")
        ins_tag_weight = paddle.static.data(name="ins_tag_weight", shape=[4], dtype="float32")
        result = paddle.static.auc(input=data, label=label, ins_tag_weight=ins_tag_weight)

        place = paddle.CPUPlace()
        exe = paddle.static.Executor(place)

        exe.run(paddle.static.default_startup_program())

        x = np.array([[0.0474], [0.5987], [0.7109], [0.9997]]).astype("float32")

        y = np.array([0, 0, 1, 0]).astype('int64')
        z = np.array([1, 1, 1, 1]).astype('float32')
        (output,) = exe.run(feed={"input": x, "label": y, "ins_tag_weight": z},
                            fetch_list=[result[0]])
        auc_np = np.array(0.66666667).astype("float32")
        np.testing.assert_allclose(output, auc_np, rtol=1e-05)
        assert auc_np.shape == auc_np.shape


class TestAucOpError(unittest.TestCase):
    def test_errors(self):
        with base.program_guard(base.Program(), base.Program()):

            def test_type1():
                data1 = paddle.static.data(name="input1", shape=[-1, 2], dtype="int")
                label1 = paddle.static.data(name="label1", shape=[-1], dtype="int")
                ins_tag_w1 = paddle.static.data(name="label1", shape=[-1], dtype="int")
                result1 = paddle.static.auc(input=data1, label=label1,
                                            ins_tag_weight=ins_tag_w1)

            self.assertRaises(TypeError, test_type1)

            def test_type2():
                data2 = paddle.static.data(name="input2", shape=[-1, 2], dtype="float32")
                label2 = paddle.static.data(name="label2", shape=[-1], dtype="float32")
                result2 = paddle.static.auc(input=data2, label=label2)

            self.assertRaises(TypeError, test_type2)


if __name__ == '__main__':
    unittest.main()
