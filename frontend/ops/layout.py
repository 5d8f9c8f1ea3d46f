"""Channel-last data formats of the n-D conv ops (conv3d, conv2d_transpose, conv3d_transpose):
the ops compute over channel-first views of their tensors; these helpers decide the layout from
the data_format attribute and move shapes, numpy arrays and torch tensors between the two
(permuted views, no copies)."""
from __future__ import annotations

import numpy as np

from ..errors import OpError

CHANNEL_FIRST = {2: "NCHW", 3: "NCDHW"}
CHANNEL_LAST = {2: "NHWC", 3: "NDHWC"}


def channel_last(op: str, a, nd: int) -> bool:
    """Whether the op's data_format puts channels last; anything but Paddle's names for its
    rank is an OpError."""
    fmt = a["data_format"]
    if fmt in (CHANNEL_FIRST[nd], "AnyLayout"):
        return False
    if fmt == CHANNEL_LAST[nd]:
        return True
    raise OpError(f"op '{op}': data_format {fmt!r} is not one of "
                  f"{CHANNEL_FIRST[nd]!r}, {CHANNEL_LAST[nd]!r}")


def _first_order(rank: int) -> tuple[int, ...]:
    return (0, rank - 1, *range(1, rank - 1))


def _last_order(rank: int) -> tuple[int, ...]:
    return (0, *range(2, rank), 1)


def first_shape(shape, last: bool) -> tuple[int, ...]:
    """A tensor's shape in channel-first order."""
    return tuple(shape[i] for i in _first_order(len(shape))) if last else tuple(shape)


def last_shape(shape, last: bool) -> tuple[int, ...]:
    """A channel-first shape in the op's order."""
    return tuple(shape[i] for i in _last_order(len(shape))) if last else tuple(shape)


def _permute(x, order):
    return x.transpose(order) if isinstance(x, np.ndarray) else x.permute(*order)


def to_first(x, last: bool):
    """A channel-last numpy array or torch tensor as a channel-first view."""
    return _permute(x, _first_order(x.ndim)) if last else x


def to_last(x, last: bool):
    """A channel-first numpy array or torch tensor as a view in the op's order."""
    return _permute(x, _last_order(x.ndim)) if last else x
