"""Port of Paddle's test_program_prune_backward.py (test/legacy_test; the 2.x version), the
control-flow cases test_cond and test_optimization_in_cond.

run-on-paddle: none

A paddle.static.nn.case whose branches compute different losses, trained with SGD outside the
case (test_cond) or inside each branch (test_optimization_in_cond): clone(for_test=True) drops
the backward and optimizer ops and the grad blocks only they used, so the test program has the
forward blocks only (block 0 and the two branches: 3, as Paddle's prune_backward leaves them),
op for op and var for var the program cloned before training, and computes the same loss.
Kept apart from test_program_prune_backward.py, which runs on Paddle 3.3.1: Paddle 3.3.1 builds
case only on PIR programs (on legacy ones it passes a Variable to the PIR-only
paddle.logical_not), and its PIR Program.clone takes no for_test, so these two cannot run on it.
TestProgramPruneBackward's program_compare / check_prune_correctness / program_scope_guard come
from that file.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from .test_program_prune_backward import TestProgramPruneBackward as _Base

core = fluid.core


def cond_net(use_feed=None):
    x = paddle.static.data(name="x", shape=[-1, 4], dtype='float32')
    label = paddle.static.data('label', shape=[-1, 1], dtype='int64')
    prediction = paddle.static.nn.fc(x, size=1, activation=None)

    def loss1(pred, label):
        x = paddle.static.data(name="x", shape=[-1, 4], dtype='float32')
        loss = paddle.nn.functional.cross_entropy(input=pred, label=label, reduction='none',
                                                  use_softmax=False)
        avg_loss = paddle.mean(loss, name='mean_cross_entropy_loss')
        return avg_loss

    def loss2(pred, label):
        loss = paddle.nn.functional.softmax_with_cross_entropy(logits=pred, label=label)
        avg_loss = paddle.mean(loss, name='mean_softmax_loss')
        return avg_loss

    two = paddle.tensor.fill_constant([1], 'int32', 2)
    pred = two == 0
    avg_loss = paddle.static.nn.case([(pred, lambda: loss1(prediction, label))],
                                     lambda: loss2(prediction, label))
    return avg_loss


def optimization_in_cond_net(with_optimize=False):
    x = paddle.static.data(name="x", shape=[-1, 4], dtype='float32')
    label = paddle.static.data('label', shape=[-1, 1], dtype='int64')
    prediction = paddle.static.nn.fc(x, size=1, activation=None)

    def loss1(opt, pred, label, with_optimize):
        x = paddle.static.data(name="x", shape=[-1, 4], dtype='float32')
        loss = paddle.nn.functional.cross_entropy(input=pred, label=label, reduction='none',
                                                  use_softmax=False)
        avg_loss = paddle.mean(loss, name='mean_cross_entropy_loss')
        if with_optimize:
            opt.minimize(avg_loss)
        return avg_loss

    def loss2(opt, pred, label, with_optimize):
        loss = paddle.nn.functional.softmax_with_cross_entropy(logits=pred, label=label)
        avg_loss = paddle.mean(loss, name='mean_softmax_loss')
        if with_optimize:
            opt.minimize(avg_loss)
        return avg_loss

    sgd = paddle.optimizer.SGD(learning_rate=0.1)
    two = paddle.tensor.fill_constant([1], 'int32', 2)
    pred = two == 0
    avg_loss = paddle.static.nn.case(
        [(pred, lambda: loss1(sgd, prediction, label, with_optimize))],
        lambda: loss2(sgd, prediction, label, with_optimize))
    return avg_loss


class TestProgramPruneBackward(unittest.TestCase):
    program_compare = _Base.program_compare
    check_prune_correctness = _Base.check_prune_correctness
    program_scope_guard = _Base.program_scope_guard

    def test_cond(self):
        def optimizer():
            optimizer = paddle.optimizer.SGD(learning_rate=0.01)
            return optimizer

        with self.program_scope_guard():
            x_in = np.random.random(size=(10, 4)).astype('float32')
            label_in = np.random.randint(1, size=(10, 1)).astype('int64')
            feed_dict = {'x': x_in, 'label': label_in}
            self.check_prune_correctness(method=cond_net, feed_dict=feed_dict,
                                         optimizer=optimizer)

    def test_optimization_in_cond(self):
        x_in = np.random.random(size=(10, 4)).astype('float32')
        label_in = np.random.randint(1, size=(10, 1)).astype('int64')
        feed_dict = {'x': x_in, 'label': label_in}
        with self.program_scope_guard():
            loss = optimization_in_cond_net(False)
            main_program = fluid.default_main_program()
            test_prog_orig = main_program.clone(for_test=True)
            place = core.CPUPlace()
            exe = fluid.Executor(place)
            exe.run(fluid.default_startup_program())
            (loss_data_orig,) = exe.run(test_prog_orig, feed=feed_dict, fetch_list=[loss.name])

        with self.program_scope_guard():
            loss = optimization_in_cond_net(True)
            main_program = fluid.default_main_program()
            test_prog_prune = main_program.clone(for_test=True)

            place = core.CPUPlace()
            exe = fluid.Executor(place)
            exe.run(fluid.default_startup_program())
            (loss_data_prune,) = exe.run(test_prog_prune, feed=feed_dict,
                                         fetch_list=[loss.name])

        self.program_compare(test_prog_orig, test_prog_prune)
        self.assertEqual(loss_data_orig, loss_data_prune)


del _Base

if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
