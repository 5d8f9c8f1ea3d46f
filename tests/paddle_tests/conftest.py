"""fluidc-side configuration of the ported Paddle tests.

KNOWN_GAPS lists every ported test that fails on fluidc today, keyed
"test_file.py::TestClass::test_name", with the precise reason (missing API / op, or a wrong
number). Each is marked xfail(strict=True): CI passes today, and when someone fixes a gap the test
XPASSes, which fails the run until its entry is removed here. A reason starting with "skip:" means
the test crashes the process or hangs on fluidc; it is skipped, never run in CI.
(tests/conftest.py already gives every test fresh default programs, scope and unique names.)
"""
import os

import pytest

KNOWN_GAPS = {
    # the default dtype: bfloat16 storage
    'test_default_dtype.py::TestDefaultTypeInLayer::test_bfloat16':
        "FluidcError in dygraph: nn.Linear's bfloat16 weight is initialized at once, and "
        "fluidc has no bfloat16 storage outside checkpoint files: dygraph tensors are numpy "
        "arrays (numpy has no bfloat16) and plans size buffers by the numpy dtype (BF16 has "
        "none); a static Linear declares it bfloat16 as Paddle does. (Paddle 3.3.1 on the CPU: "
        ".numpy() gives the uint16 bit patterns, and matmul has no bfloat16 kernel, so the "
        "Linear's forward fails there too.)",
}

_HERE = os.path.dirname(os.path.abspath(__file__))


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = str(getattr(item, 'path', item.fspath))
        if os.path.dirname(path) != _HERE:
            continue
        key = '::'.join([os.path.basename(path)] + item.nodeid.split('::')[1:])
        reason = KNOWN_GAPS.get(key)
        if reason is None:
            continue
        if reason.startswith('skip:'):
            item.add_marker(pytest.mark.skip(reason=reason))
        else:
            item.add_marker(pytest.mark.xfail(strict=True, reason=reason))
