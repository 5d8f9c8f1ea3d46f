"""Port of Paddle test/legacy_test/test_save_model_without_var.py.

Only change: the model is saved under a temporary directory instead of './test' in the working
directory. CUDA / custom-device place selection dropped (CPU only).
"""
import os
import tempfile
import unittest
import warnings

import fluidc as paddle

paddle.enable_static()


class TestSaveModelWithoutVar(unittest.TestCase):
    def test_no_var_save(self):
        data = paddle.static.data(name='data', shape=[-1, 1], dtype='float32')
        data_plus = data + 1
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(paddle.static.default_startup_program())
        with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            # feed_vars given as one Variable, not a list
            paddle.static.save_inference_model(os.path.join(tmp, 'test'), data, [data_plus], exe)
            expected_warn = ("no variable in your model, please ensure there are any "
                             "variables in your model to save")
            self.assertTrue(len(w) > 0)
            self.assertTrue(expected_warn == str(w[-1].message))


if __name__ == '__main__':
    unittest.main()
