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
    'test_inference_model_io.py::TestSaveInferenceModel::test_save_inference_model_with_auc':
        'missing paddle.static.auc',
    'test_inference_model_io.py::TestSaveInferenceModelNew::test_save_and_load_inference_model':
        "paddle.static.load_inference_model([model_dir], exe) raises TypeError (os.stat of a list); Paddle raises ValueError for a path_prefix that is not a str (and for unknown keyword arguments)",
    'test_softmax_op.py::TestSoftmaxAPI_ZeroDim::test_static':
        "softmax of a 0-D var: ShapeError 'axis -1 is out of range for rank 0' (Paddle gives a 0-D 1.0)",
    'test_reshape_op.py::TestReshapeAPI::test_paddle_api':
        "paddle.reshape(x, <fed int32 Variable>) unsupported: fluidc needs the target shape when the plan is built (Variables made by paddle.full are folded; a fed or computed shape would need the plan keyed by its value)",
    'test_reshape_op.py::TestStaticReshape_::test_paddle_api':
        "paddle.reshape(x, <fed int32 Variable>) unsupported: fluidc needs the target shape when the plan is built (Variables made by paddle.full are folded; a fed or computed shape would need the plan keyed by its value)",
    'test_reshape_op.py::TestReshapeAPI_ZeroDim::test_static':
        "append_backward(out) makes no x@GRAD for x = paddle.rand([]) with stop_gradient False (x comes from uniform_random, which has no grad op); Paddle makes it",
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
