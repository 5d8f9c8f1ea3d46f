"""Port of Paddle's 1.x-tree python/paddle/fluid/tests/unittests/test_dynrnn_static_input.py
(commit 0e0702c4): DynamicRNN.static_input of a LoD tensor (one sequence per step-input
sequence): reordered by rank and shrunk to the running sequences at each step (values and
LoDs against numpy), and its gradient through a sequence_pool in the step block against
numerical differences of the program.

run-on-paddle: none -- Paddle 3.3.1 has no DynamicRNN nor reorder_lod_tensor_by_rank /
shrink_rnn_memory, so this file comes from Paddle's 1.x tree and is checked against its numpy
reference only.

Kept: TestDyRnnStaticInput (test_step_out, test_network_gradient).
Renamed: core.CPUPlace / core.LoDTensor / core.VarDesc.VarType -> fluid.*;
framework.grad_var_name(n) -> n + '@GRAD'; np.product -> np.prod (numpy 2).
Changed: LoDTensor._get_float_element / _set_float_element (Paddle internals) are read and
written through the tensor's numpy value (np.array(t), t.set(...)); setUp seeds numpy and
the startup program (the file's module-level seed is lost when each test gets fresh default
programs): float32 central differences miss rtol 1e-3 on some draws, so an unseeded run
passed or failed by test order.
"""
import bisect
import unittest

import numpy as np

import fluidc as fluid
from fluidc import framework
from fluidc.framework import Program, switch_main_program

append_backward = fluid.backward.append_backward

fluid.default_startup_program().random_seed = 1


class TestDyRnnStaticInput(unittest.TestCase):
    def setUp(self):
        np.random.seed(2024)
        fluid.default_startup_program().random_seed = 1
        self._delta = 0.005
        self._max_sequence_len = 3
        self._program = Program()
        switch_main_program(self._program)
        self.output_dim = 10
        self.place = fluid.CPUPlace()
        self.prepare_x_tensor()
        self.prepare_static_input_tensor()
        self.exe = fluid.Executor(self.place)

    def prepare_x_tensor(self):
        self.x_tensor_dim = 10
        lod = [[2, 1, 3]]
        shape = [sum(lod[0]), self.x_tensor_dim]
        self.x_tensor_data = np.random.random(shape).astype('float32')
        self.x_tensor = fluid.LoDTensor()
        self.x_tensor.set_recursive_sequence_lengths(lod)
        self.x_tensor.set(self.x_tensor_data, self.place)

    def prepare_static_input_tensor(self):
        self.static_input_tensor_dim = 4
        lod = [[1, 2, 3]]
        shape = [sum(lod[0]), self.static_input_tensor_dim]
        self.static_input_data = np.random.random(shape).astype('float32')
        self.static_input_tensor = fluid.LoDTensor()
        self.static_input_tensor.set_recursive_sequence_lengths(lod)
        self.static_input_tensor.set(self.static_input_data, self.place)

    def fetch_value(self, var):
        fetch_outs = self.exe.run(feed={'x_tensor': self.x_tensor,
                                        'static_input_tensor': self.static_input_tensor},
                                  fetch_list=[var], return_numpy=False)
        return self._lodtensor_to_ndarray(fetch_outs[0])

    def _lodtensor_to_ndarray(self, lod_tensor):
        ndarray = np.array(lod_tensor).astype('float32').reshape(lod_tensor.shape())
        return ndarray, lod_tensor.recursive_sequence_lengths()

    def build_graph(self, only_forward=False):
        x_tensor = fluid.layers.data(name='x_tensor', shape=[self.x_tensor_dim],
                                     dtype='float32', lod_level=1)
        x_tensor.stop_gradient = False

        static_input_tensor = fluid.layers.data(name='static_input_tensor',
                                                shape=[self.static_input_tensor_dim],
                                                dtype='float32', lod_level=1)
        static_input_tensor.stop_gradient = False

        if only_forward:
            static_input_out_array = self._program.global_block().create_var(
                name='static_input_out_array', type=fluid.VarType.LOD_TENSOR_ARRAY,
                dtype='float32')
            static_input_out_array.stop_gradient = True

        rnn = fluid.layers.DynamicRNN()
        with rnn.block():
            step_x = rnn.step_input(x_tensor)
            step_static_input = rnn.static_input(static_input_tensor)
            if only_forward:
                fluid.layers.array_write(x=step_static_input, i=rnn.step_idx,
                                         array=static_input_out_array)
            last = fluid.layers.sequence_pool(input=step_static_input, pool_type='last')
            projected = fluid.layers.fc(input=[step_x, last], size=self.output_dim)
            rnn.output(projected)

        if only_forward:
            static_input_step_outs = []
            step_idx = fluid.layers.fill_constant(shape=[1], dtype='int64', value=0)
            step_idx.stop_gradient = True

            for i in range(self._max_sequence_len):
                step_out = fluid.layers.array_read(static_input_out_array, step_idx)
                step_out.stop_gradient = True
                static_input_step_outs.append(step_out)
                fluid.layers.increment(x=step_idx, value=1.0, in_place=True)

        if only_forward:
            return static_input_step_outs

        last = fluid.layers.sequence_pool(input=rnn(), pool_type='last')
        loss = fluid.layers.mean(last)
        append_backward(loss)
        static_input_grad = self._program.global_block().var('static_input_tensor@GRAD')
        return static_input_grad, loss

    def get_expected_static_step_outs(self):
        x_lod = self.x_tensor.recursive_sequence_lengths()
        x_seq_len = x_lod[0]
        x_seq_len_sorted = sorted(x_seq_len)
        x_sorted_indices = np.argsort(x_seq_len)[::-1]

        static_lod = self.static_input_tensor.recursive_sequence_lengths()
        static_sliced = []
        cur_offset = 0
        for i in range(len(static_lod[0])):
            static_sliced.append(
                self.static_input_data[cur_offset:(cur_offset + static_lod[0][i])])
            cur_offset += static_lod[0][i]
        static_seq_len = static_lod[0]
        static_reordered = []
        for i in range(len(x_sorted_indices)):
            static_reordered.extend(static_sliced[x_sorted_indices[i]].tolist())
        static_seq_len_reordered = [static_seq_len[x_sorted_indices[i]]
                                    for i in range(len(x_sorted_indices))]

        static_step_outs = []
        static_step_lods = []

        for i in range(self._max_sequence_len):
            end = len(x_seq_len) - bisect.bisect_left(x_seq_len_sorted, i + 1)
            lod = []
            total_len = 0
            for i in range(end):
                lod.append(static_seq_len_reordered[i])
                total_len += lod[-1]
            static_step_lods.append([lod])
            end = total_len
            static_step_outs.append(np.array(static_reordered[:end]).astype('float32'))

        return static_step_outs, static_step_lods

    def test_step_out(self):
        static_step_outs = self.build_graph(only_forward=True)
        self.exe.run(framework.default_startup_program())
        expected_outs, expected_lods = self.get_expected_static_step_outs()
        for i in range(self._max_sequence_len):
            step_out, lod = self.fetch_value(static_step_outs[i])
            self.assertTrue(np.allclose(step_out, expected_outs[i]))
            self.assertTrue(np.allclose(lod, expected_lods[i]))

    def test_network_gradient(self):
        static_input_grad, loss = self.build_graph()
        self.exe.run(framework.default_startup_program())

        actual_gradients, actual_lod = self.fetch_value(static_input_grad)

        static_input_shape = self.static_input_tensor.shape()
        numeric_gradients = np.zeros(shape=static_input_shape).astype('float32')
        # calculate numeric gradients
        tensor_size = np.prod(static_input_shape)
        data = np.array(self.static_input_tensor)
        for i in range(tensor_size):
            origin = data.ravel()[i]
            data.ravel()[i] = origin + self._delta
            self.static_input_tensor.set(data, self.place)
            y_pos = self.fetch_value(loss)[0][0]
            data.ravel()[i] = origin - self._delta
            self.static_input_tensor.set(data, self.place)
            y_neg = self.fetch_value(loss)[0][0]
            data.ravel()[i] = origin
            self.static_input_tensor.set(data, self.place)
            numeric_gradients.ravel()[i] = (y_pos - y_neg) / self._delta / 2
        self.assertTrue(np.allclose(actual_gradients, numeric_gradients, 0.001))
        self.assertTrue(np.allclose(actual_lod,
                                    self.static_input_tensor.recursive_sequence_lengths()))


if __name__ == '__main__':
    unittest.main()
