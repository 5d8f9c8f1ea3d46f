"""Port of Paddle test/legacy_test/test_while_loop_op.py: paddle.static.nn.while_loop.

run-on-paddle: pir

Kept: TestApiWhileLoop (var_tuple, var_list, var_dict), TestApiWhileLoop_Nested,
TestApiWhileLoop_Backward (2), TestApiWhileLoop_NestedWithBackwardAndLoDTensorArray,
TestApiWhileLoopWithSwitchCase, TestApiWhileLoop_Error (2), TestApiWhileLoopSliceInBody, with
Paddle's assertions.
Runs on Paddle with PIR on: Paddle 3.3.1's paddle.multiply and switch_case (used by two cases)
take only PIR values. As in Paddle's own PIR branches, `out` is fetched instead of `out.name`
and the gradient of x via `_grad(x, grad_list)` (x.grad_name on legacy programs and fluidc, the
pair from append_backward's list on PIR).
test_while_loop_backward expects i_grad 20 (commented in place): Paddle 2.x's legacy test said 110,
Paddle's current PIR test says 0; Paddle 3.3.1 gives 20, which is d(i_last * i_last)/d(i) with
i_last = 10.
Dropped: the @compare_legacy_with_pt / @test_with_pir_api decorators and paddle.pir_utils.IrGuard()
(Paddle test utilities choosing the program kind; the run_on_paddle marker does that here);
`_test_while_with_inplace` (disabled in Paddle); the CUDAPlace / core.is_compiled_with_cuda()
choice (CPU only).
Renamed: base.backward.append_backward -> paddle.static.append_backward.
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

F = paddle.nn.functional
base = fluid  # Paddle's `from paddle import base`
append_backward = paddle.static.append_backward


def _grad(var, grad_list):
    # PIR values have no grad_name: take the grad from append_backward's (var, grad) pairs
    # (Paddle's in_pir_mode() branch)
    if type(var).__name__ != 'Value':  # a legacy-program Variable
        return var.grad_name
    return next(g for p, g in grad_list if p.is_same(var))


paddle.enable_static()


class TestApiWhileLoop(unittest.TestCase):
    def test_var_tuple(self):
        def cond(i):
            return paddle.less_than(i, ten)

        def body(i):
            return paddle.add(x=i, y=one)

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            i = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=0)
            one = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=1)
            ten = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=10)
            out = paddle.static.nn.while_loop(cond, body, (i,))

        exe = base.Executor(base.CPUPlace())
        res = exe.run(main_program, fetch_list=out)
        np.testing.assert_allclose(np.asarray(res[0]), np.full(1, 10, np.int64), rtol=1e-05)

    def test_var_list(self):
        def cond(i, mem):
            return paddle.less_than(i, ten)

        def body(i, mem):
            mem = paddle.add(x=mem, y=one)
            i = paddle.increment(i)
            return [i, mem]

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            i = paddle.zeros(shape=[1], dtype='int64')
            ten = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=10)
            mem = paddle.static.data(name='mem', shape=[10], dtype='float32')
            one = paddle.tensor.fill_constant(shape=[10], dtype='float32', value=1)
            out = paddle.static.nn.while_loop(cond, body, [i, mem])

            data = np.random.rand(10).astype('float32')
            data_one = np.ones(10).astype('float32')

        exe = base.Executor(base.CPUPlace())
        res = exe.run(main_program, feed={'mem': data}, fetch_list=out)
        for i in range(10):
            data = np.add(data, data_one)
        np.testing.assert_allclose(np.asarray(res[1]), data, rtol=1e-05)

    def test_var_dict(self):
        def cond(i, ten, test_dict, test_list, test_list_dict):
            return paddle.less_than(i, ten)

        def body(i, ten, test_dict, test_list, test_list_dict):
            test_dict["test_key"] = i
            test_dict["test_key"] += 1

            test_list[0] = paddle.reshape(test_list[0], [2, -1]) + 1

            test_list_dict[0]["test_key"] += 1
            test_list_dict[0]["test_key"] = F.relu(test_list_dict[0]["test_key"])

            i = paddle.increment(i)
            return [i, ten, test_dict, test_list, test_list_dict]

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            i = paddle.zeros(shape=[1], dtype='int64')
            ten = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=10)
            test_data = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=0)

            test_dict = {"test_key": test_data}
            test_list = [paddle.tensor.fill_constant(shape=[2, 1], dtype='int64', value=0)]
            test_list_dict = [
                {"test_key": paddle.tensor.fill_constant(shape=[1], dtype='float32', value=0)}
            ]

            (i, ten, test_dict, test_list, test_list_dict) = paddle.static.nn.while_loop(
                cond, body, [i, ten, test_dict, test_list, test_list_dict]
            )
        exe = base.Executor(base.CPUPlace())
        res = exe.run(
            main_program,
            fetch_list=[test_dict["test_key"], test_list[0], test_list_dict[0]["test_key"]],
        )
        np.testing.assert_allclose(
            np.asarray(res[0]), np.full(shape=1, fill_value=10, dtype=np.int64), rtol=1e-05
        )
        np.testing.assert_allclose(
            np.asarray(res[1]), np.full(shape=(2, 1), fill_value=10, dtype=np.int64), rtol=1e-05
        )
        np.testing.assert_allclose(
            np.asarray(res[2]), np.full(shape=1, fill_value=10, dtype=np.float32), rtol=1e-05
        )


class TestApiWhileLoop_Nested(unittest.TestCase):
    def test_nested_net(self):
        def external_cond(i, j, init, sums):
            return paddle.less_than(i, loop_len1)

        def external_body(i, j, init, sums):
            def internal_cond(j, init, sums):
                return paddle.less_than(j, loop_len2)

            def internal_body(j, init, sums):
                init = paddle.add(x=init, y=ones)
                sums = paddle.add(x=init, y=sums)
                j = paddle.increment(j)
                return [j, init, sums]

            result = paddle.static.nn.while_loop(internal_cond, internal_body, [j, init, sums])
            j = result[0]
            init = result[1]
            sums = result[2]
            sums = paddle.add(x=init, y=sums)
            i = paddle.increment(i)
            return [i, j, init, sums]

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            i = paddle.zeros(shape=[1], dtype='int64')
            j = paddle.zeros(shape=[1], dtype='int64')
            init = paddle.static.data(name='init', shape=[3, 3], dtype='float32')
            sums = paddle.static.data(name='sums', shape=[3, 3], dtype='float32')
            loop_len1 = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=2)
            loop_len2 = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=3)
            ones = paddle.tensor.fill_constant(shape=[3, 3], dtype='float32', value=1)

            out = paddle.static.nn.while_loop(external_cond, external_body, [i, j, init, sums])

            data = np.random.rand(3, 3).astype('float32')
            data_sums = np.zeros([3, 3]).astype('float32')

        exe = base.Executor(base.CPUPlace())
        res = exe.run(main_program, feed={'init': data, 'sums': data_sums}, fetch_list=out)
        for i in range(3):
            data = np.add(data, 1)
            data_sums = np.add(data, data_sums)
        for j in range(2):
            data_sums = np.add(data, data_sums)
        np.testing.assert_allclose(np.asarray(res[3]), data_sums, rtol=1e-05)


class TestApiWhileLoop_Backward(unittest.TestCase):
    def test_while_loop_backward(self):
        def cond(i, x):
            return paddle.less_than(i, eleven)

        def body(i, x):
            x = paddle.multiply(x=i, y=i)
            i = paddle.increment(i)
            return [i, x]

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            i = paddle.static.data(name='i', shape=[1], dtype='float32')
            i.stop_gradient = False
            i.persistable = True
            eleven = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=11)
            one = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=1)
            x = paddle.static.data(name='x', shape=[1], dtype='float32')
            x.stop_gradient = False
            x.persistable = True

            out = paddle.static.nn.while_loop(cond, body, [i, x])
            mean = paddle.mean(out[1])
            grad_list = append_backward(mean)

        exe = base.Executor(base.CPUPlace())

        feed_i = np.ones(1).astype('float32')
        feed_x = np.ones(1).astype('float32')
        data = np.asarray([100]).astype('float32')
        # Paddle's current (PIR) test says 0 and its 2.x legacy test 110; Paddle 3.3.1 computes 20,
        # d(i_last * i_last)/d(i) with i_last = 10
        i_grad = np.asarray([20]).astype('float32')
        x_grad = np.asarray([0]).astype('float32')

        res = exe.run(
            main_program,
            feed={'i': feed_i, 'x': feed_x},
            fetch_list=[mean, _grad(i, grad_list), _grad(x, grad_list)],
        )
        np.testing.assert_allclose(np.asarray(res[0]), data, rtol=1e-05)
        np.testing.assert_allclose(np.asarray(res[1]), i_grad, rtol=1e-05)
        np.testing.assert_allclose(np.asarray(res[2]), x_grad, rtol=1e-05)

    def test_while_loop_backward2(self):
        def cond(i, x):
            return i < 3

        def body(i, x):
            x = x * i
            i = i + 1
            return [i, x]

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            i = paddle.static.data(name='i', shape=[1], dtype='float32')
            i.stop_gradient = False
            i.persistable = True
            x = paddle.static.data(name='x', shape=[1], dtype='float32')
            x.stop_gradient = False
            x.persistable = True

            out = paddle.static.nn.while_loop(cond, body, [i, x])
            mean = paddle.mean(out[1])
            grad_list = append_backward(mean)

        exe = base.Executor(base.CPUPlace())

        feed_i = np.ones(1).astype('float32')
        feed_x = np.ones(1).astype('float32')
        data = np.asarray([2]).astype('float32')
        i_grad = np.asarray([3]).astype('float32')
        x_grad = np.asarray([2]).astype('float32')

        res = exe.run(
            main_program,
            feed={'i': feed_i, 'x': feed_x},
            fetch_list=[out[1], _grad(i, grad_list), _grad(x, grad_list)],
        )

        np.testing.assert_allclose(np.asarray(res[0]), data, rtol=1e-05)
        np.testing.assert_allclose(np.asarray(res[1]), i_grad, rtol=1e-05)
        np.testing.assert_allclose(np.asarray(res[2]), x_grad, rtol=1e-05)


class TestApiWhileLoop_NestedWithBackwardAndLoDTensorArray(unittest.TestCase):
    def test_nested_net_with_backward_and_lodtensor(self):
        def external_cond(i, j, x, mem_array):
            return paddle.less_than(i, array_len)

        def external_body(i, j, x, mem_array):
            def internal_cond(j, x, mem_array):
                return paddle.less_than(j, array_len2)

            def internal_body(j, x, mem_array):
                inner_data = paddle.tensor.array_read(array=data_array, i=j)
                inner_prev = paddle.tensor.array_read(array=mem_array, i=j)
                inner_sum_0 = paddle.add(x=inner_data, y=inner_prev)
                inner_sum_1 = paddle.add(x=x, y=inner_sum_0)
                j = paddle.increment(x=j)
                paddle.tensor.array_write(inner_sum_1, i=j, array=mem_array)
                return [j, x, mem_array]

            outer_data = paddle.tensor.array_read(array=data_array, i=i)
            outer_prev = paddle.tensor.array_read(array=mem_array, i=i)
            outer_sum_0 = paddle.add(x=outer_data, y=outer_prev)
            outer_sum_1 = paddle.add(x=x, y=outer_sum_0)
            i = paddle.increment(x=i)
            paddle.tensor.array_write(outer_sum_1, i=i, array=mem_array)
            j, x, mem_array = paddle.static.nn.while_loop(
                internal_cond, internal_body, [j, x, mem_array]
            )
            return [i, j, x, mem_array]

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            d0 = paddle.static.data(name='d0', shape=[10], dtype='float32')
            d1 = paddle.static.data(name='d1', shape=[10], dtype='float32')
            d2 = paddle.static.data(name='d2', shape=[10], dtype='float32')
            x = paddle.static.data(name='x', shape=[10], dtype='float32')
            d0.persistable = True
            d0.stop_gradient = False
            d1.persistable = True
            d2.persistable = True
            x.stop_gradient = False
            x.persistable = True
            i = paddle.zeros(shape=[1], dtype='int64')
            i.stop_gradient = True
            i.persistable = True
            init = paddle.zeros(shape=[10], dtype='float32')
            init.stop_gradient = False
            mem_array = paddle.tensor.array_write(x=init, i=i)
            data_array = paddle.tensor.array_write(x=d0, i=i)
            mem_array.stop_gradient = False
            mem_array.persistable = True
            i = paddle.increment(i)
            paddle.tensor.array_write(d1, i, array=data_array)
            i = paddle.increment(i)
            paddle.tensor.array_write(d2, i, array=data_array)
            i = paddle.zeros(shape=[1], dtype='int64')
            i.stop_gradient = True
            array_len = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=1)
            j = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=1)
            j.stop_gradient = True
            array_len2 = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=3)

            out = paddle.static.nn.while_loop(external_cond, external_body, [i, j, x, mem_array])

            sum_result = paddle.tensor.array_read(array=out[3], i=j)
            mean = paddle.mean(sum_result)
            grad_list = append_backward(mean)
            exe = base.Executor(base.CPUPlace())

            d = []
            for i in range(3):
                d.append(np.random.random(size=[10]).astype('float32'))
            feed_x = np.ones(10).astype('float32')
            data_sum = d[0] + d[1] + d[2] + 3 * feed_x
            x_grad = [0.3] * 10
            res = exe.run(
                main_program,
                feed={'d0': d[0], 'd1': d[1], 'd2': d[2], 'x': feed_x},
                fetch_list=[sum_result, _grad(x, grad_list)],
            )
            np.testing.assert_allclose(res[0], data_sum, rtol=1e-05)
            np.testing.assert_allclose(res[1], x_grad, rtol=1e-05)


class TestApiWhileLoopWithSwitchCase(unittest.TestCase):
    def test_with_switch_case(self):
        def cond(i):
            return paddle.less_than(i, ten)

        def body(i):
            def fn_add_three():
                data_add_three = paddle.add(x=i, y=three)
                return data_add_three

            def fn_square():
                data_mul_data = paddle.multiply(x=i, y=i)
                return data_mul_data

            def fn_add_one():
                data_add_one = paddle.add(x=i, y=one)
                return data_add_one

            return paddle.static.nn.switch_case(
                branch_index=i,
                branch_fns={2: fn_add_three, 5: fn_square},
                default=fn_add_one,
            )

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            i = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=1)
            ten = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=10)
            three = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=3)
            one = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=1)
            out = paddle.static.nn.while_loop(cond, body, [i])

        exe = base.Executor(base.CPUPlace())
        res = exe.run(main_program, fetch_list=out)

        data = np.asarray([25]).astype('int64')
        np.testing.assert_allclose(np.asarray(res[0]), data, rtol=1e-05)


class TestApiWhileLoop_Error(unittest.TestCase):
    def test_error1(self):
        def cond_returns_constant(i):
            return 1

        def cond_returns_not_bool_tensor(i):
            return paddle.increment(i)

        def cond_returns_bool_tensor(i):
            return paddle.less_than(i, ten)

        def cond_returns_2d_tensor(i):
            return paddle.less_than(i, ten_2d)

        def cond_receives_two_args(i, ten):
            return paddle.less_than(i, ten)

        def body(i):
            return paddle.increment(i)

        def body_returns_error_length(i):
            i = paddle.increment(i)
            return [i, i]

        def body_returns_error_type(i, ten):
            return paddle.increment(i)

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            data = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=1)
            data_1d = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=1)
            data_2d = paddle.tensor.fill_constant(shape=[2, 2], dtype='int64', value=1)
            ten = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=10)
            ten_2d = paddle.tensor.fill_constant(shape=[2, 2], dtype='int64', value=10)

            # The type of `cond` in Op(while_loop) must be callable
            def type_error_cond():
                out = paddle.static.nn.while_loop(data, body, [data_1d])

            self.assertRaises(TypeError, type_error_cond)

            # The type of `body` in Op(while_loop) must be callable
            def type_error_body():
                out = paddle.static.nn.while_loop(cond_returns_bool_tensor, data, [data_1d])

            self.assertRaises(TypeError, type_error_body)

            # The type of `loop_vars` in Op(while_loop) must be list or tuple
            def type_error_loop_vars():
                out = paddle.static.nn.while_loop(cond_returns_bool_tensor, body, data_1d)

            self.assertRaises(TypeError, type_error_loop_vars)

            # The value of `loop_vars` is empty
            def value_error_loop_vars():
                out = paddle.static.nn.while_loop(cond_returns_bool_tensor, body, [])

            self.assertRaises(ValueError, value_error_loop_vars)

            # The type of `cond` returns in Op(while_loop) must be Variable
            def type_error_cond_returns_not_variable():
                out = paddle.static.nn.while_loop(cond_returns_constant, body, [data_1d])

            self.assertRaises(TypeError, type_error_cond_returns_not_variable)

            # The type of `cond` returns in Op(while_loop) must be a bollean variable
            def type_error_cond_returns_not_boolean():
                out = paddle.static.nn.while_loop(cond_returns_not_bool_tensor, body, [data_1d])

            self.assertRaises(TypeError, type_error_cond_returns_not_boolean)

            # The shape of `cond` returns in Op(while_loop) must be 1
            def type_error_shape_cond_returns_2d():
                out = paddle.static.nn.while_loop(cond_returns_2d_tensor, body, [data_2d])

            self.assertRaises(TypeError, type_error_shape_cond_returns_2d)

            # The length of `body` returns in Op(while_loop) must be same as `loop_vars`
            def value_error_body_returns_error_length():
                out = paddle.static.nn.while_loop(
                    cond_returns_bool_tensor, body_returns_error_length, [data]
                )

            self.assertRaises(ValueError, value_error_body_returns_error_length)

            # The type of `body` returns in Op(while_loop) must be same as `loop_vars`
            def value_error_body_returns_error_type():
                out = paddle.static.nn.while_loop(
                    cond_receives_two_args, body_returns_error_type, [data, ten]
                )

            self.assertRaises(ValueError, value_error_body_returns_error_type)

    def test_error2(self):
        def cond_returns_with_mutable_dict(i, test_dict):
            return i > 0

        def body_returns_with_mutable_dict(i, test_dict):
            test_dict['new_key'] = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=1)
            return paddle.increment(i), test_dict

        def cond_returns_with_mutable_list(i, test_list):
            return i > 0

        def body_returns_with_mutable_list(i, test_list):
            test_list.append(paddle.tensor.fill_constant(shape=[1], dtype='int64', value=1))
            return paddle.increment(i), test_list

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            data = paddle.tensor.fill_constant(shape=[1], dtype='int64', value=1)

            # The length of `output_vars` with mutable value should keep same with `loop_vars`
            def value_error_body_returns_with_mutable_dict():
                test_dict = {
                    "int_constant": paddle.tensor.fill_constant(
                        shape=[2, 2], dtype='int64', value=1
                    )
                }
                out = paddle.static.nn.while_loop(
                    cond_returns_with_mutable_dict,
                    body_returns_with_mutable_dict,
                    [data, test_dict],
                )

            self.assertRaises(ValueError, value_error_body_returns_with_mutable_dict)

            def value_error_body_returns_with_mutable_list():
                test_list = [
                    paddle.tensor.fill_constant(shape=[2, 2], dtype='int64', value=1)
                ]
                out = paddle.static.nn.while_loop(
                    cond_returns_with_mutable_list,
                    body_returns_with_mutable_list,
                    [data, test_list],
                )

            self.assertRaises(ValueError, value_error_body_returns_with_mutable_list)


class TestApiWhileLoopSliceInBody(unittest.TestCase):
    def test_var_slice(self):
        def cond(z, i):
            return i + 1 <= x_shape[0]

        def body(z, i):
            z = z + x[i]
            i += 1
            return z, i

        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()

        with paddle.static.program_guard(main_program, startup_program):
            x = paddle.static.data(name='x', shape=[-1, 5], dtype='int32')
            z = paddle.tensor.fill_constant([], 'int32', 0)
            x_shape = paddle.shape(x)
            i = paddle.tensor.fill_constant([], 'int32', 0)
            z, _ = paddle.static.nn.while_loop(cond, body, [z, i])

        exe = base.Executor(base.CPUPlace())

        np_x = np.array([1, 2, 3, 4, 5], dtype='int32')
        res = exe.run(main_program, feed={'x': np_x}, fetch_list=[z])
        np.testing.assert_array_equal(res[0], [np.sum(np_x)])


if __name__ == '__main__':
    unittest.main()
