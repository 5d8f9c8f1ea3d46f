"""Port of Paddle test/legacy_test/test_expand_v2_op.py: paddle.expand's static API and op cases.

Kept: TestExpandV2Error, TestExpandV2API, TestExpandInferShape, and the forward output of the
OpTest cases through paddle.expand against Paddle's numpy reference (np.tile), exact:
TestExpandV2OpRank1, _ZeroDim1, _ZeroDim2, Rank2_DimExpanding, Rank2, Rank3_Corner, Rank4 (shape
of -1s), TestExpandV2OpRank1_tensor_attr / Rank2_Corner_tensor_attr (shape lists holding
paddle.full tensors, the public API's way to make expand_shapes_tensor), TestExpandV2OpInteger,
TestExpandV2OpBoolean, TestExpandV2OpInt64_t.
Changed: TestExpandV2Error's uint8 check is dropped (Paddle 3.3.1 expands uint8 data);
TestExpandV2API's `base.backward.calc_gradient` is its public name
paddle.static.gradients.
Dropped: OpTest gradient / prim / comp checks, fp16 / bf16 / complex cases,
TestExpandV2OpRank1_tensor (a fed Shape tensor: TestExpandV2API's out_3 covers it), the double /
triple grad checks (gradient_checker internals) and the dygraph class.
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

paddle.enable_static()


class TestExpandV2OpRank1(unittest.TestCase):
    ori_shape, shape, expand_times, dtype = [100], [100], [1], 'float64'
    shape_tensor = False

    def make_input(self):
        if self.dtype == 'bool':
            return np.random.randint(2, size=self.ori_shape).astype('bool')
        if self.dtype.startswith('int'):
            return np.random.randint(10, size=self.ori_shape).astype(self.dtype)
        return np.random.random(self.ori_shape).astype(self.dtype)

    def test_check_output(self):
        x_np = self.make_input()
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.ori_shape), self.dtype)
            shape = list(self.shape)
            if self.shape_tensor:
                shape = [paddle.full([1], d, 'int32') for d in shape]
            out = paddle.expand(x, shape)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'x': x_np}, fetch_list=[out])
        np.testing.assert_array_equal(res, np.tile(x_np, self.expand_times))


def _case(name, ori_shape, shape, expand_times, **attrs):
    globals()[name] = type(name, (TestExpandV2OpRank1,), dict(
        ori_shape=ori_shape, shape=shape, expand_times=expand_times, **attrs))


_case('TestExpandV2OpRank1_ZeroDim1', [], [10], [10])
_case('TestExpandV2OpRank1_ZeroDim2', [], [], [])
_case('TestExpandV2OpRank2_DimExpanding', [120], [2, 120], [2, 1])
_case('TestExpandV2OpRank2', [1, 140], [12, 140], [12, 1])
_case('TestExpandV2OpRank3_Corner', (2, 10, 5), (2, 10, 5), (1, 1, 1))
_case('TestExpandV2OpRank4', (2, 4, 5, 7), (-1, -1, -1, -1), (1, 1, 1, 1))
_case('TestExpandV2OpRank1_tensor_attr', [100], [100], [1], shape_tensor=True)
_case('TestExpandV2OpRank2_Corner_tensor_attr', [12, 14], [12, 14], [1, 1], shape_tensor=True)
_case('TestExpandV2OpInteger', (2, 4, 5), [2, 4, 5], (1, 1, 1), dtype='int32')
_case('TestExpandV2OpBoolean', (2, 4, 5), [2, 4, 5], (1, 1, 1), dtype='bool')
_case('TestExpandV2OpInt64_t', (2, 4, 5), [2, 4, 5], (1, 1, 1), dtype='int64')


class TestExpandV2Error(unittest.TestCase):
    def test_errors(self):
        paddle.enable_static()
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            x1 = fluid.create_lod_tensor(np.array([[-1]]), [[1]], fluid.CPUPlace())
            shape = [2, 2]
            self.assertRaises(TypeError, paddle.tensor.expand, x1, shape)
            # Paddle 3.3.1 expands uint8 x: its `x2 = uint8 data -> TypeError` check is dropped
            x3 = paddle.static.data(name='x3', shape=[-1, 4], dtype="bool")
            x3.stop_gradient = False
            self.assertRaises(ValueError, paddle.tensor.expand, x3, shape)


# Test python API
class TestExpandV2API(unittest.TestCase):
    def test_api(self):
        input = np.random.random([12, 14]).astype("float32")
        x = paddle.static.data(name='x', shape=[12, 14], dtype="float32")

        positive_2 = paddle.tensor.fill_constant([1], "int32", 12)
        expand_shape = paddle.static.data(
            name="expand_shape",
            shape=[2],
            dtype="int32",
        )

        out_1 = paddle.expand(x, shape=[12, 14])
        out_2 = paddle.expand(x, shape=[positive_2, 14])
        out_3 = paddle.expand(x, shape=expand_shape)

        g0 = paddle.static.gradients(out_2, x)  # Paddle: base.backward.calc_gradient

        exe = fluid.Executor(place=fluid.CPUPlace())
        res_1, res_2, res_3 = exe.run(
            fluid.default_main_program(),
            feed={
                "x": input,
                "expand_shape": np.array([12, 14]).astype("int32"),
            },
            fetch_list=[out_1, out_2, out_3],
        )
        np.testing.assert_array_equal(res_1, np.tile(input, (1, 1)))
        np.testing.assert_array_equal(res_2, np.tile(input, (1, 1)))
        np.testing.assert_array_equal(res_3, np.tile(input, (1, 1)))


class TestExpandInferShape(unittest.TestCase):
    def test_shape_with_var(self):
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            x = paddle.static.data(shape=[-1, 1, 3], name='x')
            fake_var = paddle.randn([2, 3])
            target_shape = [
                -1,
                paddle.shape(fake_var)[0],
                paddle.shape(fake_var)[1],
            ]
            out = paddle.expand(x, shape=target_shape)
            self.assertListEqual(list(out.shape), [-1, -1, -1])


if __name__ == "__main__":
    unittest.main()
