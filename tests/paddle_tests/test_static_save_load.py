"""Port of Paddle test/legacy_test/test_static_save_load.py (static-graph cases).

run-on-paddle: pir  (Paddle 3.3.1 builds the PtbModel's paddle.matmul / tanh / sigmoid / sum only
on PIR programs; the `in_pir_mode()` branches are Paddle's own and are not taken on fluidc.)

The PtbModel / SimpleLSTMRNN are Paddle's paddle.nn.Layer classes used in static mode, as in
Paddle. Paddle's five PtbModel cases repeat the same training and check loops verbatim; here the
loops are the helpers _train_ptb / _zero_persistables / _check_restored, called by each case.
Changes: x.desc.set_need_check_feed(False) (an internal) is dropped, so the data vars are
declared with the shapes and dtypes Paddle's cases feed (x [-1, num_steps, 1] int64, y [-1, 1]
int64, init_hidden / init_cell [num_layers, -1, hidden_size]); test_imperative_base's
new_program_scope is written out below; CUDA places dropped (CPU only).
TestVariableInit: core._create_loaded_parameter / libpaddle.pir.create_loaded_parameter and the
place probing of set_var are internals; the new scope's vars are made with Scope.var and set with
LoDTensor.set(array, CPUPlace()) instead; the check (pickle.load of the .pdparams / .pdopt files,
every parameter and optimizer var found and equal) is kept.
"""
import contextlib
import os
import pickle
import tempfile
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

from_pir = paddle.framework.in_pir_mode

paddle.enable_static()


@contextlib.contextmanager
def new_program_scope():
    with paddle.static.scope_guard(paddle.static.Scope()), fluid.unique_name.guard(), \
            paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        yield


class SimpleLSTMRNN(paddle.nn.Layer):
    def __init__(self, name_scope, hidden_size, num_steps, num_layers=2, init_scale=0.1,
                 dropout=None):
        super().__init__()
        self._hidden_size = hidden_size
        self._num_layers = num_layers
        self._init_scale = init_scale
        self._dropout = dropout
        self._input = None
        self._num_steps = num_steps
        self.cell_array = []
        self.hidden_array = []

        self.weight_1_arr = []
        self.weight_2_arr = []
        self.bias_arr = []
        self.mask_array = []

        for i in range(self._num_layers):
            weight_1 = self.create_parameter(
                attr=fluid.ParamAttr(initializer=paddle.nn.initializer.Uniform(
                    low=-self._init_scale, high=self._init_scale)),
                shape=[self._hidden_size * 2, self._hidden_size * 4],
                dtype="float32",
                default_initializer=paddle.nn.initializer.Uniform(
                    low=-self._init_scale, high=self._init_scale))
            self.weight_1_arr.append(self.add_parameter(f'w_{i}', weight_1))
            bias_1 = self.create_parameter(
                attr=fluid.ParamAttr(initializer=paddle.nn.initializer.Uniform(
                    low=-self._init_scale, high=self._init_scale)),
                shape=[self._hidden_size * 4],
                dtype="float32",
                default_initializer=paddle.nn.initializer.Constant(0.0))
            self.bias_arr.append(self.add_parameter(f'b_{i}', bias_1))

    def forward(self, input_embedding, init_hidden=None, init_cell=None):
        self.cell_array = []
        self.hidden_array = []

        for i in range(self._num_layers):
            pre_hidden = paddle.slice(init_hidden, axes=[0], starts=[i], ends=[i + 1])
            pre_cell = paddle.slice(init_cell, axes=[0], starts=[i], ends=[i + 1])
            pre_hidden = paddle.reshape(pre_hidden, shape=[-1, self._hidden_size])
            pre_cell = paddle.reshape(pre_cell, shape=[-1, self._hidden_size])
            self.hidden_array.append(pre_hidden)
            self.cell_array.append(pre_cell)

        res = []
        for index in range(self._num_steps):
            self._input = paddle.slice(input_embedding, axes=[1], starts=[index],
                                       ends=[index + 1])
            self._input = paddle.reshape(self._input, shape=[-1, self._hidden_size])
            for k in range(self._num_layers):
                pre_hidden = self.hidden_array[k]
                pre_cell = self.cell_array[k]
                weight_1 = self.weight_1_arr[k]
                bias = self.bias_arr[k]

                nn = paddle.concat([self._input, pre_hidden], 1)
                gate_input = paddle.matmul(x=nn, y=weight_1)

                gate_input = paddle.add(gate_input, bias)
                i, j, f, o = paddle.split(gate_input, num_or_sections=4, axis=-1)
                c = pre_cell * paddle.nn.functional.sigmoid(f) + \
                    paddle.nn.functional.sigmoid(i) * paddle.tanh(j)
                m = paddle.tanh(c) * paddle.nn.functional.sigmoid(o)
                self.hidden_array[k] = m
                self.cell_array[k] = c
                self._input = m

                if self._dropout is not None and self._dropout > 0.0:
                    self._input = paddle.nn.functional.dropout(
                        self._input, p=self._dropout, mode='upscale_in_train')
            res.append(paddle.reshape(self._input, shape=[1, -1, self._hidden_size]))
        real_res = paddle.concat(res, 0)
        real_res = paddle.transpose(x=real_res, perm=[1, 0, 2])
        last_hidden = paddle.concat(self.hidden_array, 1)
        last_hidden = paddle.reshape(last_hidden,
                                     shape=[-1, self._num_layers, self._hidden_size])
        last_hidden = paddle.transpose(x=last_hidden, perm=[1, 0, 2])
        last_cell = paddle.concat(self.cell_array, 1)
        last_cell = paddle.reshape(last_cell, shape=[-1, self._num_layers, self._hidden_size])
        last_cell = paddle.transpose(x=last_cell, perm=[1, 0, 2])
        return real_res, last_hidden, last_cell


class PtbModel(paddle.nn.Layer):
    def __init__(self, name_scope, hidden_size, vocab_size, num_layers=2, num_steps=20,
                 init_scale=0.1, dropout=None):
        super().__init__()
        self.hidden_size = hidden_size
        self.vocab_size = vocab_size
        self.init_scale = init_scale
        self.num_layers = num_layers
        self.num_steps = num_steps
        self.dropout = dropout
        self.simple_lstm_rnn = SimpleLSTMRNN(self.full_name(), hidden_size, num_steps,
                                             num_layers=num_layers, init_scale=init_scale,
                                             dropout=dropout)
        self.embedding = paddle.nn.Embedding(
            num_embeddings=vocab_size,
            embedding_dim=hidden_size,
            weight_attr=fluid.ParamAttr(
                name='embedding_para',
                initializer=paddle.nn.initializer.Uniform(low=-init_scale, high=init_scale)))
        self.softmax_weight = self.create_parameter(
            attr=fluid.ParamAttr(),
            shape=[self.hidden_size, self.vocab_size],
            dtype="float32",
            default_initializer=paddle.nn.initializer.Uniform(low=-self.init_scale,
                                                              high=self.init_scale))
        self.softmax_bias = self.create_parameter(
            attr=fluid.ParamAttr(),
            shape=[self.vocab_size],
            dtype="float32",
            default_initializer=paddle.nn.initializer.Uniform(low=-self.init_scale,
                                                              high=self.init_scale))

    def forward(self, input, label, init_hidden, init_cell):
        init_h = paddle.reshape(init_hidden, shape=[self.num_layers, -1, self.hidden_size])
        init_c = paddle.reshape(init_cell, shape=[self.num_layers, -1, self.hidden_size])

        # NPU 'tok_k' kernel only support `int32` dtype, so cast `input` from `int64` to `int32`.
        input = paddle.cast(input, "int32")
        x_emb = self.embedding(input)
        x_emb = paddle.reshape(x_emb, shape=[-1, self.num_steps, self.hidden_size])
        if self.dropout is not None and self.dropout > 0.0:
            x_emb = paddle.nn.functional.dropout(x_emb, p=self.drop_out,
                                                 mode='upscale_in_train')
        rnn_out, last_hidden, last_cell = self.simple_lstm_rnn(x_emb, init_h, init_c)

        rnn_out = paddle.reshape(rnn_out, shape=[-1, self.num_steps, self.hidden_size])
        projection = paddle.matmul(rnn_out, self.softmax_weight)
        projection = paddle.add(projection, self.softmax_bias)
        projection = paddle.reshape(projection, shape=[-1, self.vocab_size])
        loss = paddle.nn.functional.softmax_with_cross_entropy(logits=projection, label=label,
                                                               soft_label=False)
        loss = paddle.reshape(loss, shape=[-1, self.num_steps])
        loss = paddle.mean(loss, axis=[0])
        loss = paddle.sum(loss)

        return loss, last_hidden, last_cell


def _persistables(program):
    """Paddle's loop filter: parameters and persistable vars (not PIR's fetch outputs)."""
    for var in program.list_vars():
        if isinstance(var, fluid.framework.Parameter) or var.persistable:
            if from_pir() and var.get_defining_op().name() == "pd_op.fetch":
                continue
            yield var


def _train_ptb(test, with_test_program=False):
    """Builds the PtbModel, trains it batch_num steps with Adam and returns
    (main_program, test_program, base_map of every persistable, place, exe); the caller has
    entered new_program_scope()."""
    seed = 90
    hidden_size = 10
    vocab_size = 1000
    num_layers = 1
    num_steps = 3
    init_scale = 0.1
    batch_size = 4
    batch_num = 200

    paddle.seed(seed)
    ptb_model = PtbModel("ptb_model", hidden_size=hidden_size, vocab_size=vocab_size,
                         num_layers=num_layers, num_steps=num_steps, init_scale=init_scale)

    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    sgd = paddle.optimizer.Adam(learning_rate=1e-3)
    x = paddle.static.data(name="x", shape=[-1, num_steps, 1], dtype='int64')
    y = paddle.static.data(name="y", shape=[-1, 1], dtype='int64')
    init_hidden = paddle.static.data(name="init_hidden", shape=[num_layers, -1, hidden_size],
                                     dtype='float32')
    init_cell = paddle.static.data(name="init_cell", shape=[num_layers, -1, hidden_size],
                                   dtype='float32')

    static_loss, static_last_hidden, static_last_cell = ptb_model(x, y, init_hidden, init_cell)

    test_program = None
    if with_test_program:
        if from_pir():
            test_program = paddle.static.default_main_program().clone()
        else:
            test_program = paddle.static.default_main_program().clone(for_test=True)

    sgd.minimize(static_loss)

    exe.run(paddle.static.default_startup_program())

    for i in range(batch_num):
        x_data = np.arange(12).reshape(4, 3).astype('int64')
        y_data = np.arange(1, 13).reshape(4, 3).astype('int64')
        x_data = x_data.reshape((-1, num_steps, 1))
        y_data = y_data.reshape((-1, 1))
        init_hidden_data = np.zeros((num_layers, batch_size, hidden_size), dtype='float32')
        init_cell_data = np.zeros((num_layers, batch_size, hidden_size), dtype='float32')
        fetch_list = [static_loss, static_last_hidden, static_last_cell]
        exe.run(paddle.static.default_main_program(),
                feed={"x": x_data, "y": y_data, "init_hidden": init_hidden_data,
                      "init_cell": init_cell_data},
                fetch_list=fetch_list)

    # get value before save
    main_program = paddle.static.default_main_program()
    base_map = {}
    for var in _persistables(main_program):
        t = np.array(fluid.global_scope().find_var(var.name).get_tensor())
        # make sure all the parameter or optimizer var have been update
        test.assertTrue(np.sum(np.abs(t)) != 0)
        base_map[var.name] = t
    return main_program, test_program, base_map, place, exe


def _zero_persistables(test, program, place):
    for var in _persistables(program):
        ten = fluid.global_scope().find_var(var.name).get_tensor()
        ten.set(np.zeros_like(np.array(ten)), place)

        new_t = np.array(fluid.global_scope().find_var(var.name).get_tensor())
        # make sure all the parameter or optimizer var have been set to zero
        test.assertTrue(np.sum(np.abs(new_t)) == 0)


def _check_restored(program, base_map):
    for var in _persistables(program):
        new_t = np.array(fluid.global_scope().find_var(var.name).get_tensor())
        base_t = base_map[var.name]
        np.testing.assert_array_equal(new_t, base_t)


class TestSaveLoadBase(unittest.TestCase):
    def test_ptb_rnn_cpu_float32(self):
        temp_dir = tempfile.TemporaryDirectory()
        with new_program_scope():
            main_program, _, base_map, place, exe = _train_ptb(self)
            paddle.static.save(main_program, os.path.join(temp_dir.name, "test_1"))
            _zero_persistables(self, main_program, place)
            paddle.static.load(main_program, os.path.join(temp_dir.name, "test_1.pdparams"), exe)
            _check_restored(main_program, base_map)
            temp_dir.cleanup()


class TestSaveLoadPartial(unittest.TestCase):
    def test_ptb_rnn_cpu_float32(self):
        temp_dir = tempfile.TemporaryDirectory()
        with new_program_scope():
            main_program, test_program, base_map, place, exe = _train_ptb(self, True)
            paddle.static.save(main_program, os.path.join(temp_dir.name, "test_1"))
            # set var to zero
            _zero_persistables(self, main_program, place)
            paddle.static.load(test_program, os.path.join(temp_dir.name, "test_1.pdopt"), None)
            _check_restored(test_program, base_map)
            paddle.static.load(test_program, os.path.join(temp_dir.name, "test_1.pdmodel"),
                               None)
            temp_dir.cleanup()


class TestSaveLoadSetStateDict(unittest.TestCase):
    def test_ptb_rnn_cpu_float32(self):
        temp_dir = tempfile.TemporaryDirectory()
        with new_program_scope():
            main_program, _, base_map, place, exe = _train_ptb(self)
            paddle.static.save(main_program, os.path.join(temp_dir.name, "test_1"))
            # set var to zero
            _zero_persistables(self, main_program, place)
            paddle.static.load(main_program, os.path.join(temp_dir.name, "test_1"), exe)
            _check_restored(main_program, base_map)
            temp_dir.cleanup()


class TestProgramStatePartial(unittest.TestCase):
    def test_ptb_rnn_cpu_float32(self):
        temp_dir = tempfile.TemporaryDirectory()
        with new_program_scope():
            main_program, test_program, base_map, place, exe = _train_ptb(self, True)
            paddle.static.save(main_program, os.path.join(temp_dir.name, 'test_1'))
            # set var to zero
            _zero_persistables(self, main_program, place)

            program_state = paddle.static.load_program_state(
                os.path.join(temp_dir.name, 'test_1'))
            program_state_1 = paddle.static.load_program_state(
                os.path.join(temp_dir.name, 'test_1.pdparams'))
            program_state_2 = paddle.static.load_program_state(
                os.path.join(temp_dir.name, 'test_1.pdopt'))
            program_state_3 = paddle.static.load_program_state(
                os.path.join(temp_dir.name, 'test_1.pdmodel'))

            paddle.static.set_program_state(test_program, program_state)
            _check_restored(test_program, base_map)

            # check 1
            _zero_persistables(self, main_program, place)
            paddle.static.set_program_state(test_program, program_state_1)
            _check_restored(test_program, base_map)

            # check 2
            _zero_persistables(self, main_program, place)
            paddle.static.set_program_state(test_program, program_state_2)
            _check_restored(test_program, base_map)

            # check 3
            _zero_persistables(self, main_program, place)
            paddle.static.set_program_state(test_program, program_state_3)
            _check_restored(test_program, base_map)
            temp_dir.cleanup()


class TestVariableInit(unittest.TestCase):
    def test_variable_init(self):
        x = paddle.static.data(name="x", shape=[10, 10], dtype='float32')
        y = paddle.static.nn.fc(x, 10)
        z = paddle.static.nn.fc(y, 10)

        place = fluid.CPUPlace()
        exe = fluid.Executor(place)
        exe.run(paddle.static.default_startup_program())

        temp_dir = tempfile.TemporaryDirectory()
        paddle.static.save(paddle.static.default_main_program(),
                           os.path.join(temp_dir.name, "test_path"))

        def set_var(var, ndarray):
            var.get_tensor().set(ndarray, fluid.CPUPlace())

        program = paddle.static.default_main_program()
        new_scope = fluid.core.Scope()

        if from_pir():
            parameter_list = [var for var in program.list_vars()
                              if var.is_parameter and var.persistable]
        else:
            parameter_list = list(filter(paddle.framework.is_parameter, program.list_vars()))
        for v in parameter_list:
            new_scope.var(v.name)
        parameter_file_name = os.path.join(temp_dir.name, "test_path.pdparams")
        with open(parameter_file_name, 'rb') as f:
            load_dict = pickle.load(f)

        for v in parameter_list:
            assert v.name in load_dict, \
                f"Can not find [{v.name}] in model file [{parameter_file_name}]"
            new_v = new_scope.find_var(v.name)
            set_var(new_v, load_dict[v.name])

        if from_pir():
            opt_list = [var for var in program.list_vars()
                        if var.persistable and not var.is_parameter]
        else:
            opt_list = list(filter(paddle.framework.io_utils.is_belong_to_optimizer,
                                   program.list_vars()))
        for v in opt_list:
            new_scope.var(v.name)
        opt_file_name = os.path.join(temp_dir.name, "test_path.pdopt")
        with open(opt_file_name, 'rb') as f:
            load_dict = pickle.load(f)

        for v in opt_list:
            assert v.name in load_dict, f"Can not find [{v.name}] in model file [{opt_file_name}]"
            new_v = new_scope.find_var(v.name)
            set_var(new_v, load_dict[v.name])

        base_map = {}
        for var in program.list_vars():
            if isinstance(var, fluid.framework.Parameter) or var.persistable:
                t = np.array(fluid.global_scope().find_var(var.name).get_tensor())
                # make sure all the parameter or optimizer var have been update
                base_map[var.name] = t

        for var in program.list_vars():
            if isinstance(var, fluid.framework.Parameter) or var.persistable:
                new_t = np.array(new_scope.find_var(var.name).get_tensor())
                base_t = base_map[var.name]
                np.testing.assert_array_equal(new_t, base_t)
        temp_dir.cleanup()


class TestStaticSaveLoadPickle(unittest.TestCase):
    def test_pickle_protocol(self):
        # enable static graph mode
        paddle.enable_static()

        with new_program_scope():
            # create network
            x = paddle.static.data(name="static_save_load_large_x", shape=[None, 10],
                                   dtype='float32')
            z = paddle.static.nn.fc(x, 10, bias_attr=False)
            place = paddle.CPUPlace()
            exe = paddle.static.Executor(place)
            exe.run(paddle.static.default_startup_program())
            prog = paddle.static.default_main_program()

            base_map = {}
            for var in prog.list_vars():
                if isinstance(var, fluid.framework.Parameter) or var.persistable:
                    t = np.array(fluid.global_scope().find_var(var.name).get_tensor())
                    # make sure all the parameter or optimizer var have been update
                    self.assertTrue(np.sum(np.abs(t)) != 0)
                    base_map[var.name] = t

            temp_dir = tempfile.TemporaryDirectory()
            path = os.path.join(temp_dir.name, "test_static_save_load_pickle", "pickle_protocol")

            with self.assertRaises(ValueError):
                paddle.static.save(prog, path, 2.0)

            with self.assertRaises(ValueError):
                paddle.static.save(prog, path, 1)

            with self.assertRaises(ValueError):
                paddle.static.save(prog, path, 5)

            protocols = [2, 3, 4]
            for protocol in protocols:
                paddle.static.save(prog, path, protocol)
                # set var to zero
                _zero_persistables(self, prog, place)
                paddle.static.load(prog, path)
                _check_restored(prog, base_map)


class TestSaveLoadInferenceModel(unittest.TestCase):
    def setUp(self):
        self.temp_dir = tempfile.TemporaryDirectory()
        self.model_path = os.path.join(self.temp_dir.name, 'no_params')

    def tearDown(self):
        self.temp_dir.cleanup()

    def test_no_params(self):
        main_program = paddle.static.Program()
        with paddle.static.program_guard(main_program):
            x = paddle.static.data(name="x", shape=[10, 10], dtype='float32')
            y = x + x

            place = paddle.CPUPlace()
            exe = paddle.static.Executor(place)

            paddle.static.save_inference_model(self.model_path, [x], [y], exe)

            [inference_program, feed_target_names, fetch_targets] = \
                paddle.static.load_inference_model(self.model_path, exe)

            self.assertEqual(feed_target_names, ['x'])
            if from_pir():
                self.assertEqual(fetch_targets[0].shape, [10, 10])
                ops = [op.name() for op in inference_program.global_block().ops]
                self.assertEqual(ops, ['pd_op.data', 'pd_op.add', 'pd_op.fetch'])
            else:
                self.assertEqual(fetch_targets[0].shape, (10, 10))
                ops = [op.type for op in inference_program.block(0).ops]
                self.assertEqual(ops, ['feed', 'elementwise_add', 'fetch'])


if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
