"""Port of Paddle test/legacy_test/test_cond.py (static graph; written from its paddle.fluid-era
version, with the PIR-compatible changes of Paddle's current version).

run-on-paddle: pir

Paddle 3.3.1 builds cond only on PIR programs (on legacy ones its cond calls paddle.logical_not,
which then only takes PIR values), so this file runs on Paddle with PIR on. Following Paddle's
current version of the same file (which has a legacy and a PIR branch in each case), the smallest
changes that run there are made and commented: fetch `out` instead of `out.name`, the gradient
of x via `_grad(x, grad_list)` (x.grad_name on legacy programs and fluidc, the pair from
append_backward's list on PIR, as Paddle's PIR branch does; such x are made persistable, as
there), same-dtype branch outputs in test_return_var_tuple / test_input_with_dict, nn.BatchNorm
in batchnorm_fc_with_inputs, shapes compared as tuples, the single fetched loss unpacked in
backward_value_helper (numpy 2).

Kept: every static case of TestCondInputOutput, TestCondNestedControlFlow, TestCondBackward,
TestCondWithError and TestCondWithDict, with Paddle's assertions. simple_nets.py's
simple_fc_net_with_inputs / batchnorm_fc_with_inputs (used by TestCondBackward) are written out
below with the same layers.
Dropped: test_0d_tensor_dygraph (dygraph); the CUDAPlace / core.is_compiled_with_cuda() choice
(CPU only). Renamed: fluid.backward.append_backward -> paddle.static.append_backward,
fluid.framework.Program / program_guard -> paddle.static.Program / program_guard.
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

np.random.seed(123)

append_backward = paddle.static.append_backward


def _grad(var, grad_list):
    # PIR values have no grad_name: take the grad from append_backward's (var, grad) pairs
    if type(var).__name__ != 'Value':  # a legacy-program Variable
        return var.grad_name
    return next(g for p, g in grad_list if p.is_same(var))
Program = paddle.static.Program
program_guard = paddle.static.program_guard


def _const_bias():
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(value=1.0))


def simple_fc_net_with_inputs(img, label, class_num=10):
    hidden = img
    for _ in range(2):
        hidden = paddle.static.nn.fc(
            hidden, size=100, activation='relu', bias_attr=_const_bias()
        )
    prediction = paddle.static.nn.fc(hidden, size=class_num, activation='softmax')
    loss = paddle.nn.functional.cross_entropy(
        input=prediction, label=label, reduction='none', use_softmax=False
    )
    return paddle.mean(loss)


def batchnorm_fc_with_inputs(img, label, class_num=10):
    hidden = img
    for _ in range(2):
        hidden = paddle.static.nn.fc(
            hidden, size=200, activation='relu', bias_attr=_const_bias()
        )
        # Paddle 3.3.1's static.nn.batch_norm refuses PIR values; Paddle's PIR form of this net
        hidden = paddle.nn.BatchNorm(200)(hidden)
    prediction = paddle.static.nn.fc(hidden, size=class_num, activation='softmax')
    loss = paddle.nn.functional.cross_entropy(
        input=prediction, label=label, reduction='none', use_softmax=False
    )
    return paddle.mean(loss)


class TestCondInputOutput(unittest.TestCase):
    def test_return_single_var(self):
        paddle.enable_static()

        def true_func():
            return paddle.tensor.fill_constant(shape=[2, 3], dtype='int32', value=2)

        def false_func():
            return paddle.tensor.fill_constant(shape=[3, 2], dtype='int32', value=-1)

        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            x = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=0.1)
            y = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=0.23)
            pred = paddle.less_than(y, x)
            out = paddle.static.nn.cond(pred, true_func, false_func)

        exe = fluid.Executor(fluid.CPUPlace())
        (ret,) = exe.run(main_program, fetch_list=[out])  # PIR values have no .name
        np.testing.assert_allclose(np.asarray(ret), np.full((3, 2), -1, np.int32), rtol=1e-05)

    def test_return_0d_tensor(self):
        paddle.enable_static()

        def true_func():
            return paddle.full(shape=[], dtype='int32', fill_value=2)

        def false_func():
            return paddle.full(shape=[], dtype='int32', fill_value=-1)

        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            x = paddle.full(shape=[1], dtype='float32', fill_value=0.1)
            y = paddle.full(shape=[1], dtype='float32', fill_value=0.23)
            pred = paddle.greater_equal(y, x)
            out = paddle.static.nn.cond(pred, true_func, false_func)

        exe = fluid.Executor(fluid.CPUPlace())
        (ret,) = exe.run(main_program, fetch_list=[out])  # PIR values have no .name
        np.testing.assert_allclose(np.asarray(ret), np.array(2), rtol=1e-05)
        self.assertEqual(ret.shape, ())

    def test_0d_tensor_as_cond(self):
        paddle.enable_static()

        def true_func():
            return paddle.full(shape=[3, 3], dtype='int32', fill_value=2)

        def false_func():
            return paddle.full(shape=[3, 3], dtype='int32', fill_value=-1)

        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            x = paddle.full(shape=[], dtype='float32', fill_value=0.1)
            y = paddle.full(shape=[], dtype='float32', fill_value=0.23)
            pred = paddle.greater_equal(y, x)
            out = paddle.static.nn.cond(pred, true_func, false_func)

        exe = fluid.Executor(fluid.CPUPlace())
        (ret,) = exe.run(main_program, fetch_list=[out])  # PIR values have no .name
        np.testing.assert_allclose(np.asarray(ret), np.full((3, 3), 2, np.int32), rtol=1e-05)

    def test_0d_tensor_backward(self):
        paddle.enable_static()
        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            a = paddle.full(shape=[], dtype='float32', fill_value=-2.0)
            a.stop_gradient = False
            a.persistable = True  # so PIR's append_backward lists its grad
            out = paddle.static.nn.cond(a >= 0, lambda: a, lambda: -a)
            grad_list = append_backward(out)

        exe = fluid.Executor(fluid.CPUPlace())
        ret = exe.run(main_program, fetch_list=[out, _grad(a, grad_list)])
        np.testing.assert_allclose(np.asarray(ret[0]), np.array(2.0), rtol=1e-05)
        self.assertEqual(ret[0].shape, ())
        np.testing.assert_allclose(np.asarray(ret[1]), np.array(-1.0), rtol=1e-05)
        self.assertEqual(ret[1].shape, ())

    def test_return_var_tuple(self):
        paddle.enable_static()

        def true_func():
            return paddle.tensor.fill_constant(
                shape=[1, 2], dtype='int32', value=1
            ), paddle.tensor.fill_constant(shape=[2, 3], dtype='bool', value=True)

        # PIR's cond needs equal branch dtypes: int32 / bool as in Paddle's current version
        def false_func():
            return paddle.tensor.fill_constant(
                shape=[3, 4], dtype='int32', value=3
            ), paddle.tensor.fill_constant(shape=[4, 5], dtype='bool', value=False)

        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            pred = paddle.tensor.fill_constant(shape=[1], dtype='bool', value=True)
            out = paddle.static.nn.cond(pred, true_func, false_func)

        exe = fluid.Executor(fluid.CPUPlace())
        ret = exe.run(main_program, fetch_list=out)
        np.testing.assert_allclose(np.asarray(ret[0]), np.full((1, 2), 1, np.int32), rtol=1e-05)
        np.testing.assert_allclose(np.asarray(ret[1]), np.full((2, 3), True, bool), rtol=1e-05)

    def test_pass_and_modify_var(self):
        paddle.enable_static()

        def true_func(a, i):
            a = a * (i + 1)
            return a

        def false_func(a, i):
            a = a - (i - 1)
            return a

        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            a = paddle.tensor.fill_constant(shape=[3, 2, 1], dtype='int32', value=7)
            i = paddle.static.data(name="i", shape=[1], dtype='int32')
            pred = (i % 2) == 0
            a = paddle.static.nn.cond(pred, lambda: true_func(a, i), lambda: false_func(a, i))
        exe = fluid.Executor(fluid.CPUPlace())
        for feed_i in range(5):
            expected_a = 7 * (feed_i + 1) if feed_i % 2 == 0 else 8 - feed_i
            (ret,) = exe.run(
                main_program, feed={'i': np.full((1), feed_i, np.int32)}, fetch_list=[a]
            )
            np.testing.assert_allclose(
                np.asarray(ret), np.full((3, 2, 1), expected_a, np.int32), rtol=1e-05
            )

    def test_return_none(self):
        paddle.enable_static()

        def true_func():
            pass

        def false_func():
            return None

        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            i = paddle.static.data(name="i", shape=[1], dtype='int32')
            pred = (i % 2) == 0
            out1 = paddle.static.nn.cond(pred, true_func, false_func)
            out2 = paddle.static.nn.cond(pred, None, false_func)
            out3 = paddle.static.nn.cond(pred, true_func, None)
        exe = fluid.Executor(fluid.CPUPlace())
        for feed_i in range(5):
            # Test that output is None is runnable
            exe.run(main_program, feed={'i': np.full((1), feed_i, np.int32)})
            self.assertIsNone(out1)
            self.assertIsNone(out2)
            self.assertIsNone(out3)

    def test_wrong_structure_exception(self):
        paddle.enable_static()

        def func_return_none():
            return None

        def func_return_one_tensor():
            return paddle.tensor.fill_constant(shape=[2, 7], dtype='int32', value=3)

        def func_return_two_tensors():
            return paddle.tensor.fill_constant(
                shape=[3, 1], dtype='int32', value=7
            ), paddle.tensor.fill_constant(shape=[3, 1], dtype='int32', value=8)

        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            i = paddle.static.data(name="i", shape=[1], dtype='int32')
            pred = (i % 2) == 0
            with self.assertRaises(TypeError):
                out = paddle.static.nn.cond(pred, i, func_return_one_tensor)

            with self.assertRaises(TypeError):
                out = paddle.static.nn.cond(pred, func_return_one_tensor, np.asarray([3]))

            with self.assertRaises(Exception) as e:
                out = paddle.static.nn.cond(pred, func_return_none, func_return_one_tensor)
            self.assertTrue(
                "Incompatible return values of true_fn and false_fn in cond" in str(e.exception)
            )

            with self.assertRaises(Exception) as e:
                out = paddle.static.nn.cond(pred, func_return_two_tensors, func_return_none)
            self.assertTrue(
                "Incompatible return values of true_fn and false_fn in cond" in str(e.exception)
            )

            with self.assertRaises(Exception) as e:
                out = paddle.static.nn.cond(
                    pred, func_return_one_tensor, func_return_two_tensors
                )
            self.assertTrue(
                "true fn returns 1 vars, but false fn returns 2 vars, which is not equals"
                in str(e.exception)
            )

    def test_extremely_simple_net_with_op_in_condition(self):
        paddle.enable_static()
        main_program = fluid.Program()
        startup_program = fluid.Program()
        with fluid.program_guard(main_program, startup_program):
            a = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=1.23)
            a.stop_gradient = False
            a.persistable = True  # so PIR's append_backward lists its grad
            b = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=1.25)
            b.stop_gradient = False
            b.persistable = True
            out = paddle.static.nn.cond(a - b < -1.0, lambda: a, lambda: b)
            # inside program_guard: PIR's append_backward needs the program
            grad_list = append_backward(out)

        exe = fluid.Executor(fluid.CPUPlace())
        ret = exe.run(main_program, fetch_list=[out, b, _grad(a, grad_list), _grad(b, grad_list)]
        )
        # Note: fill_constant has loss of precision, you have to assertEqual
        # with values doens't lose precision in float-point number.
        self.assertEqual(ret[0][0], ret[1][0])
        self.assertEqual(ret[2][0], 0.0)
        self.assertEqual(ret[3][0], 1.0)


class TestCondNestedControlFlow(unittest.TestCase):
    def test_cond_inside_cond(self):
        paddle.enable_static()

        def less_than_branch(i, a):
            return paddle.static.nn.cond(
                i >= 3.0, lambda: paddle.add(a, a), lambda: paddle.subtract(a, a)
            )

        def greater_equal_branch(i, a):
            return paddle.static.nn.cond(
                i < 8.0, lambda: paddle.multiply(a, a), lambda: paddle.divide(a, a)
            )

        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            i = paddle.static.data(name="i", shape=[1], dtype='float32')
            i.stop_gradient = False
            a = 2.0 * i
            a.persistable = True  # so PIR's append_backward lists its grad
            out = paddle.static.nn.cond(
                i < 5.0,
                lambda: less_than_branch(i, a),
                lambda: greater_equal_branch(i, a),
            )
            mean = paddle.mean(out)
            grad_list = append_backward(mean)

        exe = fluid.Executor(fluid.CPUPlace())
        for feed_i in range(0, 10):
            expected_a = 2.0 * feed_i
            if feed_i < 5:
                expected_ret = expected_a + expected_a if feed_i >= 3 else 0.0
                expected_a_grad = 2.0 if feed_i >= 3 else 0.0
            else:
                expected_ret = expected_a * expected_a if feed_i < 8 else 1.0
                expected_a_grad = 2.0 * expected_a if feed_i < 8 else 0.0
            ret = exe.run(
                main_program,
                feed={'i': np.full((1), feed_i, np.float32)},
                fetch_list=[out, _grad(a, grad_list)],
            )
            self.assertEqual(ret[0][0], expected_ret)
            self.assertEqual(ret[1][0], expected_a_grad)

    def test_cond_inside_cond_0d_tensor(self):
        paddle.enable_static()

        def less_than_branch(i, a):
            return paddle.static.nn.cond(i >= 3.0, lambda: a + 1, lambda: 1 - a)

        def greater_equal_branch(i, a):
            return paddle.static.nn.cond(i < 8.0, lambda: a * 2, lambda: a / 2)

        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            i = paddle.full(fill_value=3.0, shape=[], dtype='float32')
            i.stop_gradient = False
            i.persistable = True  # so PIR's append_backward lists its grad
            a = 2.0 * i
            out = paddle.static.nn.cond(
                i < 5.0,
                lambda: less_than_branch(i, a),
                lambda: greater_equal_branch(i, a),
            )
            mean = paddle.mean(out)
            grad_list = append_backward(out)

        exe = fluid.Executor(fluid.CPUPlace())
        ret = exe.run(main_program, fetch_list=[out, _grad(i, grad_list)])
        np.testing.assert_allclose(np.asarray(ret[0]), np.array(7.0), rtol=1e-05)
        self.assertEqual(ret[0].shape, ())
        np.testing.assert_allclose(np.asarray(ret[1]), np.array(2.0), rtol=1e-05)
        self.assertEqual(ret[1].shape, ())

    def test_cond_op_in_condition(self):
        paddle.enable_static()
        main_program = fluid.Program()
        startup_program = fluid.Program()

        with fluid.program_guard(main_program, startup_program):
            a = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=1.23)
            a.stop_gradient = False
            a.persistable = True  # so PIR's append_backward lists its grad
            b = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=1.24)
            b.stop_gradient = False
            b.persistable = True
            out = paddle.static.nn.cond(
                a < b,
                lambda: paddle.static.nn.cond(
                    a - b < -1.0,
                    lambda: paddle.add(a, b),
                    lambda: paddle.multiply(a, b),
                ),
                lambda: paddle.static.nn.cond(
                    a == b,
                    lambda: paddle.subtract(a, b),
                    lambda: paddle.pow(a, b),
                ),
            )
            grad_list = append_backward(out)

        exe = fluid.Executor(fluid.CPUPlace())
        ret = exe.run(
            main_program, fetch_list=[out, _grad(a, grad_list), _grad(b, grad_list)]
        )
        # Note: fill_constant has loss of precision, so we assertAlmostEqual.
        self.assertAlmostEqual(ret[0][0], 1.5252)
        self.assertAlmostEqual(ret[1][0], 1.24)
        self.assertAlmostEqual(ret[2][0], 1.23)


class TestCondBackward(unittest.TestCase):
    def backward_value_helper(self, cond_func, use_cuda):
        """
        Helper function that compares calculated backward value is close to dy/dx
        """
        paddle.enable_static()
        main_program = Program()
        main_program.random_seed = 123
        startup_program = Program()
        startup_program.random_seed = 123
        with program_guard(main_program, startup_program):
            img = paddle.static.data(name='image', shape=[-1, 9], dtype='float32')
            img.stop_gradient = False
            img.persistable = True  # so PIR's append_backward lists its grad
            label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')
            i = paddle.static.data(name="i", shape=[1], dtype='int32')
            loss = cond_func(i, img, label)
            grad_list = append_backward(loss)
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup_program)

        num_devices = 1

        delta = 0.005
        for feed_i in range(0, 10):
            feed_img = np.random.random(size=[1, 9]).astype(np.float32)
            feed_label = np.random.randint(low=0, high=10, size=[1, 1], dtype=np.int64)

            img_grad, loss_value = exe.run(
                main_program,
                feed={
                    'i': np.full((1), feed_i, np.int32),
                    'image': feed_img,
                    'label': feed_label,
                },
                fetch_list=[_grad(img, grad_list), loss],
            )

            numerical_grad = np.zeros(shape=[num_devices, 9], dtype=np.float32)
            feed_img_delta = np.copy(feed_img)
            for j in range(9):
                feed_img_delta[0][j] = feed_img[0][j] + delta
                # unpacked (as Paddle's current PIR branch does): numpy 2 refuses to store the
                # (1,)-shaped difference of a one-item list into numerical_grad[0][j]
                (loss_delta,) = exe.run(
                    main_program,
                    feed={
                        'i': np.full((1), feed_i, np.int32),
                        'image': feed_img_delta,
                        'label': feed_label,
                    },
                    fetch_list=[loss],
                )
                numerical_grad[0][j] = (loss_delta - loss_value) / delta
                feed_img_delta[0][j] = feed_img[0][j]
            np.testing.assert_allclose(img_grad, numerical_grad, rtol=0.05, atol=0.05)

    def add_optimizer_helper(self, cond_func, use_cuda):
        """
        Test that program is runnable when add optimizer
        """
        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            img = paddle.static.data(name='image', shape=[-1, 784], dtype='float32')
            label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')
            i = paddle.static.data(name="i", shape=[1], dtype='int32')
            loss = cond_func(i, img, label)
            # fluid.optimizer.SGD is gone from Paddle 3.x: its 2.x name
            optimizer = paddle.optimizer.SGD(learning_rate=0.1)
            optimizer.minimize(loss)

        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup_program)

        for feed_i in range(0, 10):
            feed_img = np.random.random(size=[16, 784]).astype(np.float32)
            feed_label = np.random.randint(low=0, high=10, size=[16, 1], dtype=np.int64)
            exe.run(
                main_program,
                feed={
                    'i': np.full((1), feed_i, np.int32),
                    'image': feed_img,
                    'label': feed_label,
                },
                fetch_list=[loss],
            )

    def test_cond_backward(self):
        paddle.enable_static()

        def cond_func(i, img, label):
            predicate = (i % 2) == 0
            return paddle.static.nn.cond(
                predicate,
                lambda: simple_fc_net_with_inputs(img, label, class_num=10),
                lambda: batchnorm_fc_with_inputs(img, label, class_num=10),
            )

        self.backward_value_helper(cond_func, False)
        self.add_optimizer_helper(cond_func, False)

    def test_half_nested_cond_backward(self):
        paddle.enable_static()

        def branch(i, img, label):
            return paddle.static.nn.cond(
                (i % 2) == 0,
                lambda: simple_fc_net_with_inputs(img, label, class_num=10),
                lambda: batchnorm_fc_with_inputs(img, label, class_num=10),
            )

        def cond_func_simple_net_at_true(i, img, label):
            return paddle.static.nn.cond(
                i < 5, lambda: branch(i, img, label), lambda: paddle.mean(img)
            )

        def cond_func_simple_net_at_false(i, img, label):
            return paddle.static.nn.cond(
                i < 5, lambda: paddle.mean(img), lambda: branch(i, img, label)
            )

        self.backward_value_helper(cond_func_simple_net_at_true, False)
        self.add_optimizer_helper(cond_func_simple_net_at_true, False)
        self.backward_value_helper(cond_func_simple_net_at_false, False)
        self.add_optimizer_helper(cond_func_simple_net_at_false, False)

    def test_nested_cond_backward(self):
        paddle.enable_static()

        def branch(i, img, label, mod_two):
            if mod_two:
                predicate = (i % 2) == 0
            else:
                predicate = (i % 2) != 0
            return paddle.static.nn.cond(
                predicate,
                lambda: simple_fc_net_with_inputs(img, label, class_num=10),
                lambda: batchnorm_fc_with_inputs(img, label, class_num=10),
            )

        def cond_func(i, img, label):
            return paddle.static.nn.cond(
                i < 5,
                lambda: branch(i, img, label, True),
                lambda: branch(i, img, label, False),
            )

        self.backward_value_helper(cond_func, False)
        self.add_optimizer_helper(cond_func, False)


class TestCondWithError(unittest.TestCase):
    def test_input_type_error(self):
        paddle.enable_static()
        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):
            pred = paddle.static.data(name='y', shape=[1], dtype='bool')

            def func():
                return pred

            with self.assertRaises(TypeError):
                paddle.static.nn.cond(None, func, func)

            with self.assertRaises(TypeError):
                paddle.static.nn.cond(pred, func, set())

            with self.assertRaises(TypeError):
                paddle.static.nn.cond(pred, set(), func)

            with self.assertRaises(TypeError):
                paddle.static.nn.cond(pred, func, func, set())


class TestCondWithDict(unittest.TestCase):
    def test_input_with_dict(self):
        paddle.enable_static()
        main_program = Program()
        startup_program = Program()
        with program_guard(main_program, startup_program):

            def true_func():
                return {
                    '1': paddle.full(shape=[3, 2], dtype='int32', fill_value=1),
                    '2': paddle.full(shape=[2, 3], dtype='bool', fill_value=True),
                }

            def false_func():
                return {
                    # PIR's cond needs equal branch dtypes: int32 / bool as in Paddle's current version
                    '1': paddle.full(shape=[3, 4], dtype='int32', fill_value=3),
                    '2': paddle.full(shape=[4, 5], dtype='bool', fill_value=2),
                }

            x = paddle.full(shape=[1], dtype='float32', fill_value=0.1)
            y = paddle.full(shape=[1], dtype='float32', fill_value=0.23)
            pred = paddle.less_than(x=x, y=y, name=None)
            ret = paddle.static.nn.cond(pred, true_func, false_func)
            self.assertEqual(
                tuple(ret['1'].shape),  # a list on PIR
                (3, -1),
                f"The shape is not correct, expects (3, -1) but gets {ret['1'].shape}.",
            )
            self.assertEqual(
                tuple(ret['2'].shape),
                (-1, -1),
                f"The shape is not correct, expects (-1, -1) but gets {ret['2'].shape}.",
            )


if __name__ == '__main__':
    unittest.main()
