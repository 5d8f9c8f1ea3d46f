"""Port of Paddle test/legacy_test/test_backward.py: its public-API cases.

Dropped: the private-helper checks inside TestBackward._check_backward (backward._get_stop_gradients_,
_find_op_path_, _find_no_grad_vars, _append_grad_suffix_/_strip_grad_suffix_) and
TestStripGradSuffix (private _strip_grad_suffix_); TestGradientsWithOptimizer
(paddle.autograd.backward_mode.gradients_with_optimizer is an internal module, gone from the
public API). TestSimpleNet keeps the public part of the check: append_backward's parameter names,
then SGD.minimize and a run. fluid.gradients / fluid.backward.gradients are written
paddle.static.gradients; fluid.backward.append_backward is paddle.static.append_backward.
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class SimpleNet:
    """Two shared-weight embeddings merged, a softmax fc, and an unused fc sharing its weight."""

    def __init__(self):
        self.params_names = {'w2v', 'fc_predict.b_0', 'fc_w'}
        self.shape = [16, 50]

    def init_data(self):
        feed = {name: np.random.randint(0, 90, self.shape).astype('int64')
                for name in ('x_no_grad', 'x2_no_grad', 'x3_no_grad')}
        feed['label_no_grad'] = np.random.random([self.shape[0], 1]).astype('float32')
        return feed

    def build_model(self):
        ids = [paddle.static.data(name=name, shape=self.shape, dtype='int64')
               for name in ('x_no_grad', 'x2_no_grad', 'x3_no_grad')]
        label = paddle.static.data(name='label_no_grad', shape=[self.shape[0], 1],
                                   dtype='float32')
        # the three lookups share 'w2v': its gradient is summed from several ops
        embs = [paddle.static.nn.embedding(i, size=[100, 64],
                                           param_attr=paddle.ParamAttr(name='w2v'))
                for i in ids]
        x_merge = paddle.add(embs[0], embs[1], name='x_add_x2')
        x2_merge = paddle.add(embs[1], embs[2], name='x2_add_x3')
        predict = paddle.static.nn.fc(x=x_merge, size=1, activation='softmax',
                                      weight_attr=paddle.ParamAttr(name='fc_w'),
                                      name='fc_predict')
        # shares fc_w but does not reach the loss
        paddle.static.nn.fc(x=x2_merge, size=1, activation='sigmoid',
                            weight_attr=paddle.ParamAttr(name='fc_w'), name='fc_no_use')
        cost = paddle.nn.functional.square_error_cost(input=predict, label=label)
        return paddle.mean(cost, name='mean_loss')


class TestBackward(unittest.TestCase):
    def _exe(self):
        return paddle.static.Executor(paddle.CPUPlace())

    def _check_all(self, net):
        exe = self._exe()
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            loss = net.build_model()
            params_grads = paddle.static.append_backward(loss, None, None)
            self.assertSetEqual({p.name for p, _ in params_grads}, net.params_names)
            paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
            exe.run(startup)
            exe.run(feed=net.init_data())

    def _check_error_param_list(self, net, parameter_list):
        exe = self._exe()
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            loss = net.build_model()
            paddle.optimizer.SGD(learning_rate=0.1).minimize(loss, parameter_list=parameter_list)
            exe.run(startup)
            exe.run(feed=net.init_data())

    def _check_error_no_grad_set(self, net, no_grad_set):
        exe = self._exe()
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            loss = net.build_model()
            paddle.optimizer.SGD(learning_rate=0.1).minimize(loss, no_grad_set=no_grad_set)
            exe.run(startup)
            exe.run(feed=net.init_data())


class TestSimpleNet(TestBackward):
    def test_backward(self):
        self._check_all(SimpleNet())


class TestGradientsError(unittest.TestCase):
    def test_error(self):
        x = paddle.static.data(name='x', shape=[None, 2, 8, 8], dtype='float32')
        x.stop_gradient = False
        conv = paddle.static.nn.conv2d(x, 4, 1, bias_attr=False)
        y = paddle.nn.functional.relu(conv)
        with self.assertRaises(TypeError):
            paddle.static.gradients(y.name, x)
        with self.assertRaises(TypeError):
            paddle.static.gradients(y, x.name)
        with self.assertRaises(TypeError):
            paddle.static.gradients([y], [x], target_gradients=x.name)
        with self.assertRaises(TypeError):
            paddle.static.gradients([y], x, no_grad_set=conv)


class TestSimpleNetWithErrorParamList(TestBackward):
    def test_parameter_list_type_error(self):
        net = SimpleNet()
        # parameter_list must be a list or tuple
        with self.assertRaises(TypeError):
            self._check_error_param_list(net, "test")
        # and its members Variables or names
        test = paddle.static.data(name='test', shape=[None, 90], dtype='float32')
        with self.assertRaises(TypeError):
            self._check_error_param_list(net, [test, "test", 3])


class TestSimpleNetWithErrorNoGradSet(TestBackward):
    def test_no_grad_set_type_error(self):
        net = SimpleNet()
        # no_grad_set must be a set, list or tuple
        with self.assertRaises(TypeError):
            self._check_error_no_grad_set(net, "test")
        # and its members Variables or names
        test = paddle.static.data(name='test', shape=[None, 90], dtype='float32')
        with self.assertRaises(TypeError):
            self._check_error_no_grad_set(net, [test, "test", 3])


class TestAppendBackwardWithError(unittest.TestCase):
    def setUp(self):
        main_program = paddle.static.Program()
        with paddle.static.program_guard(main_program):
            x = paddle.static.data(name='x', shape=[None, 13], dtype='int64')
            y = paddle.static.data(name='y', shape=[None, 1], dtype='float32')
            x_emb = paddle.static.nn.embedding(x, size=[100, 256])
            y_predict = paddle.static.nn.fc(x=x_emb, size=1, name='my_fc')
            loss = paddle.nn.functional.square_error_cost(input=y_predict, label=y)
            self.avg_loss = paddle.mean(loss)
            self.param_names = [p.name for p in main_program.block(0).all_parameters()]

    def test_loss_type_error(self):
        with self.assertRaises(TypeError):
            paddle.static.append_backward(loss=self.avg_loss.name)

    def test_parameter_list_type_error(self):
        with self.assertRaises(TypeError):
            self.param_names[0] = np.random.random([10])
            paddle.static.append_backward(loss=self.avg_loss, parameter_list=self.param_names)

    def test_callback_type_error(self):
        def callback(block, context):
            return

        with self.assertRaises(TypeError):
            paddle.static.append_backward(loss=self.avg_loss, callbacks=callback)


class TestBackwardUninitializedVariable(unittest.TestCase):
    """Gradient aggregation must not sum a variable that was never written (found in yolov5)."""

    def test(self):
        main_prg, startup_prg = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main_prg, startup_prg):
            gt = paddle.static.data(name='gt', shape=[4], dtype='float32')
            x = paddle.static.data(name='x', shape=[2], dtype='float32')
            gt.stop_gradient = True
            x.stop_gradient = False
            gt = gt.reshape([4, 1]).reshape([4])
            # Paddle: `+ (gt[2:4] * x).sum()`; Tensor.sum() on a legacy Program is broken in
            # Paddle 3.3.1, so the sum of the 2 elements is written as mean * 2
            loss = (paddle.nn.functional.binary_cross_entropy(x, gt[:2])
                    + paddle.mean(gt[2:4] * x) * 2)
            exe = paddle.static.Executor()
            paddle.static.gradients(loss, [])
            exe.run(startup_prg)
            out = exe.run(main_prg,
                          feed={'gt': np.array([1.0, 1.0, 0.0, 0.0], dtype='float32'),
                                'x': np.array([0.5, 0.5], dtype='float32')},
                          fetch_list=[loss])
            # Paddle only prints it: bce(0.5, 1) = ln 2
            np.testing.assert_allclose(out[0], np.log(2.0), rtol=1e-5)


if __name__ == '__main__':
    unittest.main()
