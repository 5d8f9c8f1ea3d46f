"""Port of Paddle test/legacy_test/test_weight_decay.py: weight decay written into the program
by hand (param -= lr * param, assigned after Adagrad's minimize) on a BOW net over LoD
sequences, run by the Executor and as a CompiledProgram (AllReduce build strategy): the same
losses.

Kept: TestWeightDecay.test_weight_decay (bow_net dense, prog_scope_guard, run_executor /
run_standalone_exe, Paddle's rtol 5e-5).
Changed: Paddle runs it on CUDA places only (get_places() is empty on a CPU build); here on the
CPU place. paddle.dataset.imdb -> book_data's synthetic reviews (same structure, 200 words);
base.core.Scope -> base.Scope; paddle.pir_utils.OldIrGuard dropped (fluidc builds legacy
programs); paddle.tanh -> paddle.stanh(x, 1, 1) (the same function, which Paddle 3.3.1 builds
on legacy programs).
Added (fluidc): the losses are finite and the decay changes them (a run without the decay ops
gives other losses).
"""
import contextlib
import unittest
from functools import partial

import numpy as np

import fluidc as fluid
import fluidc as paddle

from . import book_data

base = fluid
compiler = fluid.compiler


def get_places():
    return [base.CPUPlace()]


@contextlib.contextmanager
def prog_scope_guard(main_prog, startup_prog):
    scope = base.Scope()
    with base.unique_name.guard(), base.scope_guard(scope), \
            base.program_guard(main_prog, startup_prog):
        yield


def bow_net(data, label, dict_dim, is_sparse=False, emb_dim=128, hid_dim=128, hid_dim2=96,
            class_dim=2):
    """
    BOW net
    This model is from https://github.com/PaddlePaddle/models:
    base/PaddleNLP/text_classification/nets.py
    """
    emb = paddle.static.nn.embedding(input=data, is_sparse=is_sparse, size=[dict_dim, emb_dim])
    bow = paddle.static.nn.sequence_lod.sequence_pool(input=emb, pool_type='sum')
    # Paddle 3.3.1 builds paddle.tanh only on PIR programs, sequence_pool only on legacy ones:
    # tanh as stanh with unit scales
    bow_tanh = paddle.stanh(bow, scale_a=1.0, scale_b=1.0)
    fc_1 = paddle.static.nn.fc(x=bow_tanh, size=hid_dim, activation="tanh")
    fc_2 = paddle.static.nn.fc(x=fc_1, size=hid_dim2, activation="tanh")
    prediction = paddle.static.nn.fc(x=[fc_2], size=class_dim, activation="softmax")
    cost = paddle.nn.functional.cross_entropy(input=prediction, label=label, reduction='none',
                                              use_softmax=False)
    avg_cost = paddle.mean(x=cost)

    return avg_cost


class TestWeightDecay(unittest.TestCase):
    def setUp(self):
        self.word_dict = book_data.imdb_word_dict()
        reader = paddle.batch(book_data.imdb_train(self.word_dict), batch_size=4)()
        self.train_data = [next(reader) for _ in range(5)]
        self.learning_rate = 0.5

    def run_executor(self, place, feed_list, loss):
        exe = base.Executor(place)
        feeder = base.DataFeeder(feed_list=feed_list, place=place)
        exe.run(base.default_startup_program())
        main_prog = base.default_main_program()
        loss_set = []
        for data in self.train_data:
            out = exe.run(main_prog, feed=feeder.feed(data), fetch_list=[loss.name])

            loss_set.append(np.average(out))

        return loss_set

    def run_standalone_exe(self, place, feed_list, loss, use_reduce=False,
                           use_fast_executor=False, use_ir_memory_optimize=False):
        exe = base.Executor(place)
        feeder = base.DataFeeder(feed_list=feed_list, place=place)
        exe.run(base.default_startup_program())

        build_strategy = base.BuildStrategy()
        build_strategy.reduce_strategy = (
            base.BuildStrategy.ReduceStrategy.Reduce
            if use_reduce
            else base.BuildStrategy.ReduceStrategy.AllReduce
        )
        build_strategy.memory_optimize = use_ir_memory_optimize

        train_cp = compiler.CompiledProgram(base.default_main_program(),
                                            build_strategy=build_strategy)

        loss_set = []
        for data in self.train_data:
            out = exe.run(train_cp, feed=feeder.feed(data), fetch_list=[loss.name])
            loss_set.append(np.average(out))

        return loss_set

    def check_weight_decay(self, place, model, use_parallel_exe=False, use_reduce=False,
                           decay=True):
        main_prog = base.Program()
        startup_prog = base.Program()
        paddle.seed(1)
        with prog_scope_guard(main_prog=main_prog, startup_prog=startup_prog):
            data = paddle.static.data(name="words", shape=[-1, 1], dtype="int64", lod_level=1)
            label = paddle.static.data(name="label", shape=[-1, 1], dtype="int64")
            avg_cost = model(data, label, len(self.word_dict))

            param_list = [(var, var * self.learning_rate)
                          for var in main_prog.block(0).all_parameters()]

            optimizer = paddle.optimizer.Adagrad(learning_rate=self.learning_rate)
            optimizer.minimize(avg_cost)

            for params in param_list if decay else ():
                updated_p = paddle.subtract(x=params[0], y=params[1])
                paddle.assign(updated_p, output=params[0])

            if use_parallel_exe:
                loss = self.run_standalone_exe(place, [data, label], loss=avg_cost,
                                               use_reduce=use_reduce)
            else:
                loss = self.run_executor(place, [data, label], loss=avg_cost)

        return loss

    def test_weight_decay(self):
        model = partial(bow_net, is_sparse=False)
        for place in get_places():
            loss = self.check_weight_decay(place, model, use_parallel_exe=False)

            # TODO(zcd): should test use_reduce=True
            loss2 = self.check_weight_decay(place, model, use_parallel_exe=True,
                                            use_reduce=False)

            for i in range(len(loss)):
                self.assertTrue(
                    np.isclose(a=loss[i], b=loss2[i], rtol=5e-5),
                    "Expect " + str(loss[i]) + "\n" + "But Got" + str(loss2[i])
                    + " in class " + self.__class__.__name__,
                )
            # fluidc addition: finite losses, which the decay changes after the first step
            self.assertTrue(np.isfinite(loss).all())
            plain = self.check_weight_decay(place, model, decay=False)
            self.assertAlmostEqual(plain[0], loss[0], places=5)
            self.assertFalse(np.allclose(plain[1:], loss[1:]))


if __name__ == '__main__':
    unittest.main()
