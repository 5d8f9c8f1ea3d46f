"""fluid.nets, re-exported."""
from .frontend.layers.api2.nets import (glu, img_conv_group,  # noqa: F401
                                        scaled_dot_product_attention, sequence_conv_pool,
                                        simple_img_conv_pool)
