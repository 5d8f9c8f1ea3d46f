"""Port of Paddle test/legacy_test/test_ir_inplace_pass.py.

fc_with_batchnorm trained with BuildStrategy.memory_optimize x enable_inplace off / on: all four
must give the same loss (delta 1e-3, Paddle's). Paddle runs the case on CUDA only, through
parallel_executor_test_base's check_network_convergence (CompiledProgram.with_data_parallel,
removed from Paddle) and returns before training on a CPU build (and its _fc_with_batchnorm
returns None, so its assertAlmostEqual compares Nones). Here the same network is trained on the
CPU through CompiledProgram(program, build_strategy): 5 Adam steps (the helper's default
optimizer and iteration count) on Paddle's feed (seed 5), seeded programs, and the mean of the
first and last losses is returned and compared.
"""
import contextlib
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid


def fc_with_batchnorm(use_feed):
    img = paddle.static.data(name='image', shape=[-1, 784], dtype='float32')
    label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')

    hidden = img
    for _ in range(3):
        hidden = paddle.static.nn.fc(
            hidden, size=200, activation='tanh',
            bias_attr=fluid.ParamAttr(initializer=paddle.nn.initializer.Constant(value=1.0)))

        hidden = paddle.static.nn.batch_norm(input=hidden)
    prediction = paddle.static.nn.fc(hidden, size=10, activation='softmax')
    loss = paddle.nn.functional.cross_entropy(input=prediction, label=label, reduction='none',
                                              use_softmax=False)
    loss = paddle.mean(loss)
    return loss


@contextlib.contextmanager
def program_scope_guard():
    with paddle.static.scope_guard(paddle.static.Scope()), fluid.unique_name.guard(), \
            paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        yield


def check_network_convergence(method, feed_dict, use_ir_memory_optimize, enable_inplace,
                              iter=5):
    """(first loss, last loss) of `iter` Adam steps of method's net run as a CompiledProgram."""
    with program_scope_guard():
        main = paddle.static.default_main_program()
        main.random_seed = 1
        paddle.static.default_startup_program().random_seed = 1
        loss = method(use_feed=False)
        paddle.optimizer.Adam(learning_rate=0.001).minimize(loss)
        build_strategy = paddle.static.BuildStrategy()
        build_strategy.memory_optimize = use_ir_memory_optimize
        build_strategy.enable_inplace = enable_inplace
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(paddle.static.default_startup_program())
        compiled = paddle.static.CompiledProgram(main, build_strategy=build_strategy)
        losses = [exe.run(compiled, feed=feed_dict, fetch_list=[loss.name])[0]
                  for _ in range(iter)]
    return np.array(losses[0]).mean(), np.array(losses[-1]).mean()


class TestIrInplace(unittest.TestCase):
    def _fc_with_batchnorm(self, ir_memory_optimize, enable_inplace):
        np.random.seed(5)
        img = np.random.random(size=[32, 784]).astype(np.float32)
        label = np.ones(shape=[32, 1], dtype='int64')
        return check_network_convergence(fc_with_batchnorm,
                                         feed_dict={"image": img, "label": label},
                                         use_ir_memory_optimize=ir_memory_optimize,
                                         enable_inplace=enable_inplace)

    def test_fc_with_batchnorm(self, delta=1e-3):
        loss00 = self._fc_with_batchnorm(False, False)
        loss10 = self._fc_with_batchnorm(True, False)
        loss01 = self._fc_with_batchnorm(False, True)
        loss11 = self._fc_with_batchnorm(True, True)
        # training moved the loss, so equal losses are not equal by accident
        self.assertNotAlmostEqual(loss00[0], loss00[1], delta=1e-5)
        for loss in (loss10, loss01, loss11):
            self.assertAlmostEqual(loss00[0], loss[0], delta=delta)
            self.assertAlmostEqual(loss00[1], loss[1], delta=delta)


if __name__ == '__main__':
    unittest.main()
