"""Port of Paddle test/legacy_test/test_lookup_table_v2_op.py: the static embedding API parts.

Kept: TestStaticGraphSupportMultipleInt (nn.Embedding on uint8 .. int64 ids), and, from the
file's 2.x/3.0 version (later moved out of it), TestLookupTableIsSparse (dense vs is_sparse
gradient of paddle.static.nn.embedding after one SGD step), TestLookupTableApi and
TestEmbedOpError; the forward output of the OpTest cases (TestLookupTableOp with int64 ids,
TestLookupTableOpWithTensorIds, the two padding variants) through
paddle.nn.functional.embedding against Paddle's numpy reference (table[ids], padding rows zero),
exact.
Dropped: TestLookupTableOpInt16 / Int8 / UInt8 (in Paddle's file bare OpTest subclasses with no
setUp, so they check nothing; Paddle 3.3.1's CPU embedding kernel rejects int16/int8/uint8 ids
with NotImplementedError), OpTest gradient / prim checks, fp16/bf16 variants, the SelectedRows-W cases
(core.Scope / Operator internals).
Runs on Paddle's legacy programs (paddle.static.nn.embedding builds only those).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()
Program, program_guard = paddle.static.Program, paddle.static.program_guard


def _run_embedding(table, ids, padding_idx=None):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        w = paddle.static.data('W', list(table.shape), str(table.dtype))
        i = paddle.static.data('Ids', list(ids.shape), str(ids.dtype))
        out = paddle.nn.functional.embedding(i, w, padding_idx=padding_idx)
        (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
            main, feed={'W': table, 'Ids': ids}, fetch_list=[out])
    return res


class TestStaticGraphSupportMultipleInt(unittest.TestCase):
    def test_main(self):
        dtypes = ['uint8', 'int8', 'int16', 'int32', 'int64']
        for i, dtype in enumerate(dtypes):
            with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
                x = paddle.static.data(name='x', shape=[-1, 7, 30], dtype=dtype)
                emb = paddle.nn.Embedding(10, 20)
                y = emb(x)


class TestLookupTableOp(unittest.TestCase):
    dtype = 'float64'
    id_dtype = 'int64'

    def setUp(self):
        table = np.random.random((17, 31)).astype(self.dtype)
        ids = np.random.randint(0, 17, 4).astype(self.id_dtype)
        self.inputs = {'W': table, 'Ids': ids}
        self.outputs = {'Out': table[ids]}

    def test_check_output(self):
        res = _run_embedding(self.inputs['W'], self.inputs['Ids'])
        np.testing.assert_array_equal(res, self.outputs['Out'])


class TestLookupTableOpWithTensorIds(unittest.TestCase):
    def setUp(self):
        table = np.random.random((17, 31)).astype("float64")
        ids = np.random.randint(low=0, high=17, size=(2, 4, 5)).astype("int32")
        self.inputs = {'W': table, 'Ids': ids}
        self.outputs = {'Out': table[ids.flatten()].reshape((2, 4, 5, 31))}

    def test_check_output(self):
        res = _run_embedding(self.inputs['W'], self.inputs['Ids'])
        np.testing.assert_array_equal(res, self.outputs['Out'])


class TestLookupTableOpWithPadding(TestLookupTableOp):
    def test_check_output(self):
        ids = np.squeeze(self.inputs['Ids'])
        padding_idx = np.random.choice(ids, 1)[0]
        self.outputs['Out'][ids == padding_idx] = np.zeros(31)
        res = _run_embedding(self.inputs['W'], self.inputs['Ids'], int(padding_idx))
        np.testing.assert_array_equal(res, self.outputs['Out'])


class TestLookupTableOpWithTensorIdsAndPadding(TestLookupTableOpWithTensorIds):
    def test_check_output(self):
        ids = self.inputs['Ids']
        flatten_idx = ids.flatten()
        padding_idx = np.random.choice(flatten_idx, 1)[0]
        self.outputs['Out'][np.squeeze(ids == padding_idx)] = np.zeros(31)
        res = _run_embedding(self.inputs['W'], self.inputs['Ids'], int(padding_idx))
        np.testing.assert_array_equal(res, self.outputs['Out'])


class TestLookupTableIsSparse(unittest.TestCase):
    def init_data(self):
        self.x_data = np.array([[1, 3, 0, 4, 7]]).astype("int64")
        self.y_data = np.array([[0.1, 0.3, 0, 0.4, 0.7]]).astype("float32")

    def get_w_grad(self, is_sparse):
        self.init_data()
        main_program = paddle.static.Program()
        startup = paddle.static.Program()
        with paddle.static.program_guard(main_program, startup):
            x = paddle.static.data(name='x', shape=[-1, 5], dtype='int64')
            y_ = paddle.static.data(name='y_', shape=[-1, 5], dtype='float32')
            emb = paddle.static.nn.embedding(
                input=x,
                size=[10, 16],
                param_attr=paddle.ParamAttr(
                    name="emb_weight",
                    learning_rate=10,
                    initializer=paddle.nn.initializer.Assign(self.w_data),
                ),
                is_sparse=is_sparse,
            )
            # Paddle: y = paddle.sum(emb, axis=-1); Paddle 3.3.1's paddle.sum takes only PIR values,
            # and paddle.static.nn.embedding only legacy Variables: the same sum as mean * 16
            y = paddle.mean(emb, axis=-1) * 16.0

            loss = paddle.nn.functional.square_error_cost(input=y, label=y_)
            loss = paddle.mean(loss)

            sgd_optimizer = paddle.optimizer.SGD(learning_rate=1e-4)
            sgd_optimizer.minimize(loss)

            place = paddle.CPUPlace()
            exe = paddle.static.Executor(place)
            # Paddle runs base.default_startup_program() here (the guard's startup program)
            exe.run(startup)
            ret = exe.run(
                main_program,
                feed={'x': self.x_data, 'y_': self.y_data},
                fetch_list=['emb_weight'],
                return_numpy=False,
            )
            return np.array(ret[0])

    def test_w_grad(self):
        self.w_data = np.random.random(size=(10, 16)).astype("float32")
        w_grad = self.get_w_grad(False)
        w_grad_with_sparse = self.get_w_grad(True)
        self.check_grad(w_grad, w_grad_with_sparse)

    def check_grad(self, w_grad1, w_grad2, tolerance=1e-6):
        np.testing.assert_allclose(w_grad1, w_grad2, rtol=tolerance, atol=tolerance)


class TestLookupTableApi(unittest.TestCase):
    def test_api(self):
        x = paddle.static.data(name='x', shape=[-1, 20], dtype='int64')
        emb = paddle.static.nn.embedding(input=x, size=[128, 64])

        place = paddle.CPUPlace()
        x_data = np.random.randint(0, 127, [2, 20]).astype("int64")

        exe = paddle.static.Executor(place)
        exe.run(paddle.static.default_startup_program())
        ret = exe.run(
            feed={
                'x': x_data,
            },
            fetch_list=[emb],
            return_numpy=False,
        )


class TestEmbedOpError(unittest.TestCase):
    def test_errors(self):
        with program_guard(Program(), Program()):
            input_data = np.random.randint(0, 10, (4, 6)).astype("int64")

            def test_Variable():
                # the input type must be Variable
                paddle.static.nn.embedding(input=input_data, size=(10, 64))

            self.assertRaises(TypeError, test_Variable)

            def test_input_dtype():
                # the input dtype must be int64
                input = paddle.static.data(name='x1', shape=[4, 6], dtype='float32')
                paddle.static.nn.embedding(input=input, size=(10, 64))

            self.assertRaises(TypeError, test_input_dtype)

            def test_param_dtype():
                # dtype must be float32 or float64
                input2 = paddle.static.data(name='x2', shape=[4, 6], dtype='int64')
                paddle.static.nn.embedding(input=input2, size=(10, 64), dtype='int64')

            self.assertRaises(TypeError, test_param_dtype)
            input3 = paddle.static.data(name='x3', shape=[4, 6], dtype='int64')
            paddle.static.nn.embedding(input=input3, size=(10, 64), dtype='float16')


if __name__ == "__main__":
    unittest.main()
