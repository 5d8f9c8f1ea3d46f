"""Paddle's attributes that fluidc's op definitions do not implement, each decided once.

An op's Paddle attribute set (tests/fixtures/paddle/op_attrs.json, dumped from Paddle 3.3.1,
plus the older ones fluidc has met in files) splits three ways:
- implemented: the op definition's `OpDef.attrs`;
- inert: they never change what the op computes here (kernel and library choices, oneDNN int8
  scales and layout hints, `is_test` where an op computes the same in both modes, parameters of
  modes that are refused anyway): any value of their type is accepted;
- unsupported: their meaning is not implemented; Paddle's default is accepted, any other value
  is refused, naming the op, the attribute and the value.

Grad ops share their forward op's decisions (`conv2d_grad` those of `conv2d`), and so do the ops
fluidc lowers an op into with its attributes (`adam_update` those of `adam`).

Paddle 1.x ops that Paddle 3.3.1 no longer has (StaticRNN's recurrent / recurrent_grad /
rnn_memory_helper, IfElse's split_lod_tensor / merge_lod_tensor / merge_lod_tensor_infer)
cannot be in op_attrs.json, which is dumped from 3.3.1: their OpDef attrs are their whole 1.x
attribute sets (read from Paddle 1.x's op makers), so nothing about them is decided here.
"""
from __future__ import annotations

from typing import Any

# Any op Paddle gives one of these: they choose how Paddle runs an op (cuDNN workspace and
# search, oneDNN int8 scales and fp32 output, oneDNN layouts), never what a float op computes.
INERT_ANY_OP: dict[str, Any] = {
    "workspace_size_MB": 512, "exhaustive_search": False, "force_fp32_output": False,
    "Scale_x": 1.0, "Scale_y": 1.0, "Scale_out": 1.0, "Scale_in": 1.0, "Scale_in_eltwise": 1.0,
    "Scale_weights": [1.0], "scale_x": 1.0, "scale_y": [1.0], "scale_out": 1.0,
    "x_data_format": "", "y_data_format": "",
}


class Decisions:
    """One op family's inert and unsupported attributes ({name: Paddle's default}), and which
    of them Paddle writes into every program (its non-extra attributes)."""

    def __init__(self, inert: dict[str, Any] | None = None,
                 unsupported: dict[str, Any] | None = None, written: tuple[str, ...] = ()):
        self.inert = dict(inert or {})
        self.unsupported = dict(unsupported or {})
        self.written = {n: {**self.inert, **self.unsupported}[n] for n in written}


_CONV = Decisions(
    inert={"is_test": False,  # a conv computes the same in training and inference
           # parameters of the fusions refused below
           "fuse_alpha": 0.0, "fuse_beta": 0.0, "fuse_brelu_threshold": 6.0},
    # oneDNN fusions (an activation or a residual add inside the conv) and cuDNN's add-to
    # gradient (conv2d_grad adds into Input@GRAD instead of writing it)
    unsupported={"fuse_relu": False, "fuse_brelu": False, "fuse_activation": "",
                 "fuse_residual_connection": False, "fuse_relu_before_depthwise_conv": False,
                 "use_addto": False})
# lookup_table: sparse gradients (fluidc's W@GRAD is dense: the same update for sgd, momentum
# and adam) and the parameter server's settings: is_distributed computes the same in one
# process (DistributeTranspiler keeps such a table on the servers), remote_prefetch is refused.
_LOOKUP_INERT = {"is_sparse": False, "slot": 0, "grad_inplace": False, "trainer_id": 0,
                 "height_sections": [], "epmap": [], "table_names": [], "entry": "none",
                 "entry_config": "", "table_class": "none", "is_distributed": False}
_LOOKUP_UNSUPPORTED = {"remote_prefetch": False}
_LOOKUP_WRITTEN = (*(n for n in _LOOKUP_INERT if n != "slot"), "is_test", *_LOOKUP_UNSUPPORTED)
# Adam: fluidc's gradients are dense, where lazy_mode changes nothing; amsgrad keeps a moment
# maximum fluidc does not.
_ADAM = Decisions(inert={"lazy_mode": False, "min_row_size_to_use_multithread": 1000},
                  unsupported={"amsgrad": False},
                  written=("lazy_mode", "min_row_size_to_use_multithread", "amsgrad"))

DECISIONS: dict[str, Decisions] = {
    "conv2d": _CONV,
    "depthwise_conv2d": _CONV,
    "conv3d": _CONV,
    "conv2d_transpose": _CONV,
    "conv3d_transpose": _CONV,
    "pool2d": Decisions(inert={"is_test": False, "use_cudnn": False}, written=("use_cudnn",)),
    "softmax": Decisions(inert={"is_test": False, "data_format": "AnyLayout"}),
    "sequence_softmax": Decisions(inert={"data_format": "AnyLayout"}),
    "layer_norm": Decisions(inert={"is_test": False}),
    "batch_norm": Decisions(unsupported={"fuse_with_relu": False}),
    "lookup_table": Decisions(inert={**_LOOKUP_INERT, "is_test": False},
                              unsupported=_LOOKUP_UNSUPPORTED,
                              written=_LOOKUP_WRITTEN),
    "lookup_table_v2": Decisions(inert=_LOOKUP_INERT, unsupported=_LOOKUP_UNSUPPORTED),
    # oneDNN's fused reshape/transpose around the product, and multi-head splitting
    "matmul": Decisions(unsupported={"head_number": 1, "fused_reshape_X": [],
                                     "fused_reshape_Y": [], "fused_reshape_Out": [],
                                     "fused_transpose_X": [], "fused_transpose_Y": [],
                                     "fused_transpose_Out": []}, written=("head_number",)),
    # split's grad is a concat to which Paddle's grad maker hands split's attributes
    "concat": Decisions(inert={"num": 0, "sections": []}),
    "adam": _ADAM,
    "adamw": _ADAM,
    # both modes compute the same softmax and loss; fluidc always takes the stable one
    "softmax_with_cross_entropy": Decisions(inert={"numeric_stable_mode": True},
                                            written=("numeric_stable_mode",)),
    # sorted=False leaves the top k in an order of the kernel's choosing: fluidc's sorted order
    # is one such order, so both values compute the same here
    "top_k_v2": Decisions(inert={"sorted": True}, written=("sorted",)),
    # cuDNN's grid or Paddle's own: the same values (older Paddle wrote it)
    "affine_grid": Decisions(inert={"use_cudnn": True}),
    # reducing in another dtype than the input's
    "frobenius_norm": Decisions(unsupported={"in_dtype": -1, "out_dtype": -1},
                                written=("in_dtype", "out_dtype")),
    # is_test only spares Paddle's kernels writing the Batch* outputs; fluidc always writes them
    "lstm": Decisions(inert={"is_test": False}, written=("is_test",)),
    "gru": Decisions(inert={"is_test": False}),
}
# Ops fluidc lowers an op into, handing them the op's attributes.
_LOWERED_FROM = {"adam_update": "adam", "adamw_update": "adamw", "batch_norm_infer": "batch_norm",
                 "cross_entropy_grad2": "cross_entropy2"}
_NONE = Decisions()


def decisions(op_type: str) -> Decisions:
    """The inert and unsupported attributes of `op_type` (its forward op's for a grad op)."""
    while op_type not in DECISIONS:
        if op_type in _LOWERED_FROM:
            op_type = _LOWERED_FROM[op_type]
        elif op_type.endswith("_grad"):
            op_type = op_type[:-len("_grad")]
        else:
            return _NONE
    return DECISIONS[op_type]
