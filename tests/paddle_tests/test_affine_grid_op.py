"""Port of Paddle test/legacy_test/test_affine_grid_op.py and test_affine_grid_function.py.

test_affine_grid_op.py: the forward output of TestAffineGridOp and its Case1..4 / 5DCase1..4
(same Theta shapes, integer Theta data, output_shape as the attribute or, dynamic_shape, as a
fed OutputShape tensor, align_corners) through F.affine_grid against Paddle's AffineGrid4D /
AffineGrid5D. Dropped: the OpTest grad checks (tests/test_ops_grad.py checks affine_grid's grad
by finite differences).
test_affine_grid_function.py: its load_tests suite as test classes: AffineGridTestCase
(static layer, functional and dygraph agree; variable output shape; a [20, 1, 7, 7] output) and
AffineGridErrorTestCase (a str output shape and a str theta raise TypeError in dygraph).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

F = paddle.nn.functional
paddle.enable_static()


def AffineGrid4D(theta, size, align_corners):
    n = size[0]
    w = size[3]
    h = size[2]
    h_factor = w_factor = 1
    if not align_corners:
        h_factor = (h - 1) / float(h)
        w_factor = (w - 1) / float(w)
    h_idx = np.repeat(np.linspace(-1, 1, h)[np.newaxis, :], w, axis=0).T[:, :, np.newaxis] \
        * h_factor
    w_idx = np.repeat(np.linspace(-1, 1, w)[np.newaxis, :], h, axis=0)[:, :, np.newaxis] \
        * w_factor
    grid = np.concatenate([w_idx, h_idx, np.ones([h, w, 1])], axis=2)  # h * w * 3
    grid = np.repeat(grid[np.newaxis, :], size[0], axis=0)  # n * h * w *3

    ret = np.zeros([n, h * w, 2])
    theta = theta.transpose([0, 2, 1])
    for i in range(len(theta)):
        ret[i] = np.dot(grid[i].reshape([h * w, 3]), theta[i])
    return ret.reshape([n, h, w, 2]).astype("float32")


def AffineGrid5D(theta, size, align_corners):
    n = size[0]
    d = size[2]
    h = size[3]
    w = size[4]
    d_factor = h_factor = w_factor = 1
    if not align_corners:
        d_factor = (d - 1) / float(d)
        h_factor = (h - 1) / float(h)
        w_factor = (w - 1) / float(w)
    d_idx = np.repeat(np.repeat(np.linspace(-1, 1, d)[:, np.newaxis, np.newaxis], h, axis=1),
                      w, axis=2)[:, :, :, np.newaxis] * d_factor
    h_idx = np.repeat(np.repeat(np.linspace(-1, 1, h)[np.newaxis, :, np.newaxis], w, axis=2),
                      d, axis=0)[:, :, :, np.newaxis] * h_factor
    w_idx = np.repeat(np.repeat(np.linspace(-1, 1, w)[np.newaxis, np.newaxis, :], h, axis=1),
                      d, axis=0)[:, :, :, np.newaxis] * w_factor
    grid = np.concatenate([w_idx, h_idx, d_idx, np.ones([d, h, w, 1])], axis=3)
    grid = np.repeat(grid[np.newaxis, :], size[0], axis=0)  # n * d * h * w * 4

    ret = np.zeros([n, d * h * w, 3])
    theta = theta.transpose([0, 2, 1])
    for i in range(len(theta)):
        ret[i] = np.dot(grid[i].reshape([d * h * w, 4]), theta[i])
    return ret.reshape([n, d, h, w, 3]).astype("float32")


class TestAffineGridOp(unittest.TestCase):
    def initTestCase(self):
        self.theta_shape = (17, 2, 3)
        self.output_shape = np.array([17, 2, 5, 7]).astype("int32")
        self.dynamic_shape = False
        self.align_corners = True

    def test_check_output(self):
        self.initTestCase()
        theta = np.random.randint(1, 3, self.theta_shape).astype("float32")
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            theta_var = paddle.static.data("theta", list(self.theta_shape), "float32")
            feed = {"theta": theta}
            if self.dynamic_shape:
                shape = paddle.static.data("shape", [len(self.output_shape)], "int32")
                feed["shape"] = self.output_shape
            else:
                shape = list(self.output_shape)
            out = F.affine_grid(theta_var, shape, align_corners=self.align_corners)
            got, = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed,
                                                                 fetch_list=[out])
        grid = AffineGrid4D if self.theta_shape[1:] == (2, 3) else AffineGrid5D
        np.testing.assert_allclose(got, grid(theta, self.output_shape, self.align_corners),
                                   rtol=1e-5, atol=1e-5)


def _op_case(name, theta_shape, output_shape, dynamic_shape, align_corners):
    def init(self):
        self.__dict__.update(theta_shape=theta_shape,
                             output_shape=np.array(output_shape).astype("int32"),
                             dynamic_shape=dynamic_shape, align_corners=align_corners)
    globals()[name] = type(name, (TestAffineGridOp,), {"initTestCase": init})


_op_case("TestAffineGridOpCase1", (20, 2, 3), [20, 2, 5, 7], True, True)
_op_case("TestAffineGridOpCase2", (20, 2, 3), [20, 2, 5, 7], True, True)
_op_case("TestAffineGridOpCase3", (20, 2, 3), [20, 2, 5, 7], True, False)
_op_case("TestAffineGridOpCase4", (25, 2, 3), [25, 2, 5, 6], False, False)
_op_case("TestAffineGridOp5DCase1", (20, 3, 4), [20, 1, 2, 5, 7], True, False)
_op_case("TestAffineGridOp5DCase2", (20, 3, 4), [20, 1, 2, 5, 7], True, True)
_op_case("TestAffineGridOp5DCase3", (20, 3, 4), [20, 1, 2, 5, 7], True, False)
_op_case("TestAffineGridOp5DCase4", (25, 3, 4), [25, 1, 2, 5, 6], False, False)


class AffineGridTestCase(unittest.TestCase):
    theta_shape = (20, 2, 3)
    output_shape = [20, 2, 5, 7]
    align_corners = True
    dtype = "float32"
    invalid_theta = False
    variable_output_shape = False

    def setUp(self):
        self.theta = np.random.randn(*(self.theta_shape)).astype(self.dtype)

    def base_layer(self, place):
        paddle.enable_static()
        with fluid.unique_name.guard():
            with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
                theta_var = paddle.static.data("input", self.theta_shape, dtype=self.dtype)
                y_var = paddle.nn.functional.affine_grid(theta_var, self.output_shape)
                feed_dict = {"input": self.theta}
                exe = paddle.static.Executor(place)
                (y_np,) = exe.run(paddle.static.default_main_program(), feed=feed_dict,
                                  fetch_list=[y_var])
                return y_np

    def functional(self, place):
        paddle.enable_static()
        with fluid.unique_name.guard():
            with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
                theta_var = paddle.static.data("input", self.theta_shape, dtype=self.dtype)
                y_var = F.affine_grid(theta_var, self.output_shape,
                                      align_corners=self.align_corners)
                feed_dict = {"input": self.theta}
                exe = paddle.static.Executor(place)
                (y_np,) = exe.run(paddle.static.default_main_program(), feed=feed_dict,
                                  fetch_list=[y_var])
                return y_np

    def test_static_api(self):
        place = fluid.CPUPlace()
        paddle.enable_static()
        with fluid.unique_name.guard():
            with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
                align_corners = True
                theta_var = paddle.static.data("input", self.theta_shape, dtype=self.dtype)
                y_var = paddle.nn.functional.affine_grid(theta_var, self.output_shape)
                y_var2 = F.affine_grid(theta_var, self.output_shape,
                                       align_corners=align_corners)
                feed_dict = {"input": self.theta}
                exe = paddle.static.Executor(place)
                (y_np, y_np2) = exe.run(paddle.static.default_main_program(), feed=feed_dict,
                                        fetch_list=[y_var, y_var2])
                np.testing.assert_array_almost_equal(y_np, y_np2)

    def paddle_dygraph_layer(self):
        paddle.disable_static()
        theta_var = paddle.to_tensor(self.theta) if not self.invalid_theta else "invalid"
        output_shape = paddle.to_tensor(self.output_shape) \
            if self.variable_output_shape else self.output_shape
        y_var = F.affine_grid(theta_var, output_shape, align_corners=self.align_corners)
        y_np = y_var.numpy()
        return y_np

    def test_equivalence(self):
        place = fluid.CPUPlace()
        result1 = self.base_layer(place)
        result2 = self.functional(place)
        result3 = self.paddle_dygraph_layer()
        paddle.enable_static()
        if self.align_corners:
            np.testing.assert_array_almost_equal(result1, result2)
        np.testing.assert_array_almost_equal(result2, result3)


class AffineGridTestCaseAlignFalse(AffineGridTestCase):
    align_corners = False


class AffineGridTestCaseVariableShape(AffineGridTestCase):
    variable_output_shape = True


class AffineGridTestCaseOneChannel(AffineGridTestCase):
    output_shape = [20, 1, 7, 7]


class AffineGridErrorTestCase(unittest.TestCase):
    def run_error(self, **kw):
        case = AffineGridTestCase()
        case.__dict__.update(kw)
        case.setUp()
        with self.assertRaises(TypeError):
            case.paddle_dygraph_layer()
        paddle.enable_static()

    def test_invalid_output_shape(self):
        self.run_error(output_shape="not_valid")

    def test_invalid_theta(self):
        self.run_error(invalid_theta=True)
