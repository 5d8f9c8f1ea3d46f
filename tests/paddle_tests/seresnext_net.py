"""Paddle's test/legacy_test/seresnext_net.py, the CPU half test_program_prune_backward.py uses:
SE_ResNeXt50Small (batch_norm, dropout and cudnn convs removed, as that file sets), its
Momentum optimizer with a cosine-annealed learning rate and L2Decay, and the CPU feed (12
random 3 x 224 x 224 images, labels below 999, init_data's seed).

Changed: paddle.tensor.math._multiply_with_axis(x, y, axis=0) (a private helper: x [N, C, H, W]
times y [N, C] aligned at axis 0) -> x * paddle.unsqueeze(y, [2, 3]), the same product through
the public API (Variable's `*`: Paddle 3.3.1's paddle.multiply takes only PIR values);
base.core._set_eager_deletion_mode, CPU_NUM and FLAGS_cudnn_deterministic dropped (Paddle internals / parallel-executor settings); the
DeviceType-keyed CUDA batch size, iteration count and feed dropped: feed_dict() is the CPU one,
made on first use rather than at import.
"""
import fluidc as paddle

from .simple_nets import init_data

remove_cudnn_conv = True

remove_dropout = True
remove_bn = True


def squeeze_excitation(input, num_channels, reduction_ratio):
    conv = input
    shape = conv.shape
    reshape = paddle.reshape(x=conv, shape=[-1, shape[1], shape[2] * shape[3]])
    pool = paddle.mean(x=reshape, axis=2)

    squeeze = paddle.static.nn.fc(x=pool, size=num_channels // reduction_ratio,
                                  activation='relu')
    excitation = paddle.static.nn.fc(x=squeeze, size=num_channels, activation='sigmoid')
    scale = input * paddle.unsqueeze(excitation, [2, 3])
    return scale


def conv_bn_layer(input, num_filters, filter_size, stride=1, groups=1, act=None):
    conv = paddle.static.nn.conv2d(input=input, num_filters=num_filters,
                                   filter_size=filter_size, stride=stride,
                                   padding=(filter_size - 1) // 2, groups=groups, act=None,
                                   use_cudnn=(not remove_cudnn_conv), bias_attr=False)
    return conv if remove_bn else paddle.static.nn.batch_norm(input=conv, act=act,
                                                              momentum=0.1)


def shortcut(input, ch_out, stride):
    ch_in = input.shape[1]
    if ch_in != ch_out:
        if stride == 1:
            filter_size = 1
        else:
            filter_size = 3
        return conv_bn_layer(input, ch_out, filter_size, stride)
    else:
        return input


def bottleneck_block(input, num_filters, stride, cardinality, reduction_ratio):
    # The number of first 1x1 convolutional channels for each bottleneck build block
    # was halved to reduce the computation cost.
    conv0 = conv_bn_layer(input=input, num_filters=num_filters, filter_size=1, act='relu')
    conv1 = conv_bn_layer(input=conv0, num_filters=num_filters * 2, filter_size=3,
                          stride=stride, groups=cardinality, act='relu')
    conv2 = conv_bn_layer(input=conv1, num_filters=num_filters * 2, filter_size=1, act=None)
    scale = squeeze_excitation(input=conv2, num_channels=num_filters * 2,
                               reduction_ratio=reduction_ratio)

    short = shortcut(input, num_filters * 2, stride)

    return paddle.nn.functional.relu(paddle.add(x=short, y=scale))


img_shape = [3, 224, 224]


def SE_ResNeXt50Small(use_feed):
    img = paddle.static.data(name='image', shape=[-1, *img_shape], dtype='float32')
    label = paddle.static.data(name='label', shape=[-1, 1], dtype='int64')

    conv = conv_bn_layer(input=img, num_filters=16, filter_size=3, stride=2, act='relu')
    conv = conv_bn_layer(input=conv, num_filters=16, filter_size=3, stride=1, act='relu')
    conv = conv_bn_layer(input=conv, num_filters=16, filter_size=3, stride=1, act='relu')
    conv = paddle.nn.functional.max_pool2d(x=conv, kernel_size=3, stride=2, padding=1)

    cardinality = 32
    reduction_ratio = 16
    depth = [3, 4, 6, 3]
    num_filters = [128, 256, 512, 1024]

    for block in range(len(depth)):
        for i in range(depth[block]):
            conv = bottleneck_block(input=conv, num_filters=num_filters[block],
                                    stride=2 if i == 0 and block != 0 else 1,
                                    cardinality=cardinality, reduction_ratio=reduction_ratio)

    shape = conv.shape
    reshape = paddle.reshape(x=conv, shape=[-1, shape[1], shape[2] * shape[3]])
    pool = paddle.mean(x=reshape, axis=2)
    dropout = pool if remove_dropout else paddle.nn.functional.dropout(x=pool, p=0.2)
    # Classifier layer:
    prediction = paddle.static.nn.fc(x=dropout, size=1000, activation='softmax')
    loss = paddle.nn.functional.cross_entropy(input=prediction, label=label, reduction='none',
                                              use_softmax=True)
    loss = paddle.mean(loss)
    return loss


def optimizer(learning_rate=0.01):
    optimizer = paddle.optimizer.Momentum(
        learning_rate=paddle.optimizer.lr.CosineAnnealingDecay(learning_rate=learning_rate,
                                                               T_max=1),
        momentum=0.9, weight_decay=paddle.regularizer.L2Decay(1e-4))
    return optimizer


model = SE_ResNeXt50Small


def batch_size():
    return 12


def feed_dict():
    cpu_img, cpu_label = init_data(batch_size=batch_size(), img_shape=img_shape,
                                   label_range=999)
    return {"image": cpu_img, "label": cpu_label}
