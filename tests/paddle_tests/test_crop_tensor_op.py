"""Port of Paddle test/legacy_test/test_crop_tensor_op.py.

The OpTest cases' check_output runs through paddle.crop on a static program: shape and offsets
as lists (attributes), as fed int32 tensors (shape_by_input / offset_by_input: the Shape /
Offsets inputs), or as lists of fed 1-element int32 tensors (TestCropTensorOpTensorAttr*:
ShapeTensor / OffsetsTensor), each against the file's crop, at OpTest's float64 tolerance.
Their gradient checks are kept as X's gradient through paddle.static.gradients (ones inside the
crop window, zeros elsewhere). TestCropTensorException and TestCropWithUnknownShape are
Paddle's, but for two PIR-isms Paddle 3.3.1's legacy programs do not share: a 0 in shape
builds (no ValueError), and a Variable's shape is a tuple (compared as a list).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


def crop(data, offsets, crop_shape):
    def indexOf(shape, index):
        result = []
        for dim in reversed(shape):
            result.append(index % dim)
            index = index / dim
        return result[::-1]

    result = []
    for i, value in enumerate(data.flatten()):
        index = indexOf(data.shape, i)
        selected = True
        if len(index) == len(offsets):
            for j, offset in enumerate(offsets):
                selected = (
                    selected
                    and index[j] >= offset
                    and index[j] < crop_shape[j] + offset
                )
            if selected:
                result.append(value)
    return np.array(result).reshape(crop_shape)


def crop_window_grad(x_shape, offsets, crop_shape):
    """d sum(crop(x)) / dx: ones inside the window."""
    grad = np.zeros(x_shape)
    grad[tuple(slice(o, o + s) for o, s in zip(offsets, crop_shape))] = 1
    return grad


class TestCropTensorOp(unittest.TestCase):
    def setUp(self):
        self.shape_by_input = False
        self.offset_by_input = False
        self.unk_dim_idx = -1
        self.initTestCase()
        if isinstance(self.x_shape, int):
            self.x_shape = (self.x_shape,)
        self.x = np.random.random(self.x_shape).astype("float64")
        crop_shape = list(self.crop_shape)
        for i in range(len(self.crop_shape)):
            if self.crop_shape[i] == -1:
                crop_shape[i] = self.x_shape[i] - self.offsets[i]
        self.real_shape = crop_shape
        self.output = crop(self.x, self.offsets, crop_shape)

    def initTestCase(self):
        self.x_shape = (10, 10)
        self.crop_shape = [2, 2]
        self.offsets = [1, 2]

    def build(self, x, feed):
        """paddle.crop of x with the case's shape / offsets (fed tensors added to feed)."""
        shape, offsets = self.crop_shape, self.offsets
        if self.shape_by_input:
            shape = paddle.static.data('shape', [len(self.crop_shape)], 'int32')
            feed['shape'] = np.array(self.crop_shape).astype('int32')
        if self.offset_by_input:
            offsets = paddle.static.data('offsets', [len(self.offsets)], 'int32')
            feed['offsets'] = np.array(self.offsets).astype('int32')
        return paddle.crop(x, shape=shape, offsets=offsets)

    def run_case(self):
        main = paddle.static.Program()
        feed = {'x': self.x}
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.x_shape), 'float64')
            x.stop_gradient = False
            out = self.build(x, feed)
            (gx,) = paddle.static.gradients([paddle.mean(out)], [x])
        return paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed,
                                                            fetch_list=[out, gx])

    def test_check_output(self):
        out, _ = self.run_case()
        self.assertEqual(out.shape, self.output.shape)
        np.testing.assert_allclose(out, self.output, rtol=1e-7, atol=1e-7)

    def test_check_grad_normal(self):
        _, gx = self.run_case()
        want = crop_window_grad(self.x_shape, self.offsets, self.real_shape) / self.output.size
        np.testing.assert_allclose(gx, want, rtol=1e-7, atol=1e-12)


class TestCase1(TestCropTensorOp):
    def initTestCase(self):
        self.x_shape = 100
        self.crop_shape = [64]
        self.offsets = [13]


class TestCase2(TestCropTensorOp):
    def initTestCase(self):
        self.x_shape = (12, 24)
        self.crop_shape = [-1, 8]
        self.offsets = [0, 0]


class TestCase3(TestCropTensorOp):
    def initTestCase(self):
        self.x_shape = (4, 8, 16)
        self.crop_shape = [2, 2, 3]
        self.offsets = [1, 5, 3]
        self.shape_by_input = True


class TestCase4(TestCropTensorOp):
    def initTestCase(self):
        self.x_shape = (8, 3, 6, 6)
        self.crop_shape = [-1, 3, -1, 4]
        self.offsets = [0, 0, 1, 0]
        self.shape_by_input = True


class TestCase5(TestCropTensorOp):
    def initTestCase(self):
        self.x_shape = (2, 4, 5, 8, 8)
        self.crop_shape = [1, 1, 2, 4, 4]
        self.offsets = [1, 0, 0, 2, 2]
        self.offset_by_input = True


class TestCase6(TestCropTensorOp):
    def initTestCase(self):
        self.x_shape = (2, 2, 4, 4, 4, 2)
        self.crop_shape = [1, 1, 4, 2, 2, 2]
        self.offsets = [0, 0, 0, 0, 0, 0]
        self.shape_by_input = True
        self.offset_by_input = True


class TestCropTensorOpTensorAttr(TestCropTensorOp):
    """ShapeTensor / OffsetsTensor: lists mixing fed 1-element tensors and ints (the
    attribute's -1 / 0 placeholders are where a tensor goes)."""

    def setUp(self):
        self.OffsetsTensor = False
        self.ShapeTensor = True
        super().setUp()

    def initTestCase(self):
        self.x_shape = (10, 10)
        self.crop_shape = (2, 2)
        self.offsets = [1, 2]
        self.shape_attr = [0, 0]

    def build(self, x, feed):
        shape, offsets = list(self.crop_shape), list(self.offsets)
        if self.ShapeTensor:
            shape = []
            for index, ele in enumerate(self.crop_shape):
                name = 'shape' + str(index)
                shape.append(paddle.static.data(name, [1], 'int32'))
                feed[name] = np.ones(1).astype('int32') * ele
        if self.OffsetsTensor:
            offsets = []
            for index, ele in enumerate(self.offsets):
                name = 'offset' + str(index)
                offsets.append(paddle.static.data(name, [1], 'int32'))
                feed[name] = np.ones(1).astype('int32') * ele
        return paddle.crop(x, shape=shape, offsets=offsets)


class TestCropTensorOpTensorAttrCase1(TestCropTensorOpTensorAttr):
    def initTestCase(self):
        self.x_shape = (16, 8, 32)
        self.crop_shape = [-1, -1, 3]
        self.offsets = [1, 5, 3]
        self.shape_attr = [-1, -1, 3]


class TestCropTensorOpTensorAttrCase2(TestCropTensorOpTensorAttr):
    def initTestCase(self):
        self.x_shape = (4, 8, 16, 8)
        self.crop_shape = [2, 2, 3, 4]
        self.offsets = [1, 5, 3, 0]
        self.shape_attr = [0, 0, 3, 4]


class TestCropTensorOpTensorAttrCase3(TestCropTensorOpTensorAttr):
    def initTestCase(self):
        self.x_shape = (16, 8, 32)
        self.crop_shape = [2, 2, 3]
        self.offsets = [1, 5, 3]
        self.offsets_attr = [-1, -1, 3]
        self.ShapeTensor = False
        self.OffsetsTensor = True


class TestCropTensorOpTensorAttrCase4(TestCropTensorOpTensorAttr):
    def initTestCase(self):
        self.x_shape = (16, 8, 32)
        self.crop_shape = [2, 2, 3]
        self.shape_attr = [0, 2, 3]
        self.offsets = [1, 5, 3]
        self.offsets_attr = [-1, -1, 3]
        self.OffsetsTensor = True


class TestCropTensorException(unittest.TestCase):
    def test_exception(self):
        input1 = paddle.static.data(name="input1", shape=[2, 3, 6, 6], dtype="float32")
        input2 = paddle.static.data(name="input2", shape=[2, 3, 6, 6], dtype="float16")
        dim = paddle.static.data(name='dim', shape=[1], dtype='int32')
        offset = paddle.static.data(name='offset', shape=[1], dtype='int32')

        def attr_shape_type():
            out = paddle.crop(input1, shape=3)

        def attr_shape_dtype():
            out = paddle.crop(input1, shape=[2, 2.0, 3, 3])

        def attr_shape_value1():
            out = paddle.crop(input1, shape=[2, -2, dim, 3])

        def attr_shape_value2():
            out = paddle.crop(input1, shape=[2, 0, dim, 3])

        def attr_offsets_type():
            out = paddle.crop(input1, shape=[2, 2, 3, 3], offsets=0)

        def attr_offsets_dtype():
            out = paddle.crop(input1, shape=[2, 2, 3, 3], offsets=[0, 1.0, 0, 0])

        def attr_offsets_value():
            out = paddle.crop(input1, shape=[2, 2, 3, 3], offsets=[0, -1, offset, 0])

        def input_dtype():
            out = paddle.crop(input2, shape=[2, 2, 3, 3])

        self.assertRaises(TypeError, attr_shape_type)
        self.assertRaises(TypeError, attr_shape_dtype)
        self.assertRaises(ValueError, attr_shape_value1)
        # Paddle 3.3.1 accepts a 0 in shape (only values below -1 are ValueErrors), so the
        # file's assertRaises(ValueError, attr_shape_value2) fails there: it builds.
        attr_shape_value2()
        self.assertRaises(TypeError, attr_offsets_type)
        self.assertRaises(TypeError, attr_offsets_dtype)
        self.assertRaises(ValueError, attr_offsets_value)
        self.assertRaises(TypeError, input_dtype)


class TestCropWithUnknownShape(unittest.TestCase):
    def test_crop_with_unknown_shape(self):
        main_program = paddle.static.Program()
        with paddle.static.program_guard(main_program):
            x = paddle.static.data(name='x', shape=[-1, 4, 4], dtype='float32')
            shape = paddle.static.data(name='shape', shape=[3], dtype='int32')
            out = paddle.crop(x, shape=shape, offsets=[1, 1, 1])
            exe = paddle.static.Executor(paddle.CPUPlace())
            x_np = np.random.random((4, 4, 4)).astype('float32')
            shape_np = np.array([2, 2, 2]).astype('int32')
            (out_np,) = exe.run(feed={'x': x_np, 'shape': shape_np}, fetch_list=[out])
            self.assertEqual(list(out.shape), [-1, -1, -1])  # a tuple on legacy programs
            self.assertEqual(out_np.shape, (2, 2, 2))
            # added: the values
            np.testing.assert_array_equal(out_np, x_np[1:3, 1:3, 1:3])


if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
