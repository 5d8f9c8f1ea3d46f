"""paddle.tensor: the 2.x tensor functions by Paddle's module (creation, math, stat,
manipulation), re-exported."""
from . import array, creation, manipulation, math, random, stat  # noqa: F401
from .array import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .manipulation import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .stat import *  # noqa: F401,F403


from fluidc.frontend.errors import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute("fluidc.tensor", globals())  # an unknown name: close names, not a bare error
