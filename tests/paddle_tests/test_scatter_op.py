"""Port of Paddle test/legacy_test/test_scatter_op.py: paddle.scatter / scatter_.

Kept: the forward output of the CPU OpTest cases through paddle.scatter (TestScatterOp: (3, 50)
rows 1 and 2 overwritten, int32 ids; TestScatterOp0: (3, 3), overwrite=True; TestScatterOp1:
(3, 3), ids [1, 1] accumulated, overwrite=False; TestScatterOp4: int64 ids; TestScatterOp6:
ids of shape [2, 1]; float32) against the file's numpy outputs, exact; TestScatterAPI /
TestScatterInplaceAPI (static and dygraph), TestScatterError (IndexError for a negative and a
too-large index in dygraph).
Changed: base.dygraph.to_variable -> paddle.to_tensor (Paddle 3.3.1 no longer has it);
TestScatterError's negative index -1 -> -4: Paddle 3.3.1 counts ids in [-3, 0) from the end
(-1 is row 2) and raises IndexError below -3.
Dropped: OpTest gradient / prim checks; the float16 classes (Paddle 3.3.1 has no CPU float16
scatter kernel), the bfloat16 and CUDA-only classes (TestScatterOp2 / 3 / 5,
TestScatterOpFp16, TestScatterWithLargeDataAPI).
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

from .op_forward import run_forward

base = fluid  # Paddle's `from paddle import base`
core = base.core


class TestScatterOp(unittest.TestCase):
    x_shape, index, overwrite = (3, 50), np.array([1, 2]).astype("int32"), None

    def _set_dtype(self):
        self.dtype = np.float32

    def setUp(self):
        self._set_dtype()
        target_dtype = "float16" if self.dtype == np.float16 else "float32"
        ref_np = np.ones(self.x_shape).astype(target_dtype)
        index_np = self.index
        updates_np = np.random.random((2, self.x_shape[1])).astype(target_dtype)
        output_np = np.copy(ref_np)
        rows = index_np.reshape(-1)
        if self.overwrite is False:
            output_np[rows] = 0
            for i in range(len(rows)):
                output_np[rows[i]] += updates_np[i]
        else:
            output_np[rows] = updates_np
        self.inputs = {'X': ref_np, 'Ids': index_np, 'Updates': updates_np}
        self.outputs = {'Out': output_np}

    def test_check_output(self):
        attrs = {} if self.overwrite is None else {'overwrite': self.overwrite}
        out = run_forward(paddle.scatter, {'x': self.inputs['X'], 'index': self.inputs['Ids'],
                                           'updates': self.inputs['Updates']}, **attrs)
        np.testing.assert_array_equal(out, self.outputs['Out'])


def _case(name, **attrs):
    globals()[name] = type(name, (TestScatterOp,), attrs)


_case("TestScatterOp0", x_shape=(3, 3), overwrite=True)
_case("TestScatterOp1", x_shape=(3, 3), index=np.array([1, 1]).astype("int32"),
      overwrite=False)
_case("TestScatterOp4", x_shape=(3, 3), index=np.array([1, 2]).astype("int64"))
_case("TestScatterOp6", x_shape=(3, 50), index=np.array([[1], [2]]).astype("int32"))


class TestScatterAPI(unittest.TestCase):
    def setUp(self):
        self.places = [base.CPUPlace()]
        self.executed_api()

    def executed_api(self):
        self.scatter = paddle.scatter

    def check_static_result(self, place):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            input = paddle.static.data(name="input", shape=[3, 2], dtype="float64")
            index = paddle.static.data(name="index", shape=[4], dtype="int64")
            updates = paddle.static.data(name="updates", shape=[4, 2], dtype="float64")
            result = self.scatter(input, index, updates, False)

            input_data = np.array([[1, 1], [2, 2], [3, 3]]).astype(np.float64)
            index_data = np.array([2, 1, 0, 1]).astype(np.int64)
            updates_data = np.array([[1, 1], [2, 2], [3, 3], [4, 4]]).astype(np.float64)

            exe = paddle.static.Executor(place)
            fetches = exe.run(
                paddle.static.default_main_program(),
                feed={"input": input_data, "index": index_data, "updates": updates_data},
                fetch_list=[result],
            )
            self.assertEqual(
                (fetches[0] == np.array([[3.0, 3.0], [6.0, 6.0], [1.0, 1.0]])).all(), True)

    def test_static(self):
        for place in self.places:
            self.check_static_result(place=place)

    def test_dygraph(self):
        for place in self.places:
            with base.dygraph.guard(place):
                x_data = np.array([[1, 1], [2, 2], [3, 3]]).astype(np.float64)
                index_data = np.array([2, 1, 0, 1]).astype(np.int64)
                updates_data = np.array([[1, 1], [2, 2], [3, 3], [4, 4]]).astype(np.float64)

                x = paddle.to_tensor(x_data)
                index = paddle.to_tensor(index_data)
                updates = paddle.to_tensor(updates_data)

                output1 = self.scatter(x, index, updates, overwrite=False)
                self.assertEqual(
                    (output1.numpy() == np.array([[3.0, 3.0], [6.0, 6.0], [1.0, 1.0]])).all(),
                    True)


class TestScatterInplaceAPI(TestScatterAPI):
    def executed_api(self):
        self.scatter = paddle.scatter_


@unittest.skipIf(core.is_compiled_with_cuda(), "CUDA will not throw exception")
class TestScatterError(unittest.TestCase):
    def test_scatter_index(self):
        paddle.disable_static()
        x = paddle.to_tensor([[1, 1], [2, 2], [3, 3]], dtype='float32')

        def test_neg_index():
            index = paddle.to_tensor([2, 1, -4, 1], dtype='int64')
            updates = paddle.to_tensor([[1, 1], [2, 2], [3, 3], [4, 4]], dtype='float32')
            out = paddle.scatter(x, index, updates)

        self.assertRaises(IndexError, test_neg_index)

        def test_too_big_index():
            index = paddle.to_tensor([2, 1, 5, 1], dtype='int64')
            updates = paddle.to_tensor([[1, 1], [2, 2], [3, 3], [4, 4]], dtype='float32')
            out = paddle.scatter(x, index, updates)

        self.assertRaises(IndexError, test_too_big_index)
        paddle.enable_static()


if __name__ == "__main__":
    paddle.enable_static()
    unittest.main()
