"""paddle.tensor: the 2.x tensor functions by Paddle's module (creation, math, stat,
manipulation), re-exported."""
from . import creation, manipulation, math, stat  # noqa: F401
from .creation import *  # noqa: F401,F403
from .manipulation import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .stat import *  # noqa: F401,F403
