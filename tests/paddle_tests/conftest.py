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

KNOWN_GAPS: dict[str, str] = {}

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
