"""Port of Paddle test/legacy_test/test_unique_consecutive_op.py: paddle.unique_consecutive.

Kept: the forward of TestUniqueConsecutiveOp / 2 / 3 / 4 (float64, attribute dtype int32) and
TestUniqueConsecutiveEmptyInput, through the public API (op_forward.run_forward) against the
file's reference_unique_consecutive; TestUniqueConsecutiveAPI / Case2API / Case3API static
halves. Their numbers are Paddle's kernel's on real Paddle too (run_on_paddle.py).
Dropped: the test_dygraph halves (fluidc runs this op in static programs only: Out's length
depends on the values) and OpTest's PIR / symbol-inference variants.
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

from .op_forward import run_forward

paddle.enable_static()


def reference_unique_consecutive(X, return_inverse=False, return_counts=False, axis=None):
    """Reference unique_consecutive implementation using python (Paddle's, kept as is)."""
    X = list(X)
    is_empty = len(X) == 0
    counts_vec = [1] * len(X)
    i = 0
    counts = 1
    last = 0
    inverse_vec = [0] * len(X)
    if not is_empty:
        inverse_vec[last] = i
    cnt = 0
    while i < len(X) - 1:
        if X[i] == X[i + 1]:
            if return_counts:
                counts_vec[cnt] += 1
            del X[i]
        else:
            i += 1
            cnt += 1
        if return_inverse:
            last += 1
            inverse_vec[last] = i
    if return_counts:
        counts_vec = counts_vec[: len(X)]
    if return_inverse and return_counts:
        return X, np.array(inverse_vec), np.array(counts_vec)
    elif return_counts:
        return X, np.array(counts_vec)
    elif return_inverse:
        return X, np.array(inverse_vec)
    else:
        return X


class TestUniqueConsecutiveOp(unittest.TestCase):
    """case 1"""

    def config(self):
        self.x_size = 100
        self.x_range = 20
        self.return_inverse = False
        self.return_counts = False

    def setUp(self):
        self.dtype = "float64"
        self.config()
        self.x = np.random.randint(self.x_range, size=self.x_size).astype(self.dtype)

    def test_check_output(self):
        expected = reference_unique_consecutive(self.x, self.return_inverse,
                                                self.return_counts)
        got = run_forward(paddle.unique_consecutive, {"X": self.x},
                          return_inverse=self.return_inverse,
                          return_counts=self.return_counts, dtype="int32")
        if not isinstance(got, list):
            expected, got = [expected], [got]
        np.testing.assert_array_equal(got[0], np.array(expected[0]).astype(self.dtype))
        self.assertEqual(got[0].dtype, np.float64)
        for g, e in zip(got[1:], expected[1:]):
            self.assertEqual(g.dtype, np.int32)
            np.testing.assert_array_equal(g, e)


class TestUniqueConsecutiveOp2(TestUniqueConsecutiveOp):
    """case 2"""

    def config(self):
        self.x_size = 100
        self.x_range = 20
        self.return_inverse = True
        self.return_counts = False


class TestUniqueConsecutiveOp3(TestUniqueConsecutiveOp):
    """case 3"""

    def config(self):
        self.x_size = 100
        self.x_range = 20
        self.return_inverse = False
        self.return_counts = True


class TestUniqueConsecutiveOp4(TestUniqueConsecutiveOp):
    """case 4"""

    def config(self):
        self.x_size = 100
        self.x_range = 20
        self.return_inverse = True
        self.return_counts = True


class TestUniqueConsecutiveEmptyInput(TestUniqueConsecutiveOp):
    """empty input"""

    def config(self):
        self.x_size = 0
        self.x_range = 20
        self.return_inverse = True
        self.return_counts = True


class TestUniqueConsecutiveAPI(unittest.TestCase):
    def setUp(self):
        self.places = [fluid.CPUPlace()]

    def check_static_result(self, place):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            paddle.enable_static()
            input_x = paddle.static.data(name="input_x", shape=[100], dtype="float32")
            result = paddle.unique_consecutive(input_x)
            x_np = np.random.randint(20, size=100).astype("float32")
            exe = fluid.Executor(place)
            fetches = exe.run(feed={"input_x": x_np}, fetch_list=[result])
            np.testing.assert_array_equal(fetches[0], reference_unique_consecutive(x_np))

    def test_static(self):
        for place in self.places:
            self.check_static_result(place=place)


class TestUniqueConsecutiveCase2API(unittest.TestCase):
    def setUp(self):
        self.places = [fluid.CPUPlace()]

    def check_static_result(self, place):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            paddle.enable_static()
            input_x = paddle.static.data(name="input_x", shape=[100], dtype="float32")
            result, inverse, counts = paddle.unique_consecutive(
                input_x, return_inverse=True, return_counts=True)
            x_np = np.random.randint(20, size=100).astype("float32")
            exe = fluid.Executor(place)
            fetches = exe.run(feed={"input_x": x_np}, fetch_list=[result])
            np.testing.assert_array_equal(fetches[0], reference_unique_consecutive(x_np))

    def test_static(self):
        for place in self.places:
            self.check_static_result(place=place)


class TestUniqueConsecutiveCase3API(unittest.TestCase):
    def setUp(self):
        self.places = [fluid.CPUPlace()]

    def check_static_result(self, place):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            paddle.enable_static()
            input_x = paddle.static.data(name="input_x", shape=[100], dtype="float32")
            result, inverse, counts = paddle.unique_consecutive(
                input_x, return_inverse=True, return_counts=True, axis=-1)
            x_np = np.random.randint(20, size=100).astype("float32")
            exe = fluid.Executor(place)
            fetches = exe.run(feed={"input_x": x_np}, fetch_list=[result, inverse, counts])
            expected = reference_unique_consecutive(x_np, True, True)
            for got, want in zip(fetches, expected):
                np.testing.assert_array_equal(got, want)

    def test_static(self):
        for place in self.places:
            self.check_static_result(place=place)


if __name__ == "__main__":
    unittest.main()
