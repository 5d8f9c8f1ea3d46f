"""Port of Paddle test/legacy_test/test_accuracy_op.py: the accuracy op, paddle.static.accuracy
and paddle.metric.accuracy.

Kept: TestAccuracyOp (the op appended to a Program's block with Out / Indices / Label fed, as
OpTest would run it: Accuracy, Correct, Total against the file's reference count, their dtypes
too), TestAccuracyOpError (type errors, static;
value error: a 1-D input in dygraph), TestAccuracyAPI1 (static.accuracy and metric.accuracy),
TestAccuracyAPI2 / TestAccuracyAPI (dygraph).
Changed: paddle_static_guard (an op_test helper) is paddle.enable_static() here.
Dropped: TestAccuracyOpBf16 (CUDA only), TestAccuracyOpFp16 (Paddle 3.3.1 has no CPU float16
accuracy kernel: "There are no kernels which are registered in the accuracy operator").
Added (fluidc): TestAccuracyOpFloat64, a float64 Out: Paddle's kernel still writes a float32
Accuracy.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

base = fluid
Program, program_guard = base.Program, base.program_guard


def run_accuracy_op(inputs, dtype):
    """The accuracy op on `inputs` (Out, Indices, Label), appended to a block as OpTest does."""
    paddle.enable_static()
    main = Program()
    with program_guard(main, Program()):
        block = main.global_block()
        ins = {slot: paddle.static.data(slot.lower(), list(v.shape), str(v.dtype))
               for slot, v in inputs.items()}
        outs = {'Accuracy': block.create_var(name='accuracy', dtype=dtype),
                'Correct': block.create_var(name='correct', dtype='int32'),
                'Total': block.create_var(name='total', dtype='int32')}
        block.append_op(type='accuracy', inputs=ins, outputs=outs)
        exe = paddle.static.Executor(paddle.CPUPlace())
        got = exe.run(main, feed={s.lower(): v for s, v in inputs.items()},
                      fetch_list=list(outs.values()))
    return dict(zip(outs, got))


class TestAccuracyOp(unittest.TestCase):
    atol = 1e-6

    def setUp(self):
        self.op_type = "accuracy"
        self.dtype = np.float32
        self.init_dtype()
        n = 8192
        infer = np.random.random((n, 1)).astype(self.dtype)
        indices = np.random.randint(0, 2, (n, 1)).astype('int64')
        label = np.random.randint(0, 2, (n, 1)).astype('int64')
        self.inputs = {'Out': infer, 'Indices': indices, "Label": label}
        num_correct = 0
        for rowid in range(n):
            for ele in indices[rowid]:
                if ele == label[rowid]:
                    num_correct += 1
                    break
        self.outputs = {
            'Accuracy': np.array(num_correct / float(n)).astype(self.dtype),
            'Correct': np.array(num_correct).astype("int32"),
            'Total': np.array(n).astype("int32"),
        }

    def init_dtype(self):
        pass

    def test_check_output(self):
        got = run_accuracy_op(self.inputs, np.dtype(self.dtype).name)
        for name, want in self.outputs.items():
            self.assertEqual(got[name].dtype, want.dtype)
            np.testing.assert_allclose(got[name].reshape(want.shape), want, atol=self.atol,
                                       err_msg=name)


class TestAccuracyOpFloat64(TestAccuracyOp):
    """fluidc addition: a float64 Out, a float32 Accuracy (Paddle's kernel's output dtype)."""

    def init_dtype(self):
        self.dtype = np.float64

    def setUp(self):
        super().setUp()
        self.outputs['Accuracy'] = self.outputs['Accuracy'].astype(np.float32)


class TestAccuracyOpError(unittest.TestCase):
    def test_type_errors(self):
        paddle.enable_static()
        with program_guard(Program(), Program()):
            # The input type of accuracy_op must be Variable.
            x1 = base.create_lod_tensor(np.array([[-1]]), [[1]], base.CPUPlace())
            label = paddle.static.data(name='label', shape=[-1, 1], dtype="int32")
            self.assertRaises(TypeError, paddle.static.accuracy, x1, label)
            self.assertRaises(TypeError, paddle.metric.accuracy, x1, label)
            # The input dtype of accuracy_op must be float32 or float64.
            x2 = paddle.static.data(name='x2', shape=[-1, 4], dtype="int32")
            self.assertRaises(TypeError, paddle.static.accuracy, x2, label)
            self.assertRaises(TypeError, paddle.metric.accuracy, x2, label)

            x3 = paddle.static.data(name='input', shape=[-1, 2], dtype="float32")
            paddle.static.accuracy(input=x3, label=label)
            paddle.metric.accuracy(input=x3, label=label)

    def test_value_errors(self):
        paddle.disable_static()
        with program_guard(Program(), Program()), self.assertRaises(ValueError):
            # The input rank of accuracy_op must be 2.
            x3 = paddle.to_tensor([0.1], dtype='float32')
            label3 = paddle.to_tensor(np.reshape([0], [1, 1]), dtype='int32')
            paddle.metric.accuracy(x3, label3)
        paddle.enable_static()


class TestAccuracyAPI1(unittest.TestCase):
    def run_api(self, accuracy_api):
        paddle.enable_static()
        with paddle.static.program_guard(paddle.static.Program()):
            self.predictions = paddle.static.data(shape=[2, 5], name="predictions",
                                                  dtype="float32")
            self.label = paddle.static.data(shape=[2, 1], name="labels", dtype="int64")
            self.result = accuracy_api(input=self.predictions, label=self.label, k=1)
            self.input_predictions = np.array(
                [[0.2, 0.1, 0.4, 0.1, 0.1], [0.2, 0.3, 0.1, 0.15, 0.25]], dtype="float32")
            self.input_labels = np.array([[2], [0]], dtype="int64")
            self.expect_value = np.array([0.5], dtype='float32')
            exe = paddle.static.Executor()
            (result,) = exe.run(feed={"predictions": self.input_predictions,
                                      'labels': self.input_labels},
                                fetch_list=[self.result])
            self.assertEqual((result == self.expect_value).all(), True)

    def test_api(self):
        self.run_api(accuracy_api=paddle.static.accuracy)
        self.run_api(accuracy_api=paddle.metric.accuracy)


class TestAccuracyAPI2(unittest.TestCase):
    def test_api(self):
        with base.dygraph.guard():
            predictions = paddle.to_tensor(
                [[0.2, 0.1, 0.4, 0.1, 0.1], [0.2, 0.3, 0.1, 0.15, 0.25]], dtype='float32')
            label = paddle.to_tensor([[2], [0]], dtype="int64")
            result = paddle.static.accuracy(input=predictions, label=label, k=1)
            expect_value = np.array([0.5], dtype='float32')
            self.assertEqual((result.numpy() == expect_value).all(), True)


class TestAccuracyAPI(unittest.TestCase):
    def test_api(self):
        with base.dygraph.guard():
            predictions = paddle.to_tensor(
                [[0.2, 0.1, 0.4, 0.1, 0.1], [0.2, 0.3, 0.1, 0.15, 0.25]], dtype='float32')
            label = paddle.to_tensor([[2], [0]], dtype="int64")
            result = paddle.metric.accuracy(input=predictions, label=label, k=1)
            expect_value = np.array([0.5], dtype='float32')

            self.assertEqual((result.numpy() == expect_value).all(), True)


if __name__ == '__main__':
    unittest.main()
