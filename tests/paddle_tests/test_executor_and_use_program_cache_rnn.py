"""Port of Paddle's 1.x-tree python/paddle/fluid/tests/unittests/
test_executor_and_use_program_cache.py (2.x-era version, the one importing
test_eager_deletion_padding_rnn): ExecutorPaddingRNNTest. The PTB LSTM language model, as a
StaticRNN ("padding") and unrolled by hand ("static"), is trained through a data-parallel
CompiledProgram, saved with fluid.io.save_inference_model (params in one file), loaded back
and run on the same random feed with use_program_cache off and on: the two runs give the same
loss, last hidden and last cell (shapes equal, allclose).

run-on-paddle: none -- Paddle 3.3.1 has no StaticRNN, so this case comes from Paddle's 1.x tree
and is checked against its own assertion only (test_mul, in test_executor_and_use_program_cache.py,
runs on Paddle 3.3.1).

Changed: the inference model directory is a temporary one instead of the working directory;
`numpy.random` -> `np.random` (the file's two merged versions name it both ways).
"""
import os
import tempfile

import numpy as np

import fluidc as fluid

from .test_eager_deletion_padding_rnn import PaddingRNNTestBase, RNNConfig


class ExecutorPaddingRNNTest(PaddingRNNTestBase):
    def train_and_save_inference_program(self, rnn_model="static", parallel=True,
                                         use_program_cache=True):
        config = RNNConfig("test", rnn_model)
        with fluid.scope_guard(fluid.Scope()):
            self.train(config, parallel, use_program_cache)
            fluid.io.save_inference_model(
                main_program=self.main_program, feeded_var_names=self.feed_order,
                target_vars=[self.loss, self.last_hidden, self.last_cell], executor=self.exe,
                dirname=os.path.join(self.tmp, "padding_rnn." + rnn_model + ".inference_model"),
                params_filename="__params__")

    def test_inference_output(self):
        with tempfile.TemporaryDirectory() as self.tmp:
            for rnn_model in ["static", "padding"]:
                # Set parallel to False to use the default executor.
                self.train_and_save_inference_program(rnn_model=rnn_model, parallel=True,
                                                      use_program_cache=True)

                x_np = np.random.random(
                    (self.config.batch_size, self.config.num_steps, 1)).astype("int64")
                y_np = np.random.random(
                    (self.config.batch_size * self.config.num_steps, 1)).astype("int64")
                init_hidden_np = np.random.random(
                    (self.config.num_layers, self.config.batch_size,
                     self.config.hidden_size)).astype("float32")
                init_cell_np = np.random.random(
                    (self.config.num_layers, self.config.batch_size,
                     self.config.hidden_size)).astype("float32")

                for use_program_cache in [False, True]:
                    with fluid.scope_guard(fluid.Scope()):
                        save_dirname = os.path.join(
                            self.tmp, "padding_rnn." + rnn_model + ".inference_model")
                        [inference_program, feed_target_names, fetch_targets] = \
                            fluid.io.load_inference_model(save_dirname, self.exe,
                                                          params_filename="__params__")

                        results = self.exe.run(
                            program=inference_program,
                            feed={"x": x_np, "y": y_np, "init_hidden": init_hidden_np,
                                  "init_cell": init_cell_np},
                            fetch_list=fetch_targets, use_program_cache=use_program_cache)
                        if use_program_cache is True:
                            results_with_cache = results
                        else:
                            results_without_cache = results
                self.assertEqual(len(results_with_cache), len(results_without_cache))
                for i in range(len(results_with_cache)):
                    self.assertEqual(results_with_cache[i].shape,
                                     results_without_cache[i].shape)
                    np.testing.assert_allclose(results_with_cache[i], results_without_cache[i],
                                               rtol=1e-05)
