"""Port of Paddle test/legacy_test/test_lookahead.py, its static part: paddle.incubate.
optimizer.LookAhead around SGD on a Linear layer, 10 steps, the bias on every k-th step
against the slow weights computed from the fetched bias and its gradient.
Dropped: test_look_ahead_dygraph (fluidc's LookAhead is static only), the PIR branch
(fetching add_grad's result; here 'linear_0.b_0@GRAD' by name, as Paddle's legacy branch) and
FLAGS_use_legacy_linear (a PIR setting). Paddle's assertion compares `.all()` of both arrays
only; tests/test_averaging.py compares every value with Paddle's."""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

LOOKAHEAD_K = 5
LOOKAHEAD_ALPHA = 0.2
SGD_LR = 1.0


class TestLookAhead(unittest.TestCase):
    def test_lookahead_static(self):
        paddle.enable_static()
        place = fluid.CPUPlace()
        shape = [2, 3, 8, 8]
        exe = fluid.Executor(place)
        train_program = paddle.static.Program()
        startup = paddle.static.Program()
        with paddle.static.program_guard(train_program, startup), fluid.unique_name.guard():
            data = paddle.static.data(name='X', shape=[None, 1], dtype='float32')
            hidden = paddle.nn.Linear(1, 10)
            loss = paddle.mean(hidden(data))

            optimizer = paddle.optimizer.SGD(learning_rate=SGD_LR)
            lookahead = paddle.incubate.optimizer.LookAhead(
                optimizer, alpha=LOOKAHEAD_ALPHA, k=LOOKAHEAD_K)
            lookahead.minimize(loss)

        exe.run(startup)
        slow_param = None
        fast_param = None
        for i in range(10):
            if (i + 1) % LOOKAHEAD_K == 0:
                slow_param = slow_param + LOOKAHEAD_ALPHA * (fast_param - slow_param)
            x = np.random.random(size=(10, 1)).astype('float32')
            fetch_list = [
                'linear_0.b_0',
                'linear_0.b_0@GRAD',
            ]
            latest_b, b_grad = exe.run(program=train_program, feed={'X': x},
                                       fetch_list=fetch_list)
            if i == 0:
                slow_param = latest_b
            if (i + 1) % LOOKAHEAD_K == 0:
                self.assertAlmostEqual(slow_param.all(), latest_b.all(), delta=5e-3)
            fast_param = latest_b - SGD_LR * b_grad


if __name__ == "__main__":
    unittest.main()
