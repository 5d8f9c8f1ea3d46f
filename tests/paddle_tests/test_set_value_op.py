"""Port of Paddle test/legacy_test/test_set_value_op.py.

run-on-paddle: pir (Paddle 3.3.1's paddle.static.setitem with bool indices (index_put) and in a
while_loop body builds only on PIR programs)

Every TestSetValueApi case is Paddle's: x = paddle.ones(...) set through paddle.static.setitem
on a static program and through x[index] = value in dygraph, both against the same assignment
in numpy (items: ints, slices with positive / negative steps, Ellipsis, int Tensors as bounds
and steps, None, bool lists and Tensors, a while_loop body; values: Python numbers, numpy
arrays and Tensors of int32 / int64 / float16 / float32 / float64 / bool / complex64 /
complex128; value shapes broadcast). TestError (value type, bool-index errors, the broadcast
mismatch ValueError at run time), TestGradientTruncated,
TestSetValueInplace, TestSetValueInplaceLeafVar and TestSetValueIsSamePlace are Paddle's.
Dropped: TestBackward (its only method, func_test_dynamic, is no test: Paddle never runs it,
and it fails on Paddle 3.3.1, a non-leaf's .grad being None), TestSetValueBFloat16 and
TestSetValueWithStrideError (CUDA only), TestSetValueWithScalarInDygraph (calls
paddle._C_ops.set_value), TestSetValueValueShape6's loop over get_devices() (the CPU only
here).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


class TestSetValueBase(unittest.TestCase):
    def setUp(self):
        paddle.enable_static()
        self.set_dtype()
        self.set_value()
        self.set_shape()
        self.data = np.ones(self.shape).astype(self.dtype)
        self.program = paddle.static.Program()

    def set_shape(self):
        self.shape = [2, 3, 4]

    def set_value(self):
        self.value = 6

    def set_dtype(self):
        self.dtype = "float32"

    def _call_setitem(self, x):
        x[0, 0] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (0, 0), self.value)
        return x

    def _get_answer(self):
        self.data[0, 0] = self.value


class TestSetValueApi(TestSetValueBase):
    def _run_static(self):
        paddle.enable_static()
        main_program = paddle.static.Program()
        with paddle.static.program_guard(main_program):
            x = paddle.ones(shape=self.shape, dtype=self.dtype)
            x = self._call_setitem_static_api(x)

        exe = paddle.static.Executor(paddle.CPUPlace())
        out = exe.run(main_program, fetch_list=[x])
        paddle.disable_static()
        return out

    def _run_dynamic(self):
        paddle.disable_static()
        x = paddle.ones(shape=self.shape, dtype=self.dtype)
        self._call_setitem(x)
        out = x.numpy()
        paddle.enable_static()
        return out

    def test_api(self):
        static_out = self._run_static()
        dynamic_out = self._run_dynamic()
        self._get_answer()

        error_msg = "\nIn {} mode: \nExpected res = \n{}, \n\nbut received : \n{}"
        self.assertTrue(
            (self.data == static_out).all(),
            msg=error_msg.format("static", self.data, static_out),
        )
        self.assertTrue(
            (self.data == dynamic_out).all(),
            msg=error_msg.format("dynamic", self.data, dynamic_out),
        )


# 1. Test different type of item: int, Python slice, Paddle Tensor
# 1.1 item is int
class TestSetValueItemInt(TestSetValueApi):
    def _call_setitem(self, x):
        x[0] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, 0, self.value)
        return x

    def _get_answer(self):
        self.data[0] = self.value


# 1.2 item is slice
# 1.2.1 step is 1
class TestSetValueItemSlice(TestSetValueApi):
    def _call_setitem(self, x):
        x[0:2] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, slice(0, 2), self.value)
        return x

    def _get_answer(self):
        self.data[0:2] = self.value


class TestSetValueItemSlice2(TestSetValueApi):
    def _call_setitem(self, x):
        x[0:-1] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, slice(0, -1), self.value)
        return x

    def _get_answer(self):
        self.data[0:-1] = self.value


class TestSetValueItemSlice3(TestSetValueApi):
    def _call_setitem(self, x):
        x[0:-1, 0:2] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (slice(0, -1), slice(0, 2)), self.value)
        return x

    def _get_answer(self):
        self.data[0:-1, 0:2] = self.value


class TestSetValueItemSlice4(TestSetValueApi):
    def _call_setitem(self, x):
        x[0:, 1:2, :] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (slice(0, None), slice(1, 2), slice(None)), self.value)
        return x

    def _get_answer(self):
        self.data[0:, 1:2, :] = self.value


class TestSetValueItemSlice5(TestSetValueApi):
    def _call_setitem(self, x):
        x[0:, 1:1, :] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (slice(0, None), slice(1, 1), slice(None)), self.value)
        return x

    def _get_answer(self):
        self.data[0:, 1:1, :] = self.value


class TestSetValueItemSliceInWhile(TestSetValueApi):
    def _call_setitem(self, x):
        def cond(i, x):
            return i < 1

        def body(i, x):
            x[i] = self.value
            i = i + 1
            return i, x

        i = paddle.zeros(shape=(1,), dtype='int32')
        i, x = paddle.static.nn.while_loop(cond, body, [i, x])

    def _call_setitem_static_api(self, x):
        def cond(i, x):
            return i < 1

        def body(i, x):
            x = paddle.static.setitem(x, i, self.value)
            i = i + 1
            return i, x

        i = paddle.zeros(shape=(1,), dtype='int32')
        i, x = paddle.static.nn.while_loop(cond, body, [i, x])
        return x

    def _get_answer(self):
        self.data[0] = self.value


# 1.2.2 step > 1
class TestSetValueItemSliceStep(TestSetValueApi):
    def set_shape(self):
        self.shape = [5, 5, 5]

    def _call_setitem(self, x):
        x[0:2:2] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, slice(0, 2, 2), self.value)
        return x

    def _get_answer(self):
        self.data[0:2:2] = self.value


class TestSetValueItemSliceStep2(TestSetValueApi):
    def set_shape(self):
        self.shape = [7, 5, 5]

    def _call_setitem(self, x):
        x[0:-1:3] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, slice(0, -1, 3), self.value)
        return x

    def _get_answer(self):
        self.data[0:-1:3] = self.value


class TestSetValueItemSliceStep3(TestSetValueApi):
    def _call_setitem(self, x):
        x[0:-1, 0:2, ::2] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(
            x, (slice(0, -1), slice(0, 2), slice(None, None, 2)), self.value)
        return x

    def _get_answer(self):
        self.data[0:-1, 0:2, ::2] = self.value


class TestSetValueItemSliceStep4(TestSetValueApi):
    def _call_setitem(self, x):
        x[0:, 1:2:2, :] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (slice(0, None), slice(1, 2, 2), slice(None)), self.value)
        return x

    def _get_answer(self):
        self.data[0:, 1:2:2, :] = self.value


# 1.2.3 step < 0
class TestSetValueItemSliceNegativeStep(TestSetValueApi):
    def set_shape(self):
        self.shape = [5, 2]

    def set_value(self):
        self.value = np.array([3, 4])

    def _call_setitem(self, x):
        x[5:2:-1] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, slice(5, 2, -1), self.value)
        return x

    def _get_answer(self):
        self.data[5:2:-1] = self.value


class TestSetValueItemSliceNegativeStep2(TestSetValueApi):
    def set_shape(self):
        self.shape = [5]

    def set_value(self):
        self.value = np.array([3, 4])

    def _call_setitem(self, x):
        x[1::-1] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, slice(1, None, -1), self.value)
        return x

    def _get_answer(self):
        self.data[1::-1] = self.value


class TestSetValueItemSliceNegativeStep3(TestSetValueApi):
    def set_shape(self):
        self.shape = [3]

    def set_value(self):
        self.value = np.array([3, 4, 5])

    def _call_setitem(self, x):
        x[::-1] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, slice(None, None, -1), self.value)
        return x

    def _get_answer(self):
        self.data[::-1] = self.value


class TestSetValueItemSliceNegativeStep4(TestSetValueApi):
    def set_shape(self):
        self.shape = [3, 4, 5]

    def _call_setitem(self, x):
        x[2:0:-1, 0:2, ::-1] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(
            x, (slice(2, 0, -1), slice(0, 2), slice(None, None, -1)), self.value)
        return x

    def _get_answer(self):
        self.data[2:0:-1, 0:2, ::-1] = self.value


# 1.3 item is Ellipsis


class TestSetValueItemEllipsis1(TestSetValueApi):
    def _call_setitem(self, x):
        x[0:, ..., 1:] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (slice(0, None), ..., slice(1, None)), self.value)
        return x

    def _get_answer(self):
        self.data[0:, ..., 1:] = self.value


class TestSetValueItemEllipsis2(TestSetValueApi):
    def _call_setitem(self, x):
        x[0:, ...] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (slice(0, None), ...), self.value)
        return x

    def _get_answer(self):
        self.data[0:, ...] = self.value


class TestSetValueItemEllipsis3(TestSetValueApi):
    def _call_setitem(self, x):
        x[..., 1:] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (..., slice(1, None)), self.value)
        return x

    def _get_answer(self):
        self.data[..., 1:] = self.value


class TestSetValueItemEllipsis4(TestSetValueApi):
    def _call_setitem(self, x):
        x[...] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, ..., self.value)
        return x

    def _get_answer(self):
        self.data[...] = self.value


# 1.4 item is Paddle Tensor
class TestSetValueItemTensor(TestSetValueApi):
    def _call_setitem(self, x):
        zero = paddle.full([], 0, dtype="int32")
        x[zero] = self.value

    def _call_setitem_static_api(self, x):
        zero = paddle.full([], 0, dtype="int32")
        x = paddle.static.setitem(x, zero, self.value)
        return x

    def _get_answer(self):
        self.data[0] = self.value


class TestSetValueItemTensor2(TestSetValueApi):
    def _call_setitem(self, x):
        zero = paddle.full([], 0, dtype="int32")
        two = paddle.full([], 2, dtype="int64")
        x[zero:two] = self.value

    def _call_setitem_static_api(self, x):
        zero = paddle.full([], 0, dtype="int32")
        two = paddle.full([], 2, dtype="int64")
        x = paddle.static.setitem(x, slice(zero, two), self.value)
        return x

    def _get_answer(self):
        self.data[0:2] = self.value


class TestSetValueItemTensor3(TestSetValueApi):
    def _call_setitem(self, x):
        zero = paddle.full([], 0, dtype="int32")
        two = paddle.full([], 2, dtype="int64")
        x[zero:-1, 0:two] = self.value

    def _call_setitem_static_api(self, x):
        zero = paddle.full([], 0, dtype="int32")
        two = paddle.full([], 2, dtype="int64")
        x = paddle.static.setitem(x, (slice(zero, -1), slice(0, two)), self.value)
        return x

    def _get_answer(self):
        self.data[0:-1, 0:2] = self.value


class TestSetValueItemTensor4(TestSetValueApi):
    def _call_setitem(self, x):
        zero = paddle.full([], 0, dtype="int32")
        two = paddle.full([], 2, dtype="int64")
        x[0:-1, zero:2, 0:6:two] = self.value

    def _call_setitem_static_api(self, x):
        zero = paddle.full([], 0, dtype="int32")
        two = paddle.full([], 2, dtype="int64")
        x = paddle.static.setitem(
            x, (slice(0, -1), slice(zero, 2), slice(0, 6, two)), self.value)
        return x

    def _get_answer(self):
        self.data[0:-1, 0:2, ::2] = self.value


class TestSetValueItemTensor5(TestSetValueApi):
    def _call_setitem(self, x):
        zero = paddle.full([], 0, dtype="int32")
        two = paddle.full([], 2, dtype="int64")
        x[zero:, 1:2:two, :] = self.value

    def _call_setitem_static_api(self, x):
        zero = paddle.full([], 0, dtype="int32")
        two = paddle.full([], 2, dtype="int64")
        x = paddle.static.setitem(x, (slice(zero, None), slice(1, 2, two)), self.value)
        return x

    def _get_answer(self):
        self.data[0:, 1:2:2, :] = self.value


class TestSetValueItemTensor6(TestSetValueApi):
    def set_shape(self):
        self.shape = [3, 4, 5]

    def _call_setitem(self, x):
        minus1 = paddle.full([], -1, dtype="int32")
        zero = paddle.full([], 0, dtype="int32")
        x[2:zero:minus1, 0:2, 10:-6:minus1] = self.value

    def _call_setitem_static_api(self, x):
        minus1 = paddle.full([], -1, dtype="int32")
        zero = paddle.full([], 0, dtype="int64")
        x = paddle.static.setitem(
            x,
            (slice(2, zero, minus1), slice(0, 2), slice(10, -6, minus1)),
            self.value,
        )
        return x

    def _get_answer(self):
        self.data[2:0:-1, 0:2, ::-1] = self.value


# 1.5 item is None
class TestSetValueItemNone1(TestSetValueApi):
    def _call_setitem(self, x):
        x[None] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, None, self.value)
        return x

    def _get_answer(self):
        self.data[None] = self.value


class TestSetValueItemNone2(TestSetValueApi):
    def _call_setitem(self, x):
        x[0, None, 1] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (0, None, 1), self.value)
        return x

    def _get_answer(self):
        self.data[0, None, 1] = self.value


class TestSetValueItemNone3(TestSetValueApi):
    def _call_setitem(self, x):
        x[:, None, None, 1] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (slice(None), None, None, 1), self.value)
        return x

    def _get_answer(self):
        self.data[:, None, None, 1] = self.value


class TestSetValueItemNone4(TestSetValueApi):
    def _call_setitem(self, x):
        x[0, 0, None, 1] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (0, 0, None, 1), self.value)
        return x

    def _get_answer(self):
        self.data[0, 0, None, 1] = self.value


class TestSetValueItemNone5(TestSetValueApi):
    def _call_setitem(self, x):
        x[0, None, 0, None, 1] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (0, None, 0, None, 1), self.value)
        return x

    def _get_answer(self):
        self.data[0, None, 0, None, 1] = self.value


class TestSetValueItemNone6(TestSetValueApi):
    def _call_setitem(self, x):
        x[None, 0, 0, None, 0] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (None, 0, 0, None, 0), self.value)
        return x

    def _get_answer(self):
        self.data[None, 0, 0, None, 0] = self.value


class TestSetValueItemNone7(TestSetValueApi):
    def _call_setitem(self, x):
        x[:, None, 1] = np.zeros(self.shape)[:, None, 0]

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (slice(None), None, 1), np.zeros(self.shape)[:, None, 0])
        return x

    def _get_answer(self):
        self.data[:, None, 1] = np.zeros(self.shape)[:, None, 0]


class TestSetValueItemNone8(TestSetValueApi):
    def _call_setitem(self, x):
        x[:, 1, None] = np.zeros(self.shape)[:, 0, None]

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (slice(None), 1, None), np.zeros(self.shape)[:, 0, None])
        return x

    def _get_answer(self):
        self.data[:, 1, None] = np.zeros(self.shape)[:, 0, None]


class TestSetValueItemNone9(TestSetValueApi):
    def _call_setitem(self, x):
        x[None, :, 1, ..., None] = np.zeros(self.shape)[0, 0, :, None]

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(
            x, (None, slice(None), 1, ..., None), np.zeros(self.shape)[0, 0, :, None])
        return x

    def _get_answer(self):
        self.data[None, :, 1, ..., None] = np.zeros(self.shape)[0, 0, :, None]


class TestSetValueItemNone10(TestSetValueApi):
    def _call_setitem(self, x):
        x[..., None, :, None] = np.zeros(self.shape)[..., None, :, None]

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(
            x, (..., None, slice(None), None), np.zeros(self.shape)[..., None, :, None])
        return x

    def _get_answer(self):
        self.data[..., None, :, None] = np.zeros(self.shape)[..., None, :, None]


# 1.5 item is list or Tensor of bool
class TestSetValueItemBool1(TestSetValueApi):
    def _call_setitem(self, x):
        x[[True, False]] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, [True, False], self.value)
        return x

    def _get_answer(self):
        self.data[[True, False]] = self.value


class TestSetValueItemBool2(TestSetValueApi):
    def _call_setitem(self, x):
        x[[False, False]] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, [False, False], self.value)
        return x

    def _get_answer(self):
        self.data[[False, False]] = self.value


class TestSetValueItemBool3(TestSetValueApi):
    def _call_setitem(self, x):
        x[[False, True]] = np.zeros(self.shape[2])

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, [False, True], np.zeros(self.shape[2]))
        return x

    def _get_answer(self):
        self.data[[False, True]] = np.zeros(self.shape[2])


class TestSetValueItemBool4(TestSetValueApi):
    def _call_setitem(self, x):
        idx = paddle.assign(np.array([False, True]))
        x[idx] = np.zeros(self.shape[2])

    def _call_setitem_static_api(self, x):
        idx = paddle.assign(np.array([False, True]))
        x = paddle.static.setitem(x, idx, np.zeros(self.shape[2]))
        return x

    def _get_answer(self):
        self.data[np.array([False, True])] = np.zeros(self.shape[2])


class TestSetValueItemBool5(TestSetValueApi):
    def _call_setitem(self, x):
        idx = paddle.assign(np.array([[False, True, False], [True, True, False]]))
        x[idx] = self.value

    def _call_setitem_static_api(self, x):
        idx = paddle.assign(np.array([[False, True, False], [True, True, False]]))
        x = paddle.static.setitem(x, idx, self.value)
        return x

    def _get_answer(self):
        self.data[np.array([[False, True, False], [True, True, False]])] = self.value


class TestSetValueItemBool6(TestSetValueApi):
    def _call_setitem(self, x):
        x[0, ...] = 0
        x[x > 0] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (0, ...), 0)
        x = paddle.static.setitem(x, x > 0, self.value)
        return x

    def _get_answer(self):
        self.data[0, ...] = 0
        self.data[self.data > 0] = self.value


# 2. Test different type of value: int, float, numpy.ndarray, Tensor
# 2.1 value is int32, int64, float32, float64, bool; 2.2 numpy.array of them;
# and complex64 / complex128 numbers and arrays (Paddle's create_test_value_* generators, one
# table here: suffix -> (dtype, value))
_VALUE_CASES = {
    "ValueInt32": ("int32", 7),
    "ValueInt64": ("int64", 7),
    "Valuefp16": ("float16", 3.7),
    "ValueFp32": ("float32", 3.3),
    "ValueFp64": ("float64", 2.0**127),  # float32:[-2^128, 2^128)
    "ValueBool": ("bool", 0),
    "ValueNumpyInt32": ("int32", np.array([5])),
    "ValueNumpyInt64": ("int64", np.array([1])),
    "ValueNumpyFp32": ("float32", np.array([1])),
    "ValueNumpyFp64": ("float64", np.array([2**127]).astype("float64")),
    "ValueNumpyBool": ("bool", np.array([0])),
    "ValueComplex64": ("complex64", 42.1 + 42.1j),
    "ValueComplex128": ("complex128",
                        complex(np.finfo(np.float64).max + 1j * np.finfo(np.float64).min)),
    "ValueNumpyComplex64": ("complex64", np.array(42.1 + 42.1j)),
    "ValueNumpyComplex128": ("complex128", np.array(
        [complex(np.finfo(np.float64).max + 1j * np.finfo(np.float64).min)])),
}


def create_test_value(parent, suffix, dtype, value):
    class TestValueInt(parent):
        def set_value(self):
            self.value = value

        def set_dtype(self):
            self.dtype = dtype

    cls_name = "{}_{}".format(parent.__name__, suffix)
    TestValueInt.__name__ = cls_name
    globals()[cls_name] = TestValueInt


# 2.3 value is a Paddle Tensor (int32, int64, float32, float64, bool)
def create_test_value_tensor(parent, suffix, dtype, fill):
    class TestValueInt(parent):
        def set_dtype(self):
            self.dtype = dtype

        def _call_setitem(self, x):
            value = paddle.full(shape=[], fill_value=fill, dtype=self.dtype)
            x[0, 1] = value

        def _call_setitem_static_api(self, x):
            value = paddle.full(shape=[], fill_value=fill, dtype=self.dtype)
            x = paddle.static.setitem(x, (0, 1), value)
            return x

        def _get_answer(self):
            self.data[0, 1] = fill

    cls_name = "{}_{}".format(parent.__name__, suffix)
    TestValueInt.__name__ = cls_name
    globals()[cls_name] = TestValueInt


_TENSOR_CASES = {"ValueTensorInt32": ("int32", 3), "ValueTensorInt64": ("int64", 3),
                 "ValueTensorFp32": ("float32", 3), "ValueTensorFp64": ("float64", 3),
                 "ValueTensorBool": ("bool", False)}

for _parent in (TestSetValueItemInt, TestSetValueItemSlice, TestSetValueItemSlice2,
                TestSetValueItemSlice3, TestSetValueItemSlice4):
    for _suffix, (_dtype, _value) in _VALUE_CASES.items():
        create_test_value(_parent, _suffix, _dtype, _value)
    for _suffix, (_dtype, _fill) in _TENSOR_CASES.items():
        create_test_value_tensor(_parent, _suffix, _dtype, _fill)


# 3. Test different shape of value
class TestSetValueValueShape1(TestSetValueApi):
    def set_value(self):
        self.value = np.array([3, 4, 5, 6])  # shape is (4,)

    def _call_setitem(self, x):
        x[0] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, 0, self.value)
        return x

    def _get_answer(self):
        self.data[0] = self.value


class TestSetValueValueShape2(TestSetValueApi):
    def set_value(self):
        self.value = np.array([[3, 4, 5, 6]])  # shape is (1,4)

    def _call_setitem(self, x):
        x[0:1] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, slice(0, 1), self.value)
        return x

    def _get_answer(self):
        self.data[0:1] = self.value


class TestSetValueValueShape3(TestSetValueApi):
    def set_value(self):
        self.value = np.array([[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]])  # shape is (3,4)

    def _call_setitem(self, x):
        x[0] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, 0, self.value)
        return x

    def _get_answer(self):
        self.data[0] = self.value


class TestSetValueValueShape4(TestSetValueApi):
    def set_value(self):
        self.value = np.array(
            [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]]).astype(self.dtype)  # shape is (3,4)

    def _call_setitem(self, x):
        x[0] = paddle.assign(self.value)  # x is Paddle.Tensor

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, 0, paddle.assign(self.value))
        return x

    def _get_answer(self):
        self.data[0] = self.value


class TestSetValueValueShape5(TestSetValueApi):
    def set_value(self):
        self.value = np.array([3, 3, 3]).astype(self.dtype)

    def set_shape(self):
        self.shape = [3, 4]

    def _call_setitem(self, x):
        x[:, 0] = paddle.assign(self.value)  # x is Paddle.Tensor

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (slice(None), 0), paddle.assign(self.value))
        return x

    def _get_answer(self):
        self.data[:, 0] = self.value


# This is to test case which dims of indexed Tensor is
# less than value Tensor on CPU / GPU.
class TestSetValueValueShape6(TestSetValueApi):
    def set_value(self):
        self.value = np.ones((1, 4)) * 5

    def set_shape(self):
        self.shape = [4, 4]

    def _call_setitem(self, x):
        x[:, 0] = self.value  # x is Paddle.Tensor

    def _get_answer(self):
        self.data[:, 0] = self.value

    def _call_setitem_static_api(self, x):
        x = paddle.static.setitem(x, (slice(None), 0), self.value)
        return x


# 4. Test error
class TestError(TestSetValueBase):
    def _value_type_error(self):
        with self.assertRaisesRegex(
            TypeError,
            "Only support to assign an integer, float, numpy.ndarray or paddle.Tensor",
        ):
            x = paddle.ones(shape=self.shape, dtype=self.dtype)
            value = [1]
            if paddle.in_dynamic_mode():
                x[0] = value
            else:
                x = paddle.static.setitem(x, 0, value)

    def _bool_list_error(self):
        with self.assertRaises(IndexError):
            x = paddle.ones(shape=self.shape, dtype=self.dtype)
            if paddle.in_dynamic_mode():
                x[[True, False], [True, False]] = 0
            else:
                x = paddle.static.setitem(x, ([True, False], [True, False]), 0)

    def _bool_tensor_error(self):
        with self.assertRaises(IndexError):
            x = paddle.ones(shape=self.shape, dtype=self.dtype)
            idx = paddle.assign([True, False, True])
            if paddle.in_dynamic_mode():
                x[idx] = 0
            else:
                x = paddle.static.setitem(x, idx, 0)

    def _broadcast_mismatch(self):
        program = paddle.static.Program()
        with paddle.static.program_guard(program):
            x = paddle.ones(shape=self.shape, dtype=self.dtype)
            value = np.array([3, 4, 5, 6, 7])
            x = paddle.static.setitem(x, 0, value)
        exe = paddle.static.Executor(paddle.CPUPlace())
        with self.assertRaises(ValueError):
            exe.run(program)

    def test_error(self):
        paddle.enable_static()
        with paddle.static.program_guard(self.program):
            self._value_type_error()
            self._bool_list_error()
            self._bool_tensor_error()
        self._broadcast_mismatch()


# 5. Test backward


class TestGradientTruncated(unittest.TestCase):
    def tearDown(self):
        paddle.enable_static()

    def test_consistent_with_competitor(self):
        paddle.disable_static()

        def set_value(t, value):
            a = t * t
            a[0, 1] = value
            y = a * a
            return y.sum()

        # case 1
        array = np.arange(1, 1 + 2 * 3 * 4, dtype="float32").reshape([1, 2, 1, 3, 1, 4])
        value = np.arange(100, 104, dtype="float32").reshape(1, 4)

        inps = paddle.to_tensor(array, stop_gradient=False)
        value = paddle.to_tensor(value, stop_gradient=False)

        loss = set_value(inps, value)
        loss.backward()

        value_grad = np.array([[600.0, 606.0, 612.0, 618.0]])
        input_grad = np.array(
            [[[[[[4.0, 32.0, 108.0, 256.0]], [[500.0, 864.0, 1372.0, 2048.0]],
                [[2916.0, 4000.0, 5324.0, 6912.0]]]],
              [[[[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0, 0.0]]]]]])
        np.testing.assert_array_equal(inps.grad.numpy(), input_grad)
        np.testing.assert_array_equal(value.grad.numpy(), value_grad)

        # case 2
        array = np.arange(1, 2 * 3 * 4 + 1, dtype="float32").reshape([4, 2, 3])
        value = np.arange(100, 100 + 1, dtype="float32")

        inps2 = paddle.to_tensor(array, stop_gradient=False)
        value2 = paddle.to_tensor(value, stop_gradient=False)

        loss = set_value(inps2, value2)
        loss.backward()

        value_grad2 = np.array([600.0])
        input_grad2 = np.array(
            [
                [[4.0, 32.0, 108.0], [0.0, 0.0, 0.0]],
                [[1372.0, 2048.0, 2916.0], [4000.0, 5324.0, 6912.0]],
                [[8788.0, 10976.0, 13500.0], [16384.0, 19652.0, 23328.0]],
                [[27436.0, 32000.0, 37044.0], [42592.0, 48668.0, 55296.0]],
            ]
        )
        np.testing.assert_array_equal(inps2.grad.numpy(), input_grad2)
        np.testing.assert_array_equal(value2.grad.numpy(), value_grad2)

        # case 3
        def set_value3(t, value):
            a = t * t
            a[0, :, 0, :] = value
            y = a * a
            return y.sum()

        array = np.arange(1, 1 + 2 * 3 * 4, dtype="float32").reshape([4, 3, 1, 1, 2, 1])
        value = np.arange(100, 100 + 2, dtype="float32").reshape(1, 2, 1)

        inps = paddle.to_tensor(array, stop_gradient=False)
        value = paddle.to_tensor(value, stop_gradient=False)

        loss = set_value3(inps, value)
        loss.backward()

        value_grad = np.array([[[600.0], [606.0]]])
        input_grad = np.array(
            [
                [[[[[0.0], [0.0]]]], [[[[0.0], [0.0]]]], [[[[0.0], [0.0]]]]],
                [[[[[1372.0], [2048.0]]]], [[[[2916.0], [4000.0]]]],
                 [[[[5324.0], [6912.0]]]]],
                [[[[[8788.0], [10976.0]]]], [[[[13500.0], [16384.0]]]],
                 [[[[19652.0], [23328.0]]]]],
                [[[[[27436.0], [32000.0]]]], [[[[37044.0], [42592.0]]]],
                 [[[[48668.0], [55296.0]]]]],
            ]
        )
        np.testing.assert_array_equal(inps.grad.numpy(), input_grad)
        np.testing.assert_array_equal(value.grad.numpy(), value_grad)

        # case 4: step >0
        def set_value4(t, value):
            a = t * t
            a[0, :, 0, ::3] = value
            y = a * a
            return y.sum()

        array = np.arange(1, 1 + 2 * 3 * 4, dtype="float32").reshape([2, 3, 1, 4, 1])
        value = np.arange(100, 100 + 2, dtype="float32").reshape(1, 2, 1)

        inps = paddle.to_tensor(array, stop_gradient=False)
        value = paddle.to_tensor(value, stop_gradient=False)

        loss = set_value4(inps, value)
        loss.backward()

        value_grad = np.array([[[600.0], [606.0]]])
        input_grad = np.array(
            [
                [[[[0.0], [32.0], [108.0], [0.0]]], [[[0.0], [864.0], [1372.0], [0.0]]],
                 [[[0.0], [4000.0], [5324.0], [0.0]]]],
                [[[[8788.0], [10976.0], [13500.0], [16384.0]]],
                 [[[19652.0], [23328.0], [27436.0], [32000.0]]],
                 [[[37044.0], [42592.0], [48668.0], [55296.0]]]],
            ]
        )
        np.testing.assert_array_equal(inps.grad.numpy(), input_grad)
        np.testing.assert_array_equal(value.grad.numpy(), value_grad)

        # case 5:a[0].shape==value.shape
        def set_value5(t, value):
            a = t * t
            a[0] = value
            y = a * a
            return y.sum()

        array = np.arange(1, 1 + 2 * 3 * 4, dtype="float32").reshape([2, 3, 4])
        value = np.arange(100, 100 + 12, dtype="float32").reshape(3, 4)

        inps = paddle.to_tensor(array, stop_gradient=False)
        value = paddle.to_tensor(value, stop_gradient=False)

        loss = set_value5(inps, value)
        loss.backward()

        value_grad = np.array(
            [
                [200.0, 202.0, 204.0, 206.0],
                [208.0, 210.0, 212.0, 214.0],
                [216.0, 218.0, 220.0, 222.0],
            ]
        )
        input_grad = np.array(
            [
                [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                [
                    [8788.0, 10976.0, 13500.0, 16384.0],
                    [19652.0, 23328.0, 27436.0, 32000.0],
                    [37044.0, 42592.0, 48668.0, 55296.0],
                ],
            ]
        )
        np.testing.assert_array_equal(inps.grad.numpy(), input_grad)
        np.testing.assert_array_equal(value.grad.numpy(), value_grad)

        # case 6: pass stop_gradient from value to x
        x = paddle.zeros([8, 8], dtype='float32')
        value = paddle.to_tensor([10], dtype='float32', stop_gradient=False)

        self.assertTrue(x.stop_gradient)
        self.assertTrue(x.is_leaf)

        x[0, :] = value

        self.assertTrue(not x.stop_gradient)
        self.assertTrue(not x.is_leaf)


class TestSetValueInplace(unittest.TestCase):
    def test_inplace(self):
        paddle.disable_static()
        with fluid.dygraph.guard():
            paddle.seed(100)
            a = paddle.rand(shape=[1, 4])
            a.stop_gradient = False
            b = a[:] * 1
            c = b
            b[paddle.zeros([], dtype='int32')] = 1.0

            self.assertTrue(id(b) == id(c))
            np.testing.assert_array_equal(b.numpy(), c.numpy())
            self.assertEqual(b.inplace_version, 1)

        paddle.enable_static()


class TestSetValueInplaceLeafVar(unittest.TestCase):
    def test_inplace_var_become_leaf_var(self):
        paddle.disable_static()

        a_grad_1, b_grad_1, a_grad_2, b_grad_2 = 0, 1, 2, 3
        with fluid.dygraph.guard():
            paddle.seed(100)
            a = paddle.rand(shape=[1, 4])
            b = paddle.rand(shape=[1, 4])
            a.stop_gradient = False
            b.stop_gradient = False
            c = a / b
            c.sum().backward()
            a_grad_1 = a.grad.numpy()
            b_grad_1 = b.grad.numpy()

        with fluid.dygraph.guard():
            paddle.seed(100)
            a = paddle.rand(shape=[1, 4])
            b = paddle.rand(shape=[1, 4])
            a.stop_gradient = False
            b.stop_gradient = False
            c = a / b
            d = paddle.zeros((4, 4))
            self.assertTrue(d.stop_gradient)
            d[0, :] = c
            self.assertFalse(d.stop_gradient)
            d[0, :].sum().backward()
            a_grad_2 = a.grad.numpy()
            b_grad_2 = b.grad.numpy()

        np.testing.assert_array_equal(a_grad_1, a_grad_2)
        np.testing.assert_array_equal(b_grad_1, b_grad_2)
        paddle.enable_static()


class TestSetValueIsSamePlace(unittest.TestCase):
    def test_is_same_place(self):
        paddle.disable_static()
        paddle.seed(100)
        paddle.set_device('cpu')
        a = paddle.rand(shape=[2, 3, 4])
        origin_place = a.place
        a[[0, 1], 1] = 10
        self.assertEqual(origin_place._type(), a.place._type())
        paddle.enable_static()


if __name__ == '__main__':
    unittest.main()
