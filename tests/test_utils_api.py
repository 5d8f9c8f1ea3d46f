"""paddle.utils (unique_name, deprecated, try_import, require_version, run_check) and
paddle.flops counting per layer type as Paddle's hapi dynamic_flops does."""
import re
import warnings

import numpy as np
import pytest

import fluidc as paddle
import fluidc.nn as nn
from fluidc.utils import VisibleDeprecationWarning, unique_name


def test_unique_name_generate_guard_switch():
    with unique_name.guard():
        assert unique_name.generate("fc") == "fc_0"
        assert unique_name.generate("fc") == "fc_1"
        with unique_name.guard("pre_"):
            assert unique_name.generate("fc") == "pre_fc_0"
        assert unique_name.generate("fc") == "fc_2"
        old = unique_name.switch()
        assert unique_name.generate("fc") == "fc_0"
        unique_name.switch(old)
        assert unique_name.generate("fc") == "fc_3"
    import fluidc.utils.unique_name as by_path
    assert by_path is paddle.utils.unique_name


def test_deprecated_levels():
    def f(x):
        """Doubles."""
        return 2 * x

    quiet = paddle.utils.deprecated(since="2.0.0", update_to="paddle.g", reason="old")(f)
    assert quiet is f and "Warning:" in f.__doc__ and 'Please use "paddle.g"' in f.__doc__

    def h(x):
        return x + 1

    loud = paddle.utils.deprecated(since="2.0.0", level=1)(h)
    with pytest.warns(VisibleDeprecationWarning, match=r'API ".*\.h" is deprecated since 2\.0'):
        assert loud(1) == 2
    future = paddle.utils.deprecated(since="99.0", level=1)(h)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert future(1) == 2  # not yet deprecated in the version fluidc follows
    with pytest.raises(RuntimeError, match="has been deprecated"):
        paddle.utils.deprecated(level=2)(h)(1)
    with pytest.raises(ValueError, match='must start with "paddle."'):
        paddle.utils.deprecated(update_to="torch.g")(h)
    with pytest.raises(ValueError, match="one of 0, 1, 2"):
        paddle.utils.deprecated(level=3)(h)


def test_try_import_and_require_version():
    assert paddle.utils.try_import("numpy") is np
    with pytest.raises(ImportError, match=r"pip install no_such_pkg_x"):
        paddle.utils.try_import("no_such_pkg_x.sub")
    with pytest.raises(ImportError, match="^mine$"):
        paddle.utils.try_import("no_such_pkg_x", "mine")
    paddle.utils.require_version("2.0")
    paddle.utils.require_version("1.8.0", "3.3.1")
    with pytest.raises(Exception, match="VersionError"):
        paddle.utils.require_version("99.0")
    with pytest.raises(Exception, match=r"VersionError: .*\[1.0, 2.0\]"):
        paddle.utils.require_version("1.0", "2.0")
    with pytest.raises(TypeError, match="min_version"):
        paddle.utils.require_version(2)
    with pytest.raises(ValueError, match="max_version"):
        paddle.utils.require_version("1.0", "x.1")


def test_run_check(capsys):
    paddle.utils.run_check()
    out = capsys.readouterr().out
    assert "PaddlePaddle works well on 1 CPU." in out
    assert "PaddlePaddle is installed successfully!" in out


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 8, 3, padding=1, groups=1)
        self.bn = nn.BatchNorm2D(8)
        self.act = nn.LeakyReLU()
        self.pool = nn.AvgPool2D(2, 2)
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(8 * 4 * 4, 5, bias_attr=False)

    def forward(self, x):
        y = self.pool(self.act(self.bn(self.conv(x))))
        return self.fc(self.drop(paddle.flatten(y, 1)))


def test_flops_per_layer_type(capsys):
    net = Net()
    net.train()
    got = paddle.flops(net, [1, 3, 8, 8], print_detail=True)
    conv = 8 * 8 * 8 * (3 * 3 * 3 + 1)
    bn = 2 * 8 * 8 * 8
    leaky = 8 * 8 * 8
    pool = 8 * 4 * 4
    fc = 128 * 5
    assert got == conv + bn + leaky + pool + fc
    assert net.training  # restored
    out = capsys.readouterr().out
    assert re.search(r"\| +conv2d_\d+ +\| \[1, 3, 8, 8\] \| \[1, 8, 8, 8\] \| +224 +\| "
                     r"+14336 +\|", out)
    params = sum(int(np.prod(p.shape)) for p in net.parameters())
    assert f"Total Flops: {got}     Total Params: {params}" in out
    # custom_ops replace the table's function; the layers are left as they were
    calls = []

    def count_dropout(m, x, y):
        calls.append(type(m))
        m.total_ops += 7
    assert paddle.flops(net, [1, 3, 8, 8], custom_ops={nn.Dropout: count_dropout}) == got + 7
    assert calls == [nn.Dropout]
    assert "forward" not in vars(net.conv) and not hasattr(net.conv, "total_ops")


def test_flops_keeps_a_to_static_forward():
    net = nn.Sequential(nn.Linear(4, 3))
    inner = net[0]
    paddle.jit.to_static(inner)
    static_forward = inner.forward
    assert paddle.flops(net, [2, 4]) == 4 * 6
    assert inner.forward is static_forward


def test_flops_of_something_else_warns():
    with pytest.warns(UserWarning, match="paddle.nn.Layer or paddle.static.Program"):
        assert paddle.flops(object(), [1]) == -1
