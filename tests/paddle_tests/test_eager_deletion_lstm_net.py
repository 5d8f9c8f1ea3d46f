"""Port of Paddle's 1.x-tree python/paddle/fluid/tests/unittests/test_eager_deletion_lstm_net.py
(commit 02c53c2d): LSTMTest, an embedding + fc + fluid.layers.dynamic_lstm + max sequence_pool
classifier trained by test_eager_deletion_dynamic_rnn_base.train, plain and data-parallel.

run-on-paddle: none -- Paddle 3.3.1 has no dynamic_lstm nor the 1.x layers.

Dropped: fluid.core._set_eager_deletion_mode (fluidc's plans free values by their own analysis).
Renamed: paddle.mean(x=cost) -> fluid.layers.mean(x=cost) (the 1.x mean, as the LSTM of
test_program_prune_backward_lstm.py).
"""
import unittest

import fluidc as fluid

from . import test_eager_deletion_dynamic_rnn_base as base  # its TestBase not collected here


def lstm_net(data, label, dict_dim, emb_dim=128, hid_dim=128, hid_dim2=96, class_dim=2,
             emb_lr=30.0):
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


class LSTMTest(base.TestBase):
    def setUp(self):
        self.net = lstm_net


if __name__ == "__main__":
    unittest.main()
