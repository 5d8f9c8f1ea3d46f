"""Port of Paddle test/legacy_test/test_layers.py, part 2: TestLayer cases on 2.x ops.

run-on-paddle: pir

The TestLayer cases whose ops Paddle 3.3.1 builds only on PIR programs (F.relu, paddle.matmul,
paddle.add / pow / divide / subtract / multiply, minimum / maximum, the compare ops, cond / case /
switch_case: test_relu, test_matmul, test_elementwise_math, test_elementwise_minmax,
test_compare, test_cond, test_case, test_switch_case); the rest of
the file, which needs legacy programs (paddle.static.nn layers, LoD feeds), is test_layers.py,
whose docstring says what was dropped. As there, the static program is kept and the dygraph
half's value is computed in numpy (each case says so); test_elementwise_minmax (dygraph-only in
Paddle) runs as a static program.
"""
import unittest

import numpy as np

import fluidc as paddle

from .test_layers import run_static, static_graph

paddle.enable_static()


class TestLayer(unittest.TestCase):
    def test_relu(self):
        # numpy in place of dygraph: relu(ones) = ones
        with static_graph():
            t = paddle.static.data(name='t', shape=[-1, 3, 3], dtype='float32')
            ret = paddle.nn.functional.relu(t)
            static_ret = run_static(feed={'t': np.ones([3, 3], dtype='float32')},
                                    fetch_list=[ret])[0]
        np.testing.assert_allclose(static_ret, np.ones([3, 3], 'float32'), rtol=1e-05)

    def test_matmul(self):
        # numpy in place of dygraph: np.matmul
        t_np = np.ones([3, 3], dtype='float32')
        with static_graph():
            t = paddle.static.data(name='t', shape=[-1, 3, 3], dtype='float32')
            t2 = paddle.static.data(name='t2', shape=[-1, 3, 3], dtype='float32')
            ret = paddle.matmul(t, t2)
            static_ret = run_static(feed={'t': t_np, 't2': t_np}, fetch_list=[ret])[0]
        np.testing.assert_allclose(static_ret, t_np @ t_np, rtol=1e-05)

    def test_elementwise_math(self):
        # numpy in place of dygraph: ((n + n2) ** n3 / n4 - n5) * n6
        n = np.ones([3, 3], dtype='float32')
        n2 = np.ones([3, 3], dtype='float32') * 1.1
        n3 = np.ones([3, 3], dtype='float32') * 2
        n4 = np.ones([3, 3], dtype='float32') * 3
        n5 = np.ones([3, 3], dtype='float32') * 4
        n6 = np.ones([3, 3], dtype='float32') * 5

        with static_graph():
            ts = [paddle.static.data(name=f't{i}', shape=[-1, 3, 3], dtype='float32')
                  for i in ('', 2, 3, 4, 5, 6)]
            t, t2, t3, t4, t5, t6 = ts
            ret = paddle.add(t, t2)
            ret = paddle.pow(ret, t3)
            ret = paddle.divide(ret, t4)
            ret = paddle.subtract(ret, t5)
            ret = paddle.multiply(ret, t6)
            static_ret = run_static(
                feed={'t': n, 't2': n2, 't3': n3, 't4': n4, 't5': n5, 't6': n6},
                fetch_list=[ret])[0]
        np.testing.assert_allclose(static_ret, ((n + n2) ** n3 / n4 - n5) * n6, rtol=1e-05)

    def test_elementwise_minmax(self):
        # dygraph-only in Paddle: run as a static program
        n = np.ones([3, 3], dtype='float32')
        n2 = np.ones([3, 3], dtype='float32') * 2
        with static_graph():
            a = paddle.static.data(name='a', shape=[3, 3], dtype='float32')
            b = paddle.static.data(name='b', shape=[3, 3], dtype='float32')
            min_ret, max_ret = run_static(feed={'a': n, 'b': n2},
                                          fetch_list=[paddle.minimum(a, b),
                                                      paddle.maximum(a, b)])
        np.testing.assert_allclose(n, min_ret, rtol=1e-05)
        np.testing.assert_allclose(n2, max_ret, rtol=1e-05)

    def test_compare(self):
        # numpy in place of dygraph: the numpy comparison
        value_a = np.arange(3)
        value_b = np.arange(3)
        cases = [(paddle.less_than, np.less), (paddle.less_equal, np.less_equal),
                 (paddle.greater_than, np.greater), (paddle.greater_equal, np.greater_equal),
                 (paddle.equal, np.equal), (paddle.equal, np.equal)]
        for k, (op, np_op) in enumerate(cases):
            with static_graph():
                a = paddle.static.data(name=f'a{k}', shape=[-1, 1], dtype='int64')
                b = paddle.static.data(name=f'b{k}', shape=[-1, 1], dtype='int64')
                cond = op(x=a, y=b)
                static_ret = run_static(feed={f'a{k}': value_a, f'b{k}': value_b},
                                        fetch_list=[cond])[0]
            dcond = np_op(value_a, value_b)
            for i in range(len(static_ret)):
                self.assertTrue(dcond[i] == static_ret[i])

    def test_cond(self):
        # numpy in place of dygraph: 0.1 < 0.23 takes the add branch
        def less_than_branch(a, b):
            return paddle.add(a, b)

        def greater_equal_branch(a, b):
            return paddle.subtract(a, b)

        with static_graph():
            a = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=0.1)
            b = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=0.23)
            out = paddle.static.nn.cond(a >= b, lambda: greater_equal_branch(a, b),
                                        lambda: less_than_branch(a, b))
            static_res = run_static(feed={}, fetch_list=[out])[0]
            # Paddle checks these in its dygraph half; static cond raises them too
            with self.assertRaises(TypeError):
                paddle.static.nn.cond(a < b, 'str', 'str')
            with self.assertRaises(TypeError):
                paddle.static.nn.cond(a >= b, 'str', 'str')
        np.testing.assert_array_equal(static_res, np.float32([0.1]) + np.float32([0.23]))

    def test_case(self):
        # numpy in place of dygraph: the first true pred's fn, else the default (else the last fn)
        def fn_1():
            return paddle.tensor.fill_constant(shape=[1, 2], dtype='int32', value=1)

        def fn_2():
            return paddle.tensor.fill_constant(shape=[2, 2], dtype='int32', value=2)

        def fn_3():
            return paddle.tensor.fill_constant(shape=[3, 2], dtype='int32', value=3)

        with static_graph():
            x = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=0.3)
            y = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=0.1)
            z = paddle.tensor.fill_constant(shape=[1], dtype='float32', value=0.2)

            pred_1 = paddle.less_than(z, x)  # true: 0.2 < 0.3
            pred_2 = paddle.less_than(x, y)  # false: 0.3 < 0.1
            pred_3 = paddle.equal(x, y)  # false: 0.3 == 0.1

            out_1 = paddle.static.nn.case(pred_fn_pairs=[(pred_1, fn_1), (pred_2, fn_2)],
                                          default=fn_3)
            out_2 = paddle.static.nn.case(pred_fn_pairs=[(pred_2, fn_2), (pred_3, fn_3)])
            static_res1, static_res2 = run_static(feed={}, fetch_list=[out_1, out_2])
        np.testing.assert_array_equal(static_res1, np.full([1, 2], 1, 'int32'))
        np.testing.assert_array_equal(static_res2, np.full([3, 2], 3, 'int32'))

    def test_switch_case(self):
        # numpy in place of dygraph: the index's fn, else the default (else the largest index's)
        def fn_1():
            return paddle.tensor.fill_constant(shape=[1, 2], dtype='int32', value=1)

        def fn_2():
            return paddle.tensor.fill_constant(shape=[2, 2], dtype='int32', value=2)

        def fn_3():
            return paddle.tensor.fill_constant(shape=[3, 2], dtype='int32', value=3)

        with static_graph():
            index_1 = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=1)
            index_2 = paddle.tensor.fill_constant(shape=[1], dtype='int32', value=2)

            out_1 = paddle.static.nn.switch_case(branch_index=index_1,
                                                 branch_fns={1: fn_1, 2: fn_2}, default=fn_3)
            out_2 = paddle.static.nn.switch_case(branch_index=index_2,
                                                 branch_fns=[(1, fn_1), (2, fn_2)], default=fn_3)
            out_3 = paddle.static.nn.switch_case(branch_index=index_2,
                                                 branch_fns=[(0, fn_1), (4, fn_2), (7, fn_3)])
            static_res1, static_res2, static_res3 = run_static(
                feed={}, fetch_list=[out_1, out_2, out_3])
        np.testing.assert_array_equal(static_res1, np.full([1, 2], 1, 'int32'))
        np.testing.assert_array_equal(static_res2, np.full([2, 2], 2, 'int32'))
        np.testing.assert_array_equal(static_res3, np.full([3, 2], 3, 'int32'))


if __name__ == '__main__':
    unittest.main()
