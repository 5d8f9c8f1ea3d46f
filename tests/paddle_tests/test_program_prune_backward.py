"""Port of Paddle's test_program_prune_backward.py (test/legacy_test; the 2.x version), the cases
without control flow: test_simple_fc_net, test_simple_fc_net_with_accuracy, test_batchnorm_fc
(clone(for_test=True) after minimize drops the backward and optimizer ops: the pruned test
program equals the one cloned before minimize, op for op, and computes the same loss).

Dropped: test_seresnet and test_transformer (their nets come from the parallel-executor test
helpers seresnext_net / test_parallel_executor_transformer, with a dataset download),
test_cond and test_optimization_in_cond are in test_program_prune_backward_cond.py (Paddle
3.3.1 cannot run them). CUDA places dropped. simple_nets.py here carries simple_fc_net / fc_with_batchnorm / init_data.
"""
import contextlib
import unittest

import pytest

import fluidc as paddle
import fluidc as fluid

from . import seresnext_net
from .simple_nets import fc_with_batchnorm, init_data, simple_fc_net

core = fluid.core


def simple_fc_net_with_accuracy(use_feed):
    img = paddle.static.data(name='image', shape=[-1, 784], dtype='float32')
    label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')

    hidden = img
    for _ in range(4):
        hidden = paddle.static.nn.fc(
            hidden, size=200, activation='relu',
            bias_attr=fluid.ParamAttr(initializer=paddle.nn.initializer.Constant(value=1.0)))
    prediction = paddle.static.nn.fc(hidden, size=10, activation='softmax')
    loss = paddle.nn.functional.cross_entropy(input=prediction, label=label, reduction='none',
                                              use_softmax=False)
    loss = paddle.mean(loss)
    accuracy_out = paddle.static.accuracy(input=prediction, label=label, k=5)
    return loss


class TestProgramPruneBackward(unittest.TestCase):
    def program_compare(self, program_a, program_b):
        assert isinstance(program_a, fluid.framework.Program), \
            "The first argument should be fluid.framework.Program."
        assert isinstance(program_b, fluid.framework.Program), \
            "The second argument should be fluid.framework Program."

        self.assertEqual(len(program_a.blocks), len(program_b.blocks))
        for idx in range(len(program_a.blocks)):
            block_a = program_a.blocks[idx]
            block_b = program_b.blocks[idx]
            self.assertEqual(len(block_a.ops), len(block_b.ops))
            self.assertEqual(len(block_a.vars), len(block_b.vars))
            for op_idx in range(len(block_a.ops)):
                self.assertEqual(block_a.ops[op_idx].type, block_b.ops[op_idx].type)
            for var_key in list(block_a.vars.keys()):
                self.assertTrue(block_b.has_var(var_key))

    def check_prune_correctness(self, method, feed_dict, optimizer):
        loss = method(use_feed=False)

        main_program = fluid.default_main_program()
        test_prog_orig = main_program.clone(for_test=True)
        optimizer().minimize(loss)
        test_prog_prune = main_program.clone(for_test=True)

        self.program_compare(test_prog_orig, test_prog_prune)

        places = [core.CPUPlace()]

        for place in places:
            exe = fluid.Executor(place)
            exe.run(fluid.default_startup_program())

            (loss_data_prune,) = exe.run(test_prog_prune, feed=feed_dict,
                                         fetch_list=[loss.name])
            (loss_data_orig,) = exe.run(test_prog_orig, feed=feed_dict, fetch_list=[loss.name])
            self.assertEqual(loss_data_orig, loss_data_prune)

    def test_simple_fc_net(self):
        def optimizer():
            optimizer = paddle.optimizer.SGD(learning_rate=0.001,
                                             weight_decay=paddle.regularizer.L2Decay(1e-4))
            return optimizer

        with self.program_scope_guard():
            img, label = init_data()
            self.check_prune_correctness(method=simple_fc_net,
                                         feed_dict={"image": img, "label": label},
                                         optimizer=optimizer)

    def test_simple_fc_net_with_accuracy(self):
        def optimizer():
            optimizer = paddle.optimizer.SGD(learning_rate=0.001,
                                             weight_decay=paddle.regularizer.L2Decay(1e-4))
            return optimizer

        with self.program_scope_guard():
            img, label = init_data()
            self.check_prune_correctness(method=simple_fc_net_with_accuracy,
                                         feed_dict={"image": img, "label": label},
                                         optimizer=optimizer)

    def test_batchnorm_fc(self):
        def optimizer():
            optimizer = paddle.optimizer.SGD(learning_rate=0.001,
                                             weight_decay=paddle.regularizer.L2Decay(1e-4))
            return optimizer

        with self.program_scope_guard():
            img, label = init_data()
            self.check_prune_correctness(method=fc_with_batchnorm,
                                         feed_dict={"image": img, "label": label},
                                         optimizer=optimizer)

    @pytest.mark.slow  # SE-ResNeXt-50 forward on 12 images of 224 x 224, twice
    def test_seresnet(self):
        with self.program_scope_guard():
            self.check_prune_correctness(method=seresnext_net.model,
                                         feed_dict=seresnext_net.feed_dict(),
                                         optimizer=seresnext_net.optimizer)

    @contextlib.contextmanager
    def program_scope_guard(self):
        prog = fluid.Program()
        startup_prog = fluid.Program()
        scope = fluid.core.Scope()
        with fluid.scope_guard(scope):
            with fluid.program_guard(prog, startup_prog):
                with fluid.unique_name.guard():
                    yield


if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
