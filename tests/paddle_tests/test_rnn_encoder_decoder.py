"""Port of Paddle's book test python/paddle/fluid/tests/book/test_rnn_encoder_decoder.py
(2.x-era fluid tree, commit 04310a55): a bidirectional dynamic_lstm encoder and a DynamicRNN
LSTM decoder (static_input, need_reorder memory, lstm_step built from fc / sums), trained with
Adagrad, saved with save_inference_model and run again from the loaded program.

run-on-paddle: none (Paddle 3.3.1 has no fluid.layers or DynamicRNN).

Kept: model, sizes, optimizer, loops and the NaN check as written. Dropped: test_cuda.
paddle.dataset.wmt14 is book_data.wmt14_train / wmt14_get_dict (synthetic pairs, same
structure). paddle.mean gives a 0-D value since Paddle 2.5 (fluidc follows 3.3.1), so the NaN
check reads avg_cost_val.reshape(-1)[0] where Paddle's read avg_cost_val[0]. Paddle's test
prints the inference output; the port also checks it (one row of target_dict_dim
probabilities per target word, the feed's LoD kept).
"""
import contextlib
import math
import os
import sys
import tempfile
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid
import fluidc.framework as framework
from fluidc.executor import Executor

from . import book_data

paddle.enable_static()

dict_size = 30000
source_dict_dim = target_dict_dim = dict_size
src_dict, trg_dict = book_data.wmt14_get_dict(dict_size)
hidden_dim = 32
embedding_dim = 16
batch_size = 10
max_length = 50
topk_size = 50
encoder_size = decoder_size = hidden_dim
IS_SPARSE = True
USE_PEEPHOLES = False


def bi_lstm_encoder(input_seq, hidden_size):
    input_forward_proj = fluid.layers.fc(input=input_seq, size=hidden_size * 4, bias_attr=True)
    forward, _ = fluid.layers.dynamic_lstm(input=input_forward_proj, size=hidden_size * 4,
                                           use_peepholes=USE_PEEPHOLES)
    input_backward_proj = fluid.layers.fc(input=input_seq, size=hidden_size * 4, bias_attr=True)
    backward, _ = fluid.layers.dynamic_lstm(input=input_backward_proj, size=hidden_size * 4,
                                            is_reverse=True, use_peepholes=USE_PEEPHOLES)

    forward_last = fluid.layers.sequence_last_step(input=forward)
    backward_first = fluid.layers.sequence_first_step(input=backward)

    return forward_last, backward_first


# FIXME(peterzhang2029): Replace this function with the lstm_unit_op.
def lstm_step(x_t, hidden_t_prev, cell_t_prev, size):
    def linear(inputs):
        return fluid.layers.fc(input=inputs, size=size, bias_attr=True)

    forget_gate = paddle.nn.functional.sigmoid(x=linear([hidden_t_prev, x_t]))
    input_gate = paddle.nn.functional.sigmoid(x=linear([hidden_t_prev, x_t]))
    output_gate = paddle.nn.functional.sigmoid(x=linear([hidden_t_prev, x_t]))
    cell_tilde = paddle.tanh(x=linear([hidden_t_prev, x_t]))

    cell_t = fluid.layers.sums(input=[paddle.multiply(x=forget_gate, y=cell_t_prev),
                                      paddle.multiply(x=input_gate, y=cell_tilde)])

    hidden_t = paddle.multiply(x=output_gate, y=paddle.tanh(x=cell_t))

    return hidden_t, cell_t


def lstm_decoder_without_attention(target_embedding, decoder_boot, context, decoder_size):
    rnn = fluid.layers.DynamicRNN()

    cell_init = fluid.layers.fill_constant_batch_size_like(
        input=decoder_boot, value=0.0, shape=[-1, decoder_size], dtype='float32')
    cell_init.stop_gradient = False

    with rnn.block():
        current_word = rnn.step_input(target_embedding)
        context = rnn.static_input(context)

        hidden_mem = rnn.memory(init=decoder_boot, need_reorder=True)
        cell_mem = rnn.memory(init=cell_init)
        decoder_inputs = fluid.layers.concat(input=[context, current_word], axis=1)
        h, c = lstm_step(decoder_inputs, hidden_mem, cell_mem, decoder_size)
        rnn.update_memory(hidden_mem, h)
        rnn.update_memory(cell_mem, c)
        out = fluid.layers.fc(input=h, size=target_dict_dim, bias_attr=True, act='softmax')
        rnn.output(out)
    return rnn()


def seq_to_seq_net():
    """Construct a seq2seq network."""

    src_word_idx = fluid.layers.data(name='source_sequence', shape=[1], dtype='int64',
                                     lod_level=1)

    src_embedding = fluid.layers.embedding(input=src_word_idx,
                                           size=[source_dict_dim, embedding_dim],
                                           dtype='float32')

    src_forward_last, src_backward_first = bi_lstm_encoder(input_seq=src_embedding,
                                                           hidden_size=encoder_size)

    encoded_vector = fluid.layers.concat(input=[src_forward_last, src_backward_first], axis=1)

    decoder_boot = fluid.layers.fc(input=src_backward_first, size=decoder_size,
                                   bias_attr=False, act='tanh')

    trg_word_idx = fluid.layers.data(name='target_sequence', shape=[1], dtype='int64',
                                     lod_level=1)

    trg_embedding = fluid.layers.embedding(input=trg_word_idx,
                                           size=[target_dict_dim, embedding_dim],
                                           dtype='float32')

    prediction = lstm_decoder_without_attention(trg_embedding, decoder_boot, encoded_vector,
                                                decoder_size)
    label = fluid.layers.data(name='label_sequence', shape=[1], dtype='int64', lod_level=1)
    cost = fluid.layers.cross_entropy(input=prediction, label=label)
    avg_cost = paddle.mean(cost)

    return avg_cost, prediction


def train(use_cuda, save_dirname=None):
    [avg_cost, prediction] = seq_to_seq_net()

    optimizer = fluid.optimizer.Adagrad(learning_rate=1e-4)
    optimizer.minimize(avg_cost)

    train_data = paddle.batch(paddle.reader.shuffle(book_data.wmt14_train(dict_size),
                                                    buf_size=1000),
                              batch_size=batch_size)

    place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
    exe = Executor(place)
    exe.run(framework.default_startup_program())

    feed_order = ['source_sequence', 'target_sequence', 'label_sequence']
    feed_list = [framework.default_main_program().global_block().var(var_name)
                 for var_name in feed_order]
    feeder = fluid.DataFeeder(feed_list, place)

    batch_id = 0
    for pass_id in range(2):
        for data in train_data():
            outs = exe.run(framework.default_main_program(),
                           feed=feeder.feed(data),
                           fetch_list=[avg_cost])

            avg_cost_val = np.array(outs[0])
            print('pass_id=' + str(pass_id) + ' batch=' + str(batch_id) +
                  " avg_cost=" + str(avg_cost_val))
            if math.isnan(float(avg_cost_val.reshape(-1)[0])):
                sys.exit("got NaN loss, training failed.")
            if batch_id > 3:
                if save_dirname is not None:
                    fluid.io.save_inference_model(save_dirname,
                                                  ['source_sequence', 'target_sequence'],
                                                  [prediction], exe)
                return

            batch_id += 1


def infer(use_cuda, save_dirname=None):
    if save_dirname is None:
        return

    place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
    exe = fluid.Executor(place)

    inference_scope = fluid.core.Scope()
    with fluid.scope_guard(inference_scope):
        [inference_program, feed_target_names,
         fetch_targets] = fluid.io.load_inference_model(save_dirname, exe)

        recursive_seq_lens = [[4, 6]]
        base_shape = [1]
        # The range of random integers is [low, high]
        word_data = fluid.create_random_int_lodtensor(recursive_seq_lens, base_shape, place,
                                                      low=0, high=1)
        trg_word = fluid.create_random_int_lodtensor(recursive_seq_lens, base_shape, place,
                                                     low=0, high=1)

        assert feed_target_names[0] == 'source_sequence'
        assert feed_target_names[1] == 'target_sequence'
        results = exe.run(inference_program,
                          feed={feed_target_names[0]: word_data,
                                feed_target_names[1]: trg_word},
                          fetch_list=fetch_targets,
                          return_numpy=False)
        print(results[0].recursive_sequence_lengths())
        np_data = np.array(results[0])
        print("Inference shape: ", np_data.shape)
        print("Inference results: ", np_data)
        assert results[0].recursive_sequence_lengths() == recursive_seq_lens
        assert np_data.shape == (10, target_dict_dim)
        np.testing.assert_allclose(np_data.sum(axis=1), 1.0, rtol=1e-4)


def main(use_cuda):
    if use_cuda and not fluid.core.is_compiled_with_cuda():
        return

    # Directory for saving the trained model
    temp_dir = tempfile.TemporaryDirectory()
    save_dirname = os.path.join(temp_dir.name, "rnn_encoder_decoder.inference.model")

    train(use_cuda, save_dirname)
    infer(use_cuda, save_dirname)
    temp_dir.cleanup()


class TestRnnEncoderDecoder(unittest.TestCase):
    def test_cpu(self):
        with self.scope_prog_guard():
            main(use_cuda=False)

    @contextlib.contextmanager
    def scope_prog_guard(self):
        prog = fluid.Program()
        startup_prog = fluid.Program()
        scope = fluid.core.Scope()
        with fluid.scope_guard(scope):
            with fluid.program_guard(prog, startup_prog):
                yield


if __name__ == '__main__':
    unittest.main()
