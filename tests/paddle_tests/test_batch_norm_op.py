"""Port of Paddle test/legacy_test/test_batch_norm_op.py: its static API classes.

Kept: TestBatchNormOpError (paddle.static.nn.batch_norm on a LoDTensor / int32 data -> TypeError,
on 1-D data -> ValueError), TestDygraphBatchNormAPIError (nn.BatchNorm on a LoDTensor / int32
data -> TypeError), TestDygraphBatchNormTrainableStats.test_static (nn.BatchNorm training with
batch statistics == is_test with trainable_statistics), TestDygraphBatchNormOpenReserveSpace
(NHWC nn.BatchNorm builds).
Dropped: the OpTest-style classes (TestBatchNormOpInference*, TestBatchNormOpTraining* and
their freeze-stats / momentum-variable variants), which build batch_norm and its grad op through
Paddle internals (block.append_op, core.get_grad_op_desc); the bf16 / fp16 / CUDA / oneDNN
cases; the dygraph test of TestDygraphBatchNormTrainableStats; @test_with_pir_api reruns.
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

paddle.enable_static()


class TestBatchNormOpError(unittest.TestCase):
    def test_errors(self):
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            # the input of batch_norm must be Variable.
            x1 = fluid.create_lod_tensor(np.array([-1, 3, 5, 5]), [[1, 1, 1, 1]],
                                         fluid.CPUPlace())
            self.assertRaises(TypeError, paddle.static.nn.batch_norm, x1)

            # the input dtype of batch_norm must be float16 or float32 or float64
            # float16 only can be set on GPU place
            x2 = paddle.static.data(name='x2', shape=[-1, 3, 4, 5, 6], dtype="int32")
            self.assertRaises(TypeError, paddle.static.nn.batch_norm, x2)

            # the first dimension of input for batch_norm must between [2d, 5d].
            x3 = paddle.static.data("", shape=[0], dtype="float32")
            self.assertRaises(ValueError, paddle.static.nn.batch_norm, x3)


class TestDygraphBatchNormAPIError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            batch_norm = paddle.nn.BatchNorm(10)
            # the input of BatchNorm must be Variable.
            x1 = fluid.create_lod_tensor(np.array([-1, 3, 5, 5]), [[1, 1, 1, 1]],
                                         fluid.CPUPlace())
            self.assertRaises(TypeError, batch_norm, x1)

            # the input dtype of BatchNorm must be float16 or float32 or float64
            # float16 only can be set on GPU place
            x2 = paddle.static.data(name='x2', shape=[-1, 3, 4, 5, 6], dtype="int32")
            self.assertRaises(TypeError, batch_norm, x2)


class TestDygraphBatchNormTrainableStats(unittest.TestCase):
    def test_static(self):
        places = [fluid.CPUPlace()]
        for p in places:
            exe = fluid.Executor(p)
            shape = [4, 10, 16, 16]

            def compute(x_np, is_test, trainable_statistics):
                main_program = paddle.static.Program()
                startup_program = paddle.static.Program()
                with paddle.static.program_guard(main_program, startup_program):
                    bn = paddle.nn.BatchNorm(shape[1], is_test=is_test,
                                             trainable_statistics=trainable_statistics)
                    x = paddle.static.data(name='x', shape=x_np.shape, dtype=x_np.dtype)
                    y = bn(x)
                    exe.run(startup_program)
                    r = exe.run(feed={'x': x_np}, fetch_list=[y])[0]
                return r

            x = np.random.randn(*shape).astype("float32")
            y1 = compute(x, False, False)
            y2 = compute(x, True, True)
            np.testing.assert_allclose(y1, y2, rtol=1e-05)


class TestDygraphBatchNormOpenReserveSpace(unittest.TestCase):
    def test_reservespace(self):
        main_program = paddle.static.Program()
        startup_program = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            x = np.random.random(size=(3, 10, 3, 7)).astype('float32')
            x = paddle.static.data(name='x', shape=x.shape, dtype=x.dtype)
            batch_norm = paddle.nn.BatchNorm(7, data_layout="NHWC")
            hidden1 = batch_norm(x)


if __name__ == '__main__':
    unittest.main()
