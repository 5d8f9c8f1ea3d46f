"""Port of Paddle test/legacy_test/test_io_save_load.py.

Dropped: test_get_valid_program_error (private paddle.static.io._get_valid_program on a
core.Graph), TestWhenTrainWithNoGrad (dygraph: paddle.jit.to_static / jit.save / jit.load).
"""
import os
import tempfile
import unittest

import fluidc as paddle

paddle.enable_static()


class TestSaveLoadAPIError(unittest.TestCase):
    def setUp(self):
        self.temp_dir = tempfile.TemporaryDirectory()
        self.save_dir = os.path.join(self.temp_dir.name, "fake_dir")

    def tearDown(self):
        self.temp_dir.cleanup()

    def test_load_vars_error(self):
        exe = paddle.static.Executor(paddle.CPUPlace())
        # main_program of the wrong type, without vars
        with self.assertRaises(TypeError):
            paddle.static.load_vars(executor=exe, dirname=self.save_dir, main_program="program")
        # and with vars
        with self.assertRaises(TypeError):
            paddle.static.load_vars(executor=exe, dirname=self.save_dir, main_program="program",
                                    vars="vars")


class TestSaveInferenceModelAPIError(unittest.TestCase):
    def setUp(self):
        self.temp_dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.temp_dir.cleanup()

    def test_useless_feeded_var_names(self):
        start_prog, main_prog = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main_prog, start_prog):
            x = paddle.static.data(name='x', shape=[10, 16], dtype='float32')
            y = paddle.static.data(name='y', shape=[10, 16], dtype='float32')
            z = paddle.static.nn.fc(x, 4)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(start_prog)
        # y does not reach z
        with self.assertRaisesRegex(ValueError, "not involved in the target_vars calculation"):
            paddle.static.save_inference_model(
                path_prefix=os.path.join(self.temp_dir.name, 'model'), feed_vars=[x, y],
                fetch_vars=[z], executor=exe, program=main_prog)


if __name__ == '__main__':
    unittest.main()
