"""Port of Paddle test/legacy_test/test_gradient_clip.py: its legacy-program cases.

Kept: TestGradientClipByNorm and TestGradientClipByValue (a cloned mnist MLP's gradients, clipped,
against numpy clipping of the unclipped ones; the clip leaves a None gradient out and a
need_clip=False parameter's gradient alone) and TestGradientClipByGlobalNorm.test_tpyeError.

Dropped because Paddle 3.3.1 cannot run them: the rest of TestGradientClipByGlobalNorm
(test_old_gradient_clip, test_new_gradient_clip, test_new_gradient_clip_fp64,
test_wrong_API_order, test_none_grad_fp32/fp16): ClipGradByGlobalNorm on a legacy program calls
paddle.sqrt, which takes only PIR values, and these cases clone / append_backward legacy programs.
fluidc's global-norm clipping is checked against numbers from Paddle's PIR mode in
tests/test_optimizers_more.py (tests/fixtures/optimizers.npz) and its op list in
tests/test_regularizer_clip.py. With them goes the sparse-embedding BOW net check
(check_sparse_gradient_clip), which only test_wrong_API_order used.

Also dropped: the TestPir* classes (PIR programs through paddle.autograd.ir_backward), the dygraph
classes, TestDygraphGradientClipFP16 (CUDA AMP), TestPureFP16ClipGradByGlobalNorm (the private
paddle.nn.clip._allow_pure_fp16_global_norm_clip switch), CUDA places.
Data: paddle.dataset.mnist -> book_data.mnist_train.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from . import book_data

paddle.enable_static()


class TestGradientClip(unittest.TestCase):
    def setUp(self):
        self.clip_gradient = lambda x: None
        self.init()

    def init(self):
        pass

    def check_clip_result(self, out, out_clip):
        pass

    def check_gradient_clip(self, place):
        prog = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program=prog, startup_program=startup_program):
            image = paddle.static.data(name="a", shape=[-1, 784], dtype='float32')
            label = paddle.static.data(name="b", shape=[-1, 1], dtype='int64')
            hidden = paddle.static.nn.fc(x=image, size=32, activation='relu')
            predict = paddle.static.nn.fc(x=hidden, size=10, activation='softmax')

            cost = paddle.nn.functional.cross_entropy(input=predict, label=label,
                                                      reduction='none', use_softmax=False)
            avg_cost = paddle.mean(cost)

        prog_clip = prog.clone()
        avg_cost_clip = prog_clip.block(0).var(avg_cost.name)

        p_g = paddle.static.append_backward(loss=avg_cost)
        p_g_clip = paddle.static.append_backward(loss=avg_cost_clip)

        p_g = sorted(p_g, key=lambda x: x[0].name)
        p_g_clip = sorted(p_g_clip, key=lambda x: x[0].name)
        with paddle.static.program_guard(main_program=prog_clip,
                                         startup_program=startup_program):
            p_g_clip = self.clip_gradient(p_g_clip)

        grad_list = [elem[1] for elem in p_g]
        grad_clip_list = [elem[1] for elem in p_g_clip]

        train_reader = paddle.batch(book_data.mnist_train(), batch_size=3)
        exe = paddle.static.Executor(place)
        feeder = fluid.DataFeeder(feed_list=[image, label], place=place)
        exe.run(startup_program)

        data = next(train_reader())
        out = exe.run(prog, feed=feeder.feed(data), fetch_list=grad_list)
        out_clip = exe.run(prog_clip, feed=feeder.feed(data), fetch_list=grad_clip_list)
        self.check_clip_result(out, out_clip)


class TestGradientClipByGlobalNorm(TestGradientClip):
    def init(self):
        self.clip_norm = 0.2

    # raise typeError
    def test_tpyeError(self):
        # the type of optimizer(grad_clip=) must be an instance of GradientClipBase's derived
        # class
        with self.assertRaises(TypeError):
            paddle.optimizer.SGD(learning_rate=0.1, grad_clip="test")


class TestGradientClipByNorm(TestGradientClip):
    def init(self):
        self.clip_norm = 0.2

    def check_clip_result(self, out, out_clip):
        for u, v in zip(out, out_clip):
            norm = np.sqrt(np.sum(np.power(u, 2)))
            scale = self.clip_norm / np.maximum(self.clip_norm, norm)
            u = u * scale
            np.testing.assert_allclose(u, v, rtol=1e-05, atol=1e-08,
                                       err_msg='gradient clip by norm has wrong results!')

    # test whether the output is right when use grad_clip
    def test_gradient_clip(self):
        def func(params_grads):
            clip = paddle.nn.ClipGradByNorm(clip_norm=self.clip_norm)
            return clip(params_grads)

        self.clip_gradient = func
        self.check_gradient_clip(paddle.CPUPlace())

    # if grad is None or not need clip
    def test_none_grad(self):
        clip = paddle.nn.ClipGradByNorm(self.clip_norm)
        block = paddle.static.default_main_program().global_block()
        x = block.create_parameter(name="x", shape=[2, 3], dtype="float32", need_clip=False)
        y = block.create_parameter(name="y", shape=[2, 3], dtype="float32", need_clip=False)

        # (x, None) should not be returned
        params_grads = [(x, None), (x, y)]
        params_grads = clip(params_grads)
        self.assertTrue(
            len(clip(params_grads)) == 1,
            "ClipGradByNorm: when grad is None, it shouldn't be returned by gradient clip!")
        self.assertTrue(params_grads[0][1].name == 'y',
                        "ClipGradByNorm: grad should not be clipped when filtered out!")


class TestGradientClipByValue(TestGradientClip):
    def init(self):
        self.max = 0.2
        self.min = 0.1

    def check_clip_result(self, out, out_clip):
        for i, v in enumerate(out):
            out[i] = np.clip(v, self.min, self.max)
        for u, v in zip(out, out_clip):
            u = np.clip(u, self.min, self.max)
            np.testing.assert_allclose(u, v, rtol=1e-06, atol=1e-08,
                                       err_msg='gradient clip by value has wrong results!')

    # test whether the output is right when use grad_clip
    def test_gradient_clip(self):
        def func(params_grads):
            clip = paddle.nn.ClipGradByValue(max=self.max, min=self.min)
            return clip(params_grads)

        self.clip_gradient = func
        self.check_gradient_clip(paddle.CPUPlace())

    # if grad is None or not need clip
    def test_none_grad(self):
        clip = paddle.nn.ClipGradByValue(self.max, self.min)
        block = paddle.static.default_main_program().global_block()
        x = block.create_parameter(name="x", shape=[2, 3], dtype="float32", need_clip=False)
        y = block.create_parameter(name="y", shape=[2, 3], dtype="float32", need_clip=False)

        # (x, None) should not be returned
        params_grads = [(x, None), (x, y)]
        params_grads = clip(params_grads)
        self.assertTrue(
            len(clip(params_grads)) == 1,
            "ClipGradByValue: when grad is None, it shouldn't be returned by gradient clip!")
        self.assertTrue(params_grads[0][1].name == 'y',
                        "ClipGradByValue: grad should not be clipped when filtered out!")


if __name__ == '__main__':
    unittest.main()
