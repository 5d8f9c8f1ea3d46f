"""Port of Paddle's 1.x-tree python/paddle/fluid/tests/unittests/test_eager_deletion_gru_net.py
(commit 10670036): GRUTest, an embedding + fc + fluid.layers.dynamic_gru + max sequence_pool
classifier trained by test_eager_deletion_dynamic_rnn_base.train, plain and data-parallel.

run-on-paddle: none -- Paddle 3.3.1 has no dynamic_gru nor the 1.x layers.

Dropped: fluid.core._set_eager_deletion_mode (fluidc's plans free values by their own analysis).
"""
import unittest

import fluidc as fluid
import fluidc as paddle

from . import test_eager_deletion_dynamic_rnn_base as base  # its TestBase not collected here


def gru_net(data, label, dict_dim, emb_dim=128, hid_dim=128, hid_dim2=96, class_dim=2,
            emb_lr=400.0):
    emb = paddle.static.nn.embedding(input=data, size=[dict_dim, emb_dim],
                                     param_attr=fluid.ParamAttr(learning_rate=emb_lr))
    fc0 = fluid.layers.fc(input=emb, size=hid_dim * 3)
    gru_h = fluid.layers.dynamic_gru(input=fc0, size=hid_dim, is_reverse=False)
    gru_max = fluid.layers.sequence_pool(input=gru_h, pool_type='max')
    gru_max_tanh = paddle.tanh(gru_max)
    fc1 = fluid.layers.fc(input=gru_max_tanh, size=hid_dim2, act='tanh')
    prediction = fluid.layers.fc(input=fc1, size=class_dim, act='softmax')
    cost = fluid.layers.cross_entropy(input=prediction, label=label)
    avg_cost = paddle.mean(x=cost)
    return avg_cost


class GRUTest(base.TestBase):
    def setUp(self):
        self.net = gru_net


if __name__ == "__main__":
    unittest.main()
