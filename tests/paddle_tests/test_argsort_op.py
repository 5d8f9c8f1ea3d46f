"""Port of Paddle test/legacy_test/test_argsort_op.py: paddle.argsort in static and dygraph mode.

Kept: TestArgsortErrorOnCPU (a list is refused with TypeError: Paddle's assertRaises sits inside
the function it never calls, so here it is called), TestArgsort / 2 / 3 / 4 static (their init()
is never called in Paddle's setUp, so all four run the [10000] case, as there), TestStableArgsort
/ 2 / 3 / 4 static on the CPU place (the *_gpu halves run on the CPU place without CUDA, as in
Paddle), TestArgsortImperative / 2 / 3 / 4 and TestStableArgsortImperative / 2 / 3 / 4 in
dygraph, TestArgsortWithInputNaN (NaN sorts last ascending, first descending).
Dropped: the float16 / bfloat16 cases (CUDA only) and the OpTest FP16 / BF16 grad checks.
"""
import unittest

import numpy as np

import fluidc as paddle

np.random.seed(123)
paddle.enable_static()
STABLE = np.array([100.0, 50.0, 10.0] * 10)
STABLE4 = np.array([[[100.0, 50.0, -10.0, 1.0], [0.0, 0.0, 1.0, 1.0],
                     [100.0, 50.0, -10.0, 1.0]],
                    [[70.0, -30.0, 60.0, 100.0], [0.0, 0.0, 1.0, 1.0],
                     [100.0, 50.0, -10.0, 1.0]]] * 20)


def run_static(data, shape, **kwargs):
    with paddle.static.program_guard(paddle.static.Program()):
        input = paddle.static.data(name="input", shape=shape, dtype="float64")
        output = paddle.argsort(input, **kwargs)
        exe = paddle.static.Executor(paddle.CPUPlace())
        return exe.run(paddle.static.default_main_program(), feed={'input': data},
                       fetch_list=[output])


class TestArgsortErrorOnCPU(unittest.TestCase):
    def test_error(self):
        with paddle.static.program_guard(paddle.static.Program()):
            self.assertRaises(TypeError, paddle.argsort, x=[1])


class TestArgsort(unittest.TestCase):
    def setUp(self):
        self.input_shape = [10000]
        self.axis = 0
        self.data = np.random.rand(*self.input_shape)

    def test_api_static1(self):
        result = run_static(self.data, self.input_shape, axis=self.axis)
        np_result = np.argsort(self.data, axis=self.axis)
        self.assertEqual((result == np_result).all(), True)

    def test_api_static2(self):
        result2 = run_static(self.data, self.input_shape, axis=self.axis, descending=True)
        np_result2 = np.argsort(-self.data, axis=self.axis)
        self.assertEqual((result2 == np_result2).all(), True)


class TestArgsort2(TestArgsort):
    def init(self):
        self.input_shape = [10000, 1]
        self.axis = 0


class TestArgsort3(TestArgsort):
    def init(self):
        self.input_shape = [1, 10000]
        self.axis = 1


class TestArgsort4(TestArgsort):
    def init(self):
        self.input_shape = [2, 3, 4]
        self.axis = 1


class TestStableArgsort(unittest.TestCase):
    def init(self):
        self.input_shape = [30]
        self.axis = 0
        self.data = STABLE

    def setUp(self):
        self.init()

    def test_api_static1_cpu(self):
        result = run_static(self.data, self.input_shape, axis=self.axis, stable=True)
        np_result = np.argsort(self.data, axis=self.axis, kind='stable')
        self.assertEqual((result == np_result).all(), True)

    def test_api_static2_cpu(self):
        result2 = run_static(self.data, self.input_shape, axis=self.axis, descending=True,
                             stable=True)
        np_result2 = np.argsort(-self.data, axis=self.axis, kind='stable')
        self.assertEqual((result2 == np_result2).all(), True)


class TestStableArgsort2(TestStableArgsort):
    def init(self):
        self.input_shape = [30, 1]
        self.data = STABLE.reshape(self.input_shape)
        self.axis = 0


class TestStableArgsort3(TestStableArgsort):
    def init(self):
        self.input_shape = [1, 30]
        self.data = STABLE.reshape(self.input_shape)
        self.axis = 1


class TestStableArgsort4(TestStableArgsort):
    def init(self):
        self.input_shape = [40, 3, 4]
        self.axis = 0
        self.data = STABLE4


class TestArgsortImperative(unittest.TestCase):
    def init(self):
        self.input_shape = [10000]
        self.axis = 0

    def setUp(self):
        self.init()
        self.input_data = np.random.rand(*self.input_shape)

    def test_api(self):
        paddle.disable_static(paddle.CPUPlace())
        var_x = paddle.to_tensor(self.input_data)
        out = paddle.argsort(var_x, axis=self.axis)
        expect = np.argsort(self.input_data, axis=self.axis)
        self.assertEqual((expect == out.numpy()).all(), True)

        out2 = paddle.argsort(var_x, axis=self.axis, descending=True)
        expect2 = np.argsort(-self.input_data, axis=self.axis)
        self.assertEqual((expect2 == out2.numpy()).all(), True)
        paddle.enable_static()


class TestArgsortImperative2(TestArgsortImperative):
    def init(self):
        self.input_shape = [10000, 1]
        self.axis = 0


class TestArgsortImperative3(TestArgsortImperative):
    def init(self):
        self.input_shape = [1, 10000]
        self.axis = 1


class TestArgsortImperative4(TestArgsortImperative):
    def init(self):
        self.input_shape = [2, 3, 4]
        self.axis = 1


class TestStableArgsortImperative(unittest.TestCase):
    def init(self):
        self.input_shape = [30]
        self.axis = 0
        self.input_data = STABLE

    def setUp(self):
        self.init()

    def test_api_cpu(self):
        paddle.disable_static(paddle.CPUPlace())
        var_x = paddle.to_tensor(self.input_data)
        out = paddle.argsort(var_x, axis=self.axis, stable=True)
        expect = np.argsort(self.input_data, axis=self.axis, kind='stable')
        self.assertEqual((expect == out.numpy()).all(), True)

        out2 = paddle.argsort(var_x, axis=self.axis, descending=True, stable=True)
        expect2 = np.argsort(-self.input_data, axis=self.axis, kind='stable')
        self.assertEqual((expect2 == out2.numpy()).all(), True)
        paddle.enable_static()


class TestStableArgsortImperative2(TestStableArgsortImperative):
    def init(self):
        self.input_shape = [30, 1]
        self.input_data = STABLE.reshape(self.input_shape)
        self.axis = 0


class TestStableArgsortImperative3(TestStableArgsortImperative):
    def init(self):
        self.input_shape = [1, 30]
        self.input_data = STABLE.reshape(self.input_shape)
        self.axis = 1


class TestStableArgsortImperative4(TestStableArgsortImperative):
    def init(self):
        self.input_shape = [40, 3, 4]
        self.axis = 0
        self.input_data = STABLE4


class TestArgsortWithInputNaN(unittest.TestCase):
    def init(self):
        self.axis = 0

    def setUp(self):
        self.init()
        self.input_data = np.array([1.0, np.nan, 3.0, 2.0])

    def test_api(self):
        paddle.disable_static(paddle.CPUPlace())
        var_x = paddle.to_tensor(self.input_data)
        out = paddle.argsort(var_x, axis=self.axis)
        self.assertEqual((out.numpy() == np.array([0, 3, 2, 1])).all(), True)

        out = paddle.argsort(var_x, axis=self.axis, descending=True)
        self.assertEqual((out.numpy() == np.array([1, 2, 3, 0])).all(), True)
        paddle.enable_static()
