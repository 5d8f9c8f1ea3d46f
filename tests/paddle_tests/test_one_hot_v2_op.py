"""Port of Paddle test/legacy_test/test_one_hot_v2_op.py: the static API parts.

run-on-paddle: pir

Kept: TestOneHotOpApi (test_api, test_api_with_depthTensor), BadInputTestOnehotV2, and the
forward output of the four OpTest cases (TestOneHotOp, _attr, _default_dtype,
_default_dtype_attr: 11 int32 ids in [0, 9), depth 10, float32 one-hot of shape [11, 10] or
[11, 1, 10]) through paddle.nn.functional.one_hot against Paddle's numpy reference, exact (the
LoD of X is dropped: one_hot_v2 passes it through unchanged).
Dropped: test_api_with_dygraph (dygraph), `label.desc.set_need_check_feed(False)` (desc internal;
the fed data match the declared shape anyway), the OpTest `dtype` attribute (not a parameter of
F.one_hot, which always gives float32).
Paddle 3.3.1's F.one_hot works on static programs only with PIR, hence the marker.
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class TestOneHotOp(unittest.TestCase):
    x_shape_tail = []      # [1] for the _attr cases: x of shape [11, 1]
    depth_as_tensor = True

    def setUp(self):
        depth = 10
        x_lod = [[4, 1, 3, 3]]
        x = [np.random.randint(0, depth - 1) for i in range(sum(x_lod[0]))]
        x = np.array(x).astype('int32').reshape([sum(x_lod[0])] + self.x_shape_tail)
        if self.x_shape_tail:
            out = np.zeros(shape=(np.prod(x.shape[:-1]), 1, depth)).astype('float32')
            for i in range(np.prod(x.shape)):
                out[i, 0, x[i]] = 1.0
        else:
            out = np.zeros(shape=(np.prod(x.shape), depth)).astype('float32')
            for i in range(np.prod(x.shape)):
                out[i, x[i]] = 1.0
        self.depth = depth
        self.inputs = {'X': x, 'depth_tensor': np.array(depth).astype('int32')}
        self.outputs = {'Out': out}

    def test_check_output(self):
        x_np = self.inputs['X']
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('X', list(x_np.shape), 'int32')
            feed = {'X': x_np}
            if self.depth_as_tensor:
                depth = paddle.static.data('depth_tensor', [], 'int32')
                feed['depth_tensor'] = self.inputs['depth_tensor']
            else:
                depth = self.depth
            out = paddle.nn.functional.one_hot(x, depth)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed=feed, fetch_list=[out])
        self.assertEqual(res.dtype, np.float32)
        np.testing.assert_array_equal(res, self.outputs['Out'])


class TestOneHotOp_attr(TestOneHotOp):
    x_shape_tail = [1]


class TestOneHotOp_default_dtype(TestOneHotOp):
    pass


class TestOneHotOp_default_dtype_attr(TestOneHotOp):
    x_shape_tail = [1]
    depth_as_tensor = False   # Paddle's case gives only the `depth` attribute


class TestOneHotOpApi(unittest.TestCase):
    def test_api(self):
        depth = 10
        self._run(depth)

    def test_api_with_depthTensor(self):
        depth = paddle.assign(np.array([10], dtype=np.int32))
        self._run(depth)

    def _run(self, depth):
        label = paddle.static.data(name="label", shape=[-1, 1], dtype="int64")
        one_hot_label = paddle.nn.functional.one_hot(x=label, num_classes=depth)

        place = paddle.CPUPlace()
        label_data = np.array(
            [np.random.randint(0, 10 - 1) for i in range(6)]
        ).reshape([6, 1])

        exe = paddle.static.Executor(place)
        exe.run(paddle.static.default_startup_program())
        ret = exe.run(
            feed={
                'label': label_data,
            },
            fetch_list=[one_hot_label],
            return_numpy=False,
        )


class BadInputTestOnehotV2(unittest.TestCase):
    def test_error(self):
        with paddle.static.program_guard(paddle.static.Program()):

            def test_bad_x():
                label = paddle.static.data(name="label", shape=[-1, 4], dtype="float32")
                one_hot_label = paddle.nn.functional.one_hot(x=label, num_classes=4)

            self.assertRaises(TypeError, test_bad_x)


if __name__ == '__main__':
    unittest.main()
