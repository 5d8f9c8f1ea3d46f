"""Port of Paddle test/legacy_test/test_strided_slice_op.py.

The OpTest cases' check_output runs through paddle.strided_slice on a static program (axes /
starts / ends / strides as lists, as lists of fed 1-element int32 tensors (the *_ListTensor
cases: StartsTensorList / EndsTensorList), or as fed int32 tensors (the *_Tensor cases)),
against the file's strided_slice_native_forward, exactly (slicing moves values); the bool
cases too. Their gradient checks are kept as Input's gradient through paddle.static.gradients
of mean(Out) (1 / numel where the slice reads, else 0: the reference's slice of a zero array,
a numpy view, filled). TestStridedSliceAPI.test_static_api (less its
out_7 = x[minus_1, 0:100:2, :, -1:2:-1]: Paddle 3.3.1's legacy __getitem__ reads x[0] there,
not x[-1], and fluidc refuses a tensor index mixed with slices) and test_dygraph_op are
Paddle's.
Dropped: TestStridedSliceTensorArray (dygraph vs jit.to_static of Python lists of tensor
arrays, which fluidc's to_static does not transform), the CUDA-pinned-place and
TestStridedSliceFloat16 cases (CUDA only), the FP16 / BF16 OpTests (fluidc computes float16
through float32; bfloat16 kernels are CUDA here).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

paddle.enable_static()


def strided_slice_native_forward(input, axes, starts, ends, strides):
    dim = input.ndim
    start = []
    end = []
    stride = []
    for i in range(dim):
        start.append(0)
        end.append(input.shape[i])
        stride.append(1)

    for i in range(len(axes)):
        start[axes[i]] = starts[i]
        end[axes[i]] = ends[i]
        stride[axes[i]] = strides[i]

    return input[tuple(slice(start[i], end[i], stride[i]) for i in range(dim))]


class TestStrideSliceOp(unittest.TestCase):
    starts_by = ends_by = strides_by = 'attr'  # 'attr', 'list' (of tensors) or 'tensor'

    def setUp(self):
        self.initTestCase()
        self.output = strided_slice_native_forward(
            self.input, self.axes, self.starts, self.ends, self.strides
        )

    def test_check_output(self):
        out, _ = self.run_case(grad=False)
        self.assertEqual(out.shape, self.output.shape)
        np.testing.assert_array_equal(out, self.output)

    def test_check_grad(self):
        _, grad = self.run_case(grad=True)
        want = np.zeros(self.input.shape)
        strided_slice_native_forward(want, self.axes, self.starts, self.ends,
                                     self.strides)[...] = 1.0 / self.output.size
        np.testing.assert_allclose(grad, want, rtol=1e-7, atol=1e-12)

    def initTestCase(self):
        self.input = np.random.rand(100)
        self.axes = [0]
        self.starts = [-4]
        self.ends = [-3]
        self.strides = [1]
        self.infer_flags = [1]

    def argument(self, name, values, feed):
        how = getattr(self, name + '_by')
        if how == 'attr':
            return values
        if how == 'tensor':
            feed[name] = np.array(values, dtype='int32')
            return paddle.static.data(name, [len(values)], 'int32')
        tensors = []
        for index, ele in enumerate(values):
            key = f'{name}{index}'
            feed[key] = np.ones(1).astype('int32') * ele
            tensors.append(paddle.static.data(key, [1], 'int32'))
        return tensors

    def run_case(self, grad):
        main = paddle.static.Program()
        feed = {'input': self.input}
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('input', list(self.input.shape), str(self.input.dtype))
            x.stop_gradient = not grad
            out = paddle.strided_slice(
                x, self.axes, self.argument('starts', self.starts, feed),
                self.argument('ends', self.ends, feed),
                self.argument('strides', self.strides, feed))
            fetch = [out]
            if grad:
                fetch += paddle.static.gradients([paddle.mean(out)], [x])
        res = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=fetch)
        return res[0], res[-1]


class TestStrideSliceOp1(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(100)
        self.axes = [0]
        self.starts = [3]
        self.ends = [8]
        self.strides = [1]
        self.infer_flags = [1]


class TestStrideSliceOp2(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(100)
        self.axes = [0]
        self.starts = [5]
        self.ends = [0]
        self.strides = [-1]
        self.infer_flags = [1]


class TestStrideSliceOp3(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(100)
        self.axes = [0]
        self.starts = [-1]
        self.ends = [-3]
        self.strides = [-1]
        self.infer_flags = [1]


class TestStrideSliceOp4(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(3, 4, 10)
        self.axes = [0, 1, 2]
        self.starts = [0, -1, 0]
        self.ends = [2, -3, 5]
        self.strides = [1, -1, 1]
        self.infer_flags = [1, 1, 1]


class TestStrideSliceOp5(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(5, 5, 5)
        self.axes = [0, 1, 2]
        self.starts = [1, 0, 0]
        self.ends = [2, 1, 3]
        self.strides = [1, 1, 1]
        self.infer_flags = [1, 1, 1]


class TestStrideSliceOp6(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(5, 5, 5)
        self.axes = [0, 1, 2]
        self.starts = [1, -1, 0]
        self.ends = [2, -3, 3]
        self.strides = [1, -1, 1]
        self.infer_flags = [1, 1, 1]


class TestStrideSliceOp7(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(5, 5, 5)
        self.axes = [0, 1, 2]
        self.starts = [1, 0, 0]
        self.ends = [2, 2, 3]
        self.strides = [1, 1, 1]
        self.infer_flags = [1, 1, 1]


class TestStrideSliceOp8(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(1, 100, 1)
        self.axes = [1]
        self.starts = [1]
        self.ends = [2]
        self.strides = [1]
        self.infer_flags = [1]


class TestStrideSliceOp9(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(1, 100, 1)
        self.axes = [1]
        self.starts = [-1]
        self.ends = [-2]
        self.strides = [-1]
        self.infer_flags = [1]


class TestStrideSliceOp10(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(10, 10)
        self.axes = [0, 1]
        self.starts = [1, 0]
        self.ends = [2, 2]
        self.strides = [1, 1]
        self.infer_flags = [1, 1]


class TestStrideSliceOp11(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(3, 3, 3, 4)
        self.axes = [0, 1, 2, 3]
        self.starts = [1, 0, 0, 0]
        self.ends = [2, 2, 3, 4]
        self.strides = [1, 1, 1, 2]
        self.infer_flags = [1, 1, 1, 1]


class TestStrideSliceOp12(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(3, 3, 3, 4, 5)
        self.axes = [0, 1, 2, 3, 4]
        self.starts = [1, 0, 0, 0, 0]
        self.ends = [2, 2, 3, 4, 4]
        self.strides = [1, 1, 1, 1, 1]
        self.infer_flags = [1, 1, 1, 1]


class TestStrideSliceOp13(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(3, 3, 3, 6, 7, 8)
        self.axes = [0, 1, 2, 3, 4, 5]
        self.starts = [1, 0, 0, 0, 1, 2]
        self.ends = [2, 2, 3, 1, 2, 8]
        self.strides = [1, 1, 1, 1, 1, 2]
        self.infer_flags = [1, 1, 1, 1, 1]


class TestStrideSliceOp14(TestStrideSliceOp):
    def initTestCase(self):
        self.input = np.random.rand(4, 4, 4, 4)
        self.axes = [1, 2, 3]
        self.starts = [-5, 0, -7]
        self.ends = [-1, 2, 4]
        self.strides = [1, 1, 1]
        self.infer_flags = [1, 1, 1]


class TestStrideSliceOpBool(TestStrideSliceOp):
    def test_check_grad(self):
        pass


class TestStrideSliceOpBool1D(TestStrideSliceOpBool):
    def initTestCase(self):
        self.input = np.random.rand(100).astype("bool")
        self.axes = [0]
        self.starts = [3]
        self.ends = [8]
        self.strides = [1]
        self.infer_flags = [1]


class TestStrideSliceOpBool2D(TestStrideSliceOpBool):
    def initTestCase(self):
        self.input = np.random.rand(10, 10).astype("bool")
        self.axes = [0, 1]
        self.starts = [1, 0]
        self.ends = [2, 2]
        self.strides = [1, 1]
        self.infer_flags = [1, 1]


class TestStrideSliceOpBool3D(TestStrideSliceOpBool):
    def initTestCase(self):
        self.input = np.random.rand(3, 4, 10).astype("bool")
        self.axes = [0, 1, 2]
        self.starts = [0, -1, 0]
        self.ends = [2, -3, 5]
        self.strides = [1, -1, 1]
        self.infer_flags = [1, 1, 1]


class TestStrideSliceOpBool4D(TestStrideSliceOpBool):
    def initTestCase(self):
        self.input = np.random.rand(3, 3, 3, 4).astype("bool")
        self.axes = [0, 1, 2, 3]
        self.starts = [1, 0, 0, 0]
        self.ends = [2, 2, 3, 4]
        self.strides = [1, 1, 1, 2]
        self.infer_flags = [1, 1, 1, 1]


class TestStrideSliceOpBool5D(TestStrideSliceOpBool):
    def initTestCase(self):
        self.input = np.random.rand(3, 3, 3, 4, 5).astype("bool")
        self.axes = [0, 1, 2, 3, 4]
        self.starts = [1, 0, 0, 0, 0]
        self.ends = [2, 2, 3, 4, 4]
        self.strides = [1, 1, 1, 1, 1]
        self.infer_flags = [1, 1, 1, 1]


class TestStrideSliceOpBool6D(TestStrideSliceOpBool):
    def initTestCase(self):
        self.input = np.random.rand(3, 3, 3, 6, 7, 8).astype("bool")
        self.axes = [0, 1, 2, 3, 4, 5]
        self.starts = [1, 0, 0, 0, 1, 2]
        self.ends = [2, 2, 3, 1, 2, 8]
        self.strides = [1, 1, 1, 1, 1, 2]
        self.infer_flags = [1, 1, 1, 1, 1]


class TestStridedSliceOp_starts_ListTensor(TestStrideSliceOp):
    starts_by = 'list'

    def initTestCase(self):
        self.input = np.random.random([3, 4, 5, 6]).astype("float64")
        self.starts = [1, 0, 2]
        self.ends = [3, 3, 4]
        self.axes = [0, 1, 2]
        self.strides = [1, 1, 1]
        self.infer_flags = [1, -1, 1]


class TestStridedSliceOp_ends_ListTensor(TestStrideSliceOp):
    ends_by = 'list'

    def initTestCase(self):
        self.input = np.random.random([3, 4, 5, 6]).astype("float64")
        self.starts = [1, 0, 0]
        self.ends = [3, 3, 4]
        self.axes = [0, 1, 2]
        self.strides = [1, 1, 2]
        self.infer_flags = [1, -1, 1]


class TestStridedSliceOp_starts_Tensor(TestStrideSliceOp):
    starts_by = 'tensor'

    def initTestCase(self):
        self.input = np.random.random([3, 4, 5, 6]).astype("float64")
        self.starts = [1, 0, 2]
        self.ends = [2, 3, 4]
        self.axes = [0, 1, 2]
        self.strides = [1, 1, 1]
        self.infer_flags = [-1, -1, -1]


class TestStridedSliceOp_ends_Tensor(TestStridedSliceOp_starts_Tensor):
    starts_by = 'attr'
    ends_by = 'tensor'


class TestStridedSliceOp_listTensor_Tensor(TestStridedSliceOp_starts_Tensor):
    ends_by = 'list'


class TestStridedSliceOp_strides_Tensor(TestStrideSliceOp):
    strides_by = 'tensor'

    def initTestCase(self):
        self.input = np.random.random([3, 4, 5, 6]).astype("float64")
        self.starts = [1, -1, 2]
        self.ends = [2, 0, 4]
        self.axes = [0, 1, 2]
        self.strides = [1, -1, 1]
        self.infer_flags = [-1, -1, -1]


# Test python API
class TestStridedSliceAPI(unittest.TestCase):
    def test_static_api(self):
        paddle.enable_static()
        place = fluid.CPUPlace()
        input = np.random.random([3, 4, 5, 6]).astype("float64")
        with paddle.static.program_guard(paddle.static.Program()):
            minus_1 = paddle.tensor.fill_constant([], "int32", -1)
            minus_3 = paddle.tensor.fill_constant([], "int32", -3)
            starts = paddle.static.data(name='starts', shape=[3], dtype='int32')
            ends = paddle.static.data(name='ends', shape=[3], dtype='int32')
            strides = paddle.static.data(name='strides', shape=[3], dtype='int32')

            x = paddle.static.data(
                name="x",
                shape=[3, 4, 5, 6],
                dtype="float64",
            )
            out_1 = paddle.strided_slice(
                x,
                axes=[0, 1, 2],
                starts=[-3, 0, 2],
                ends=[3, 100, -1],
                strides=[1, 1, 1],
            )
            out_2 = paddle.strided_slice(
                x,
                axes=[0, 1, 3],
                starts=[minus_3, 0, 2],
                ends=[3, 100, -1],
                strides=[1, 1, 1],
            )
            out_3 = paddle.strided_slice(
                x,
                axes=[0, 1, 3],
                starts=[minus_3, 0, 2],
                ends=[3, 100, minus_1],
                strides=[1, 1, 1],
            )
            out_4 = paddle.strided_slice(
                x, axes=[0, 1, 2], starts=starts, ends=ends, strides=strides
            )

            out_5 = x[-3:3, 0:100:2, -1:2:-1]
            out_6 = x[minus_3:3:1, 0:100:2, :, minus_1:2:minus_1]

            exe = paddle.static.Executor(place)
            res_1, res_2, res_3, res_4, res_5, res_6 = exe.run(
                paddle.static.default_main_program(),
                feed={
                    "x": input,
                    'starts': np.array([-3, 0, 2]).astype("int32"),
                    'ends': np.array([3, 2147483647, -1]).astype("int32"),
                    'strides': np.array([1, 1, 1]).astype("int32"),
                },
                fetch_list=[out_1, out_2, out_3, out_4, out_5, out_6],
            )
            np.testing.assert_array_equal(res_1, input[-3:3, 0:100, 2:-1, :])
            np.testing.assert_array_equal(res_2, input[-3:3, 0:100, :, 2:-1])
            np.testing.assert_array_equal(res_3, input[-3:3, 0:100, :, 2:-1])
            np.testing.assert_array_equal(res_4, input[-3:3, 0:100, 2:-1, :])
            np.testing.assert_array_equal(res_5, input[-3:3, 0:100:2, -1:2:-1, :])
            np.testing.assert_array_equal(res_6, input[-3:3, 0:100:2, :, -1:2:-1])

    def test_dygraph_op(self):
        paddle.disable_static()
        x = paddle.zeros(shape=[3, 4, 5, 6], dtype="float32")
        axes = [1, 2, 3]
        starts = [-3, 0, 2]
        ends = [3, 2, 4]
        strides_1 = [1, 1, 1]
        sliced_1 = paddle.strided_slice(x, axes=axes, starts=starts, ends=ends, strides=strides_1)
        paddle.enable_static()
        assert tuple(sliced_1.shape) == (3, 2, 2, 2)


if __name__ == "__main__":
    unittest.main()
