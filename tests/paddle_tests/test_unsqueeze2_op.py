"""Port of Paddle test/legacy_test/test_unsqueeze2_op.py: paddle.unsqueeze / unsqueeze_'s static
API and op cases.

run-on-paddle: pir

Kept: TestUnsqueezeAPI and TestUnsqueezeInplaceAPI (test_api: int / list / list-with-tensors /
fed int32 and int64 axes tensors; test_error: axis=2.1 -> TypeError), and the forward output of
the OpTest cases TestUnsqueezeOp, TestUnsqueezeOp1..4, TestUnsqueezeOp_ZeroDim1..3 and
TestUnsqueezeOp{,1,2,3,4}_AxesTensorList (axes lists of paddle.full tensors, the public API's
way to make AxesTensorList) through paddle.unsqueeze against Paddle's numpy reference
(x.reshape(new_shape)), exact, float64.
Dropped: OpTest gradient / prim checks (and the XShape output, which the OpTest does not check
either), the TestUnsqueezeOp*_AxesTensor OpTest cases (a fed axes tensor: test_api's out_3 /
out_5 cover it), TestUnsqueezeAPI_ZeroDim (dygraph).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class TestUnsqueezeOp(unittest.TestCase):
    ori_shape, axes, new_shape, axes_tensor_list = (3, 40), (1, 2), (3, 1, 1, 40), False

    def test_check_output(self):
        x_np = np.random.random(self.ori_shape).astype("float64")
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.ori_shape), 'float64')
            axes = list(self.axes)
            if self.axes_tensor_list:
                axes = [paddle.full([1], a, 'int32') for a in axes]
            out = paddle.unsqueeze(x, axis=axes)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'x': x_np}, fetch_list=[out])
        np.testing.assert_array_equal(res, x_np.reshape(self.new_shape))


def _case(name, ori_shape, axes, new_shape, axes_tensor_list=False):
    globals()[name] = type(name, (TestUnsqueezeOp,), dict(
        ori_shape=ori_shape, axes=axes, new_shape=new_shape, axes_tensor_list=axes_tensor_list))


_case('TestUnsqueezeOp1', (20, 5), (-1,), (20, 5, 1))
_case('TestUnsqueezeOp2', (20, 5), (0, -1), (1, 20, 5, 1))
_case('TestUnsqueezeOp3', (10, 2, 5), (0, 3, 3), (1, 10, 2, 1, 1, 5))
_case('TestUnsqueezeOp4', (10, 2, 5), (3, 1, 1), (10, 1, 1, 2, 5, 1))
_case('TestUnsqueezeOp_ZeroDim1', (), (-1,), 1)
_case('TestUnsqueezeOp_ZeroDim2', (), (-1, 1), (1, 1))
_case('TestUnsqueezeOp_ZeroDim3', (), (0, 1, 2), (1, 1, 1))
_case('TestUnsqueezeOp_AxesTensorList', (20, 5), (1, 2), (20, 1, 1, 5), True)
_case('TestUnsqueezeOp1_AxesTensorList', (20, 5), (-1,), (20, 5, 1), True)
_case('TestUnsqueezeOp2_AxesTensorList', (20, 5), (0, -1), (1, 20, 5, 1), True)
_case('TestUnsqueezeOp3_AxesTensorList', (10, 2, 5), (0, 3, 3), (1, 10, 2, 1, 1, 5), True)
_case('TestUnsqueezeOp4_AxesTensorList', (10, 2, 5), (3, 1, 1), (10, 1, 1, 2, 5, 1), True)


# test api
class TestUnsqueezeAPI(unittest.TestCase):
    def setUp(self):
        self.executed_api()

    def executed_api(self):
        self.unsqueeze = paddle.unsqueeze

    def test_api(self):
        input = np.random.random([3, 2, 5]).astype("float64")
        x = paddle.static.data(name='x', shape=[3, 2, 5], dtype="float64")
        positive_3_int32 = paddle.tensor.fill_constant([1], "int32", 3)
        positive_1_int64 = paddle.tensor.fill_constant([1], "int64", 1)
        axes_tensor_int32 = paddle.static.data(
            name='axes_tensor_int32', shape=[3], dtype="int32"
        )
        axes_tensor_int64 = paddle.static.data(
            name='axes_tensor_int64', shape=[3], dtype="int64"
        )

        out_1 = self.unsqueeze(x, axis=[3, 1, 1])
        out_2 = self.unsqueeze(x, axis=[positive_3_int32, positive_1_int64, 1])
        out_3 = self.unsqueeze(x, axis=axes_tensor_int32)
        out_4 = self.unsqueeze(x, axis=3)
        out_5 = self.unsqueeze(x, axis=axes_tensor_int64)

        exe = paddle.static.Executor(place=paddle.CPUPlace())
        res_1, res_2, res_3, res_4, res_5 = exe.run(
            paddle.static.default_main_program(),
            feed={
                "x": input,
                "axes_tensor_int32": np.array([3, 1, 1]).astype("int32"),
                "axes_tensor_int64": np.array([3, 1, 1]).astype("int64"),
            },
            fetch_list=[out_1, out_2, out_3, out_4, out_5],
        )

        np.testing.assert_array_equal(res_1, input.reshape([3, 1, 1, 2, 5, 1]))
        np.testing.assert_array_equal(res_2, input.reshape([3, 1, 1, 2, 5, 1]))
        np.testing.assert_array_equal(res_3, input.reshape([3, 1, 1, 2, 5, 1]))
        np.testing.assert_array_equal(res_4, input.reshape([3, 2, 5, 1]))
        np.testing.assert_array_equal(res_5, input.reshape([3, 1, 1, 2, 5, 1]))

    def test_error(self):
        def test_axes_type():
            x2 = paddle.static.data(name="x2", shape=[2, 25], dtype="int32")
            self.unsqueeze(x2, axis=2.1)

        self.assertRaises(TypeError, test_axes_type)


class TestUnsqueezeInplaceAPI(TestUnsqueezeAPI):
    def executed_api(self):
        self.unsqueeze = paddle.unsqueeze_


if __name__ == '__main__':
    unittest.main()
