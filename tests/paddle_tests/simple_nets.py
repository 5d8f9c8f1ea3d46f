"""Paddle's test/legacy_test/simple_nets.py, the legacy-program nets the ported tests use:
simple_fc_net, fc_with_batchnorm and init_data (its PIR variants are not needed: fluidc builds
legacy programs)."""
import numpy as np

import fluidc as paddle
import fluidc as fluid


def simple_fc_net_with_inputs(img, label, class_num=10):
    hidden = img
    for _ in range(2):
        hidden = paddle.static.nn.fc(
            hidden, size=100, activation='relu',
            bias_attr=fluid.ParamAttr(initializer=paddle.nn.initializer.Constant(value=1.0)))
    prediction = paddle.static.nn.fc(hidden, size=class_num, activation='softmax')
    loss = paddle.nn.functional.cross_entropy(input=prediction, label=label, reduction='none',
                                              use_softmax=False)
    loss = paddle.mean(loss)
    return loss


def simple_fc_net(use_feed=None):
    img = paddle.static.data(name='image', shape=[-1, 784], dtype='float32')
    label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')
    return simple_fc_net_with_inputs(img, label, class_num=10)


def batchnorm_fc_with_inputs(img, label, class_num=10):
    hidden = img
    for _ in range(2):
        hidden = paddle.static.nn.fc(
            hidden, size=200, activation='relu',
            bias_attr=fluid.ParamAttr(initializer=paddle.nn.initializer.Constant(value=1.0)))

        hidden = paddle.static.nn.batch_norm(input=hidden)

    prediction = paddle.static.nn.fc(hidden, size=class_num, activation='softmax')
    loss = paddle.nn.functional.cross_entropy(input=prediction, label=label, reduction='none',
                                              use_softmax=False)
    loss = paddle.mean(loss)
    return loss


def fc_with_batchnorm(use_feed=None):
    img = paddle.static.data(name='image', shape=[-1, 784], dtype='float32')
    label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')
    return batchnorm_fc_with_inputs(img, label, class_num=10)


def init_data(batch_size=32, img_shape=[784], label_range=9):
    np.random.seed(5)
    assert isinstance(img_shape, list)
    input_shape = [batch_size, *img_shape]
    img = np.random.random(size=input_shape).astype(np.float32)
    label = np.array([np.random.randint(0, label_range) for _ in range(batch_size)]) \
        .reshape((-1, 1)).astype("int64")
    return img, label
