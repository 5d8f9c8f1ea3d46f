"""Port of Paddle test/book/test_recognize_digits.py (MLP and conv nets, combined and separate
parameter files).

Dropped: CUDA and parallel variants, the distributed-transpiler branch, the mnist download
(paddle.dataset.mnist -> book_data's synthetic 784-pixel 10-class images).
Adapted to the 2.x API that Paddle 3.x still has: fluid.nets.simple_img_conv_pool comes from the
ported nets.py helper (as in Paddle's own test/book/nets.py); fluid.io.save_inference_model with
model_filename/params_filename becomes paddle.static.save_inference_model into the model
directory, loaded back through load_inference_model's model_filename/params_filename keywords;
the "separate" variant writes the pruned program with serialize_program and each parameter with
paddle.static.save_vars (one file per variable, as the old API did); export_for_deployment=False
(the full training program) becomes paddle.static.save of the main program.
Training stops on Paddle's condition (test accuracy > 0.2) and is capped at 10 passes.
"""
import math
import os
import tempfile
import unittest

import numpy

import fluidc as fluid
import fluidc as paddle

from . import book_data, nets

paddle.enable_static()

BATCH_SIZE = 64


def loss_net(hidden, label):
    prediction = paddle.static.nn.fc(x=hidden, size=10, activation='softmax')
    loss = paddle.nn.functional.cross_entropy(input=prediction, label=label,
                                              reduction='none', use_softmax=False)
    avg_loss = paddle.mean(loss)
    acc = paddle.static.accuracy(input=prediction, label=label)
    return prediction, avg_loss, acc


def mlp(img, label):
    hidden = paddle.static.nn.fc(x=img, size=200, activation='tanh')
    hidden = paddle.static.nn.fc(x=hidden, size=200, activation='tanh')
    return loss_net(hidden, label)


def conv_net(img, label):
    conv_pool_1 = nets.simple_img_conv_pool(input=img, filter_size=5, num_filters=20,
                                            pool_size=2, pool_stride=2, act="relu")
    conv_pool_1 = paddle.static.nn.batch_norm(conv_pool_1)
    conv_pool_2 = nets.simple_img_conv_pool(input=conv_pool_1, filter_size=5, num_filters=50,
                                            pool_size=2, pool_stride=2, act="relu")
    return loss_net(conv_pool_2, label)


def save_model(save_dirname, img, prediction, exe, combine):
    if combine:
        paddle.static.save_inference_model(os.path.join(save_dirname, '__model_combined__'),
                                           [img], [prediction], exe)
        return
    program = paddle.static.normalize_program(paddle.static.default_main_program(),
                                              [img], [prediction])
    os.makedirs(save_dirname, exist_ok=True)
    with open(os.path.join(save_dirname, '__model__'), 'wb') as f:
        f.write(paddle.static.serialize_program([img], [prediction], program=program))
    paddle.static.save_vars(exe, save_dirname, main_program=program,
                            predicate=paddle.static.io.is_persistable)


def train(nn_type, save_dirname, save_full_dirname, combine):
    img = paddle.static.data(name='img', shape=[-1, 1, 28, 28], dtype='float32')
    label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')
    net_conf = mlp if nn_type == 'mlp' else conv_net
    prediction, avg_loss, acc = net_conf(img, label)

    test_program = paddle.static.default_main_program().clone(for_test=True)
    optimizer = paddle.optimizer.Adam(learning_rate=0.001)
    optimizer.minimize(avg_loss)

    place = paddle.CPUPlace()
    exe = paddle.static.Executor(place)
    train_reader = paddle.batch(
        paddle.reader.shuffle(book_data.mnist_train(), buf_size=500), batch_size=BATCH_SIZE)
    test_reader = paddle.batch(book_data.mnist_test(), batch_size=BATCH_SIZE)
    feeder = fluid.DataFeeder(feed_list=[img, label], place=place)
    main_program = paddle.static.default_main_program()
    exe.run(paddle.static.default_startup_program())

    PASS_NUM = 10
    for pass_id in range(PASS_NUM):
        for batch_id, data in enumerate(train_reader()):
            # train a mini-batch, fetch nothing
            exe.run(main_program, feed=feeder.feed(data))
            if (batch_id + 1) % 10 == 0:
                acc_set, avg_loss_set = [], []
                for test_data in test_reader():
                    acc_np, avg_loss_np = exe.run(program=test_program,
                                                  feed=feeder.feed(test_data),
                                                  fetch_list=[acc, avg_loss])
                    acc_set.append(float(acc_np))
                    avg_loss_set.append(float(avg_loss_np))
                acc_val = numpy.array(acc_set).mean()
                avg_loss_val = numpy.array(avg_loss_set).mean()
                if float(acc_val) > 0.2 or pass_id == (PASS_NUM - 1):
                    save_model(save_dirname, img, prediction, exe, combine)
                    paddle.static.save(main_program, os.path.join(save_full_dirname, 'model'))
                    return
                if math.isnan(float(avg_loss_val)):
                    raise AssertionError("got NaN loss, training failed.")
    raise AssertionError("Loss of recognize digits is too large")


def infer(save_dirname, combine):
    place = paddle.CPUPlace()
    exe = paddle.static.Executor(place)
    inference_scope = paddle.static.Scope()
    with paddle.static.scope_guard(inference_scope):
        if combine:
            inference_program, feed_target_names, fetch_targets = \
                paddle.static.load_inference_model(save_dirname, exe,
                                                   model_filename='__model_combined__',
                                                   params_filename='__model_combined__')
        else:
            inference_program, feed_target_names, fetch_targets = \
                paddle.static.load_inference_model(save_dirname, exe,
                                                   model_filename=None, params_filename=None)
        tensor_img = numpy.random.RandomState(0).uniform(-1.0, 1.0, [1, 1, 28, 28]) \
            .astype("float32")
        results = exe.run(inference_program, feed={feed_target_names[0]: tensor_img},
                          fetch_list=fetch_targets)
        assert feed_target_names == ['img']
        assert results[0].shape == (1, 10)
        numpy.testing.assert_allclose(results[0].sum(), 1.0, rtol=1e-5)


def main(nn_type, combine):
    with tempfile.TemporaryDirectory() as tmp:
        save_dirname = os.path.join(tmp, "recognize_digits_" + nn_type + ".inference.model")
        save_full_dirname = os.path.join(tmp, "recognize_digits_" + nn_type + ".train.model")
        train(nn_type, save_dirname, save_full_dirname, combine)
        infer(save_dirname, combine)


class TestRecognizeDigits(unittest.TestCase):
    pass


def inject_test_method(nn_type, combine):
    def __impl__(self):
        prog = paddle.static.Program()
        startup_prog = paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            with paddle.static.program_guard(prog, startup_prog):
                main(nn_type, combine)

    fn = 'test_{}_cpu_normal_{}'.format(nn_type, 'combine' if combine else 'separate')
    setattr(TestRecognizeDigits, fn, __impl__)


for _nn_type in ('mlp', 'conv'):
    inject_test_method(_nn_type, True)
    inject_test_method(_nn_type, False)

if __name__ == '__main__':
    unittest.main()
