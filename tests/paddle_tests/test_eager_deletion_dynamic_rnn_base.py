"""Port of Paddle's 1.x-tree python/paddle/fluid/tests/unittests/
test_eager_deletion_dynamic_rnn_base.py (the version reading fake_reader.fake_imdb_reader,
before the imdb-dataset one of commit 2351add8): `train` builds an IMDB classifier over LoD
word sequences with the given network, trains it with Adagrad for 17 batches of 32 x 2 passes,
fetching the cost every 4th batch, through a CompiledProgram, plain and data-parallel over 2
CPU places (CPU_NUM=2); TestBase runs it for the subclass's network
(test_eager_deletion_lstm_net.py: dynamic_lstm, test_eager_deletion_gru_net.py: dynamic_gru).

run-on-paddle: none -- Paddle 3.3.1 has no dynamic_lstm / dynamic_gru nor the 1.x layers, so
these files come from Paddle's 1.x tree.

Kept: train, TestBase (use_cuda=True is skipped as in Paddle without CUDA).
Changed: os.environ 'CPU_NUM' = '2' is set while test_network runs instead of at import (the
pytest process is shared); FLAGS_eager_delete_tensor_gb dropped (fluidc's plans free values by
their own analysis); six.moves.xrange -> range; TestBase without a network skips instead of
passing; test_network is `slow` (minutes). Added: every fetched cost is finite (Paddle's test
only runs the training).
"""
import os
import unittest
from unittest import mock

import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc import compiler

from .fake_reader import fake_imdb_reader

core = fluid.core


def train(network, use_cuda, use_parallel_executor, batch_size=32, pass_num=2):
    if use_cuda and not core.is_compiled_with_cuda():
        print('Skip use_cuda=True because Paddle is not compiled with cuda')
        return

    if use_parallel_executor and os.name == 'nt':
        print('Skip use_parallel_executor=True because Paddle comes without parallel support '
              'on windows')
        return

    word_dict_size = 5147
    reader = fake_imdb_reader(word_dict_size, batch_size * 40)
    train_reader = paddle.batch(reader, batch_size=batch_size)

    data = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)

    label = fluid.layers.data(name="label", shape=[1], dtype="int64")

    cost = network(data, label, word_dict_size)
    cost.persistable = True
    optimizer = fluid.optimizer.Adagrad(learning_rate=0.2)
    optimizer.minimize(cost)

    place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
    feeder = fluid.DataFeeder(feed_list=[data, label], place=place)
    reader = feeder.decorate_reader(train_reader, multi_devices=use_parallel_executor)

    exe = fluid.Executor(place)
    fluid.default_startup_program().random_seed = 1
    fluid.default_main_program().random_seed = 1
    exe.run(fluid.default_startup_program())

    train_cp = compiler.CompiledProgram(fluid.default_main_program())
    if use_parallel_executor:
        train_cp = train_cp.with_data_parallel(loss_name=cost.name)
        fetch_list = [cost.name]
    else:
        fetch_list = [cost]

    costs = []
    for pass_id in range(pass_num):
        batch_id = 0
        for data in reader():
            outs = exe.run(train_cp, feed=data,
                           fetch_list=fetch_list if batch_id % 4 == 0 else [])
            costs += [np.asarray(o) for o in outs]
            batch_id += 1
            if batch_id > 16:
                break
    assert costs and all(np.isfinite(c).all() for c in costs), costs


class TestBase(unittest.TestCase):
    def setUp(self):
        self.net = None

    @pytest.mark.slow  # minutes: 4 x 34 batches of 32 sequences of 100-200 words
    def test_network(self):
        if self.net is None:
            self.skipTest("TestBase has no network: its subclasses set one")

        with mock.patch.dict(os.environ, {'CPU_NUM': '2'}):
            for use_cuda in [True, False]:
                for use_parallel_executor in [False, True]:
                    print('network: {}, use_cuda: {}, use_parallel_executor: {}'.format(
                        self.net.__name__, use_cuda, use_parallel_executor))
                    with fluid.program_guard(fluid.Program(), fluid.Program()):
                        with fluid.scope_guard(core.Scope()):
                            train(self.net, use_cuda, use_parallel_executor)
