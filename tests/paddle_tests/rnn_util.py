"""Shared by the test/rnn ports (test_rnn_cells.py, test_rnn_nets.py, test_wrappers.py):
their float32 stand-ins for Paddle's float64 runs, and sequence_mask made with numpy."""
import numpy as np

import fluidc as paddle


def to_tensor(x):
    """A float32 tensor of a float array (Paddle's tests run float64: set_default_dtype)."""
    return paddle.to_tensor(np.asarray(x).astype("float32"))


def randn(*shape):
    """Standard normal float32 values, as float64 for the numpy reference."""
    return np.random.randn(*shape).astype("float32").astype("float64")


def sequence_mask(lengths, maxlen=None):
    """paddle.static.nn.sequence_lod.sequence_mask as a float32 tensor: [batch, maxlen] of 1.0
    where the step is within the length."""
    lengths = np.asarray(lengths)
    maxlen = int(lengths.max()) if maxlen is None else maxlen
    return paddle.to_tensor((np.arange(maxlen)[None, :] < lengths[:, None]).astype("float32"))
