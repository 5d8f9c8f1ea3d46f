"""Port of Paddle test/legacy_test/test_nll_loss.py: nn.NLLLoss and F.nll_loss against the
file's numpy nll_loss_1d / nll_loss_2d.

Kept: every TestNLLLoss case (1-D [10, 10], 2-D [5, 3, 5, 5] and 5-D [5, 3, 5, 5, 5] inputs;
reductions mean / sum / none; with class weights fed as data or made by to_tensor; Paddle's
seeds), each asserting the dygraph result, the static result and their agreement as Paddle's;
the eager backward of test_NLLLoss_1D_sum / _with_weight_mean; the forward (Out) of the four
OpTest classes through their python_api F.nll_loss; TestNLLLossName; TestNLLLossInvalidArgs
(ValueErrors: input of rank 1, no classes, rank-1 input with a [5, 1] label, reduction '', static
and dygraph, layer and functional).
Each of Paddle's near-identical TestNLLLoss bodies (dygraph run, then a static program inside
@test_with_pir_api) is one call of `check` with that body's arguments.
Dropped: check_grad of the OpTest classes, their Total_weight output (OpTest reads the op's
second output; F.nll_loss returns Out only) and test_check_output_with_weight (it sets
with_weight after setUp ran, so it checks the unweighted case again), CUDA places.
paddle.base.dygraph.guard() is written fluid.dygraph.guard() (fluid is Paddle 3.x's base).
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid


def nll_loss_1d(
    logs, targets, weight=None, reduction='mean', ignore_index=-100
):
    input_shape = logs.shape
    N = input_shape[0]
    C = input_shape[1]
    out = np.zeros_like(targets).astype(np.float64)
    total_weight = 0
    for i in range(N):
        cur_target = targets[i]
        if cur_target == ignore_index:
            out[i] = 0
            continue
        cur_weight = weight[cur_target] if weight is not None else 1
        total_weight += cur_weight
        out[i] = -logs[i][cur_target] * cur_weight
    if reduction == 'sum':
        return np.sum(out), np.array(total_weight).astype('float64')
    elif reduction == 'mean':
        return out.sum() / total_weight, np.array(total_weight).astype(
            'float64'
        )
    elif reduction == 'none':
        return out


def nll_loss_2d(
    logs, targets, weight=None, reduction='mean', ignore_index=-100
):
    input_shape = logs.shape
    N = input_shape[0]
    H = input_shape[2]
    W = input_shape[3]
    out = np.zeros_like(targets).astype(np.float64)
    total_weight = 0
    for i in range(N):
        for h in range(H):
            for w in range(W):
                cur_target = targets[i][h][w]
                if cur_target == ignore_index:
                    out[i][h][w] = 0
                    continue
                cur_weight = weight[cur_target] if weight is not None else 1
                total_weight += cur_weight
                out[i][h][w] = -logs[i][cur_target][h][w] * cur_weight
    if reduction == 'sum':
        return np.sum(out), np.array(total_weight).astype('float64')
    elif reduction == 'mean':
        return out.sum() / total_weight, np.array(total_weight).astype(
            'float64'
        )
    elif reduction == 'none':
        return out


def make_data(input_size, label_size, classes, with_weight):
    # Paddle's seeds: input, then label (and weight) after re-seeding with 200
    np.random.seed(200)
    input_np = np.random.random(size=input_size).astype(np.float64)
    np.random.seed(200)
    label_np = np.random.randint(0, classes, size=label_size).astype(np.int64)
    weight_np = (
        np.random.random(size=(classes,)).astype(np.float64) if with_weight else None
    )
    return input_np, label_np, weight_np


def expected_loss(input_np, label_np, weight_np, reduction):
    if input_np.ndim == 2:
        got = nll_loss_1d(input_np, label_np, weight=weight_np, reduction=reduction)
        return got if reduction == 'none' else got[0]
    if input_np.ndim == 4:
        got = nll_loss_2d(input_np, label_np, weight=weight_np, reduction=reduction)
        return got if reduction == 'none' else got[0]
    # test_NLLLoss_in_dims_not_2or4_*: the spatial dims flattened into one
    input_shape, label_shape = input_np.shape, label_np.shape
    input_np_reshape = np.reshape(input_np, (input_shape[0], input_shape[1], 1, -1))
    label_np_reshape = np.reshape(label_np, (label_shape[0], 1, -1))
    got = nll_loss_2d(input_np_reshape, label_np_reshape, weight=weight_np,
                      reduction=reduction)
    if reduction == 'none':
        return np.reshape(got, (input_shape[0],) + input_shape[2:])
    return got[0]


def check(input_size, label_size, classes, reduction='mean', with_weight=False,
          eager_backward=False):
    input_np, label_np, weight_np = make_data(input_size, label_size, classes, with_weight)
    expected = expected_loss(input_np, label_np, weight_np, reduction)
    place = fluid.CPUPlace()

    with fluid.dygraph.guard():
        weight = paddle.to_tensor(weight_np) if with_weight else None
        nll_loss = paddle.nn.loss.NLLLoss(weight=weight, reduction=reduction)
        dy_res = nll_loss(paddle.to_tensor(input_np), paddle.to_tensor(label_np))
        dy_result = dy_res.numpy()
        if eager_backward:
            in_t = paddle.to_tensor(input_np)
            in_t.stop_gradient = False
            eager_res = nll_loss(in_t, paddle.to_tensor(label_np))
            eager_result = eager_res.numpy()
            loss = eager_res.sum()
            loss.backward()
            np.testing.assert_allclose(eager_result, expected, rtol=1e-05)
    np.testing.assert_allclose(dy_result, expected, rtol=1e-05)

    prog = paddle.static.Program()
    startup_prog = paddle.static.Program()
    with paddle.static.program_guard(prog, startup_prog):
        input = paddle.static.data(name='input', shape=list(input_size), dtype='float64')
        label = paddle.static.data(name='label', shape=list(label_size), dtype='int64')
        feed = {"input": input_np, "label": label_np}
        weight = None
        if with_weight:
            weight = paddle.static.data(name='weight', shape=[classes], dtype='float64')
            feed["weight"] = weight_np
        nll_loss = paddle.nn.loss.NLLLoss(weight=weight, reduction=reduction)
        res = nll_loss(input, label)

        exe = paddle.static.Executor(place)
        (static_result,) = exe.run(prog, feed=feed, fetch_list=[res])
    np.testing.assert_allclose(static_result, expected, rtol=1e-05)
    np.testing.assert_allclose(static_result, dy_result, rtol=1e-05)


ONE_D = dict(input_size=(10, 10), label_size=(10,), classes=10)
TWO_D = dict(input_size=(5, 3, 5, 5), label_size=(5, 5, 5), classes=3)
FIVE_D = dict(input_size=(5, 3, 5, 5, 5), label_size=(5, 5, 5, 5), classes=3)


class TestNLLLoss(unittest.TestCase):
    def test_NLLLoss_1D_mean(self):
        check(**ONE_D)

    def test_NLLLoss_1D_sum(self):
        check(**ONE_D, reduction='sum', eager_backward=True)

    def test_NLLLoss_1D_with_weight_mean(self):
        check(**ONE_D, with_weight=True, eager_backward=True)

    def test_NLLLoss_1D_with_weight_sum(self):
        check(**ONE_D, reduction='sum', with_weight=True)

    def test_NLLLoss_1D_with_weight_mean_cpu(self):
        check(**ONE_D, with_weight=True)

    def test_NLLLoss_1D_with_weight_no_reduce_cpu(self):
        check(**ONE_D, reduction='none', with_weight=True)

    def test_NLLLoss_2D_mean(self):
        check(**TWO_D)

    def test_NLLLoss_2D_sum(self):
        check(**TWO_D, reduction='sum')

    def test_NLLLoss_2D_with_weight_mean(self):
        check(**TWO_D, with_weight=True)

    def test_NLLLoss_2D_with_weight_mean_cpu(self):
        check(**TWO_D, with_weight=True)

    def test_NLLLoss_2D_with_weight_sum(self):
        check(**TWO_D, reduction='sum', with_weight=True)

    def test_NLLLoss_in_dims_not_2or4_mean(self):
        check(**FIVE_D)

    def test_NLLLoss_in_dims_not_2or4_with_weight_mean(self):
        check(**FIVE_D, with_weight=True)

    def test_NLLLoss_in_dims_not_2or4_with_weight_sum(self):
        check(**FIVE_D, reduction='sum', with_weight=True)

    def test_NLLLoss_in_dims_not_2or4_with_weight_no_reduce(self):
        check(**FIVE_D, reduction='none', with_weight=True)

    def test_NLLLoss_in_dims_not_2or4_with_weight_no_reduce_cpu(self):
        check(**FIVE_D, reduction='none', with_weight=True)


class TestNLLLossOp1DWithReduce(unittest.TestCase):
    reduction = 'mean'

    def setUp(self):
        self.init_test_case()
        self.op_type = "nll_loss"
        self.python_api = paddle.nn.functional.nll_loss
        np.random.seed(200)
        input_np = np.random.uniform(0.1, 0.8, self.input_shape).astype(
            "float64"
        )
        np.random.seed(200)
        label_np = np.random.randint(
            0, self.input_shape[1], self.label_shape
        ).astype("int64")
        ref = nll_loss_1d if len(self.input_shape) == 2 else nll_loss_2d
        output_np = ref(input_np, label_np, reduction=self.reduction)
        if self.reduction != 'none':
            output_np = output_np[0]
        self.inputs = {'X': input_np, 'Label': label_np}
        self.outputs = {'Out': output_np}
        self.attrs = {'reduction': self.reduction, 'ignore_index': -100}

    def test_check_output(self):
        # OpTest's check_output: the op through its python_api in a static program
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.input_shape), 'float64')
            label = paddle.static.data('label', list(self.label_shape), 'int64')
            out = self.python_api(x, label, ignore_index=self.attrs['ignore_index'],
                                  reduction=self.attrs['reduction'])
            (got,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'x': self.inputs['X'], 'label': self.inputs['Label']},
                fetch_list=[out])
        np.testing.assert_allclose(got, self.outputs['Out'], rtol=1e-7, atol=1e-9)

    def init_test_case(self):
        self.input_shape = [10, 10]
        self.label_shape = [10]


class TestNLLLossOp1DNoReduce(TestNLLLossOp1DWithReduce):
    reduction = 'none'


class TestNLLLossOp2DWithReduce(TestNLLLossOp1DWithReduce):
    def init_test_case(self):
        self.input_shape = [2, 3, 5, 5]
        self.label_shape = [2, 5, 5]


class TestNLLLossOp2DNoReduce(TestNLLLossOp1DWithReduce):
    reduction = 'none'

    def init_test_case(self):
        self.input_shape = [5, 3, 5, 5]
        self.label_shape = [5, 5, 5]


class TestNLLLossName(unittest.TestCase):
    def test_name(self):
        place = paddle.CPUPlace()
        prog = paddle.static.Program()
        startup_prog = paddle.static.Program()
        with paddle.static.program_guard(prog, startup_prog):
            x = paddle.static.data(name='x', shape=[10, 10], dtype='float64')
            label = paddle.static.data(name='label', shape=[10], dtype='int64')
            nll_loss = paddle.nn.loss.NLLLoss(name='nll_loss')
            res = nll_loss(x, label)
            self.assertTrue(res.name.startswith('nll_loss'))


class TestNLLLossInvalidArgs(unittest.TestCase):
    def test_x_dim_value_error(self):
        def test_x_dim_lt_2():
            prog = paddle.static.Program()
            startup_prog = paddle.static.Program()
            with paddle.static.program_guard(prog, startup_prog):
                x = paddle.static.data(
                    name='x',
                    shape=[
                        10,
                    ],
                    dtype='float64',
                )
                label = paddle.static.data(
                    name='label',
                    shape=[
                        10,
                    ],
                    dtype='float64',
                )
                nll_loss = paddle.nn.loss.NLLLoss()
                res = nll_loss(x, label)

        self.assertRaises(ValueError, test_x_dim_lt_2)

        def test_x_shape_lt_1():
            prog = paddle.static.Program()
            startup_prog = paddle.static.Program()
            with paddle.static.program_guard(prog, startup_prog):
                array = np.array([], dtype=np.float32)
                x = paddle.to_tensor(np.reshape(array, [1, 0]), dtype='float32')
                label = paddle.to_tensor(
                    np.reshape(array, [1, 0]), dtype='int64'
                )
                nll_loss = paddle.nn.loss.NLLLoss()
                res = nll_loss(x, label)

        self.assertRaises(ValueError, test_x_shape_lt_1)

        def test_x_dim_and_label_dim():
            prog = paddle.static.Program()
            startup_prog = paddle.static.Program()
            with paddle.static.program_guard(prog, startup_prog):
                x_np = np.random.random(size=(5,)).astype(np.float64)
                label_np = np.random.randint(0, 10, size=(5, 1)).astype(
                    np.int64
                )
                x = paddle.to_tensor(x_np)
                label = paddle.to_tensor(label_np)
                nll_loss = paddle.nn.loss.NLLLoss()
                res = nll_loss(x, label)

        self.assertRaises(ValueError, test_x_dim_and_label_dim)

    def test_x_dim_value_error_dygraph(self):
        def test_x_dim_imperative_lt_2():
            with fluid.dygraph.guard():
                x_np = np.random.random(size=(5,)).astype(np.float64)
                label_np = np.random.randint(0, 10, size=(5,)).astype(np.int64)
                x = paddle.to_tensor(x_np)
                label = paddle.to_tensor(label_np)
                nll_loss = paddle.nn.loss.NLLLoss()
                res = nll_loss(x, label)

        self.assertRaises(ValueError, test_x_dim_imperative_lt_2)

    def test_reduction_value_error(self):
        def test_NLLLoss_reduction_not_sum_mean_none():
            prog = paddle.static.Program()
            startup_prog = paddle.static.Program()
            with paddle.static.program_guard(prog, startup_prog):
                x = paddle.static.data(
                    name='x', shape=[10, 10], dtype='float64'
                )
                label = paddle.static.data(
                    name='label', shape=[10], dtype='int64'
                )
                nll_loss = paddle.nn.loss.NLLLoss(reduction='')
                res = nll_loss(x, label)

        self.assertRaises(ValueError, test_NLLLoss_reduction_not_sum_mean_none)

        def test_nll_loss_function_reduction_not_sum_mean_none():
            prog = paddle.static.Program()
            startup_prog = paddle.static.Program()
            with paddle.static.program_guard(prog, startup_prog):
                x = paddle.static.data(
                    name='x', shape=[10, 10], dtype='float64'
                )
                label = paddle.static.data(
                    name='label', shape=[10], dtype='int64'
                )
                res = paddle.nn.functional.nll_loss(x, label, reduction='')

        self.assertRaises(
            ValueError, test_nll_loss_function_reduction_not_sum_mean_none
        )

    def test_reduction_value_error_dygraph(self):
        def test_NLLLoss_reduction_imperative_not_sum_mean_none():
            with fluid.dygraph.guard():
                x_np = np.random.random(size=(5, 3)).astype(np.float64)
                label_np = np.random.randint(0, 3, size=(5,)).astype(np.int64)
                x = paddle.to_tensor(x_np)
                label = paddle.to_tensor(label_np)
                nll_loss = paddle.nn.loss.NLLLoss(reduction='')
                res = nll_loss(x, label)

        self.assertRaises(
            ValueError, test_NLLLoss_reduction_imperative_not_sum_mean_none
        )

        def test_nll_loss_function_reduction_imperative_not_sum_mean_none():
            with fluid.dygraph.guard():
                x_np = np.random.random(size=(5, 3)).astype(np.float64)
                label_np = np.random.randint(0, 3, size=(5,)).astype(np.int64)
                x = paddle.to_tensor(x_np)
                label = paddle.to_tensor(label_np)
                res = paddle.nn.functional.nll_loss(x, label, reduction='')

        self.assertRaises(
            ValueError,
            test_nll_loss_function_reduction_imperative_not_sum_mean_none,
        )


if __name__ == "__main__":
    paddle.enable_static()
    unittest.main()
