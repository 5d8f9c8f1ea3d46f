"""Port of Paddle test/legacy_test/test_full_op.py: its static-graph parts.

run-on-paddle: pir

Kept: TestFullAPI.test_api (paddle.full with int shapes, int32 / int64 Variables in the shape
list, fed int32 / int64 shape tensors, a Variable fill value, an int shape, complex64 / complex128
fills with inf / nan parts, dtype inferred from complex and bool values) and
TestFullOpError.test_errors.
Dropped: test_api_eager and test_full_alias (dygraph).
Paddle 3.3.1 builds complex fills (float() of a complex fill_value) only on PIR programs, hence
the marker.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


class TestFullAPI(unittest.TestCase):
    def test_api(self):
        paddle.enable_static()
        with paddle.static.program_guard(paddle.static.Program()):
            positive_2_int32 = paddle.tensor.fill_constant([1], "int32", 2)

            positive_2_int64 = paddle.tensor.fill_constant([1], "int64", 2)
            shape_tensor_int32 = paddle.static.data(
                name="shape_tensor_int32", shape=[2], dtype="int32"
            )

            shape_tensor_int64 = paddle.static.data(
                name="shape_tensor_int64", shape=[2], dtype="int64"
            )

            out_1 = paddle.full(shape=[1, 2], dtype="float32", fill_value=1.1)

            out_2 = paddle.full(
                shape=[1, positive_2_int32], dtype="float32", fill_value=1.1
            )

            out_3 = paddle.full(
                shape=[1, positive_2_int64], dtype="float32", fill_value=1.1
            )

            out_4 = paddle.full(
                shape=shape_tensor_int32, dtype="float32", fill_value=1.2
            )

            out_5 = paddle.full(
                shape=shape_tensor_int64, dtype="float32", fill_value=1.1
            )

            out_6 = paddle.full(
                shape=shape_tensor_int64, dtype=np.float32, fill_value=1.1
            )

            val = paddle.tensor.fill_constant(
                shape=[1], dtype=np.float32, value=1.1
            )
            out_7 = paddle.full(
                shape=shape_tensor_int64, dtype=np.float32, fill_value=val
            )
            out_8 = paddle.full(shape=10, dtype=np.float32, fill_value=val)

            out_9 = paddle.full(
                shape=10, dtype="complex64", fill_value=1.1 + 1.1j
            )

            out_10 = paddle.full(
                shape=10, dtype="complex128", fill_value=1.1 + 1.1j
            )

            out_11 = paddle.full(
                shape=10, dtype="complex64", fill_value=1.1 + np.inf * 1j
            )

            out_12 = paddle.full(
                shape=10, dtype="complex128", fill_value=1.1 + np.inf * 1j
            )

            out_13 = paddle.full(
                shape=10, dtype="complex64", fill_value=1.1 - np.inf * 1j
            )

            out_14 = paddle.full(
                shape=10, dtype="complex128", fill_value=1.1 - np.inf * 1j
            )

            out_15 = paddle.full(
                shape=10, dtype="complex64", fill_value=1.1 + np.nan * 1j
            )

            out_16 = paddle.full(
                shape=10, dtype="complex128", fill_value=1.1 + np.nan * 1j
            )

            out_17 = paddle.full(shape=10, fill_value=1.1 + 1.1j)

            out_18 = paddle.full(shape=10, fill_value=True)

            exe = fluid.Executor(place=fluid.CPUPlace())
            (
                res_1,
                res_2,
                res_3,
                res_4,
                res_5,
                res_6,
                res_7,
                res_8,
                res_9,
                res_10,
                res_11,
                res_12,
                res_13,
                res_14,
                res_15,
                res_16,
                res_17,
                res_18,
            ) = exe.run(
                paddle.static.default_main_program(),
                feed={
                    "shape_tensor_int32": np.array([1, 2]).astype("int32"),
                    "shape_tensor_int64": np.array([1, 2]).astype("int64"),
                },
                fetch_list=[
                    out_1,
                    out_2,
                    out_3,
                    out_4,
                    out_5,
                    out_6,
                    out_7,
                    out_8,
                    out_9,
                    out_10,
                    out_11,
                    out_12,
                    out_13,
                    out_14,
                    out_15,
                    out_16,
                    out_17,
                    out_18,
                ],
            )

        np.testing.assert_array_equal(
            res_1, np.full([1, 2], 1.1, dtype="float32")
        )
        np.testing.assert_array_equal(
            res_2, np.full([1, 2], 1.1, dtype="float32")
        )
        np.testing.assert_array_equal(
            res_3, np.full([1, 2], 1.1, dtype="float32")
        )
        np.testing.assert_array_equal(
            res_4, np.full([1, 2], 1.2, dtype="float32")
        )
        np.testing.assert_array_equal(
            res_5, np.full([1, 2], 1.1, dtype="float32")
        )
        np.testing.assert_array_equal(
            res_6, np.full([1, 2], 1.1, dtype="float32")
        )
        np.testing.assert_array_equal(
            res_7, np.full([1, 2], 1.1, dtype="float32")
        )
        np.testing.assert_array_equal(
            res_8, np.full([10], 1.1, dtype="float32")
        )
        np.testing.assert_allclose(
            res_9, np.full([10], 1.1 + 1.1j, dtype="complex64")
        )
        np.testing.assert_allclose(
            res_10, np.full([10], 1.1 + 1.1j, dtype="complex128")
        )
        np.testing.assert_allclose(
            res_11, np.full([10], 1.1 + np.inf * 1j, dtype="complex64")
        )
        np.testing.assert_allclose(
            res_12, np.full([10], 1.1 + np.inf * 1j, dtype="complex128")
        )
        np.testing.assert_allclose(
            res_13, np.full([10], 1.1 - np.inf * 1j, dtype="complex64")
        )
        np.testing.assert_allclose(
            res_14, np.full([10], 1.1 - np.inf * 1j, dtype="complex128")
        )
        np.testing.assert_allclose(
            res_15, np.full([10], 1.1 + np.nan * 1j, dtype="complex64")
        )
        np.testing.assert_allclose(
            res_16, np.full([10], 1.1 + np.nan * 1j, dtype="complex128")
        )
        np.testing.assert_allclose(res_17, np.full([10], 1.1 + 1.1j))
        np.testing.assert_array_equal(res_18, np.full([10], True))


class TestFullOpError(unittest.TestCase):
    def test_errors(self):
        paddle.enable_static()
        with paddle.static.program_guard(
            paddle.static.Program(), paddle.static.Program()
        ):
            # The argument dtype of full must be one of bool, float16,
            # float32, float64, uint8, int16, int32 or int64
            self.assertRaises(
                TypeError, paddle.full, shape=[1], fill_value=5, dtype='uint4'
            )

            # The shape dtype of full op must be int32 or int64.
            def test_shape_tensor_dtype():
                shape = paddle.static.data(
                    name="shape_tensor", shape=[2], dtype="float32"
                )
                paddle.full(shape=shape, dtype="float32", fill_value=1)

            self.assertRaises(TypeError, test_shape_tensor_dtype)

            def test_shape_tensor_list_dtype():
                shape = paddle.static.data(
                    name="shape_tensor_list", shape=[1], dtype="bool"
                )
                paddle.full(shape=[shape, 2], dtype="float32", fill_value=1)

            self.assertRaises(TypeError, test_shape_tensor_list_dtype)


if __name__ == "__main__":
    unittest.main()
