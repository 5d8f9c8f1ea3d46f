"""The composite networks of Paddle's test/book/nets.py and test/legacy_test/nets.py
(simple_img_conv_pool, img_conv_group, sequence_conv_pool), written over the public 2.x static
API so that the book tests use them exactly as Paddle's own tests do (fluid.nets is gone from
Paddle 3.x; the tests import this helper instead)."""
import fluidc as paddle


def simple_img_conv_pool(input, num_filters, filter_size, pool_size, pool_stride,
                         pool_padding=0, pool_type='max', global_pooling=False, conv_stride=1,
                         conv_padding=0, conv_dilation=1, conv_groups=1, param_attr=None,
                         bias_attr=None, act=None, use_cudnn=True):
    out = paddle.static.nn.conv2d(input=input, num_filters=num_filters,
                                  filter_size=filter_size, stride=conv_stride,
                                  padding=conv_padding, dilation=conv_dilation,
                                  groups=conv_groups, param_attr=param_attr,
                                  bias_attr=bias_attr, act=act, use_cudnn=use_cudnn)
    pool = (paddle.nn.functional.max_pool2d if pool_type == 'max'
            else paddle.nn.functional.avg_pool2d)
    return pool(x=out, kernel_size=pool_size, stride=pool_stride, padding=pool_padding)


def img_conv_group(input, conv_num_filter, pool_size, conv_padding=1, conv_filter_size=3,
                   conv_act=None, param_attr=None, conv_with_batchnorm=False,
                   conv_batchnorm_drop_rate=0.0, pool_stride=1, pool_type='max',
                   use_cudnn=True):
    assert isinstance(conv_num_filter, (list, tuple))
    n = len(conv_num_filter)

    def per_layer(v):
        if hasattr(v, '__len__'):
            assert len(v) == n
            return list(v)
        return [v] * n

    paddings = per_layer(conv_padding)
    sizes = per_layer(conv_filter_size)
    attrs = per_layer(param_attr)
    with_bn = per_layer(conv_with_batchnorm)
    drops = per_layer(conv_batchnorm_drop_rate)
    out = input
    for i in range(n):
        out = paddle.static.nn.conv2d(input=out, num_filters=conv_num_filter[i],
                                      filter_size=sizes[i], padding=paddings[i],
                                      param_attr=attrs[i],
                                      act=None if with_bn[i] else conv_act,
                                      use_cudnn=use_cudnn)
        if with_bn[i]:
            out = paddle.static.nn.batch_norm(input=out, act=conv_act)
            if abs(drops[i]) > 1e-5:
                out = paddle.nn.functional.dropout(x=out, p=drops[i])
    pool = (paddle.nn.functional.max_pool2d if pool_type == 'max'
            else paddle.nn.functional.avg_pool2d)
    return pool(x=out, kernel_size=pool_size, stride=pool_stride)


def sequence_conv_pool(input, num_filters, filter_size, param_attr=None, act='sigmoid',
                       pool_type='max', bias_attr=None):
    conv = paddle.static.nn.sequence_lod.sequence_conv(
        input=input, num_filters=num_filters, filter_size=filter_size,
        param_attr=param_attr, bias_attr=bias_attr, act=act)
    return paddle.static.nn.sequence_lod.sequence_pool(input=conv, pool_type=pool_type)
