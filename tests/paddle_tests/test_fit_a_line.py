"""Port of Paddle test/book/test_fit_a_line.py.

Dropped: the CUDA case (CPU only here), the bf16/pure-bf16 AMP cases (paddle.static.amp.bf16,
needs MKLDNN), the distributed-transpiler branch (pserver), and the dataset download
(paddle.dataset.uci_housing -> book_data's synthetic 13-feature regression of the same shape).
x.desc.set_need_check_feed(False) is a VarDesc internal and is dropped.
The loop keeps Paddle's logic (stop when the loss is below 10, NaN fails, too-large loss fails)
with PASS_NUM capped at 20 passes of 10 batches.
"""
import contextlib
import math
import os
import tempfile
import unittest

import numpy

import fluidc as fluid
import fluidc as paddle

from . import book_data

paddle.enable_static()


def train(save_dirname):
    x = paddle.static.data(name='x', shape=[-1, 13], dtype='float32')
    y = paddle.static.data(name='y', shape=[-1, 1], dtype='float32')
    y_predict = paddle.static.nn.fc(x=x, size=1, activation=None)
    cost = paddle.nn.functional.square_error_cost(input=y_predict, label=y)
    avg_cost = paddle.mean(cost)

    sgd_optimizer = paddle.optimizer.SGD(learning_rate=1e-3)
    sgd_optimizer.minimize(avg_cost, startup_program=paddle.static.default_startup_program())

    train_reader = paddle.batch(
        paddle.reader.shuffle(book_data.uci_housing_train(), buf_size=500), batch_size=20)

    place = paddle.CPUPlace()
    exe = paddle.static.Executor(place)
    main_program = paddle.static.default_main_program()
    feeder = fluid.DataFeeder(place=place, feed_list=[x, y])
    exe.run(paddle.static.default_startup_program())
    main_program.clone(for_test=True)

    PASS_NUM = 20
    for pass_id in range(PASS_NUM):
        for data in train_reader():
            (avg_loss_value,) = exe.run(main_program, feed=feeder.feed(data),
                                        fetch_list=[avg_cost])
            if float(avg_loss_value) < 10.0:
                if save_dirname is not None:
                    paddle.static.save_inference_model(save_dirname, [x], [y_predict], exe)
                return
            if math.isnan(float(avg_loss_value)):
                raise AssertionError("got NaN loss, training failed.")
    raise AssertionError(f"Fit a line cost is too large, {float(avg_loss_value):2.2}")


def infer(save_dirname):
    place = paddle.CPUPlace()
    exe = paddle.static.Executor(place)
    inference_scope = paddle.static.Scope()
    with paddle.static.scope_guard(inference_scope):
        inference_program, feed_target_names, fetch_targets = \
            paddle.static.load_inference_model(save_dirname, exe)
        test_reader = paddle.batch(book_data.uci_housing_test(), batch_size=10)
        test_data = next(test_reader())
        test_feat = numpy.array([d[0] for d in test_data]).astype('float32')
        assert feed_target_names[0] == 'x'
        results = exe.run(inference_program, feed={feed_target_names[0]: test_feat},
                          fetch_list=fetch_targets)
        assert results[0].shape == (10, 1)
        assert numpy.isfinite(results[0]).all()


def main():
    temp_dir = tempfile.TemporaryDirectory()
    save_dirname = os.path.join(temp_dir.name, "fit_a_line.inference.model")
    train(save_dirname)
    infer(save_dirname)
    temp_dir.cleanup()


class TestFitALineBase(unittest.TestCase):
    @contextlib.contextmanager
    def program_scope_guard(self):
        prog = paddle.static.Program()
        startup_prog = paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            with paddle.static.program_guard(prog, startup_prog):
                yield


class TestFitALine(TestFitALineBase):
    def test_cpu(self):
        with self.program_scope_guard():
            main()


if __name__ == '__main__':
    unittest.main()
