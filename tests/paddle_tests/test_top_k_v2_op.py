"""Port of Paddle test/legacy_test/test_top_k_v2_op.py: paddle.topk's static API and op cases.

run-on-paddle: pir

Kept: TestTopKAPI.test_static_cases (run_static on the CPU place: default axis, axis -1 / 1,
a fed k tensor, largest=False, a [2, 1030] input, sorted=False checked after sorting), and the
forward output of the OpTest cases TestTopkOp, TestTopkOp_ZeroDim, TestTopkOp1..6 (same shapes,
k / axis / largest, float64 and float32 data) through paddle.topk against Paddle's `numpy_topk`.
Dropped: OpTest gradient / prim checks, the fp16 / bf16 cases (TestTopkOp7, TestTopkFP16Op,
TestTopkBF16Op), the dygraph half (run_dygraph, test_errors: dygraph-only k=0 / k=-1 checks).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


def numpy_topk(x, k=1, axis=-1, largest=True):
    if axis < 0:
        axis = len(x.shape) + axis
    if largest:
        indices = np.argsort(-x, axis=axis)
    else:
        indices = np.argsort(x, axis=axis)
    if largest:
        value = -np.sort(-x, axis=axis)
    else:
        value = np.sort(x, axis=axis)
    indices = indices.take(indices=range(0, k), axis=axis)
    value = value.take(indices=range(0, k), axis=axis)
    return value, indices


def run_topk(x_np, **kwargs):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data('x', list(x_np.shape), str(x_np.dtype))
        out, indices = paddle.topk(x, **kwargs)
        return paddle.static.Executor(paddle.CPUPlace()).run(
            main, feed={'x': x_np}, fetch_list=[out, indices])


class TestTopkOp(unittest.TestCase):
    shape, dtype, k, axis, largest = (10, 20), 'float64', 3, 1, True

    def test_check_output(self):
        x = np.random.rand(*self.shape).astype(self.dtype)
        out, indices = run_topk(x, k=self.k, axis=self.axis, largest=self.largest)
        value_ref, indices_ref = numpy_topk(x, axis=self.axis, k=self.k, largest=self.largest)
        np.testing.assert_allclose(out, value_ref, rtol=1e-7 if self.dtype == 'float64' else 1e-6)
        np.testing.assert_array_equal(indices, indices_ref)


def _case(name, shape, dtype, k, axis, largest):
    globals()[name] = type(name, (TestTopkOp,), dict(shape=shape, dtype=dtype, k=k, axis=axis,
                                                      largest=largest))


_case('TestTopkOp1', (10, 20), 'float64', 3, 0, False)
_case('TestTopkOp2', (10, 20), 'float64', 4, 0, False)
_case('TestTopkOp3', (16, 100), 'float64', 6, 1, True)
_case('TestTopkOp4', (10, 10, 5), 'float64', 3, 1, True)
_case('TestTopkOp5', (10, 10, 5), 'float64', 3, 1, True)
_case('TestTopkOp6', (10, 10, 5), 'float32', 3, 1, True)


class TestTopkOp_ZeroDim(unittest.TestCase):
    def test_check_output(self):
        x = np.array(np.random.random(()))
        out, indices = run_topk(x, k=1, axis=0, largest=True)
        self.assertEqual(out.shape, ())
        self.assertEqual(indices.shape, ())
        np.testing.assert_allclose(out, x)
        np.testing.assert_array_equal(indices, np.array(0).astype('int64'))


class TestTopKAPI(unittest.TestCase):
    def setUp(self):
        np.random.seed(123)
        self.input_data = np.random.rand(6, 7, 8)
        self.large_input_data = np.random.rand(2, 1030)

    def run_static(self, place):
        paddle.enable_static()
        with paddle.static.program_guard(
            paddle.static.Program(), paddle.static.Program()
        ):
            input_tensor = paddle.static.data(
                name="x", shape=[6, 7, 8], dtype="float64"
            )
            large_input_tensor = paddle.static.data(
                name="large_x", shape=[2, 1030], dtype="float64"
            )
            k_tensor = paddle.static.data(name="k", shape=[1], dtype="int32")
            result1 = paddle.topk(input_tensor, k=2)
            result2 = paddle.topk(input_tensor, k=2, axis=-1)
            result3 = paddle.topk(input_tensor, k=k_tensor, axis=1)
            self.assertEqual(tuple(result3[0].shape), (6, -1, 8))
            self.assertEqual(tuple(result3[1].shape), (6, -1, 8))
            result4 = paddle.topk(input_tensor, k=2, axis=1, largest=False)
            result5 = paddle.topk(input_tensor, k=2, axis=-1, largest=False)
            result6 = paddle.topk(large_input_tensor, k=1, axis=-1)
            result7 = paddle.topk(input_tensor, k=2, axis=1, sorted=False)
            exe = paddle.static.Executor(place)
            paddle_result = exe.run(
                feed={
                    "x": self.input_data,
                    "large_x": self.large_input_data,
                    "k": np.array([2]).astype("int32"),
                },
                fetch_list=[
                    result1[0], result1[1], result2[0], result2[1], result3[0], result3[1],
                    result4[0], result4[1], result5[0], result5[1], result6[0], result6[1],
                    result7[0], result7[1],
                ],
            )
            numpy_result = numpy_topk(self.input_data, k=2)
            np.testing.assert_allclose(paddle_result[0], numpy_result[0], rtol=1e-05)
            np.testing.assert_allclose(paddle_result[1], numpy_result[1], rtol=1e-05)
            numpy_result = numpy_topk(self.input_data, k=2, axis=-1)
            np.testing.assert_allclose(paddle_result[2], numpy_result[0], rtol=1e-05)
            np.testing.assert_allclose(paddle_result[3], numpy_result[1], rtol=1e-05)
            numpy_result = numpy_topk(self.input_data, k=2, axis=1)
            np.testing.assert_allclose(paddle_result[4], numpy_result[0], rtol=1e-05)
            np.testing.assert_allclose(paddle_result[5], numpy_result[1], rtol=1e-05)
            numpy_result = numpy_topk(self.input_data, k=2, axis=1, largest=False)
            np.testing.assert_allclose(paddle_result[6], numpy_result[0], rtol=1e-05)
            np.testing.assert_allclose(paddle_result[7], numpy_result[1], rtol=1e-05)
            numpy_result = numpy_topk(self.input_data, k=2, axis=-1, largest=False)
            np.testing.assert_allclose(paddle_result[8], numpy_result[0], rtol=1e-05)
            np.testing.assert_allclose(paddle_result[9], numpy_result[1], rtol=1e-05)
            numpy_result = numpy_topk(self.large_input_data, k=1, axis=-1)
            np.testing.assert_allclose(paddle_result[10], numpy_result[0], rtol=1e-05)
            np.testing.assert_allclose(paddle_result[11], numpy_result[1], rtol=1e-05)
            sort_paddle = numpy_topk(paddle_result[12], axis=1, k=2)
            numpy_result = numpy_topk(self.input_data, k=2, axis=1)
            np.testing.assert_allclose(sort_paddle[0], numpy_result[0], rtol=1e-05)

    def test_static_cases(self):
        self.run_static(paddle.CPUPlace())


if __name__ == "__main__":
    unittest.main()
