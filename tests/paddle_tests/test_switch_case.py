"""Port of Paddle test/legacy_test/test_switch_case.py: paddle.static.nn.switch_case (static
graph).

run-on-paddle: pir

Paddle 3.3.1 builds case / switch_case only on PIR programs (on legacy ones they call
paddle.logical_not / multiply, which then only take PIR values), so this file runs on Paddle with
PIR on; test_0d_tensor_backward fetches `out` and `_grad(x, grad_list)` (x.grad_name on legacy
programs and fluidc, the pair from append_backward's list on PIR, as Paddle's PIR branch does).

Kept: TestAPISwitchCase (test_return_single_var, test_0d_tensor, test_0d_tensor_backward,
test_return_var_tuple), TestAPISwitchCase_Nested (2), TestAPISwitchCase_Error, with Paddle's
assertions.
Dropped: test_0d_tensor_dygraph (dygraph); the `paddle.framework.in_pir_mode()` branching of
test_0d_tensor_backward (folded into `_grad`); the CUDAPlace / core.is_compiled_with_cuda() choice (CPU only).
Renamed: base.backward.append_backward -> paddle.static.append_backward.
"""
import unittest
from functools import partial

import numpy as np

import fluidc as paddle
import fluidc as fluid

base = fluid  # Paddle's `from paddle import base`
append_backward = paddle.static.append_backward


def _grad(var, grad_list):
    # PIR values have no grad_name: take the grad from append_backward's (var, grad) pairs
    # (Paddle's in_pir_mode() branch)
    if type(var).__name__ != 'Value':  # a legacy-program Variable
        return var.grad_name
    return next(g for p, g in grad_list if p.is_same(var))

paddle.enable_static()


def _check(tc, res, expected, zero_d=False):
    # Paddle repeats this assert_allclose (+ 0-d shape check) block for every result
    for r, e in zip(res, expected):
        np.testing.assert_allclose(r, e, rtol=1e-05, err_msg=f'result is {r} but answer is {e}')
        if zero_d:
            tc.assertEqual(r.shape, ())


class TestAPISwitchCase(unittest.TestCase):
    def test_return_single_var(self):
        def fn_1():
            return paddle.tensor.fill_constant(shape=[4, 2], dtype='int32', value=1)

        def fn_2():
            return paddle.tensor.fill_constant(shape=[4, 2], dtype='int32', value=2)

        def fn_3():
            return paddle.tensor.fill_constant(shape=[4, 3], dtype='int32', value=3)

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            index_1 = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=1)
            index_2 = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=2)
            index_5 = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=5)

            # call fn_1
            out_0 = paddle.static.nn.switch_case(
                branch_index=index_1, branch_fns={1: fn_1, 2: fn_2, 3: fn_3}
            )
            # call fn_2 : branch_fns={0: fn_1, 1:fn_2, 2:fn_3}
            out_1 = paddle.static.nn.switch_case(
                branch_index=index_1, branch_fns=(fn_1, fn_2, fn_3)
            )
            # call default fn_3
            out_2 = paddle.static.nn.switch_case(
                branch_index=index_5, branch_fns=((1, fn_1), (2, fn_2)), default=fn_3
            )
            # no default, call fn_2
            out_3 = paddle.static.nn.switch_case(
                branch_index=index_2, branch_fns=[(1, fn_1), (2, fn_2)]
            )
            # no default, call fn_2 but branch_index is 5
            out_4 = paddle.static.nn.switch_case(
                branch_index=index_5, branch_fns=[(1, fn_1), (3, fn_2), (2, fn_3)]
            )

            exe = base.Executor(base.CPUPlace())
            res = exe.run(main_program, fetch_list=[out_0, out_1, out_2, out_3, out_4])
            _check(self, res, [1, 2, 3, 2, 2])

    def test_0d_tensor(self):
        def fn_1():
            return paddle.full(shape=[], dtype='int32', fill_value=1)

        def fn_2():
            return paddle.full(shape=[], dtype='int32', fill_value=2)

        def fn_3():
            return paddle.full(shape=[], dtype='int32', fill_value=3)

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            index_1 = paddle.full(shape=[], dtype='int32', fill_value=1)
            index_2 = paddle.full(shape=[], dtype='int32', fill_value=2)
            index_5 = paddle.full(shape=[], dtype='int32', fill_value=5)

            out_0 = paddle.static.nn.switch_case(
                branch_index=index_1, branch_fns={1: fn_1, 2: fn_2, 3: fn_3}
            )
            out_1 = paddle.static.nn.switch_case(
                branch_index=index_1, branch_fns=(fn_1, fn_2, fn_3)
            )
            out_2 = paddle.static.nn.switch_case(
                branch_index=index_5, branch_fns=((1, fn_1), (2, fn_2)), default=fn_3
            )
            out_3 = paddle.static.nn.switch_case(
                branch_index=index_2, branch_fns=[(1, fn_1), (2, fn_2)]
            )
            out_4 = paddle.static.nn.switch_case(
                branch_index=index_5, branch_fns=[(1, fn_1), (3, fn_2), (2, fn_3)]
            )

            exe = base.Executor(base.CPUPlace())
            res = exe.run(main_program, fetch_list=[out_0, out_1, out_2, out_3, out_4])
            _check(self, res, [1, 2, 3, 2, 2], zero_d=True)

    def test_0d_tensor_backward(self):
        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            x = paddle.full(shape=[], dtype='float32', fill_value=-2.0)
            x.stop_gradient = False
            x.persistable = True
            pred = paddle.full(shape=[], dtype='int32', fill_value=2)
            # pred is 2, so out = 2 * x
            out = paddle.static.nn.switch_case(
                branch_index=pred,
                branch_fns=[(1, lambda: x), (2, lambda: 2 * x)],
                default=lambda: -x,
            )
            grad_list = append_backward(out)

        exe = base.Executor(base.CPUPlace())
        res = exe.run(main_program, fetch_list=[out, _grad(x, grad_list)])
        np.testing.assert_allclose(np.asarray(res[0]), np.array(-4.0), rtol=1e-05)
        self.assertEqual(res[0].shape, ())
        np.testing.assert_allclose(np.asarray(res[1]), np.array(2.0), rtol=1e-05)
        self.assertEqual(res[1].shape, ())

    def test_return_var_tuple(self):
        def fn_1():
            return paddle.tensor.fill_constant(
                shape=[1, 2], dtype='int32', value=1
            ), paddle.tensor.fill_constant(shape=[2, 3], dtype='float32', value=2)

        def fn_2():
            return paddle.tensor.fill_constant(
                shape=[3, 4], dtype='int32', value=3
            ), paddle.tensor.fill_constant(shape=[4, 5], dtype='float32', value=4)

        def fn_3():
            return paddle.tensor.fill_constant(
                shape=[5, 6], dtype='int32', value=5
            ), paddle.tensor.fill_constant(shape=[5, 6], dtype='float32', value=6)

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            index_1 = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=1)

            out = paddle.static.nn.switch_case(index_1, ((1, fn_1), (2, fn_2)), fn_3)

            exe = base.Executor(base.CPUPlace())
            ret = exe.run(main_program, fetch_list=out)

            np.testing.assert_allclose(
                np.asarray(ret[0]), np.full((1, 2), 1, np.int32), rtol=1e-05
            )
            np.testing.assert_allclose(
                np.asarray(ret[1]), np.full((2, 3), 2, np.float32), rtol=1e-05
            )


class TestAPISwitchCase_Nested(unittest.TestCase):
    def test_nested_switch_case(self):
        def fn_1(x=1):
            out = paddle.static.nn.switch_case(
                branch_index=paddle.tensor.fill_constant(shape=[1], dtype='int32', value=x),
                branch_fns={
                    1: partial(paddle.tensor.fill_constant, shape=[1, 2], dtype='int32', value=1),
                    x: partial(paddle.tensor.fill_constant, shape=[2, 3], dtype='int32', value=x),
                },
            )
            return out

        def fn_2(x=2):
            out = paddle.static.nn.switch_case(
                branch_index=paddle.tensor.fill_constant(shape=[1], dtype='int32', value=2),
                branch_fns={
                    1: partial(paddle.tensor.fill_constant, shape=[4, 3], dtype='int32', value=1),
                    2: partial(fn_1, x=x),
                },
            )
            return out

        def fn_3():
            out = paddle.static.nn.switch_case(
                branch_index=paddle.tensor.fill_constant(shape=[1], dtype='int32', value=3),
                branch_fns={
                    1: partial(paddle.tensor.fill_constant, shape=[4, 3], dtype='int32', value=1),
                    3: partial(fn_2, x=3),
                },
            )
            return out

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            index_1 = paddle.static.data(name="index_1", shape=[1], dtype='uint8')
            index_2 = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=2)
            index_3 = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=3)

            out_1 = paddle.static.nn.switch_case(
                branch_index=index_1, branch_fns={1: fn_1, 2: fn_2, 3: fn_3}
            )
            out_2 = paddle.static.nn.switch_case(
                branch_index=index_2, branch_fns={1: fn_1, 2: fn_2, 3: fn_3}
            )
            out_3 = paddle.static.nn.switch_case(
                branch_index=index_3, branch_fns={1: fn_1, 2: fn_2, 3: fn_3}
            )

            exe = base.Executor(base.CPUPlace())
            res = exe.run(
                main_program,
                feed={"index_1": np.array([1], dtype="uint8")},
                fetch_list=[out_1, out_2, out_3],
            )
            _check(self, res, [1, 2, 3])

    def test_nested_switch_0d_tensor(self):
        def fn_1(x=1):
            out = paddle.static.nn.switch_case(
                branch_index=paddle.full(shape=[], dtype='int32', fill_value=x),
                branch_fns={
                    1: partial(paddle.full, shape=[], dtype='int32', fill_value=1),
                    x: partial(paddle.full, shape=[], dtype='int32', fill_value=x),
                },
            )
            return out

        def fn_2(x=2):
            out = paddle.static.nn.switch_case(
                branch_index=paddle.full(shape=[], dtype='int32', fill_value=2),
                branch_fns={
                    1: partial(paddle.full, shape=[], dtype='int32', fill_value=1),
                    2: partial(fn_1, x=x),
                },
            )
            return out

        def fn_3():
            out = paddle.static.nn.switch_case(
                branch_index=paddle.full(shape=[], dtype='int32', fill_value=3),
                branch_fns={
                    1: partial(paddle.full, shape=[], dtype='int32', fill_value=1),
                    3: partial(fn_2, x=3),
                },
            )
            return out

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            index_1 = paddle.static.data(name="index_1", shape=[1], dtype='uint8')
            index_2 = paddle.full(shape=[], dtype='int32', fill_value=2)
            index_3 = paddle.full(shape=[], dtype='int64', fill_value=3)

            out_1 = paddle.static.nn.switch_case(
                branch_index=index_1, branch_fns={1: fn_1, 2: fn_2, 3: fn_3}
            )
            out_2 = paddle.static.nn.switch_case(
                branch_index=index_2, branch_fns={1: fn_1, 2: fn_2, 3: fn_3}
            )
            out_3 = paddle.static.nn.switch_case(
                branch_index=index_3, branch_fns={1: fn_1, 2: fn_2, 3: fn_3}
            )

            exe = base.Executor(base.CPUPlace())
            res = exe.run(
                main_program,
                feed={"index_1": np.array([1], dtype="uint8")},
                fetch_list=[out_1, out_2, out_3],
            )
            _check(self, res, [1, 2, 3], zero_d=True)


# test TypeError and ValueError of api switch_case
class TestAPISwitchCase_Error(unittest.TestCase):
    def test_error(self):
        def fn_1():
            return paddle.tensor.fill_constant(shape=[4, 2], dtype='int32', value=1)

        def fn_2():
            return paddle.tensor.fill_constant(shape=[4, 2], dtype='int32', value=2)

        def fn_3():
            return paddle.tensor.fill_constant(shape=[4, 3], dtype='int32', value=3)

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            key_float32 = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=0.23)
            key_int32 = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=0.23)

            # The type of 'branch_index' in Op(switch_case) must be Variable
            def type_error_branch_index():
                paddle.static.nn.switch_case(branch_index=1, branch_fns=[(1, fn_1)], default=fn_3)

            self.assertRaises(TypeError, type_error_branch_index)

            # The data type of 'branch_index' in Op(switch_case) must be int32, int64 or uint8
            def dtype_error_branch_index():
                paddle.static.nn.switch_case(
                    branch_index=key_float32, branch_fns=[(1, fn_1)], default=fn_3
                )

            self.assertRaises(TypeError, dtype_error_branch_index)

            # The type of 'branch_fns' in Op(switch_case) must be list, tuple or dict
            def type_error_branch_fns():
                paddle.static.nn.switch_case(branch_index=key_int32, branch_fns=1, default=fn_3)

            self.assertRaises(TypeError, type_error_branch_fns)

            # The elements' type of 'branch_fns' in Op(switch_case) must be tuple
            def type_error_index_fn_pair_1():
                paddle.static.nn.switch_case(branch_index=key_int32, branch_fns=[1], default=fn_3)

            self.assertRaises(TypeError, type_error_index_fn_pair_1)

            # The tuple's size of 'branch_fns' in Op(switch_case) must be 2
            def type_error_index_fn_pair_2():
                paddle.static.nn.switch_case(
                    branch_index=key_int32, branch_fns=[(1, 2, 3)], default=fn_3
                )

            self.assertRaises(TypeError, type_error_index_fn_pair_2)

            # The key's type of 'branch_fns' in Op(switch_case) must be int
            def type_error_key():
                paddle.static.nn.switch_case(
                    branch_index=key_int32, branch_fns=[(2.3, 2)], default=fn_3
                )

            self.assertRaises(TypeError, type_error_key)

            # The key in 'branch_fns' must be unique
            def value_error_key():
                paddle.static.nn.switch_case(
                    branch_index=key_int32, branch_fns=[(2, fn_1), (2, fn_2)], default=fn_3
                )

            self.assertRaises(ValueError, value_error_key)

            # The type of function in 'branch_fns' must be callable
            def type_error_fn():
                paddle.static.nn.switch_case(
                    branch_index=key_int32, branch_fns=[(1, 1), (2, fn_2)], default=fn_3
                )

            self.assertRaises(TypeError, type_error_fn)

            # The default in Op(case) must be callable
            def type_error_default():
                paddle.static.nn.switch_case(
                    branch_index=key_int32, branch_fns=[(1, fn_1), (2, fn_2)], default=1
                )

            self.assertRaises(TypeError, type_error_default)


if __name__ == '__main__':
    unittest.main()
