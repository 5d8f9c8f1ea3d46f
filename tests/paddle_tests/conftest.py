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
    'test_calc_gradient.py::TestDoubleGrad::test1':
        "double grad: op 'elementwise_mul_grad' has no gradient (paddle.static.gradients of a gradient)",
    'test_calc_gradient.py::TestDoubleGrad::test2':
        "double grad: op 'elementwise_mul_grad' has no gradient (paddle.static.gradients of a gradient)",
    'test_calc_gradient.py::TestGradientWithPrune::test_prune':
        'missing paddle.split',
    'test_calc_gradient.py::TestDoubleGradient::test_calc_gradient':
        'missing paddle.zeros_like (then double grad: elementwise_mul_grad has no gradient)',
    'test_calc_gradient.py::TestDoubleGradient::test_calc_gradient_multi_targets':
        'missing paddle.zeros_like (then double grad: elementwise_mul_grad has no gradient)',
    'test_executor_feed_non_tensor.py::TestExecutor::test_compiled_program_feed_scalar':
        'missing paddle.float32 (dtype constant)',
    'test_executor_feed_non_tensor.py::TestExecutor::test_program_feed_float':
        'missing paddle.float32 (dtype constant)',
    'test_executor_feed_non_tensor.py::TestExecutor::test_program_feed_int':
        'missing paddle.float32 (dtype constant)',
    'test_executor_feed_non_tensor.py::TestExecutor::test_program_feed_list':
        'missing paddle.float32 (dtype constant)',
    'test_feed_data_check_shape_type.py::TestFeedData::test':
        "feed check rejects a LoD tensor of 10 rows / 4 sequences for data declared [4, 3, 4, 5]; Paddle accepts it (FeedError: feed 'data' has shape [10, 3, 4, 5])",
    'test_recommender_system.py::TestRecommenderSystem::test_cpu':
        'missing paddle.norm',
    'test_metrics.py::TestAccuracyStatic::test_main':
        'paddle.metric.Accuracy.update(*fetched static state) raises IndexError (runtime/metrics.py: tuple index out of range)',
    'test_metrics.py::TestAccuracyStaticMultiTopk::test_main':
        'paddle.metric.Accuracy.update(*fetched static state) raises IndexError (runtime/metrics.py: tuple index out of range)',
    'test_prune.py::TestExecutorRunAutoPrune::test_prune_feed_with_optimizer':
        "after exe.run(use_prune=True) raises (fed y cuts the optimizer's graph), the persistable loss1 is not in the scope; in Paddle scope.find_var(loss1.name) is not None",
    'test_backward.py::TestGradientsError::test_error':
        'paddle.static.gradients(no_grad_set=<Variable>) does not raise TypeError (only set/list/tuple are allowed)',
    'test_backward.py::TestSimpleNetWithErrorParamList::test_parameter_list_type_error':
        "minimize(parameter_list=[var, 'name', 3]) raises AttributeError ('int' object has no attribute 'name') instead of TypeError",
    'test_backward.py::TestSimpleNetWithErrorNoGradSet::test_no_grad_set_type_error':
        "minimize(no_grad_set='test') does not raise TypeError (a str is not a set/list/tuple)",
    'test_backward.py::TestAppendBackwardWithError::test_parameter_list_type_error':
        "append_backward(parameter_list=[ndarray, ...]) raises AttributeError instead of TypeError",
    'test_backward.py::TestBackwardUninitializedVariable::test':
        'Variable slicing (gt[:2]) is missing: Variable.__getitem__',
    'test_inference_model_io.py::TestSaveInferenceModel::test_save_inference_model_with_auc':
        'missing paddle.static.auc',
    'test_inference_model_io.py::TestSaveInferenceModelNew::test_save_and_load_inference_model':
        'paddle.static.save_inference_model(prefix, feed_vars=[names], ...) accepts str feed vars; Paddle raises ValueError (feed_vars must be Variables)',
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
