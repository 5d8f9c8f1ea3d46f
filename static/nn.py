"""paddle.static.nn: layers with 2.x argument names, and the sequence layers (also reachable
as paddle.static.nn.sequence_lod.*)."""
from ..frontend.layers import sequence as sequence_lod  # noqa: F401
from ..frontend.layers.api2.static_nn import batch_norm, embedding, fc  # noqa: F401
from ..frontend.layers.conv import conv2d, layer_norm  # noqa: F401
from ..frontend.layers.sequence import (sequence_concat, sequence_conv,  # noqa: F401
                                        sequence_expand, sequence_first_step,
                                        sequence_last_step, sequence_pool, sequence_reshape,
                                        sequence_softmax)
from ..frontend.layers import control_flow  # noqa: F401 (paddle.static.nn.control_flow.While)
from ..frontend.layers.control_flow import case, cond, switch_case, while_loop  # noqa: F401


from fluidc.frontend.errors import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute("fluidc.static.nn", globals())  # an unknown name: close names, not a bare error
