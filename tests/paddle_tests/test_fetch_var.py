"""Port of Paddle test/legacy_test/test_fetch_var.py: a persistable fed var read back from the
global scope after a run with an empty fetch_list, values and dtype, also for an empty array.
Paddle reads it with base.executor._fetch_var (private); the port reads the same scope entry
through the public global_scope().find_var(name).get_tensor()."""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid


def fetch_var(name):
    return np.array(paddle.static.global_scope().find_var(name).get_tensor())


class TestFetchVar(unittest.TestCase):
    def set_input(self):
        self.val = np.array([1, 3, 5]).astype(np.int32)
        self.name = "x"

    def test_fetch_var(self):
        self.set_input()
        x = paddle.static.data(
            name=self.name, shape=self.val.shape, dtype="int32"
        )
        x.persistable = True
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(
            fluid.default_main_program(),
            feed={self.name: self.val},
            fetch_list=[],
        )
        fetched_x = fetch_var(x.name)
        np.testing.assert_array_equal(fetched_x, self.val)
        self.assertEqual(fetched_x.dtype, self.val.dtype)


class TestFetchNullVar(TestFetchVar):
    def set_input(self):
        self.val = np.array([]).astype(np.int32)
        self.name = "y"


if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
