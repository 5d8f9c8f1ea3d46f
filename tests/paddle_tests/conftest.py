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
    'test_reduce_op.py::TestProdOp::test_check_output':
        'missing paddle.prod',
    'test_reduce_op.py::TestProdOp_ZeroDim::test_check_output':
        'missing paddle.prod',
    'test_reduce_op.py::TestProdOp_ZeroDim1::test_check_output':
        'missing paddle.prod',
    'test_reduce_op.py::TestProdOp_ZeroDim2::test_check_output':
        'missing paddle.prod',
    'test_reduce_op.py::TestProd6DOp::test_check_output':
        'missing paddle.prod',
    'test_reduce_op.py::TestProd8DOp::test_check_output':
        'missing paddle.prod',
    'test_reduce_op.py::TestAllOp::test_check_output':
        'missing paddle.all',
    'test_reduce_op.py::TestAllFloatOp::test_check_output':
        'missing paddle.all',
    'test_reduce_op.py::TestAllIntOp::test_check_output':
        'missing paddle.all',
    'test_reduce_op.py::TestAllOp_ZeroDim::test_check_output':
        'missing paddle.all',
    'test_reduce_op.py::TestAllOpWithDim::test_check_output':
        'missing paddle.all',
    'test_reduce_op.py::TestAllOpWithKeepDim::test_check_output':
        'missing paddle.all',
    'test_reduce_op.py::TestAll8DOp::test_check_output':
        'missing paddle.all',
    'test_reduce_op.py::TestAll8DOpWithDim::test_check_output':
        'missing paddle.all',
    'test_reduce_op.py::TestAll8DOpWithKeepDim::test_check_output':
        'missing paddle.all',
    'test_reduce_op.py::TestAllOpError::test_errors':
        'missing paddle.all',
    'test_reduce_op.py::TestAllAPI::test_static':
        'missing paddle.all',
    'test_reduce_op.py::TestAnyOp::test_check_output':
        'missing paddle.any',
    'test_reduce_op.py::TestAnyFloatOp::test_check_output':
        'missing paddle.any',
    'test_reduce_op.py::TestAnyIntOp::test_check_output':
        'missing paddle.any',
    'test_reduce_op.py::TestAnyOp_ZeroDim::test_check_output':
        'missing paddle.any',
    'test_reduce_op.py::TestAnyOpWithDim::test_check_output':
        'missing paddle.any',
    'test_reduce_op.py::TestAnyOpWithKeepDim::test_check_output':
        'missing paddle.any',
    'test_reduce_op.py::TestAny8DOp::test_check_output':
        'missing paddle.any',
    'test_reduce_op.py::TestAny8DOpWithDim::test_check_output':
        'missing paddle.any',
    'test_reduce_op.py::TestAny8DOpWithKeepDim::test_check_output':
        'missing paddle.any',
    'test_reduce_op.py::TestAnyOpError::test_errors':
        'missing paddle.any',
    'test_reduce_op.py::TestAnyAPI::test_static':
        'missing paddle.any',
    'test_reduce_op.py::TestReduceSumOpError::test_errors':
        "paddle.sum(<LoDTensor>) raises AttributeError ('LoDTensor' object has no attribute 'dtype'); Paddle raises TypeError",
    'test_mean_op.py::TestMeanOpError::test_errors':
        "paddle.mean(12) raises AttributeError ('int' object has no attribute 'dtype'); Paddle raises TypeError",
    'test_mean_op.py::TestMeanAPI::test_api_static':
        'missing paddle.tensor namespace (paddle.tensor.mean, paddle.tensor.stat.mean)',
    'test_sum_op.py::API_Test_Add_n::test_api':
        'missing paddle.tensor namespace (paddle.tensor.fill_constant); add_n itself gives the right [[8]*3]*2 with paddle.full inputs',
    'test_dropout_op.py::TestDropoutOpError::test_errors':
        "F.dropout(<LoDTensor>) raises AttributeError ('LoDTensor' object has no attribute 'dtype'); Paddle raises TypeError",
    'test_dropout_op.py::TestDropoutFAPIError::test_errors':
        "F.dropout(<LoDTensor>) raises AttributeError ('LoDTensor' object has no attribute 'dtype'); Paddle raises TypeError",
    'test_dropout_op.py::TestDropoutFAPI::test_static':
        "F.dropout(x, axis=0 / [0, 1]) on data of shape [-1, -1] raises FluidcError 'the dims of x [-1, -1] along axis 1 must be known'; Paddle builds it (mask shape taken at run time)",
    'test_dropout_op.py::TestDropoutFAPIError::test_errors2':
        "F.dropout(x, p='0.5') raises FluidcError; Paddle raises TypeError",
    'test_dropout_op.py::TestDropout2DFAPI::test_static':
        'missing paddle.nn.functional.dropout2d',
    'test_dropout_op.py::TestDropout2DFAPIError::test_errors':
        'missing paddle.nn.functional.dropout2d',
    'test_dropout_op.py::TestDropout3DFAPI::test_static':
        'missing paddle.nn.functional.dropout3d',
    'test_dropout_op.py::TestDropout3DFAPIError::test_errors':
        'missing paddle.nn.functional.dropout3d',
    'test_dropout_op.py::TestAlphaDropoutFAPI::test_static':
        'missing paddle.nn.functional.alpha_dropout',
    'test_dropout_op.py::TestAlphaDropoutFAPIError::test_errors':
        'missing paddle.nn.functional.alpha_dropout',
    'test_dropout_op.py::TestAlphaDropoutFAPIError::test_errors2':
        'missing paddle.nn.functional.alpha_dropout',
    'test_clip_op.py::TestClipAPI::test_errors':
        'paddle.clip accepts int16 / int8 data; Paddle raises TypeError (clip supports float16/32/64, int32/64)',
    'test_gather_op.py::TestGatherOp1::test_check_output':
        'missing paddle.gather',
    'test_gather_op.py::TestGatherOp2::test_check_output':
        'missing paddle.gather',
    'test_gather_op.py::TestGatherOp3::test_check_output':
        'missing paddle.gather',
    'test_gather_op.py::TestGatherOp4::test_check_output':
        'missing paddle.gather',
    'test_gather_op.py::TestGatherOp5::test_check_output':
        'missing paddle.gather',
    'test_gather_op.py::API_TestGather::test_out1':
        'missing paddle.gather',
    'test_gather_op.py::API_TestGather::test_out2':
        'missing paddle.gather',
    'test_gather_op.py::TestGathertError::test_error1':
        'missing paddle.gather',
    'test_gather_op.py::TestGathertError::test_error2':
        'missing paddle.gather',
    'test_gather_op.py::TestGathertError::test_error3':
        'missing paddle.gather',
    'test_gather_op.py::TestCheckOutType::test_out_type':
        'missing paddle.gather',
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
