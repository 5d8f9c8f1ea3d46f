"""Port of Paddle test/legacy_test/test_metrics.py: the static and numpy cases of paddle.metric.

Dropped: TestAccuracy, TestAccuracyDynamic(MultiTopk) and TestAuc.test_auc_tensor (dygraph:
paddle.to_tensor, fluid.dygraph.guard); paddle.hapi.model.to_list is a one-line helper, written
here. In TestPrecision.test_1d / TestRecall.test_1d the second update fed paddle.to_tensor(...)
(dygraph); it feeds the same numpy arrays (Metric.update accepts both). fetch_list takes the
state variables rather than their .name.
"""
import unittest

import numpy as np

import fluidc as paddle


def to_list(value):
    if value is None:
        return value
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def accuracy(pred, label, topk=(1,)):
    maxk = max(topk)
    pred = np.argsort(pred)[..., ::-1][..., :maxk]
    if len(label.shape) == 1:
        label = label.reshape(-1, 1)
    elif label.shape[-1] != 1:
        label = np.argmax(label, axis=-1)[..., np.newaxis]
    correct = pred == np.repeat(label, maxk, -1)
    total = np.prod(np.array(label.shape[:-1]))
    return [float(correct[..., :k].sum()) / total for k in topk]


def convert_to_one_hot(y, C):
    oh = np.random.choice(np.arange(C), C, replace=False).astype('float32') / C
    oh = np.tile(oh[np.newaxis, :], (y.shape[0], 1))
    for i in range(y.shape[0]):
        oh[i, int(np.ravel(y[i])[0])] = 1.0  # int(y[i]) of a (1,) array fails on numpy 2
    return oh


class TestAccuracyStatic(unittest.TestCase):
    def setUp(self):
        self.topk = (1,)
        self.class_num = 5
        self.sample_num = 1000
        self.name = None
        self.squeeze_label = True

    def random_pred_label(self):
        label = np.random.randint(0, self.class_num, (self.sample_num, 1)).astype('int64')
        pred = np.random.randint(0, self.class_num, (self.sample_num, 1)).astype('int32')
        if self.squeeze_label:
            label = label.squeeze()
        return label, convert_to_one_hot(pred, self.class_num).astype('float32')

    def test_main(self):
        paddle.enable_static()
        main_prog, startup_prog = paddle.static.Program(), paddle.static.Program()
        main_prog.random_seed = 1024
        startup_prog.random_seed = 1024
        with paddle.static.program_guard(main_prog, startup_prog):
            pred = paddle.static.data(name='pred', shape=[None, self.class_num], dtype='float32')
            label = paddle.static.data(name='label', shape=[None, 1], dtype='int64')
            acc = paddle.metric.Accuracy(topk=self.topk, name=self.name)
            state = acc.compute(pred, label)
        exe = paddle.static.Executor(paddle.CPUPlace())
        compiled_main_prog = paddle.static.CompiledProgram(main_prog)
        for _ in range(10):
            label, pred = self.random_pred_label()
            state_ret = exe.run(compiled_main_prog, feed={'pred': pred, 'label': label},
                                fetch_list=to_list(state), return_numpy=True)
            acc.update(*state_ret)
            res_m = acc.accumulate()
            res_f = accuracy(pred, label, self.topk)
            assert np.all(np.isclose(np.array(res_m), np.array(res_f), rtol=1e-3)), \
                f"Accuracy precision error: {res_m} != {res_f}"
            acc.reset()
            assert np.sum(acc.total) == 0
            assert np.sum(acc.count) == 0


class TestAccuracyStaticMultiTopk(TestAccuracyStatic):
    def setUp(self):
        self.topk = (1, 5)
        self.class_num = 10
        self.sample_num = 100
        self.name = "accuracy"
        self.squeeze_label = False


class TestPrecision(unittest.TestCase):
    def test_1d(self):
        m = paddle.metric.Precision()
        m.update(np.array([0.1, 0.5, 0.6, 0.7]), np.array([1, 0, 1, 1]))
        self.assertAlmostEqual(m.accumulate(), 2.0 / 3.0)
        m.update(np.array([0.1, 0.5, 0.6, 0.7, 0.2]), np.array([1, 0, 1, 1, 1]))
        self.assertAlmostEqual(m.accumulate(), 4.0 / 6.0)

    def test_2d(self):
        m = paddle.metric.Precision()
        m.update(np.array([0.1, 0.5, 0.6, 0.7]).reshape(-1, 1),
                 np.array([1, 0, 1, 1]).reshape(-1, 1))
        self.assertAlmostEqual(m.accumulate(), 2.0 / 3.0)
        m.update(np.array([0.1, 0.5, 0.6, 0.7, 0.2]).reshape(-1, 1),
                 np.array([1, 0, 1, 1, 1]).reshape(-1, 1))
        self.assertAlmostEqual(m.accumulate(), 4.0 / 6.0)
        m.reset()
        self.assertEqual(m.tp, 0.0)
        self.assertEqual(m.fp, 0.0)
        self.assertEqual(m.accumulate(), 0.0)


class TestRecall(unittest.TestCase):
    def test_1d(self):
        m = paddle.metric.Recall()
        m.update(np.array([0.1, 0.5, 0.6, 0.7]), np.array([1, 0, 1, 1]))
        self.assertAlmostEqual(m.accumulate(), 2.0 / 3.0)
        m.update(np.array([0.1, 0.5, 0.6, 0.7]), np.array([1, 0, 0, 1]))
        self.assertAlmostEqual(m.accumulate(), 3.0 / 5.0)
        m.reset()
        self.assertEqual(m.tp, 0.0)
        self.assertEqual(m.fn, 0.0)
        self.assertEqual(m.accumulate(), 0.0)


class TestAuc(unittest.TestCase):
    def test_auc_numpy(self):
        x = np.array([[0.78, 0.22], [0.62, 0.38], [0.55, 0.45], [0.30, 0.70],
                      [0.14, 0.86], [0.59, 0.41], [0.91, 0.08], [0.16, 0.84]])
        y = np.array([[0], [1], [1], [0], [1], [0], [0], [1]])
        m = paddle.metric.Auc()
        m.update(x, y)
        self.assertAlmostEqual(m.accumulate(), 0.8125)
        m.reset()
        self.assertEqual(m.accumulate(), 0.0)


if __name__ == '__main__':
    unittest.main()
