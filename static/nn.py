"""paddle.static.nn: layers with 2.x argument names, and the sequence layers (also reachable
as paddle.static.nn.sequence_lod.*)."""
from ..frontend.layers import sequence as sequence_lod  # noqa: F401
from ..frontend.layers.api2.static_nn import (batch_norm, bilinear_tensor_product,  # noqa: F401
                                              conv2d_transpose,
                                              conv3d, conv3d_transpose, embedding, fc,
                                              group_norm, instance_norm)
from ..frontend.layers.conv import conv2d, layer_norm  # noqa: F401
from ..frontend.layers.api2.crop_shard import continuous_value_model  # noqa: F401
from ..frontend.layers.api2.spectral_norm import spectral_norm  # noqa: F401
from ..frontend.layers.sampled import nce, row_conv  # noqa: F401
from ..frontend.layers.sequence import (sequence_concat, sequence_conv,  # noqa: F401
                                        sequence_expand, sequence_first_step,
                                        sequence_last_step, sequence_pool, sequence_reshape,
                                        sequence_softmax)
from ..frontend.layers import control_flow  # noqa: F401 (paddle.static.nn.control_flow.While)
from ..frontend.layers.control_flow import case, cond, switch_case, while_loop  # noqa: F401


import sys as _sys  # noqa: E402

common = _sys.modules[__name__]  # paddle.static.nn.common: where Paddle defines these layers

from fluidc.frontend.errors import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute("fluidc.static.nn", globals())  # an unknown name: close names, not a bare error
