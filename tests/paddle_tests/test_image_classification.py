"""Port of Paddle test/book/test_image_classification.py (ResNet-32 and VGG-16 on CIFAR-10
shapes, CPU).

Dropped: CUDA variants, the distributed-transpiler branch, the cifar download
(paddle.dataset.cifar -> book_data's synthetic 3x32x32 images, 64 train / 32 test samples).
fluid.nets.img_conv_group comes from the ported nets.py helper; fluid.io.save_inference_model ->
paddle.static.save_inference_model (with program= for the re-save in infer()).
BATCH_SIZE is 16 instead of 128 and the train set is 11 batches (CPU time), the programs get a
fixed random_seed; the loop keeps Paddle's logic (evaluate every 10
batches on one test batch, stop when accuracy > 0.01, PASS_NUM = 1). Both nets are slow on CPU:
marked slow.
"""
import contextlib
import math
import os
import tempfile
import unittest

import numpy
import pytest

import fluidc as fluid
import fluidc as paddle

from . import book_data, nets

paddle.enable_static()


def resnet_cifar10(input, depth=32):
    def conv_bn_layer(input, ch_out, filter_size, stride, padding, act='relu',
                      bias_attr=False):
        tmp = paddle.static.nn.conv2d(input=input, filter_size=filter_size, num_filters=ch_out,
                                      stride=stride, padding=padding, act=None,
                                      bias_attr=bias_attr)
        return paddle.static.nn.batch_norm(input=tmp, act=act)

    def shortcut(input, ch_in, ch_out, stride):
        if ch_in != ch_out:
            return conv_bn_layer(input, ch_out, 1, stride, 0, None)
        return input

    def basicblock(input, ch_in, ch_out, stride):
        tmp = conv_bn_layer(input, ch_out, 3, stride, 1)
        tmp = conv_bn_layer(tmp, ch_out, 3, 1, 1, act=None, bias_attr=True)
        short = shortcut(input, ch_in, ch_out, stride)
        return paddle.nn.functional.relu(paddle.add(x=tmp, y=short))

    def layer_warp(block_func, input, ch_in, ch_out, count, stride):
        tmp = block_func(input, ch_in, ch_out, stride)
        for _ in range(1, count):
            tmp = block_func(tmp, ch_out, ch_out, 1)
        return tmp

    assert (depth - 2) % 6 == 0
    n = (depth - 2) // 6
    conv1 = conv_bn_layer(input=input, ch_out=16, filter_size=3, stride=1, padding=1)
    res1 = layer_warp(basicblock, conv1, 16, 16, n, 1)
    res2 = layer_warp(basicblock, res1, 16, 32, n, 2)
    res3 = layer_warp(basicblock, res2, 32, 64, n, 2)
    return paddle.nn.functional.avg_pool2d(x=res3, kernel_size=8, stride=1)


def vgg16_bn_drop(input):
    def conv_block(input, num_filter, groups, dropouts):
        return nets.img_conv_group(input=input, pool_size=2, pool_stride=2,
                                   conv_num_filter=[num_filter] * groups, conv_filter_size=3,
                                   conv_act='relu', conv_with_batchnorm=True,
                                   conv_batchnorm_drop_rate=dropouts, pool_type='max')

    conv1 = conv_block(input, 64, 2, [0.3, 0])
    conv2 = conv_block(conv1, 128, 2, [0.4, 0])
    conv3 = conv_block(conv2, 256, 3, [0.4, 0.4, 0])
    conv4 = conv_block(conv3, 512, 3, [0.4, 0.4, 0])
    conv5 = conv_block(conv4, 512, 3, [0.4, 0.4, 0])
    drop = paddle.nn.functional.dropout(x=conv5, p=0.5)
    fc1 = paddle.static.nn.fc(x=drop, size=4096)
    bn = paddle.static.nn.batch_norm(input=fc1, act='relu')
    drop2 = paddle.nn.functional.dropout(x=bn, p=0.5)
    return paddle.static.nn.fc(x=drop2, size=4096)


def train(net_type, save_dirname):
    classdim = 10
    paddle.static.default_main_program().random_seed = 90
    paddle.static.default_startup_program().random_seed = 90
    data_shape = [3, 32, 32]
    images = paddle.static.data(name='pixel', shape=[-1] + data_shape, dtype='float32')
    label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')
    if net_type == "vgg":
        net = vgg16_bn_drop(images)
    elif net_type == "resnet":
        net = resnet_cifar10(images, 32)
    else:
        raise ValueError("%s network is not supported" % net_type)

    predict = paddle.static.nn.fc(x=net, size=classdim, activation='softmax')
    cost = paddle.nn.functional.cross_entropy(input=predict, label=label, reduction='none',
                                              use_softmax=False)
    avg_cost = paddle.mean(cost)
    acc = paddle.static.accuracy(input=predict, label=label)
    test_program = paddle.static.default_main_program().clone(for_test=True)
    optimizer = paddle.optimizer.Adam(learning_rate=0.001)
    optimizer.minimize(avg_cost)

    BATCH_SIZE = 16
    PASS_NUM = 1
    train_reader = paddle.batch(
        paddle.reader.shuffle(book_data.cifar_train10(n=BATCH_SIZE * 11), buf_size=128 * 10),
        batch_size=BATCH_SIZE)
    test_reader = paddle.batch(book_data.cifar_test10(), batch_size=BATCH_SIZE)
    place = paddle.CPUPlace()
    exe = paddle.static.Executor(place)
    feeder = fluid.DataFeeder(place=place, feed_list=[images, label])
    main_program = paddle.static.default_main_program()
    exe.run(paddle.static.default_startup_program())
    for pass_id in range(PASS_NUM):
        for batch_id, data in enumerate(train_reader()):
            exe.run(main_program, feed=feeder.feed(data))
            if (batch_id % 10) == 0:
                acc_list, avg_loss_list = [], []
                for test_data in test_reader():
                    loss_t, acc_t = exe.run(program=test_program, feed=feeder.feed(test_data),
                                            fetch_list=[avg_cost, acc])
                    if math.isnan(float(loss_t)):
                        raise AssertionError("got NaN loss, training failed.")
                    acc_list.append(float(acc_t))
                    avg_loss_list.append(float(loss_t))
                    break  # Use 1 segment for speeding up CI
                acc_value = numpy.array(acc_list).mean()
                if acc_value > 0.01:  # Low threshold for speeding up CI
                    paddle.static.save_inference_model(save_dirname, [images], [predict], exe)
                    return


def infer(save_dirname):
    place = paddle.CPUPlace()
    exe = paddle.static.Executor(place)
    inference_scope = paddle.static.Scope()
    with paddle.static.scope_guard(inference_scope):
        inference_program, feed_target_names, fetch_targets = \
            paddle.static.load_inference_model(save_dirname, exe)
        tensor_img = numpy.random.RandomState(0).rand(1, 3, 32, 32).astype("float32")
        results = exe.run(inference_program, feed={feed_target_names[0]: tensor_img},
                          fetch_list=fetch_targets)
        assert results[0].shape == (1, 10)
        feed_vars = [inference_program.global_block().var(n) for n in feed_target_names]
        paddle.static.save_inference_model(save_dirname, feed_vars, fetch_targets, exe,
                                           program=inference_program)


def main(net_type):
    temp_dir = tempfile.TemporaryDirectory()
    save_dirname = os.path.join(temp_dir.name,
                                "image_classification_" + net_type + ".inference.model")
    train(net_type, save_dirname)
    infer(save_dirname)
    temp_dir.cleanup()


@pytest.mark.slow
class TestImageClassification(unittest.TestCase):
    def test_vgg_cpu(self):
        with self.scope_prog_guard():
            main('vgg')

    def test_resnet_cpu(self):
        with self.scope_prog_guard():
            main('resnet')

    @contextlib.contextmanager
    def scope_prog_guard(self):
        prog = paddle.static.Program()
        startup_prog = paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            with paddle.static.program_guard(prog, startup_prog):
                yield


if __name__ == '__main__':
    unittest.main()
