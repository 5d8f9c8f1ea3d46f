"""Port of Paddle test/legacy_test/test_reduce_op.py: the static API classes and the op cases' outputs.

run-on-paddle: pir

Kept: TestReduceSumOpError, API_TestSumOp.test_static (paddle.sum over bool/int32/int64/float32/
float64 inputs x out dtypes), TestAllAPI / TestAnyAPI test_static (bool, float, int inputs),
TestAllOpError / TestAnyOpError, and the forward output of the OpTest cases of reduce_sum /
reduce_max / reduce_min / reduce_prod / reduce_all / reduce_any, expressed through the public API
(paddle.sum / max / min / prod / all / any with the case's axis and keepdim) on the case's shape,
dtype and data, against the case's numpy reduction with OpTest's float64 tolerance (1e-5).
Dropped: OpTest gradient / prim checks (core.*), fp16/bf16/complex/CUDA variants, the `*ForEager`
wrappers that only repeat a case, test_dygraph / TestAllZeroError (dygraph-only), and
API_TestSumOp's float16 out-dtype run (CPU float16 reduce is CUDA-oriented).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

paddle.enable_static()


def _run(build, feed):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        inputs = {k: paddle.static.data(k, list(v.shape), str(v.dtype)) for k, v in feed.items()}
        out = build(**inputs)
        exe = paddle.static.Executor(paddle.CPUPlace())
        (res,) = exe.run(main, feed=feed, fetch_list=[out])
    return res


class TestSumOp(unittest.TestCase):
    """One OpTest case: api(x, axis, keepdim) vs numpy; axis None = reduce over everything."""

    api = 'sum'
    shape = (5, 6, 10)
    dtype = 'float64'
    axis = [0]
    keepdim = False
    data = 'random'
    out_dtype = None  # paddle.sum's dtype argument

    def make_x(self):
        if self.data == 'random':
            return np.random.random(self.shape).astype(self.dtype)
        if self.data == 'uniform01':
            return np.random.uniform(0, 0.1, self.shape).astype(self.dtype)
        if self.data == 'randint30':
            return np.random.randint(0, 30, self.shape).astype(self.dtype)
        return np.random.randint(0, 2, self.shape).astype(self.dtype)  # 'randint2'

    def test_check_output(self):
        x_np = self.make_x()
        axis = None if self.axis is None else tuple(self.axis)
        np_fn = getattr(np, self.api)
        expected = np.asarray(np_fn(x_np, axis=axis, keepdims=self.keepdim))
        if self.out_dtype is not None:
            expected = expected.astype(self.out_dtype)
        paddle_axis = None if self.axis is None else list(self.axis)

        def build(x):
            if self.api == 'sum':
                return paddle.sum(x, axis=paddle_axis, dtype=self.out_dtype, keepdim=self.keepdim)
            return getattr(paddle, self.api)(x, axis=paddle_axis, keepdim=self.keepdim)

        res = _run(build, {'x': x_np})
        self.assertEqual(res.shape, expected.shape)
        if expected.dtype == np.bool_:
            np.testing.assert_array_equal(res, expected)
        else:
            np.testing.assert_allclose(res, expected, rtol=1e-5, atol=1e-5)


def _case(name, api, shape, axis, keepdim=False, dtype='float64', data='random', out_dtype=None):
    globals()[name] = type(name, (TestSumOp,), dict(
        api=api, shape=shape, axis=axis, keepdim=keepdim, dtype=dtype, data=data,
        out_dtype=out_dtype))


# reduce_sum
_case('TestSumOp_ZeroDim', 'sum', (), None)
_case('TestSumOp5D', 'sum', (1, 2, 5, 6, 10), [0])
_case('TestSumOp6D', 'sum', (1, 1, 2, 5, 6, 10), [0])
_case('TestSumOp8D', 'sum', (1, 3, 1, 2, 1, 4, 3, 10), [0, 3])
_case('TestSumOp_withInt', 'sum', (10, 10), [0, 1], data='randint30')
_case('TestSumOp3Dim', 'sum', (5, 6, 10), [0, 1, 2], data='uniform01')
_case('TestKeepDimReduceSumMultiAxises', 'sum', (5, 6, 10), [-2, -1], keepdim=True)
_case('TestReduceSumWithDimOne', 'sum', (100, 1, 1), [1, 2], keepdim=True)
_case('TestReduceSumWithNumelOne', 'sum', (100, 1), [1])
_case('TestReduceAll', 'sum', (100, 1, 1), None)
_case('TestReduceAllFp32', 'sum', (100, 1, 1), None, dtype='float32')
_case('Test1DReduceWithAxes1', 'sum', (100,), [0])
_case('TestReduceWithDtype', 'sum', (6, 2, 10), None, out_dtype='float64')
_case('TestReduceWithDtype1', 'sum', (6, 2, 10), [1], out_dtype='float64')
_case('TestReduceWithDtype2', 'sum', (6, 2, 10), [1], keepdim=True, out_dtype='float64')
# reduce_max
_case('TestMaxOp', 'max', (5, 6, 10), [-1])
_case('TestMaxOp_ZeroDim', 'max', (), [])
_case('TestMaxOp_ZeroDim1', 'max', (5,), [0])
_case('TestMaxOp_ZeroDim2', 'max', (5, 20), [0, 1])
_case('TestMaxFP32Op', 'max', (5, 6, 10), [-1], keepdim=True, dtype='float32')
# reduce_min
_case('TestMinOp', 'min', (5, 6, 10), [2])
_case('TestMinOp_ZeroDim', 'min', (), [])
_case('TestMin6DOp', 'min', (2, 4, 3, 5, 6, 10), [2, 4])
_case('TestMin8DOp', 'min', (2, 4, 3, 5, 6, 3, 2, 4), [2, 3, 4])
# reduce_prod
_case('TestProdOp', 'prod', (5, 6, 10), [0])
_case('TestProdOp_ZeroDim', 'prod', (), None)
_case('TestProdOp_ZeroDim1', 'prod', (100,), None)
_case('TestProdOp_ZeroDim2', 'prod', (5, 6, 10), None)
_case('TestProd6DOp', 'prod', (5, 6, 2, 3, 4, 2), [2, 3, 4])
_case('TestProd8DOp', 'prod', (2, 5, 3, 2, 2, 3, 4, 2), [2, 3, 4])
# reduce_all / reduce_any
for _api in ('all', 'any'):
    _p = 'TestAll' if _api == 'all' else 'TestAny'
    _case(_p + 'Op', _api, (5, 6, 10), None, dtype='bool', data='randint2')
    _case(_p + 'FloatOp', _api, (5, 6, 10), None, dtype='float64', data='randint2')
    _case(_p + 'IntOp', _api, (5, 6, 10), None, dtype='int64', data='randint2')
    _case(_p + 'Op_ZeroDim', _api, (), [], dtype='bool', data='randint2')
    _case(_p + 'OpWithDim', _api, (5, 6, 10), [1], dtype='bool', data='randint2')
    _case(_p + 'OpWithKeepDim', _api, (5, 6, 10), [1], keepdim=True, dtype='bool',
          data='randint2')
_case('TestAll8DOp', 'all', (2, 5, 3, 2, 2, 3, 4, 2), [2, 3, 4], dtype='bool', data='randint2')
_case('TestAll8DOpWithDim', 'all', (2, 5, 3, 2, 2, 3, 4, 2), [1, 3, 4], dtype='bool',
      data='randint2')
_case('TestAll8DOpWithKeepDim', 'all', (2, 5, 3, 2, 2, 3, 4, 2), [5], keepdim=True,
      dtype='bool', data='randint2')
_case('TestAny8DOp', 'any', (2, 5, 3, 2, 2, 3, 4, 2), [3, 5, 4], dtype='bool', data='randint2')
_case('TestAny8DOpWithDim', 'any', (2, 5, 3, 2, 2, 3, 4, 2), [3, 6], dtype='bool',
      data='randint2')
_case('TestAny8DOpWithKeepDim', 'any', (2, 5, 3, 2, 2, 3, 4, 2), [1], keepdim=True,
      dtype='bool', data='randint2')


class TestAllOpError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            self.assertRaises(TypeError, paddle.all, 12)  # input must be a Variable


class TestAnyOpError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            self.assertRaises(TypeError, paddle.any, 12)


class TestReduceSumOpError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            # not a Variable
            x1 = fluid.create_lod_tensor(np.array([[-1]]), [[1]], fluid.CPUPlace())
            self.assertRaises(TypeError, paddle.sum, x1)
            # Paddle's uint8-input TypeError check is dropped: Paddle 3.3.1's paddle.sum accepts
            # uint8 data (it no longer raises).


class API_TestSumOp(unittest.TestCase):
    def run_static(self, shape, x_dtype, attr_axis, attr_dtype=None, np_axis=None):
        if np_axis is None:
            np_axis = attr_axis
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            data = paddle.static.data('data', shape=shape, dtype=x_dtype)
            result_sum = paddle.sum(x=data, axis=attr_axis, dtype=attr_dtype)
            exe = paddle.static.Executor(paddle.CPUPlace())
            input_data = np.random.rand(*shape).astype(x_dtype)
            (res,) = exe.run(feed={'data': input_data}, fetch_list=[result_sum])
        np.testing.assert_allclose(
            res, np.sum(input_data.astype(attr_dtype), axis=np_axis), rtol=1e-05)

    def test_static(self):
        shape = [10, 10]
        axis = 1
        for x_dtype, out_dtypes in [
                ('bool', [None, 'int32', 'int64']),
                ('int32', [None, 'int32', 'int64', 'float64']),
                ('int64', [None, 'int64', 'int32']),
                ('float32', [None, 'float32', 'float64', 'int64']),
                ('float64', [None, 'float32', 'float64'])]:
            for attr_dtype in out_dtypes:
                self.run_static(shape, x_dtype, axis, attr_dtype=attr_dtype)
        shape = [5, 5, 5]
        self.run_static(shape, 'int32', (0, 1), attr_dtype='int32')
        self.run_static(shape, 'int32', (), attr_dtype='int32', np_axis=(0, 1, 2))


class TestAllAPI(unittest.TestCase):
    api = 'all'

    def setUp(self):
        np.random.seed(123)

    def check(self, dtype):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            input = paddle.static.data(name='input', shape=[4, 4], dtype=dtype)
            result = getattr(paddle, self.api)(x=input)
            input_np = np.random.randint(0, 2, [4, 4]).astype(dtype)
            exe = paddle.static.Executor(paddle.CPUPlace())
            fetches = exe.run(paddle.static.default_main_program(),
                              feed={'input': input_np}, fetch_list=[result])
            self.assertTrue((fetches[0] == getattr(np, self.api)(input_np)).all())

    def test_static(self):
        for dtype in ('bool', 'float', 'int'):
            self.check(dtype)


class TestAnyAPI(TestAllAPI):
    api = 'any'


if __name__ == '__main__':
    unittest.main()
