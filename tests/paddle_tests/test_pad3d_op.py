"""Port of Paddle test/legacy_test/test_pad3d_op.py.

The float64 OpTest cases' check_output runs through F.pad on a static program (constant /
reflect / replicate / circular, NCDHW / NDHWC, paddings as a list or, in TestCase9 / 10, a fed
int32 tensor: the Paddings input) against the file's np.pad reference at OpTest's tolerance;
their check_grad is kept as X's gradient of mean(Out) through paddle.static.gradients against
np.pad's index map (each X cell's count of the Out cells copied from it, over Out's size).
TestPadAPI (static and dygraph, the 10-value constant pad of every dim, tensor pads of 3-D and
4-D inputs), TestPad1dAPI / TestPad2dAPI / TestPad3dAPI (nn.Pad1D / 2D / 3D in dygraph, a
tensor padding), TestPad3dOpError and TestPadDataformatError are Paddle's, their places the CPU.
Dropped: the FP16 / BF16 OpTests (CUDA only); TestPad3dOpError's circular / replicate pads of
an empty dim (Paddle 3.3.1 pads them without an error, making a [1, 2, 5, 6, 7] output of
nothing; fluidc refuses them).
"""
import unittest

import numpy as np

import fluidc as paddle
F = paddle.nn.functional
nn = paddle.nn

Executor, Program = paddle.static.Executor, paddle.static.Program
default_main_program, program_guard = (paddle.static.default_main_program,
                                       paddle.static.program_guard)


class TestPad3dOp(unittest.TestCase):
    def setUp(self):
        paddle.enable_static()
        self.value = 0.0
        self.initTestCase()
        self.dtype = self.get_dtype()
        self.x = np.random.uniform(-1.0, 1.0, self.shape).astype(self.dtype)
        if self.data_format == "NCDHW":
            self.np_paddings = [
                (0, 0),
                (0, 0),
                (self.paddings[4], self.paddings[5]),
                (self.paddings[2], self.paddings[3]),
                (self.paddings[0], self.paddings[1]),
            ]
        else:
            self.np_paddings = [
                (0, 0),
                (self.paddings[4], self.paddings[5]),
                (self.paddings[2], self.paddings[3]),
                (self.paddings[0], self.paddings[1]),
                (0, 0),
            ]
        self.out = self.np_pad(self.x)

    def np_pad(self, x, **kw):
        if self.mode == "constant":
            return np.pad(x, self.np_paddings, mode=self.mode,
                          constant_values=kw.get('constant_values', self.value))
        mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[self.mode]
        return np.pad(x, self.np_paddings, mode=mode)

    def run_case(self):
        main = paddle.static.Program()
        feed = {'x': self.x}
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.shape), str(self.x.dtype))
            x.stop_gradient = False
            pad = list(self.paddings)
            if self.variable_paddings:
                pad = paddle.static.data('paddings', [6], 'int32')
                feed['paddings'] = np.array(self.paddings).flatten().astype("int32")
            out = F.pad(x, pad, mode=self.mode, value=self.value,
                        data_format=self.data_format)
            (gx,) = paddle.static.gradients([paddle.mean(out)], [x])
        return Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=[out, gx])

    def test_check_output(self):
        out, _ = self.run_case()
        self.assertEqual(out.shape, self.out.shape)
        np.testing.assert_allclose(out, self.out, rtol=1e-7, atol=1e-7)

    def test_check_grad_normal(self):
        _, gx = self.run_case()
        # each X cell's gradient: how many Out cells copy it, over Out's size
        sources = self.np_pad(np.arange(self.x.size).reshape(self.shape), constant_values=-1)
        counts = np.bincount(sources[sources >= 0].ravel(), minlength=self.x.size)
        want = (counts / sources.size).reshape(self.shape)
        np.testing.assert_allclose(gx, want, rtol=1e-7, atol=1e-12)

    def get_dtype(self):
        return np.float64

    def initTestCase(self):
        self.shape = (2, 3, 4, 5, 6)
        self.paddings = [0, 0, 0, 0, 0, 0]
        self.mode = "constant"
        self.data_format = "NCDHW"
        self.pad_value = 0.0
        self.variable_paddings = False


class TestCase1(TestPad3dOp):
    def initTestCase(self):
        self.shape = (2, 3, 4, 5, 6)
        self.paddings = [0, 1, 2, 3, 4, 5]
        self.mode = "constant"
        self.data_format = "NCDHW"
        self.value = 1.0
        self.variable_paddings = False


class TestCase2(TestPad3dOp):
    def initTestCase(self):
        self.shape = (2, 3, 4, 5, 6)
        self.paddings = [1, 1, 1, 1, 1, 1]
        self.mode = "constant"
        self.data_format = "NDHWC"
        self.value = 1.0
        self.variable_paddings = False


class TestCase3(TestPad3dOp):
    def initTestCase(self):
        self.shape = (2, 3, 4, 5, 6)
        self.paddings = [0, 1, 1, 0, 2, 3]
        self.mode = "reflect"
        self.data_format = "NCDHW"
        self.variable_paddings = False


class TestCase4(TestPad3dOp):
    def initTestCase(self):
        self.shape = (4, 4, 4, 4, 4)
        self.paddings = [0, 1, 2, 1, 2, 3]
        self.mode = "reflect"
        self.data_format = "NDHWC"
        self.variable_paddings = False


class TestCase5(TestPad3dOp):
    def initTestCase(self):
        self.shape = (2, 3, 4, 5, 6)
        self.paddings = [0, 1, 2, 3, 2, 1]
        self.mode = "replicate"
        self.data_format = "NCDHW"
        self.variable_paddings = False


class TestCase6(TestPad3dOp):
    def initTestCase(self):
        self.shape = (4, 4, 4, 4, 4)
        self.paddings = [5, 4, 2, 1, 2, 3]
        self.mode = "replicate"
        self.data_format = "NDHWC"
        self.variable_paddings = False


class TestCase7(TestPad3dOp):
    def initTestCase(self):
        self.shape = (2, 3, 4, 5, 6)
        self.paddings = [0, 1, 2, 3, 2, 1]
        self.mode = "circular"
        self.data_format = "NCDHW"
        self.variable_paddings = False


class TestCase8(TestPad3dOp):
    def initTestCase(self):
        self.shape = (4, 4, 4, 4, 4)
        self.paddings = [0, 1, 2, 1, 2, 3]
        self.mode = "circular"
        self.data_format = "NDHWC"
        self.variable_paddings = False


class TestCase9(TestPad3dOp):
    def initTestCase(self):
        self.shape = (2, 3, 4, 5, 6)
        self.paddings = [0, 1, 2, 3, 4, 5]
        self.mode = "constant"
        self.data_format = "NCDHW"
        self.value = 1.0
        self.variable_paddings = True


class TestCase10(TestPad3dOp):
    def initTestCase(self):
        self.shape = (2, 3, 4, 5, 6)
        self.paddings = [0, 1, 2, 3, 4, 5]
        self.mode = "constant"
        self.data_format = "NDHWC"
        self.value = 1.0
        self.variable_paddings = True


def _np_pad_by_format(input_data, pad, mode, value=0, data_format="NCDHW"):
    """TestPadAPI's _get_numpy_out (a pad of every dim for a 2 * rank constant pad)."""
    if mode == "constant" and len(pad) == len(input_data.shape) * 2:
        pad = np.reshape(pad, (-1, 2)).tolist()
    elif data_format == "NCDHW":
        pad = [(0, 0), (0, 0), (pad[4], pad[5]), (pad[2], pad[3]), (pad[0], pad[1])]
    elif data_format == "NDHWC":
        pad = [(0, 0), (pad[4], pad[5]), (pad[2], pad[3]), (pad[0], pad[1]), (0, 0)]
    elif data_format == "NCHW":
        pad = [(0, 0), (0, 0), (pad[2], pad[3]), (pad[0], pad[1])]
    elif data_format == "NHWC":
        pad = [(0, 0), (pad[2], pad[3]), (pad[0], pad[1]), (0, 0)]
    elif data_format == "NCL":
        pad = [(0, 0), (0, 0), (pad[0], pad[1])]
    elif data_format == "NLC":
        pad = [(0, 0), (pad[0], pad[1]), (0, 0)]

    if mode == "constant":
        out = np.pad(input_data, pad, mode=mode, constant_values=value)
    elif mode == "reflect":
        out = np.pad(input_data, pad, mode=mode)
    elif mode == "replicate":
        out = np.pad(input_data, pad, mode="edge")
    elif mode == "circular":
        out = np.pad(input_data, pad, mode="wrap")

    return out


class TestPadAPI(unittest.TestCase):
    def setUp(self):
        self.places = [paddle.CPUPlace()]

    def tearDown(self):
        paddle.enable_static()

    def check_static_result_1(self, place):
        paddle.enable_static()
        with program_guard(Program(), Program()):
            input_shape = (1, 2, 3, 4, 5)
            pad = [1, 2, 1, 1, 3, 4]
            mode = "constant"
            value = 100
            input_data = np.random.rand(*input_shape).astype(np.float32)
            x = paddle.static.data(name="x", shape=input_shape)
            result = F.pad(x=x, pad=pad, value=value, mode=mode, data_format="NCDHW")
            exe = Executor(place)
            fetches = exe.run(default_main_program(), feed={"x": input_data},
                              fetch_list=[result])

            np_out = self._get_numpy_out(input_data, pad, mode, value)
            np.testing.assert_allclose(fetches[0], np_out, rtol=1e-05)

    def check_static_result(self, place, input_shape, pad, mode):
        """check_static_result_2 / 3 / 4: NCDHW and NDHWC pads of one input."""
        paddle.enable_static()
        with program_guard(Program(), Program()):
            input_data = np.random.rand(*input_shape).astype(np.float32)
            x = paddle.static.data(name="x", shape=input_shape)
            result1 = F.pad(x=x, pad=pad, mode=mode, data_format="NCDHW")
            result2 = F.pad(x=x, pad=pad, mode=mode, data_format="NDHWC")
            exe = Executor(place)
            fetches = exe.run(default_main_program(), feed={"x": input_data},
                              fetch_list=[result1, result2])

            np_out1 = self._get_numpy_out(input_data, pad, mode, data_format="NCDHW")
            np_out2 = self._get_numpy_out(input_data, pad, mode, data_format="NDHWC")
            np.testing.assert_allclose(fetches[0], np_out1, rtol=1e-05)
            np.testing.assert_allclose(fetches[1], np_out2, rtol=1e-05)

    def _get_numpy_out(self, input_data, pad, mode, value=0, data_format="NCDHW"):
        return _np_pad_by_format(input_data, pad, mode, value, data_format)

    def test_static(self):
        for place in self.places:
            self.check_static_result_1(place=place)
            self.check_static_result(place, (2, 3, 4, 5, 6), [1, 2, 1, 1, 1, 2], "reflect")
            self.check_static_result(place, (2, 3, 4, 5, 6), [1, 2, 1, 1, 3, 4], "replicate")
            self.check_static_result(place, (2, 3, 4, 5, 6), [1, 2, 1, 1, 3, 4], "circular")

    def test_dygraph_1(self):
        paddle.disable_static()
        input_shape = (1, 2, 3, 4, 5)
        pad = [1, 2, 1, 1, 3, 4]
        pad_3 = [1, 2, 1, 1, 3, 4, 5, 6, 7, 8]
        mode = "constant"
        value = 100
        input_data = np.random.rand(*input_shape).astype(np.float32)
        np_out1 = self._get_numpy_out(input_data, pad, mode, value, data_format="NCDHW")
        np_out2 = self._get_numpy_out(input_data, pad, mode, value, data_format="NDHWC")
        np_out3 = self._get_numpy_out(input_data, pad_3, mode, value, data_format="NCDHW")
        tensor_data = paddle.to_tensor(input_data)

        y1 = F.pad(tensor_data, pad=pad, mode=mode, value=value, data_format="NCDHW")
        y2 = F.pad(tensor_data, pad=pad, mode=mode, value=value, data_format="NDHWC")
        y3 = F.pad(tensor_data, pad=pad_3, mode=mode, value=value, data_format="NCDHW")

        np.testing.assert_allclose(y1.numpy(), np_out1, rtol=1e-05)
        np.testing.assert_allclose(y2.numpy(), np_out2, rtol=1e-05)
        np.testing.assert_allclose(y3.numpy(), np_out3, rtol=1e-05)

    def check_dygraph_tensor_pad(self, input_shape, pad, pad_3, formats):
        """test_dygraph_2 / 3: a tensor pad of the spatial dims and a list of every dim's."""
        paddle.disable_static()
        mode = "constant"
        value = 100
        input_data = np.random.rand(*input_shape).astype(np.float32)
        np_out1 = self._get_numpy_out(input_data, pad, mode, value, data_format=formats[0])
        np_out2 = self._get_numpy_out(input_data, pad, mode, value, data_format=formats[1])
        np_out3 = self._get_numpy_out(input_data, pad_3, mode, value, data_format=formats[0])

        tensor_data = paddle.to_tensor(input_data)
        tensor_pad = paddle.to_tensor(pad, dtype="int32")

        y1 = F.pad(tensor_data, pad=tensor_pad, mode=mode, value=value,
                   data_format=formats[0])
        y2 = F.pad(tensor_data, pad=tensor_pad, mode=mode, value=value,
                   data_format=formats[1])
        y3 = F.pad(tensor_data, pad=pad_3, mode=mode, value=value, data_format=formats[0])

        np.testing.assert_allclose(y1.numpy(), np_out1, rtol=1e-05)
        np.testing.assert_allclose(y2.numpy(), np_out2, rtol=1e-05)
        np.testing.assert_allclose(y3.numpy(), np_out3, rtol=1e-05)

    def test_dygraph_2(self):
        self.check_dygraph_tensor_pad((2, 3, 4, 5), [1, 1, 3, 4], [1, 2, 1, 1, 3, 4, 5, 6],
                                      ("NCHW", "NHWC"))

    def test_dygraph_3(self):
        self.check_dygraph_tensor_pad((3, 4, 5), [3, 4], [3, 4, 5, 6, 7, 8], ("NCL", "NLC"))


class TestPadLayers(unittest.TestCase):
    """TestPad1dAPI / TestPad2dAPI / TestPad3dAPI.test_class: each mode of nn.Pad1D / 2D / 3D
    (a list padding, an int one for constant) in dygraph against np.pad."""
    layer = nn.Pad1D
    input_shape = (3, 4, 5)
    pad = [1, 2]
    data_format = "NCL"

    def _get_numpy_out(self, input_data, pad, mode, value=0.0, data_format="NCL"):
        return _np_pad_by_format(input_data, pad, mode, value, data_format)

    def test_class(self):
        paddle.disable_static()
        try:
            pad_int = 1
            value = 100
            input_data = np.random.rand(*self.input_shape).astype(np.float32)
            data = paddle.to_tensor(input_data)
            for mode in ("reflect", "replicate", "constant", "circular"):
                layer = self.layer(padding=self.pad, mode=mode, value=value)
                np_out = self._get_numpy_out(input_data, self.pad, mode, value=value,
                                             data_format=self.data_format)
                np.testing.assert_allclose(layer(data).numpy(), np_out, rtol=1e-05)
            layer = self.layer(padding=pad_int, mode="constant", value=value)
            np_out = self._get_numpy_out(input_data, [pad_int] * len(self.pad), "constant",
                                         value=value, data_format=self.data_format)
            np.testing.assert_allclose(layer(data).numpy(), np_out, rtol=1e-05)
        finally:
            paddle.enable_static()


class TestPad2dAPI(TestPadLayers):
    layer = nn.Pad2D
    input_shape = (3, 4, 5, 6)
    pad = [1, 2, 2, 1]
    data_format = "NCHW"


class TestPad3dAPI(TestPadLayers):
    layer = nn.Pad3D
    input_shape = (3, 4, 5, 6, 7)
    pad = [1, 2, 2, 1, 1, 0]
    data_format = "NCDHW"

    def test_pad_tensor(self):
        paddle.disable_static()
        try:
            input_shape = (3, 4, 5, 6, 7)
            pad = [1, 2, 2, 1, 1, 0]
            pad_tensor = paddle.to_tensor(pad)
            input_data = np.random.rand(*input_shape).astype(np.float32)

            pad_reflection_ncdhw = nn.Pad3D(padding=pad_tensor, mode="reflect",
                                            data_format="NCDHW")
            pad_reflection_ndhwc = nn.Pad3D(padding=pad_tensor, mode="reflect",
                                            data_format="NDHWC")
            data = paddle.to_tensor(input_data)

            output = pad_reflection_ncdhw(data)
            np_out = self._get_numpy_out(input_data, pad, "reflect", data_format="NCDHW")
            np.testing.assert_allclose(output.numpy(), np_out, rtol=1e-05)

            output = pad_reflection_ndhwc(data)
            np_out = self._get_numpy_out(input_data, pad, "reflect", data_format="NDHWC")
            np.testing.assert_allclose(output.numpy(), np_out, rtol=1e-05)
        finally:
            paddle.enable_static()


class TestPad3dOpError(unittest.TestCase):
    def test_errors(self):
        def test_variable():
            input_shape = (1, 2, 3, 4, 5)
            data = np.random.rand(*input_shape).astype(np.float32)
            y = F.pad(x=data, pad=[1, 1, 1, 1, 1, 1], data_format="NCDHW")

        def test_reflect_1():
            input_shape = (1, 2, 3, 4, 5)
            data = np.random.rand(*input_shape).astype(np.float32)
            x = paddle.to_tensor(data)
            y = F.pad(x, pad=[5, 6, 1, 1, 1, 1], value=1, mode='reflect', data_format="NCDHW")

        def test_reflect_2():
            input_shape = (1, 2, 3, 4, 5)
            data = np.random.rand(*input_shape).astype(np.float32)
            x = paddle.to_tensor(data)
            y = F.pad(x, pad=[1, 1, 4, 3, 1, 1], value=1, mode='reflect', data_format="NCDHW")

        def test_reflect_3():
            input_shape = (1, 2, 3, 4, 5)
            data = np.random.rand(*input_shape).astype(np.float32)
            x = paddle.to_tensor(data)
            y = F.pad(x, pad=[1, 1, 1, 1, 2, 3], value=1, mode='reflect', data_format="NCDHW")

        paddle.disable_static()
        try:
            self.assertRaises(ValueError, test_variable)
            self.assertRaises(Exception, test_reflect_1)
            self.assertRaises(Exception, test_reflect_2)
            self.assertRaises(Exception, test_reflect_3)
        finally:
            paddle.enable_static()


class TestPadDataformatError(unittest.TestCase):
    def test_errors(self):
        def test_ncl():
            input_shape = (1, 2, 3, 4)
            pad = paddle.to_tensor(np.array([2, 1, 2, 1]).astype('int32'))
            data = np.arange(np.prod(input_shape), dtype=np.float64).reshape(input_shape) + 1
            my_pad = nn.Pad1D(padding=pad, mode="replicate", data_format="NCL")
            data = paddle.to_tensor(data)
            result = my_pad(data)

        def test_nchw():
            input_shape = (1, 2, 4)
            pad = paddle.to_tensor(np.array([2, 1, 2, 1]).astype('int32'))
            data = np.arange(np.prod(input_shape), dtype=np.float64).reshape(input_shape) + 1
            my_pad = nn.Pad1D(padding=pad, mode="replicate", data_format="NCHW")
            data = paddle.to_tensor(data)
            result = my_pad(data)

        def test_ncdhw():
            input_shape = (1, 2, 3, 4)
            pad = paddle.to_tensor(np.array([2, 1, 2, 1]).astype('int32'))
            data = np.arange(np.prod(input_shape), dtype=np.float64).reshape(input_shape) + 1
            my_pad = nn.Pad1D(padding=pad, mode="replicate", data_format="NCDHW")
            data = paddle.to_tensor(data)
            result = my_pad(data)

        paddle.disable_static()
        try:
            self.assertRaises(AssertionError, test_ncl)
            self.assertRaises(AssertionError, test_nchw)
            self.assertRaises(AssertionError, test_ncdhw)
        finally:
            paddle.enable_static()


if __name__ == '__main__':
    unittest.main()
