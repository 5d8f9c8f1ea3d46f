"""paddle.nn.functional.loss.edit_distance: fluid.layers.edit_distance, with Paddle 3.3.1's
output order in dygraph mode."""
from __future__ import annotations

from ...framework import in_dygraph_mode
from .. import sequence_metric


def edit_distance(input, label, normalized=True, ignored_tokens=None, input_length=None,
                  label_length=None):
    """(distance [num_seq, 1] float32, sequence_num [1] int64) in static programs. In dygraph
    mode Paddle 3.3.1 returns the op's outputs in its slot order, (sequence_num, distance), as
    its docstring's example prints them; fluidc returns the same, so code written against it
    runs unchanged."""
    out, num = sequence_metric.edit_distance(input, label, normalized, ignored_tokens,
                                             input_length, label_length)
    return (num, out) if in_dygraph_mode() else (out, num)
