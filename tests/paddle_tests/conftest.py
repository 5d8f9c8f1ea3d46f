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
    'test_dropout_op.py::TestDropoutFAPI::test_static':
        "F.dropout(x, axis=0 / [0, 1]) on data of shape [-1, -1] raises FluidcError 'the dims of x [-1, -1] along axis 1 must be known'; Paddle builds it (mask shape taken at run time)",
    # embedding / one_hot / log_softmax / scale
    'test_lookup_table_v2_op.py::TestStaticGraphSupportMultipleInt::test_main':
        "nn.Embedding on uint8 / int8 / int16 ids refused: OpError \"op 'lookup_table_v2': Ids must be int32 or int64, got UINT8\"; Paddle builds the op for every int dtype",
    'test_lookup_table_v2_op.py::TestEmbedOpError::test_errors':
        "static.nn.embedding on float32 ids raises OpError 'Ids must be int32 or int64, got FP32' instead of TypeError, and embedding(..., dtype='int64') builds without the TypeError Paddle raises (the numpy-input TypeError is right)",
    'test_one_hot_v2_op.py::TestOneHotOp::test_check_output':
        "F.one_hot(x, depth) with depth a Variable (fed 0-d int32): TypeError 'int() argument must be ... not Variable' (depth must be a Python int)",
    'test_one_hot_v2_op.py::TestOneHotOp_attr::test_check_output':
        "F.one_hot with a Variable depth: TypeError 'int() argument must be ... not Variable'",
    'test_one_hot_v2_op.py::TestOneHotOp_default_dtype::test_check_output':
        "F.one_hot with a Variable depth: TypeError 'int() argument must be ... not Variable'",
    'test_one_hot_v2_op.py::TestOneHotOpApi::test_api_with_depthTensor':
        "paddle.assign missing (AttributeError); F.one_hot also takes no Variable num_classes",
    'test_one_hot_v2_op.py::BadInputTestOnehotV2::test_error':
        "F.one_hot on float32 x raises nothing (builds a one_hot_v2 op); Paddle raises TypeError (x must be int32 / int64)",
    'test_log_softmax.py::TestNNFunctionalLogSoftmaxAPI::test_errors':
        "F.log_softmax on int32 x raises nothing (gives an int32 output), and F.log_softmax(x, dtype='int32') raises nothing; Paddle raises TypeError for both",
    'test_scale_op.py::TestScaleOpScaleVariable::test_check_output':
        "paddle.scale(x, scale=<Variable>) unsupported: TypeError 'float() argument must be ... not Variable' (no ScaleTensor input)",
    'test_scale_op.py::TestScaleRaiseError::test_errors':
        "paddle.scale([10]) raises AttributeError \"'list' object has no attribute 'dtype'\"; Paddle raises TypeError",
    'test_scale_op.py::TestScaleInplaceApiStatic::test_api':
        "Variable.scale_ missing (AttributeError)",
    # control flow: cond / case / switch_case / while_loop
    'test_cond.py::TestCondInputOutput::test_pass_and_modify_var':
        "Variable == int is Python's ==: (i % 2) == 0 gives the bool False, not a bool Variable, so cond raises 'pred must be Variable, but received bool'",
    'test_cond.py::TestCondInputOutput::test_return_none':
        "Variable == int is Python's ==: (i % 2) == 0 gives a Python bool, cond refuses it as pred",
    'test_cond.py::TestCondInputOutput::test_wrong_structure_exception':
        "Variable == int is Python's ==: (i % 2) == 0 gives a Python bool, so cond raises 'pred must be Variable' instead of the 'Incompatible return values ...' / 'true fn returns 1 vars ...' errors (those messages are right when pred is a Variable)",
    'test_cond.py::TestCondNestedControlFlow::test_cond_op_in_condition':
        "Variable == Variable is Python's ==: a == b gives a Python bool, cond refuses it as pred",
    'test_cond.py::TestCondBackward::test_cond_backward':
        "Variable == int is Python's ==: (i % 2) == 0 gives a Python bool, cond refuses it as pred",
    'test_cond.py::TestCondBackward::test_half_nested_cond_backward':
        "Variable == int is Python's ==: (i % 2) == 0 gives a Python bool, cond refuses it as pred",
    'test_cond.py::TestCondBackward::test_nested_cond_backward':
        "Variable == int is Python's ==: (i % 2) == 0 gives a Python bool, cond refuses it as pred",
    'test_cond.py::TestCondInputOutput::test_return_single_var':
        "branch outputs of different shapes ([2, 3] vs [3, 2]) refused: OpError 'select_input: fluidc compiles one shape for a branch output'",
    'test_cond.py::TestCondInputOutput::test_return_var_tuple':
        "branch outputs of different shapes ([1, 2] vs [3, 4]) refused: OpError from select_input",
    'test_cond.py::TestCondWithDict::test_input_with_dict':
        "branch outputs of different shapes ({'1': [3, 2] vs [3, 4]}) refused: ValueError 'Incompatible return values'; Paddle merges them to shape (3, -1)",
    'test_cond.py::TestCondWithError::test_input_type_error':
        "cond(pred, f, f, name=set()) raises nothing; Paddle raises TypeError for a non-str name",
    'test_case.py::TestAPICase::test_return_single_var':
        "branch outputs of different shapes ([4, 2] vs default's [4, 3]) refused: OpError from select_input",
    'test_case.py::TestAPICase::test_return_var_tuple':
        "branch outputs of different shapes ([3, 4] vs [5, 6]) refused: OpError from select_input",
    'test_case.py::TestAPICase_Nested::test_nested_case':
        "Variable == Variable is Python's ==: var_5 == var_6 gives a Python bool, case refuses it as pred",
    'test_case.py::TestAPICase_Nested::test_nested_0d_tensor':
        "Variable == Variable is Python's ==: var_5 == var_6 gives a Python bool, case refuses it as pred",
    'test_case.py::TestMultiTask::test_optimizer_in_case':
        "Variable == Variable is Python's ==: switch_id == one gives a Python bool, case refuses it as pred",
    'test_switch_case.py::TestAPISwitchCase::test_return_single_var':
        "branch outputs of different shapes ([4, 2] vs [4, 3]) refused: OpError from select_input",
    'test_switch_case.py::TestAPISwitchCase::test_return_var_tuple':
        "branch outputs of different shapes ([1, 2] vs [5, 6]) refused: OpError from select_input",
    'test_switch_case.py::TestAPISwitchCase_Nested::test_nested_switch_case':
        "branch outputs of different shapes ([1, 2] vs [2, 3]) refused: OpError from select_input",
    'test_while_loop_op.py::TestApiWhileLoop::test_var_dict':
        "while_loop with dict / nested-list loop_vars returns a body-block var for them: fetching test_dict['test_key'] raises FetchError 'elementwise_add_0.tmp_0 is not a var of the program'",
    'test_while_loop_op.py::TestApiWhileLoop_Backward::test_while_loop_backward':
        "while gradients not built: append_backward raises OpError \"op 'while' has no gradient in fluidc\"",
    'test_while_loop_op.py::TestApiWhileLoop_Backward::test_while_loop_backward2':
        "while gradients not built: append_backward raises OpError \"op 'while' has no gradient in fluidc\"",
    'test_while_loop_op.py::TestApiWhileLoop_NestedWithBackwardAndLoDTensorArray::test_nested_net_with_backward_and_lodtensor':
        "tensor arrays missing: paddle.tensor.array_write / array_read (and while gradients not built)",
    'test_while_loop_op.py::TestApiWhileLoop_Error::test_error2':
        "a body that adds a key to a dict loop var (or appends to a list one) raises nothing; Paddle raises ValueError (output structure differs from loop_vars)",
    'test_while_loop_op.py::TestApiWhileLoopSliceInBody::test_var_slice':
        "paddle.shape missing",
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
