"""Port of Paddle test/book/test_word2vec_book.py (dense and sparse embeddings, CPU).

Dropped: CUDA/XPU targets, parallel, bf16/pure-bf16 AMP, the distributed-transpiler branch, and
the second half of infer() that re-runs the model through the native inference engine
(fluid.core.PaddleTensor / NativeConfig / CompiledProgram._with_inference_optimize are Paddle
internals); the imikolov download -> book_data's synthetic 5-gram reader (100-word vocabulary).
fluid.layers.embedding -> paddle.static.nn.embedding (same arguments); fluid.io.save_inference_model
-> paddle.static.save_inference_model. The loop keeps Paddle's stop condition (cost < 5.0) with
PASS_NUM capped at 10.
"""
import math
import os
import tempfile
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from . import book_data

paddle.enable_static()


def train(is_sparse, save_dirname):
    PASS_NUM = 10
    EMBED_SIZE = 32
    HIDDEN_SIZE = 256
    N = 5
    BATCH_SIZE = 32

    word_dict = book_data.imikolov_build_dict()
    dict_size = len(word_dict)

    def __network__(words):
        embeds = [paddle.static.nn.embedding(input=w, size=[dict_size, EMBED_SIZE],
                                             dtype='float32', is_sparse=is_sparse,
                                             param_attr='shared_w')
                  for w in words[:4]]
        concat_embed = paddle.concat(embeds, axis=1)
        hidden1 = paddle.static.nn.fc(x=concat_embed, size=HIDDEN_SIZE, activation='sigmoid')
        predict_word = paddle.static.nn.fc(x=hidden1, size=dict_size, activation='softmax')
        cost = paddle.nn.functional.cross_entropy(input=predict_word, label=words[4],
                                                  reduction='none', use_softmax=False)
        return paddle.mean(cost), predict_word

    names = ['firstw', 'secondw', 'thirdw', 'forthw', 'nextw']
    words = [paddle.static.data(name=n, shape=[-1, 1], dtype='int64') for n in names]
    avg_cost, predict_word = __network__(words)

    sgd_optimizer = paddle.optimizer.SGD(learning_rate=0.001)
    sgd_optimizer.minimize(avg_cost, paddle.static.default_startup_program())

    train_reader = paddle.batch(book_data.imikolov_train(word_dict, N), BATCH_SIZE)
    place = paddle.CPUPlace()
    exe = paddle.static.Executor(place)
    feeder = fluid.DataFeeder(feed_list=words, place=place)
    exe.run(paddle.static.default_startup_program())
    main_program = paddle.static.default_main_program()
    for pass_id in range(PASS_NUM):
        for data in train_reader():
            avg_cost_np = exe.run(main_program, feed=feeder.feed(data), fetch_list=[avg_cost])
            if avg_cost_np[0] < 5.0:
                if save_dirname is not None:
                    paddle.static.save_inference_model(save_dirname, words[:4],
                                                       [predict_word], exe)
                return
            if math.isnan(float(avg_cost_np[0])):
                raise AssertionError("got NaN loss, training failed.")
    raise AssertionError(f"Cost is too large {float(avg_cost_np[0]):2.2}")


def infer(save_dirname):
    place = paddle.CPUPlace()
    exe = paddle.static.Executor(place)
    inference_scope = paddle.static.Scope()
    with paddle.static.scope_guard(inference_scope):
        inference_program, feed_target_names, fetch_targets = \
            paddle.static.load_inference_model(save_dirname, exe)
        dict_size = len(book_data.imikolov_build_dict())
        # four LoDTensors holding one one-word sequence each
        recursive_seq_lens = [[1]]
        base_shape = [1]
        inputs = [fluid.create_random_int_lodtensor(recursive_seq_lens, base_shape, place,
                                                    low=0, high=dict_size - 1)
                  for _ in range(4)]
        assert feed_target_names[0] == 'firstw'
        assert feed_target_names[1] == 'secondw'
        assert feed_target_names[2] == 'thirdw'
        assert feed_target_names[3] == 'forthw'
        results = exe.run(inference_program,
                          feed={feed_target_names[i]: inputs[i] for i in range(4)},
                          fetch_list=fetch_targets, return_numpy=False)
        np_data = np.array(results[0])
        assert np_data.shape == (1, dict_size)
        np.testing.assert_allclose(np_data.sum(), 1.0, rtol=1e-5)


def main(is_sparse):
    with tempfile.TemporaryDirectory() as tmp:
        save_dirname = os.path.join(tmp, "word2vec.inference.model")
        train(is_sparse, save_dirname)
        infer(save_dirname)


class W2VTest(unittest.TestCase):
    pass


def inject_test_method(is_sparse):
    def __impl__(*args, **kwargs):
        prog = paddle.static.Program()
        startup_prog = paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            with paddle.static.program_guard(prog, startup_prog):
                main(is_sparse)

    setattr(W2VTest, "test_cpu_{}_normal".format("sparse" if is_sparse else "dense"),
            __impl__)


for _is_sparse in (False, True):
    inject_test_method(_is_sparse)

if __name__ == '__main__':
    unittest.main()
