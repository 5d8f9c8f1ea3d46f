"""The model of the data-parallel tests: an MLP with Adam (state per parameter) and a mean
loss, so n replicas on 1/n of a batch each equal one device on the whole batch."""
import numpy as np

import fluidc as fluid
from fluidc.frontend import unique_name

BATCH = 8


def build(seed: int = 1, optimizer: str = "adam"):
    """(main, startup, loss) of a fresh MLP; parameters from `seed`."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = seed
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data("x", [6], dtype="float32")
        y = fluid.layers.data("y", [1], dtype="float32")
        h = fluid.layers.fc(x, 16, act="tanh")
        h = fluid.layers.fc(h, 8, act="relu")
        pred = fluid.layers.fc(h, 1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        opt = fluid.optimizer.Adam(0.05) if optimizer == "adam" else fluid.optimizer.SGD(0.1)
        opt.minimize(loss)
    return main, startup, loss


def batch(step: int, size: int = BATCH):
    """The step's (x, y) batch, the same in every process."""
    r = np.random.RandomState(100 + step)
    return r.rand(size, 6).astype("float32"), r.rand(size, 1).astype("float32")
