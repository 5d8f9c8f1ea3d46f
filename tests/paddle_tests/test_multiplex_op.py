"""Port of Paddle test/legacy_test/test_multiplex_op.py.

TestMultiplexOp's check_output runs through paddle.multiplex on a static program fed the
case's four float64 inputs and shuffled int32 index, against the file's numpy loop, at OpTest's
float64 tolerance; its gradient checks are kept as X's gradients through paddle.static.gradients
(each row's output gradient goes to the chosen input, zeros elsewhere). TestMultiplexOpError and
the two dygraph classes are Paddle's (the second's fluid.dygraph.guard as base.dygraph.guard).
Dropped: nothing but OpTest's own gradient machinery.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from .op_forward import run_forward


class TestMultiplexOp(unittest.TestCase):
    def setUp(self):
        rows = 4
        index = np.arange(0, rows).astype('int32')
        np.random.shuffle(index)
        index = np.reshape(index, (rows, 1))
        self.ins = [np.random.random((rows, 25)).astype("float64") for _ in range(4)]
        self.index = index
        output = np.zeros_like(self.ins[0])
        for i in range(0, rows):
            k = index[i][0]
            output[i] = self.ins[k][i]
        self.output = output

    def test_check_output(self):
        feeds = {f'x{i + 1}': a for i, a in enumerate(self.ins)}
        feeds['ids'] = self.index
        out = run_forward(lambda *v: paddle.multiplex(list(v[:4]), v[4]), feeds)
        np.testing.assert_allclose(out, self.output, rtol=1e-7, atol=1e-7)

    def test_check_grad(self):
        paddle.enable_static()
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            xs = [paddle.static.data(f'x{i + 1}', [4, 25], 'float64') for i in range(4)]
            for x in xs:
                x.stop_gradient = False
            ids = paddle.static.data('ids', [4, 1], 'int32')
            out = paddle.multiplex(xs, ids)
            loss = paddle.mean(out * out)
            grads = paddle.static.gradients([loss], xs)
            feed = {f'x{i + 1}': a for i, a in enumerate(self.ins)}
            feed['ids'] = self.index
            got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=grads)
        for k in range(4):
            want = np.zeros_like(self.ins[k])
            rows = self.index[:, 0] == k
            want[rows] = 2 * self.output[rows] / self.output.size
            np.testing.assert_allclose(got[k], want, rtol=1e-7, atol=1e-7)


class TestMultiplexOpError(unittest.TestCase):
    def test_errors(self):
        paddle.enable_static()
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            x1 = paddle.static.data(name='x1', shape=[None, 2], dtype='int64')
            x2 = paddle.static.data(name='x2', shape=[None, 2], dtype='int64')
            index = paddle.static.data(name='index', shape=[None, 1], dtype='int32')

            def test_list():
                # the inputs type must be list
                paddle.multiplex(inputs=x1, index=index)

            self.assertRaises(TypeError, test_list)

            def test_len():
                paddle.multiplex(inputs=[x1], index=index)

            self.assertRaises(ValueError, test_len)

            def test_type():
                y1 = paddle.static.data(name='y1', shape=[None, 2], dtype='int16')
                y2 = paddle.static.data(name='y2', shape=[None, 2], dtype='int16')
                paddle.multiplex(inputs=[y1, y2], index=index)

            self.assertRaises(TypeError, test_type)

            def test_type2():
                index2 = paddle.static.data(name='index2', shape=[None, 1], dtype='int16')
                paddle.multiplex(inputs=[x1, x2], index=index2)

            self.assertRaises(TypeError, test_type2)


class TestMultiplexODygrap(unittest.TestCase):
    def test_multiplex_dygraph(self):
        paddle.disable_static()
        img1 = np.array([[1, 2], [3, 4]]).astype(np.float32)
        img2 = np.array([[5, 6], [7, 8]]).astype(np.float32)
        inputs = [paddle.to_tensor(img1), paddle.to_tensor(img2)]
        index = paddle.to_tensor(np.array([[1], [0]]).astype(np.int32))
        res = paddle.multiplex(inputs, index)
        paddle.enable_static()
        # added: the rows picked
        np.testing.assert_array_equal(res.numpy(), [[5, 6], [3, 4]])

    def test_dygraph_api(self):
        with fluid.dygraph.guard():
            img1 = np.array([[1, 2], [3, 4]]).astype(np.float32)
            img2 = np.array([[5, 6], [7, 8]]).astype(np.float32)
            inputs = [paddle.to_tensor(img1), paddle.to_tensor(img2)]
            index = paddle.to_tensor(np.array([[1], [0]]).astype(np.int32))
            inputs[0].stop_gradient = False
            inputs[1].stop_gradient = False
            res = paddle.multiplex(inputs, index)
            res.backward()
            inputs_eager = [paddle.to_tensor(img1), paddle.to_tensor(img2)]
            index_eager = paddle.to_tensor(np.array([[1], [0]]).astype(np.int32))
            inputs_eager[0].stop_gradient = False
            inputs_eager[1].stop_gradient = False
            res_eager = paddle.multiplex(inputs_eager, index_eager)
            res_eager.backward()
            self.assertEqual((res.numpy() == res_eager.numpy()).all(), True)
            self.assertEqual(
                (inputs[0].grad.numpy() == inputs_eager[0].grad.numpy()).all(), True)
            self.assertEqual(
                (inputs[1].grad.numpy() == inputs_eager[1].grad.numpy()).all(), True)
            # added: the gradients' values
            np.testing.assert_array_equal(inputs[0].grad.numpy(), [[0, 0], [1, 1]])
            np.testing.assert_array_equal(inputs[1].grad.numpy(), [[1, 1], [0, 0]])


if __name__ == '__main__':
    unittest.main()
