"""Port of Paddle test/legacy_test/test_executor_and_use_program_cache.py: TestExecutor.test_mul
(Executor.run with use_program_cache on and off gives numpy's a @ b).
run-on-paddle: pir   (paddle.matmul on a legacy Program is broken in Paddle 3.3.1)

Dropped: ExecutorPaddingRNNTest (needs test_eager_deletion_padding_rnn's PaddingRNN model, which
uses StaticRNN/while control flow), a.desc.set_need_check_feed(False) (VarDesc internal).
fetch_list=[output.name] -> [output] (a PIR value has no name).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class TestExecutor(unittest.TestCase):
    def test_mul(self):
        main_program, startup_program = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            a = paddle.static.data(name='a', shape=[-1, 784], dtype='float32')
            b = paddle.static.data(name='b', shape=[784, 100], dtype='float32')
            output = paddle.matmul(x=a, y=b)
        a_np = np.random.random((100, 784)).astype('float32')
        b_np = np.random.random((784, 100)).astype('float32')
        out_np = np.dot(a_np, b_np)
        exe = paddle.static.Executor(paddle.CPUPlace())

        def _train(use_program_cache, max_iters=1):
            for _ in range(max_iters):
                outs = exe.run(program=main_program, feed={'a': a_np, 'b': b_np},
                               fetch_list=[output], use_program_cache=use_program_cache)
                out = outs[0]
                self.assertEqual((100, 100), out.shape)
                np.testing.assert_allclose(out, out_np, rtol=1e-05)

        _train(use_program_cache=True, max_iters=3)
        _train(use_program_cache=False, max_iters=3)
        _train(use_program_cache=True, max_iters=3)
        _train(use_program_cache=True, max_iters=3)


if __name__ == '__main__':
    unittest.main()
