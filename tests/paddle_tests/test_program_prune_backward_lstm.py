"""Port of Paddle's 1.x-tree python/paddle/fluid/tests/unittests/test_program_prune_backward.py
(the 1.x version, commit 0e133dd6), its test_lstm: an IMDB-style classifier (embedding,
fc, fluid.layers.dynamic_lstm over LoD sequences, max sequence_pool) trained with Adagrad and
L2Decay: clone(for_test=True) after minimize equals the clone made before (blocks, ops op for
op, vars) and computes the same loss on one fed batch.

run-on-paddle: none -- Paddle 3.3.1 has no fluid.layers.dynamic_lstm (nor the 1.x layers), so
this case comes from Paddle's 1.x tree; the other cases of that file are ported from its 2.x
version in test_program_prune_backward.py (which runs on Paddle 3.3.1) and
test_program_prune_backward_cond.py, whose program_compare / check_prune_correctness /
program_scope_guard this file shares.

Changed: fake_reader.fake_imdb_reader is ported in fake_reader.py; the one-sample batch is
`reader()` as in Paddle (a generator the DataFeeder reads).
"""
import unittest

import fluidc as fluid

from .fake_reader import fake_imdb_reader
from .test_program_prune_backward import TestProgramPruneBackward as _Base

core = fluid.core


def lstm_net(use_feed):
    dict_dim = 5147
    emb_dim = 128
    hid_dim = 128
    hid_dim2 = 96
    class_dim = 2
    emb_lr = 30.0
    data = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    emb = fluid.layers.embedding(input=data, size=[dict_dim, emb_dim],
                                 param_attr=fluid.ParamAttr(learning_rate=emb_lr))
    fc0 = fluid.layers.fc(input=emb, size=hid_dim * 4)
    lstm_h, c = fluid.layers.dynamic_lstm(input=fc0, size=hid_dim * 4, is_reverse=False)
    lstm_max = fluid.layers.sequence_pool(input=lstm_h, pool_type='max')
    lstm_max_tanh = fluid.layers.tanh(lstm_max)
    fc1 = fluid.layers.fc(input=lstm_max_tanh, size=hid_dim2, act='tanh')
    prediction = fluid.layers.fc(input=fc1, size=class_dim, act='softmax')
    cost = fluid.layers.cross_entropy(input=prediction, label=label)
    avg_cost = fluid.layers.mean(x=cost)
    return avg_cost


class TestProgramPruneBackward(unittest.TestCase):
    program_compare = _Base.program_compare
    check_prune_correctness = _Base.check_prune_correctness
    program_scope_guard = _Base.program_scope_guard

    def test_lstm(self):
        def optimizer():
            optimizer = fluid.optimizer.Adagrad(learning_rate=0.001,
                                                regularization=fluid.regularizer.L2Decay(1e-4))
            return optimizer

        with self.program_scope_guard():
            word_dict_size = 5147
            reader = fake_imdb_reader(word_dict_size, 1)
            data = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)
            label = fluid.layers.data(name="label", shape=[1], dtype="int64")
            feeder = fluid.DataFeeder(feed_list=[data, label], place=core.CPUPlace())
            feed_data = feeder.feed(reader())
            self.check_prune_correctness(method=lstm_net, feed_dict=feed_data,
                                         optimizer=optimizer)


del _Base

if __name__ == '__main__':
    unittest.main()
