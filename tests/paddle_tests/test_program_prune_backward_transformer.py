"""Port of Paddle's test_program_prune_backward.py (test/legacy_test; the 2.x version), its
test_transformer: the Transformer of the parallel-executor tests (4 + 4 layers, d_model 512,
two 10000-word vocabularies, dropout 0.1) trained with Adam and L2Decay: clone(for_test=True)
after minimize equals the clone made before (blocks, ops op for op, vars) and computes the
same loss on one fed batch.

run-on-paddle: none -- Paddle 3.3.1's paddle.matmul takes only PIR values, so the model cannot
be built on a legacy Program, and its PIR Program.clone takes no for_test. The other cases of
that file are in test_program_prune_backward.py (which runs on Paddle 3.3.1) and
test_program_prune_backward_cond.py; this file shares their program_compare /
check_prune_correctness / program_scope_guard.

From test/legacy_test/test_parallel_executor_transformer.py: ModelHyperParams,
prepare_batch_input, transformer, get_feed_data_reader; from feed_data_reader.py:
FeedDataReader (its single-place branch: get_next gives the next batch's feed dict).
Changed: paddle.dataset.wmt16.train -> wmt16_train below, synthetic (src, trg, trg_next) word-id
triples as wmt16 gives them (<s> = 0, <e> = 1, words from 3 up); the global reader cache
dropped.
"""
import unittest

import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle

from . import transformer_model
from .test_program_prune_backward import TestProgramPruneBackward as _Base

core = fluid.core


class ModelHyperParams:
    # Dictionary size for source and target language. This model directly uses
    # paddle.dataset.wmt16 in which <bos>, <eos> and <unk> token has
    # alreay been added, but the <pad> token is not added. Transformer requires
    # sequences in a mini-batch are padded to have the same length. A <pad> token is
    # added into the original dictionary in paddle.dateset.wmt16.

    # size of source word dictionary.
    src_vocab_size = 10000
    # index for <pad> token in source language.
    src_pad_idx = src_vocab_size

    # size of target word dictionay
    trg_vocab_size = 10000
    # index for <pad> token in target language.
    trg_pad_idx = trg_vocab_size

    # position value corresponding to the <pad> token.
    pos_pad_idx = 0

    # max length of sequences. It should plus 1 to include position
    # padding token for position encoding.
    max_length = 50

    # the dimension for word embeddings, which is also the last dimension of
    # the input and output of multi-head attention, position-wise feed-forward
    # networks, encoder and decoder.

    d_model = 512
    # size of the hidden layer in position-wise feed-forward networks.
    d_inner_hid = 1024
    # the dimension that keys are projected to for dot-product attention.
    d_key = 64
    # the dimension that values are projected to for dot-product attention.
    d_value = 64
    # number of head used in multi-head attention.
    n_head = 8
    # number of sub-layers to be stacked in the encoder and decoder.
    # NOTE(zcd): the origin number of layer is 6, to make this unit test faster,
    # we should reduce the layer number to 4.
    n_layer = 4
    # dropout rate used by all dropout layers.
    dropout = 0.1


def wmt16_train(src_dict_size, trg_dict_size, n=8, seed=16):
    """wmt16.train's samples, synthetic: ([<s>] + src + [<e>], [<s>] + trg, trg + [<e>]) of 5
    to max_length tokens (positions 1.. index the max_length + 1 rows of the position tables)."""
    def reader():
        rng = np.random.RandomState(seed)
        for _ in range(n):
            src_len, trg_len = rng.randint(5, ModelHyperParams.max_length + 1, 2)
            src = rng.randint(3, src_dict_size, src_len - 2).tolist()
            trg = rng.randint(3, trg_dict_size, trg_len - 1).tolist()
            yield [0] + src + [1], [0] + trg, trg + [1]
    return reader


def prepare_batch_input(insts, src_pad_idx, trg_pad_idx, n_head):
    """
    Pad the instances to the max sequence length in batch, and generate the
    corresponding position data and attention bias. Then, convert the numpy
    data to tensors and return a dict mapping names to tensors.
    """

    def __pad_batch_data(insts, pad_idx, is_target=False, return_pos=True,
                         return_attn_bias=True, return_max_len=True):
        """
        Pad the instances to the max sequence length in batch, and generate the
        corresponding position data and attention bias.
        """
        return_list = []
        max_len = max(len(inst) for inst in insts)
        inst_data = np.array([inst + [pad_idx] * (max_len - len(inst)) for inst in insts])
        return_list += [inst_data.astype("int64").reshape([-1, 1])]
        if return_pos:
            inst_pos = np.array([[pos_i + 1 if w_i != pad_idx else 0
                                  for pos_i, w_i in enumerate(inst)] for inst in inst_data])

            return_list += [inst_pos.astype("int64").reshape([-1, 1])]
        if return_attn_bias:
            if is_target:
                # This is used to avoid attention on paddings and subsequent
                # words.
                slf_attn_bias_data = np.ones((inst_data.shape[0], max_len, max_len))
                slf_attn_bias_data = np.triu(slf_attn_bias_data, 1).reshape(
                    [-1, 1, max_len, max_len])
                slf_attn_bias_data = np.tile(slf_attn_bias_data, [1, n_head, 1, 1]) * [-1e9]
            else:
                # This is used to avoid attention on paddings.
                slf_attn_bias_data = np.array([[0] * len(inst) + [-1e9] * (max_len - len(inst))
                                               for inst in insts])
                slf_attn_bias_data = np.tile(slf_attn_bias_data.reshape([-1, 1, 1, max_len]),
                                             [1, n_head, max_len, 1])
            return_list += [slf_attn_bias_data.astype("float32")]
        if return_max_len:
            return_list += [max_len]
        return return_list if len(return_list) > 1 else return_list[0]

    src_word, src_pos, src_slf_attn_bias, src_max_len = __pad_batch_data(
        [inst[0] for inst in insts], src_pad_idx, is_target=False)
    trg_word, trg_pos, trg_slf_attn_bias, trg_max_len = __pad_batch_data(
        [inst[1] for inst in insts], trg_pad_idx, is_target=True)
    trg_src_attn_bias = np.tile(src_slf_attn_bias[:, :, ::src_max_len, :],
                                [1, 1, trg_max_len, 1]).astype("float32")
    lbl_word = __pad_batch_data([inst[2] for inst in insts], trg_pad_idx, False, False, False,
                                False)
    lbl_weight = (lbl_word != trg_pad_idx).astype("float32").reshape([-1, 1])

    return [src_word, src_pos, trg_word, trg_pos, src_slf_attn_bias, trg_slf_attn_bias,
            trg_src_attn_bias, lbl_word, lbl_weight]


class FeedDataReader:
    def __init__(self, feed_list, reader):
        self._feed_list = [var if isinstance(var, str) else var.name for var in feed_list]
        self._reader = reader
        self._iter = self._reader()

    def _get_next_feed_data(self):
        try:
            return next(self._iter)
        except StopIteration:
            self._iter = self._reader()
            return next(self._iter)

    def get_next(self, exe, program):
        assert isinstance(exe, fluid.Executor), "exe must be Executor"
        return dict(zip(self._feed_list, self._get_next_feed_data()))


def transformer(use_feed):
    assert not use_feed, "transfomer doesn't support feed yet"
    return transformer_model.transformer(
        ModelHyperParams.src_vocab_size + 1, ModelHyperParams.trg_vocab_size + 1,
        ModelHyperParams.max_length + 1, ModelHyperParams.n_layer, ModelHyperParams.n_head,
        ModelHyperParams.d_key, ModelHyperParams.d_value, ModelHyperParams.d_model,
        ModelHyperParams.d_inner_hid, ModelHyperParams.dropout, ModelHyperParams.src_pad_idx,
        ModelHyperParams.trg_pad_idx, ModelHyperParams.pos_pad_idx)


def get_feed_data_reader():
    reader = paddle.batch(wmt16_train(ModelHyperParams.src_vocab_size,
                                      ModelHyperParams.trg_vocab_size),
                          batch_size=transformer_model.batch_size)
    all_batch_tensors = []
    for batch in reader():
        tensors = []
        for tensor in prepare_batch_input(batch, ModelHyperParams.src_pad_idx,
                                          ModelHyperParams.trg_pad_idx,
                                          ModelHyperParams.n_head):
            tensors.append(np.array(tensor))
        all_batch_tensors.append(tensors)

    def __reader__():
        yield from all_batch_tensors

    return FeedDataReader(feed_list=transformer_model.build_inputs(
        ModelHyperParams.max_length + 1, ModelHyperParams.n_head), reader=__reader__)


class TestProgramPruneBackward(unittest.TestCase):
    program_compare = _Base.program_compare
    check_prune_correctness = _Base.check_prune_correctness
    program_scope_guard = _Base.program_scope_guard

    @pytest.mark.slow  # 40 s here: the 8-layer Transformer built, cloned twice and run twice
    def test_transformer(self):
        def optimizer():
            optimizer = paddle.optimizer.Adam(learning_rate=0.001,
                                              weight_decay=paddle.regularizer.L2Decay(1e-4))
            return optimizer

        with self.program_scope_guard():
            # the program argument is used to distinguish Program and CompiledProgram
            feed_dict = get_feed_data_reader().get_next(fluid.Executor(core.CPUPlace()),
                                                        fluid.default_main_program())
            self.check_prune_correctness(method=transformer, feed_dict=feed_dict,
                                         optimizer=optimizer)


del _Base

if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
