"""paddle.tensor.array: tensor arrays (and paddle.tensor.tensor_array_to_tensor)."""
from ..frontend.layers import tensor_array as _ta
from ..frontend.layers.tensor_array import array_length, array_read, array_write, create_array

__all__ = ["array_length", "array_read", "array_write", "create_array", "tensor_array_to_tensor"]


def tensor_array_to_tensor(input, axis: int = 1, use_stack: bool = False, name=None):
    """paddle.tensor.tensor_array_to_tensor (2.x argument order): (joined tensor, sizes)."""
    return _ta.tensor_array_to_tensor(input, axis, name=name, use_stack=use_stack)
