"""Port of Paddle's test_inference_model_io.py, 2.x version
(python/paddle/fluid/tests/unittests/test_inference_model_io.py; the current
test/legacy_test version only tests PIR's .json / .pdmodel fallback).

Written in the 2.x API Paddle 3.x still has: fluid.io.save_inference_model(dirname, names, ...)
-> paddle.static.save_inference_model(path_prefix, vars, ...); the "unified model" of TestBook
(model_filename='model', params_filename='params' + save_persistables(filename=None) buffers) is
paddle.static.serialize_program / serialize_persistables, loaded back with
load_inference_model(None, exe, model_filename=<bytes>, params_filename=<bytes>).
Dropped: Program._prune_with_input and importlib.reload(executor) (internals; a fresh Scope is
used instead of the reload), CompiledProgram.with_data_parallel (removed from Paddle: the plain
CompiledProgram is saved), paddle.static.io._get_valid_program and _serialize_persistables
(private).
"""
import os
import tempfile
import unittest
import warnings

import numpy as np

import fluidc as paddle

paddle.enable_static()


class InferModel:
    def __init__(self, result):
        self.program, self.feed_var_names, self.fetch_vars = result


def build_fit_a_line(with_sgd, startup):
    x = paddle.static.data(name='x', shape=[None, 2], dtype='float32')
    y = paddle.static.data(name='y', shape=[None, 1], dtype='float32')
    y_predict = paddle.static.nn.fc(x=x, size=1, activation=None)
    cost = paddle.nn.functional.square_error_cost(input=y_predict, label=y)
    avg_cost = paddle.mean(cost)
    if with_sgd:
        paddle.optimizer.SGD(learning_rate=0.001).minimize(avg_cost, startup)
    return x, y, avg_cost


class TestBook(unittest.TestCase):
    def test_fit_line_inference_model(self):
        root_path = tempfile.TemporaryDirectory()
        model_prefix = os.path.join(root_path.name, "inference_model")
        init_program, program = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(program, init_program):
            x, y, avg_cost = build_fit_a_line(True, init_program)

        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(init_program, feed={}, fetch_list=[])
        tensor_x = np.array([[1, 1], [1, 2], [3, 4], [5, 2]]).astype("float32")
        tensor_y = np.array([[-2], [-3], [-7], [-7]]).astype("float32")
        for _ in range(100):
            exe.run(program, feed={'x': tensor_x, 'y': tensor_y}, fetch_list=[avg_cost])

        # a model on disk, and the same model as in-memory buffers
        paddle.static.save_inference_model(model_prefix, [x, y], [avg_cost], exe,
                                           program=program)
        model_str = paddle.static.serialize_program([x, y], [avg_cost], program=program)
        params_str = paddle.static.serialize_persistables([x, y], [avg_cost], exe,
                                                          program=program)
        expected = exe.run(program, feed={'x': tensor_x, 'y': tensor_y},
                           fetch_list=[avg_cost])[0]

        with paddle.static.scope_guard(paddle.static.Scope()):  # a fresh scope
            model_0 = InferModel(paddle.static.load_inference_model(model_prefix, exe))
            model_1 = InferModel(paddle.static.load_inference_model(
                None, exe, model_filename=model_str, params_filename=params_str))
            for model in (model_0, model_1):
                outs = exe.run(model.program,
                               feed={model.feed_var_names[0]: tensor_x,
                                     model.feed_var_names[1]: tensor_y},
                               fetch_list=model.fetch_vars)
                self.assertEqual(model.feed_var_names, ["x", "y"])
                self.assertEqual(len(model.fetch_vars), 1)
                self.assertEqual(expected, outs[0])
        root_path.cleanup()
        # a model buffer without its params buffer
        self.assertRaises(ValueError, paddle.static.load_inference_model, None, exe,
                          model_filename=model_str, params_filename=None)


class TestSaveInferenceModel(unittest.TestCase):
    def test_save_inference_model(self):
        root_path = tempfile.TemporaryDirectory()
        model_prefix = os.path.join(root_path.name, "inference_model2")
        init_program, program = paddle.static.Program(), paddle.static.Program()
        # a program without feed/fetch ops
        with paddle.static.program_guard(program, init_program):
            x, y, avg_cost = build_fit_a_line(False, init_program)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(init_program, feed={}, fetch_list=[])
        paddle.static.save_inference_model(model_prefix, [x, y], [avg_cost], exe,
                                           program=program)
        root_path.cleanup()

    def test_save_inference_model_with_auc(self):
        root_path = tempfile.TemporaryDirectory()
        model_prefix = os.path.join(root_path.name, "inference_model4")
        init_program, program = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(program, init_program):
            x = paddle.static.data(name='x', shape=[None, 2], dtype='float32')
            y = paddle.static.data(name='y', shape=[None, 1], dtype='int32')
            predict = paddle.static.nn.fc(x=x, size=2, activation='softmax')
            paddle.static.accuracy(input=predict, label=y)
            paddle.static.auc(input=predict, label=y)
            cost = paddle.nn.functional.cross_entropy(input=predict, label=y,
                                                      reduction='none', use_softmax=False)
            avg_cost = paddle.mean(x=cost)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(init_program, feed={}, fetch_list=[])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            paddle.static.save_inference_model(model_prefix, [x, y], [avg_cost], exe,
                                               program=program)
            root_path.cleanup()
            self.assertTrue(len(w) > 0)
            # Paddle 2.x: "please ensure that you have set the auc states to zeros before
            # saving inference model"; Paddle 3.x reworded it ("Be sure that you have set auc
            # states to 0 ..."): check the words both share
            self.assertTrue(any('auc states' in str(m.message) and
                                'before saving inference model' in str(m.message) for m in w))


class TestInstance(unittest.TestCase):
    def test_save_inference_model(self):
        root_path = tempfile.TemporaryDirectory()
        model_prefix = os.path.join(root_path.name, "inference_model3")
        init_program, program = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(program, init_program):
            x, y, avg_cost = build_fit_a_line(False, init_program)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(init_program, feed={}, fetch_list=[])
        cp_prog = paddle.static.CompiledProgram(program)
        paddle.static.save_inference_model(model_prefix, [x, y], [avg_cost], exe,
                                           program=cp_prog)
        # all arguments packed in one list
        self.assertRaises(TypeError, paddle.static.save_inference_model,
                          [model_prefix, [x, y], [avg_cost], [], cp_prog])
        root_path.cleanup()


class TestSaveInferenceModelNew(unittest.TestCase):
    def _train(self):
        init_program = paddle.static.default_startup_program()
        program = paddle.static.default_main_program()
        with paddle.static.program_guard(program, init_program):
            x, y, avg_cost = build_fit_a_line(True, init_program)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(init_program, feed={}, fetch_list=[])
        tensor_x = np.array([[1, 1], [1, 2], [5, 2]]).astype("float32")
        tensor_y = np.array([[-2], [-3], [-7]]).astype("float32")
        for _ in range(3):
            exe.run(program, feed={'x': tensor_x, 'y': tensor_y}, fetch_list=[avg_cost])
        return program, exe, x, y, avg_cost, tensor_x, tensor_y

    def test_save_and_load_inference_model(self):
        root_path = tempfile.TemporaryDirectory()
        model_dir = os.path.join(root_path.name, "inference_model5")
        program, exe, x, y, avg_cost, tensor_x, tensor_y = self._train()
        save = paddle.static.save_inference_model
        self.assertRaises(ValueError, save, None, ['x', 'y'], [avg_cost], exe)
        self.assertRaises(ValueError, save, model_dir + "/", [x, y], [avg_cost], exe)
        self.assertRaises(ValueError, save, model_dir, ['x', 'y'], [avg_cost], exe)
        self.assertRaises(ValueError, save, model_dir, 'x', [avg_cost], exe)
        self.assertRaises(ValueError, save, model_dir, [x, y], ['avg_cost'], exe)
        self.assertRaises(ValueError, save, model_dir, [x, y], 'avg_cost', exe)
        # the .pdmodel path is a directory
        model_path = model_dir + "_isdir.pdmodel"
        os.makedirs(model_path)
        self.assertRaises(ValueError, save, model_dir + "_isdir", [x, y], [avg_cost], exe)
        os.rmdir(model_path)

        save(model_dir, [x, y], [avg_cost], exe)
        self.assertTrue(os.path.exists(model_dir + ".pdmodel"))
        self.assertTrue(os.path.exists(model_dir + ".pdiparams"))
        expected = exe.run(program, feed={'x': tensor_x, 'y': tensor_y},
                           fetch_list=[avg_cost])[0]

        load = paddle.static.load_inference_model
        self.assertRaises(ValueError, load, None, exe)
        self.assertRaises(ValueError, load, model_dir + "/", exe)
        self.assertRaises(ValueError, load, [model_dir], exe)
        self.assertRaises(ValueError, load, model_dir, exe, pserver_endpoints=None)
        self.assertRaises(ValueError, load, model_dir, exe, unsupported_param=None)
        self.assertRaises((TypeError, ValueError), load, None, exe,
                          model_filename="illegal", params_filename="illegal")

        with paddle.static.scope_guard(paddle.static.Scope()):
            model = InferModel(load(model_dir, exe))
            root_path.cleanup()
            outs = exe.run(model.program,
                           feed={model.feed_var_names[0]: tensor_x,
                                 model.feed_var_names[1]: tensor_y},
                           fetch_list=model.fetch_vars)
        self.assertEqual(model.feed_var_names, ["x", "y"])
        self.assertEqual(len(model.fetch_vars), 1)
        self.assertEqual(expected, outs[0])
        # save_to_file wants bytes
        self.assertRaises(ValueError, paddle.static.save_to_file, '', 123)

    def test_serialize_program_and_persistables(self):
        program, exe, x, y, avg_cost, _, _ = self._train()
        res1 = paddle.static.serialize_program([x, y], [avg_cost])
        self.assertTrue(isinstance(res1, bytes))
        res2 = paddle.static.serialize_persistables([x, y], [avg_cost], exe)
        self.assertTrue(isinstance(res2, bytes))
        self.assertRaises(TypeError, paddle.static.deserialize_persistables, None, None, None)

    def test_normalize_program(self):
        program, exe, x, y, avg_cost, _, _ = self._train()
        res = paddle.static.normalize_program(program, [x, y], [avg_cost])
        self.assertTrue(isinstance(res, paddle.static.Program))
        self.assertRaises(TypeError, paddle.static.normalize_program, None, [x, y], [avg_cost])
        self.assertRaises(TypeError, paddle.static.normalize_program, program, 'x', [avg_cost])
        self.assertRaises(TypeError, paddle.static.normalize_program, program, [x, y],
                          'avg_cost')


class TestLoadInferenceModelError(unittest.TestCase):
    def test_load_model_not_exist(self):
        exe = paddle.static.Executor(paddle.CPUPlace())
        # Paddle 3.3.1 raises FileNotFoundError (an OSError) on legacy programs, ValueError on PIR
        self.assertRaises((ValueError, OSError), paddle.static.load_inference_model,
                          './test_not_exist_dir', exe)


if __name__ == '__main__':
    unittest.main()
