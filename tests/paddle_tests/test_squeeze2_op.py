"""Port of Paddle test/legacy_test/test_squeeze2_op.py: paddle.squeeze / squeeze_'s static API.

run-on-paddle: pir

Kept: TestSqueezeAPI.test_error and TestSqueezeInplaceAPI.test_error (axis=2.1 -> TypeError for
paddle.squeeze and paddle.squeeze_), and the forward output of the OpTest cases TestSqueezeOp,
TestSqueezeOp1..4, TestSqueezeOp_ZeroDim1/2 (same shapes and axes, no axes for TestSqueezeOp2)
through paddle.squeeze against Paddle's numpy reference (x.reshape(new_shape)), exact, float64.
Dropped: OpTest gradient / prim checks (and the XShape output, which the OpTest does not check
either), the bf16 cases, TestSqueezeAPI.test_api (dygraph).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class TestSqueezeOp(unittest.TestCase):
    ori_shape, axes, new_shape = (1, 3, 1, 40), (0, 2), (3, 40)

    def test_check_output(self):
        x_np = np.random.random(self.ori_shape).astype("float64")
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.ori_shape), 'float64')
            out = paddle.squeeze(x, axis=list(self.axes) if self.axes else None)
            self.assertEqual(tuple(out.shape), self.new_shape)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'x': x_np}, fetch_list=[out])
        np.testing.assert_array_equal(res, x_np.reshape(self.new_shape))


def _case(name, ori_shape, axes, new_shape):
    globals()[name] = type(name, (TestSqueezeOp,), dict(ori_shape=ori_shape, axes=axes,
                                                        new_shape=new_shape))


_case('TestSqueezeOp1', (1, 20, 1, 5), (0, -2), (20, 5))
_case('TestSqueezeOp_ZeroDim1', (), (0,), ())
_case('TestSqueezeOp_ZeroDim2', (1, 1, 1), (0, 1, 2), ())
_case('TestSqueezeOp2', (1, 20, 1, 5), (), (20, 5))
_case('TestSqueezeOp3', (6, 1, 5, 1, 4, 1), (1, -1), (6, 5, 1, 4))
_case('TestSqueezeOp4', (3, 1, 5, 2), (2, 3), (3, 1, 5, 2))


# test api
class TestSqueezeAPI(unittest.TestCase):
    def setUp(self):
        self.executed_api()

    def executed_api(self):
        self.squeeze = paddle.squeeze

    def test_error(self):
        def test_axes_type():
            with paddle.static.program_guard(
                paddle.static.Program(), paddle.static.Program()
            ):
                x2 = paddle.static.data(name="x2", shape=[2, 1, 25], dtype="int32")
                self.squeeze(x2, axis=2.1)

        self.assertRaises(TypeError, test_axes_type)


class TestSqueezeInplaceAPI(TestSqueezeAPI):
    def executed_api(self):
        self.squeeze = paddle.squeeze_


if __name__ == "__main__":
    unittest.main()
