"""Port of Paddle test/legacy_test/test_truncated_gaussian_random_op.py.

Kept: TestTrunctedGaussianRandomOp.test_cpu: the truncated_gaussian_random op appended to a
Program's block (shape [10000], mean 0, std 1, seed 10) in float32 and float64, the draws'
mean within 0.1 of 0 and variance within 0.1 of 0.773 (N(0, 1) cut to [-2, 2]), as Paddle
checks them. Its eager half calls paddle._C_ops.truncated_gaussian_random (an internal op
function); here the same draw comes from the public nn.initializer.TruncatedNormal on a dygraph
parameter, with the same checks. Added: every draw lies in [-2, 2].
Dropped: test_gpu (CUDA only); op.desc.infer_var_type / infer_shape (ProgramDesc internals:
append_op infers the output's type and shape itself).
"""
import unittest

import numpy

import fluidc as fluid
import fluidc as paddle


class TestTrunctedGaussianRandomOp(unittest.TestCase):
    def setUp(self):
        self.op_type = "truncated_gaussian_random"
        self.inputs = {}
        self.attrs = {
            "shape": [10000],
            "mean": 0.0,
            "std": 1.0,
            "seed": 10,
        }
        self.outputs = ["Out"]

    def test_cpu(self):
        self._gaussian_random_test(
            place=fluid.CPUPlace(), dtype=paddle.float32, np_dtype=numpy.float32
        )
        self._gaussian_random_test(
            place=fluid.CPUPlace(), dtype=paddle.float64, np_dtype=numpy.float64
        )
        self._gaussian_random_test_eager(
            place=fluid.CPUPlace(), dtype='float32'
        )
        self._gaussian_random_test_eager(
            place=fluid.CPUPlace(), dtype='float64'
        )

    def _check(self, tensor):
        self.assertAlmostEqual(numpy.mean(tensor), 0.0, delta=0.1)
        self.assertAlmostEqual(numpy.var(tensor), 0.773, delta=0.1)
        self.assertTrue(numpy.all(numpy.abs(tensor) <= 2.0))  # added

    def _gaussian_random_test(self, place, dtype, np_dtype):
        program = fluid.Program()
        block = program.global_block()
        vout = block.create_var(name="Out")
        op = block.append_op(
            type=self.op_type,
            outputs={"Out": vout},
            attrs={**self.attrs, "dtype": dtype},
        )

        fetch_list = []
        for var_name in self.outputs:
            fetch_list.append(block.var(var_name))

        exe = fluid.Executor(place)
        outs = exe.run(program, fetch_list=fetch_list)
        tensor = outs[0]
        self.assertEqual(tensor.shape, (10000,))
        self.assertEqual(tensor.dtype, np_dtype)
        self._check(tensor)

    def _gaussian_random_test_eager(self, place, dtype):
        with fluid.dygraph.guard(place):
            out = paddle.create_parameter(
                self.attrs["shape"], dtype,
                default_initializer=paddle.nn.initializer.TruncatedNormal(
                    self.attrs["mean"], self.attrs["std"]))
            self.assertEqual(out.numpy().dtype, numpy.dtype(dtype))
            self._check(out.numpy())


if __name__ == "__main__":
    unittest.main()
