"""Port of Paddle test/legacy_test/test_regularizer_api.py.

TestRegularizer.test_l2: Adagrad with weight_decay=L2Decay(1.0) must train the BOW net exactly as
plain Adagrad on the loss plus 0.5 * sum(w^2) of every parameter, with a sparse and a dense
embedding alike. Paddle's current file keeps this test's helpers but lost the test itself when
bow_net left the file; the test is taken from the file's last version that had it, in the 2.x
spelling the helpers use now (paddle.add_n for the removed paddle.sums).
The same test in test_regularizer.py is this one and is not repeated there.
Paddle 3.3.1's paddle.sum and paddle.tanh only take PIR values, and a PIR program cannot hold this
LoD net, so sum(w^2) is written mean(w^2) * numel, bow_net's tanh is stanh(x, 1, 1), and
test_repeated_regularization's loss is a mean.

Dropped: test_repeated_regularization's dygraph half (its only assertions); its static half
(ParamAttr L1Decay with an optimizer L2Decay, building and minimizing) is kept. GPU places.
paddle.framework.random._manual_program_seed(1) (private) is written as its public effect:
random_seed = 1 on both programs.
"""
import contextlib
import random
import unittest
from functools import partial

import numpy as np

import fluidc as fluid
import fluidc as paddle


def bow_net(data, label, dict_dim, is_sparse=False, emb_dim=8, hid_dim=8, hid_dim2=6,
            class_dim=2):
    """BOW net (PaddlePaddle/models text_classification): embedding, sum pool, two tanh fcs."""
    emb = paddle.static.nn.embedding(input=data, is_sparse=is_sparse, size=[dict_dim, emb_dim])
    bow = paddle.static.nn.sequence_lod.sequence_pool(input=emb, pool_type='sum')
    # tanh(x) as stanh(x, 1, 1): Paddle 3.3.1's paddle.tanh only takes PIR values
    bow_tanh = paddle.stanh(bow, scale_a=1.0, scale_b=1.0)
    fc_1 = paddle.static.nn.fc(x=bow_tanh, size=hid_dim, activation='tanh')
    fc_2 = paddle.static.nn.fc(x=fc_1, size=hid_dim2, activation='tanh')
    prediction = paddle.static.nn.fc(x=[fc_2], size=class_dim, activation='softmax')
    cost = paddle.nn.functional.cross_entropy(input=prediction, label=label, reduction='none',
                                              use_softmax=False)
    return paddle.mean(x=cost)


class TestRegularizer(unittest.TestCase):
    def setUp(self):
        self.word_len = 1500
        self.train_data = [[(random.sample(range(1000), 10), [0])] for _ in range(2)]

    def get_places(self):
        return [paddle.CPUPlace()]

    @contextlib.contextmanager
    def scope_prog_guard(self, main_prog, startup_prog):
        scope = paddle.static.Scope()
        with fluid.unique_name.guard():
            with paddle.static.scope_guard(scope):
                with paddle.static.program_guard(main_prog, startup_prog):
                    yield

    def run_program(self, place, feed_list):
        exe = paddle.static.Executor(place)
        feeder = fluid.DataFeeder(feed_list=feed_list, place=place)
        exe.run(paddle.static.default_startup_program())

        main_prog = paddle.static.default_main_program()
        param_list = [var.name for var in main_prog.block(0).all_parameters()]

        param_sum = []
        for data in self.train_data:
            out = exe.run(main_prog, feed=feeder.feed(data), fetch_list=param_list)
            p_sum = 0
            for v in out:
                p_sum += np.sum(np.abs(v))
            param_sum.append(p_sum)
        return param_sum

    def _programs(self):
        paddle.seed(1)
        main_prog, startup_prog = paddle.static.Program(), paddle.static.Program()
        main_prog.random_seed = startup_prog.random_seed = 1
        return main_prog, startup_prog

    def _inputs(self):
        data = paddle.static.data(name="words", shape=[-1, 1], dtype="int64", lod_level=1)
        label = paddle.static.data(name="label", shape=[-1, 1], dtype="int64")
        return data, label

    def check_l2decay_regularizer(self, place, model):
        main_prog, startup_prog = self._programs()
        with self.scope_prog_guard(main_prog=main_prog, startup_prog=startup_prog):
            data, label = self._inputs()
            avg_cost = model(data, label, self.word_len)
            optimizer = paddle.optimizer.Adagrad(learning_rate=0.1,
                                                 weight_decay=paddle.regularizer.L2Decay(1.0))
            optimizer.minimize(avg_cost)
            param_sum = self.run_program(place, [data, label])
        return param_sum

    def check_l2decay(self, place, model):
        main_prog, startup_prog = self._programs()
        with self.scope_prog_guard(main_prog=main_prog, startup_prog=startup_prog):
            data, label = self._inputs()
            avg_cost_l2 = model(data, label, self.word_len)

            param_list = paddle.static.default_main_program().block(0).all_parameters()
            para_sum = []
            for para in param_list:
                para_mul = paddle.square(x=para)
                para_sum.append(paddle.mean(para_mul) * float(np.prod(para.shape)))
            avg_cost_l2 += paddle.add_n(para_sum) * 0.5

            optimizer = paddle.optimizer.Adagrad(learning_rate=0.1)
            optimizer.minimize(avg_cost_l2)
            param_sum = self.run_program(place, [data, label])
        return param_sum

    def test_l2(self):
        paddle.enable_static()
        for place in self.get_places():
            dense_sparse_p_sum = []
            for sparse in [True, False]:
                model = partial(bow_net, is_sparse=sparse)
                framework_l2 = self.check_l2decay_regularizer(place, model)
                l2 = self.check_l2decay(place, model)
                assert len(l2) == len(framework_l2)
                for i in range(len(l2)):
                    assert np.isclose(a=framework_l2[i], b=l2[i], rtol=5e-5)
                dense_sparse_p_sum.append(framework_l2)

            assert len(dense_sparse_p_sum[0]) == len(dense_sparse_p_sum[1])
            for i in range(len(dense_sparse_p_sum[0])):
                assert np.isclose(a=dense_sparse_p_sum[0][i], b=dense_sparse_p_sum[1][i],
                                  rtol=5e-5)

    def test_repeated_regularization(self):
        paddle.enable_static()
        l2 = paddle.regularizer.L2Decay(0.01)
        fc_param_attr = paddle.ParamAttr(regularizer=paddle.regularizer.L1Decay())
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x = paddle.uniform([2, 2, 3])
            linear = paddle.nn.Linear(3, 5, weight_attr=fc_param_attr)
            out = linear(x)
            loss = paddle.mean(out)
            sgd = paddle.optimizer.SGD(learning_rate=0.1, weight_decay=l2)
            sgd.minimize(loss)


if __name__ == '__main__':
    unittest.main()
