"""Port of the convolution_net and stacked_lstm_net cases of Paddle
test/book/notest_understand_sentiment.py (renamed test_ so it is collected; Paddle keeps it out
of CI with the notest_ prefix; stacked_lstm_net is from its 2.x version, whose
test_stacked_lstm_cpu Paddle skipped "to make CI faster").

Dropped: CUDA and parallel variants, the distributed-transpiler branch, the imdb download
(paddle.dataset.imdb -> book_data's synthetic separable reviews over a 200-word vocabulary).
The words input is declared with lod_level=1, as the 1.x version of this test did (the sequence
ops need the LoD the DataFeeder builds), and the [-1, 1, 32] embedding is reshaped to [-1, 32] for the
sequence ops (the 1.x embedding dropped the trailing 1; reshape keeps the LoD). infer() feeds a LoDTensor of 3 sentences made with
create_random_int_lodtensor like the 1.x test (Paddle's paddle.randint there builds a graph
variable, which cannot be fed in static mode). The loop keeps Paddle's stop condition
(cost < 0.4 and acc > 0.8, PASS_NUM = 5) and fails if it is never met.
stacked_lstm_net is written in the 2.x form like convolution_net (fluid.layers.fc / embedding /
sequence_pool / cross_entropy / accuracy -> paddle.static.nn / paddle.nn); its
fluid.layers.dynamic_lstm is used where it exists (fluidc) and otherwise built as that layer did
(Paddle 3.x removed the layer but keeps the lstm op).
"""
import contextlib
import math
import os
import tempfile
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from . import book_data, nets

paddle.enable_static()


def convolution_net(data, label, input_dim, class_dim=2, emb_dim=32, hid_dim=32):
    emb = paddle.nn.Embedding(num_embeddings=input_dim, embedding_dim=emb_dim,
                              sparse=True)(data)
    emb = paddle.reshape(emb, [-1, emb_dim])
    conv_3 = nets.sequence_conv_pool(input=emb, num_filters=hid_dim, filter_size=3,
                                     act="tanh", pool_type="sqrt")
    conv_4 = nets.sequence_conv_pool(input=emb, num_filters=hid_dim, filter_size=4,
                                     act="tanh", pool_type="sqrt")
    prediction = paddle.static.nn.fc(x=[conv_3, conv_4], size=class_dim, activation="softmax")
    cost = paddle.nn.functional.cross_entropy(input=prediction, label=label, reduction='none',
                                              use_softmax=False)
    avg_cost = paddle.mean(cost)
    accuracy = paddle.static.accuracy(input=prediction, label=label)
    return avg_cost, accuracy, prediction


def _dynamic_lstm_op(input, size, is_reverse=False):
    """fluid.layers.dynamic_lstm as Paddle 1.x/2.x built it (Paddle 3.x removed the layer but
    keeps the lstm op): Weight [D, 4D], Bias [1, 7D] with peepholes, (hidden, cell)."""
    block = paddle.static.default_main_program().current_block()
    d = size // 4
    weight = paddle.static.create_parameter([d, 4 * d], input.dtype)
    bias = paddle.static.create_parameter([1, 7 * d], input.dtype, is_bias=True)
    outs = {s: block.create_var(dtype=input.dtype)
            for s in ("Hidden", "Cell", "BatchGate", "BatchCellPreAct")}
    block.append_op(type="lstm", inputs={"Input": [input], "Weight": [weight], "Bias": [bias]},
                    outputs={k: [v] for k, v in outs.items()},
                    attrs={"use_peepholes": True, "is_reverse": is_reverse,
                           "gate_activation": "sigmoid", "cell_activation": "tanh",
                           "candidate_activation": "tanh"})
    return outs["Hidden"], outs["Cell"]


dynamic_lstm = getattr(getattr(fluid, "layers", None), "dynamic_lstm", _dynamic_lstm_op)


def stacked_lstm_net(data, label, input_dim, class_dim=2, emb_dim=128, hid_dim=512,
                     stacked_num=3):
    assert stacked_num % 2 == 1
    emb = paddle.nn.Embedding(num_embeddings=input_dim, embedding_dim=emb_dim,
                              sparse=True)(data)
    emb = paddle.reshape(emb, [-1, emb_dim])
    fc1 = paddle.static.nn.fc(x=emb, size=hid_dim)
    lstm1, cell1 = dynamic_lstm(input=fc1, size=hid_dim)
    inputs = [fc1, lstm1]
    for i in range(2, stacked_num + 1):
        fc = paddle.static.nn.fc(x=inputs, size=hid_dim)
        lstm, cell = dynamic_lstm(input=fc, size=hid_dim, is_reverse=(i % 2) == 0)
        inputs = [fc, lstm]
    fc_last = paddle.static.nn.sequence_lod.sequence_pool(input=inputs[0], pool_type='max')
    lstm_last = paddle.static.nn.sequence_lod.sequence_pool(input=inputs[1],
                                                            pool_type='max')
    prediction = paddle.static.nn.fc(x=[fc_last, lstm_last], size=class_dim,
                                     activation='softmax')
    cost = paddle.nn.functional.cross_entropy(input=prediction, label=label, reduction='none',
                                              use_softmax=False)
    avg_cost = paddle.mean(cost)
    accuracy = paddle.static.accuracy(input=prediction, label=label)
    return avg_cost, accuracy, prediction


def train(word_dict, net_method, save_dirname=None):
    BATCH_SIZE = 128
    PASS_NUM = 5
    dict_dim = len(word_dict)
    class_dim = 2
    data = paddle.static.data(name="words", shape=[-1, 1], dtype="int64", lod_level=1)
    label = paddle.static.data(name="label", shape=[-1, 1], dtype="int64")
    cost, acc_out, prediction = net_method(data, label, input_dim=dict_dim, class_dim=class_dim)
    adagrad = paddle.optimizer.Adagrad(learning_rate=0.002)
    adagrad.minimize(cost)

    train_data = paddle.batch(
        paddle.reader.shuffle(book_data.imdb_train(word_dict), buf_size=1000),
        batch_size=BATCH_SIZE)
    place = paddle.CPUPlace()
    exe = paddle.static.Executor(place)
    feeder = fluid.DataFeeder(feed_list=[data, label], place=place)
    exe.run(paddle.static.default_startup_program())
    main_program = paddle.static.default_main_program()
    for pass_id in range(PASS_NUM):
        for batch in train_data():
            cost_val, acc_val = exe.run(main_program, feed=feeder.feed(batch),
                                        fetch_list=[cost, acc_out])
            if cost_val < 0.4 and acc_val > 0.8:
                if save_dirname is not None:
                    paddle.static.save_inference_model(save_dirname, [data], [prediction], exe)
                return
            if math.isnan(float(cost_val)):
                raise AssertionError("got NaN loss, training failed.")
    raise AssertionError(f"Cost is too large for {net_method.__name__}")


def infer(word_dict, save_dirname):
    place = paddle.CPUPlace()
    exe = paddle.static.Executor(place)
    inference_scope = paddle.static.Scope()
    with paddle.static.scope_guard(inference_scope):
        inference_program, feed_target_names, fetch_targets = \
            paddle.static.load_inference_model(save_dirname, exe)
        word_dict_len = len(word_dict)
        tensor_words = fluid.create_random_int_lodtensor([[3, 4, 2]], [1], place, low=0,
                                                         high=word_dict_len - 1)
        assert feed_target_names[0] == "words"
        results = exe.run(inference_program, feed={feed_target_names[0]: tensor_words},
                          fetch_list=fetch_targets, return_numpy=False)
        np_data = np.array(results[0])
        assert np_data.shape == (3, 2)
        np.testing.assert_allclose(np_data.sum(axis=1), np.ones(3), rtol=1e-5)


class TestUnderstandSentiment(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.word_dict = book_data.imdb_word_dict()

    @contextlib.contextmanager
    def new_program_scope(self):
        prog = paddle.static.Program()
        startup_prog = paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            with paddle.static.program_guard(prog, startup_prog):
                yield

    def test_conv_cpu(self):
        with self.new_program_scope(), tempfile.TemporaryDirectory() as tmp:
            save_dirname = os.path.join(tmp, "understand_sentiment_conv.inference.model")
            train(self.word_dict, convolution_net, save_dirname)
            infer(self.word_dict, save_dirname)

    def test_stacked_lstm_cpu(self):
        with self.new_program_scope(), tempfile.TemporaryDirectory() as tmp:
            save_dirname = os.path.join(tmp, "understand_sentiment_stacked_lstm.inference.model")
            train(self.word_dict, stacked_lstm_net, save_dirname)
            infer(self.word_dict, save_dirname)


if __name__ == '__main__':
    unittest.main()
