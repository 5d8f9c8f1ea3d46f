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
    "test_optimizer_in_control_flow.py::TestMultiTask::test_optimzier_in_switch":
        "summation order: with the file's constant weights the first layer's gradient is 1.2 "
        "times a sum of ten softmax gradients that is 0 in exact arithmetic; summed with a "
        "separate multiply and add (MKL's product, which Paddle and fluidc's dygraph call) "
        "the float32 sum is exactly 0.0, while fluidc's generated product (fuse_gemm_epilogue, "
        "on by default on the CPU) uses fused multiply-adds and gets -1.5e-8, which Adam's "
        "normalization turns into a step: the static hidden (390.374) misses dygraph's "
        "(390.167) by 5e-4 > rtol 1e-5; the branch updates themselves match Paddle "
        "(tests/test_branch_optimizer.py)",
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
