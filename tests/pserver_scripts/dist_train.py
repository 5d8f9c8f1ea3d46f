"""Paddle's parameter-server quick start (the docs' dist_train.py) on fluidc: the same
environment variables, transpiler calls and roles. Two changes for tests: fluidc ships no
uci_housing, so the reader is a fixed synthetic regression set of which each trainer reads its
own half of every batch; and PSTEST_OUT (when set) names a directory where each trainer writes
its parameters after startup and at the end, and its losses. PSTEST_MODEL=mlp adds a hidden
layer of 1300 (its weight is split across the servers), PSTEST_MODEL=emb looks ids up in a
table kept on the servers (is_distributed=True; with PSTEST_TABLE=sparse only is_sparse=True:
the trainers hold it), and PSTEST_OPTIMIZER=adam uses Adam (=schedule: SGD with a piecewise
learning-rate decay and L2 weight decay);
PSTEST_SYNC=0 runs async; PSTEST_SLEEP makes each step sleep (for the fault tests);
PSTEST_SAVE: trainer 0 saves its persistables there at the end, PSTEST_LOAD: the servers load
such a checkpoint after their startup (the docs' incremental training); PSTEST_CKPT: trainer 0
saves its persistables to PSTEST_CKPT/<epoch> after every epoch, PSTEST_DIE_AFTER: trainer 1
exits abruptly after that epoch, PSTEST_FIRST_EPOCH: the trainers start with that epoch (a
restart from a checkpoint)."""
import os
import time

import numpy as np

import fluidc as fluid

BATCH_SIZE = 8
EPOCH_NUM = int(os.getenv("PSTEST_EPOCHS", "3"))
ROWS = 64
VOCAB = 200000  # PSTEST_MODEL=emb's table: 200000 x 8 floats, held by the servers only
TABLE = "table"


def dataset():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (ROWS, 13)).astype("float32")
    y = (x @ rng.uniform(-1, 1, (13, 1)) + 0.5).astype("float32")
    return x, y


def dataset_ids():
    """PSTEST_MODEL=emb's data: ids into a table of VOCAB rows (0 is the padding id)."""
    rng = np.random.RandomState(1)
    ids = rng.randint(0, 40, (ROWS, 1)).astype("int64") * 4999 % VOCAB
    y = (np.cos(ids.astype("float32")) + 0.5).astype("float32")
    return ids, y


def train_reader(trainer_id, trainers):
    """Batches of BATCH_SIZE rows: this trainer's share of each global batch."""
    x, y = dataset_ids() if os.getenv("PSTEST_MODEL") == "emb" else dataset()
    step = BATCH_SIZE * trainers
    for start in range(0, ROWS, step):
        lo = start + trainer_id * BATCH_SIZE
        yield [(x[i], y[i]) for i in range(lo, lo + BATCH_SIZE)]


def build():
    y = fluid.layers.data(name='y', shape=[1], dtype='float32')
    if os.getenv("PSTEST_MODEL") == "emb":  # a table kept on the servers only
        x = fluid.layers.data(name='ids', shape=[1], dtype='int64')
        h = fluid.layers.embedding(x, size=[VOCAB, 8], is_sparse=True, padding_idx=0,
                                   is_distributed=os.getenv("PSTEST_TABLE") != "sparse",
                                   param_attr=fluid.ParamAttr(
                                       name=TABLE, initializer=fluid.initializer.Constant(0.1)))
    else:
        x = fluid.layers.data(name='x', shape=[13], dtype='float32')
        h = x
    if os.getenv("PSTEST_MODEL") == "mlp":
        h = fluid.layers.fc(input=x, size=1300, act="relu")
    y_predict = fluid.layers.fc(input=h, size=1, act=None)
    loss = fluid.layers.square_error_cost(input=y_predict, label=y)
    avg_loss = fluid.layers.mean(loss)
    if os.getenv("PSTEST_OPTIMIZER") == "adam":
        opt = fluid.optimizer.Adam(learning_rate=0.01)
    elif os.getenv("PSTEST_OPTIMIZER") == "schedule":  # run by the servers
        opt = fluid.optimizer.SGD(
            learning_rate=fluid.layers.piecewise_decay([3, 6], [0.02, 0.01, 0.005]),
            regularization=fluid.regularizer.L2Decay(0.1))
    else:
        opt = fluid.optimizer.SGD(learning_rate=0.01)
    opt.minimize(avg_loss)
    return x, y, avg_loss


def params():
    return [p.name for p in fluid.default_main_program().all_parameters()]


def dump(path, names):
    scope = fluid.global_scope()
    np.savez(path, **{n: np.array(scope.find_var(n).get_tensor()) for n in names})


def train():
    x, y, avg_loss = build()
    place = fluid.CPUPlace()
    feeder = fluid.DataFeeder(place=place, feed_list=[x, y])
    exe = fluid.Executor(place)

    # fetch distributed training environment setting
    training_role = os.getenv("PADDLE_TRAINING_ROLE", None)
    port = os.getenv("PADDLE_PSERVER_PORT", "6174")
    pserver_ips = os.getenv("PADDLE_PSERVER_IPS", "")
    trainer_id = int(os.getenv("PADDLE_TRAINER_ID", "0"))
    eplist = []
    for ip in pserver_ips.split(","):
        eplist.append(':'.join([ip, port]))
    pserver_endpoints = ",".join(eplist)
    trainers = int(os.getenv("PADDLE_TRAINERS"))
    current_endpoint = os.getenv("PADDLE_CURRENT_IP", "") + ":" + port
    out = os.getenv("PSTEST_OUT")
    names = params()

    t = fluid.DistributeTranspiler()
    t.transpile(
        trainer_id=trainer_id,
        pservers=pserver_endpoints,
        trainers=trainers,
        sync_mode=os.getenv("PSTEST_SYNC", "1") == "1")

    if training_role == "PSERVER":
        pserver_prog = t.get_pserver_program(current_endpoint)
        startup_prog = t.get_startup_program(current_endpoint, pserver_prog)
        exe.run(startup_prog)
        if os.getenv("PSTEST_LOAD"):  # incremental training: the checkpoint of trainer 0
            fluid.io.load_persistables(exe, os.getenv("PSTEST_LOAD"), startup_prog)
        exe.run(pserver_prog)
    elif training_role == "TRAINER":
        trainer_prog = t.get_trainer_program()
        names = [n for n in names if trainer_prog.global_block().has_var(n)]
        exe.run(fluid.default_startup_program())
        if out:
            dump(os.path.join(out, f"init_{trainer_id}.npz"), names)
        losses = []
        for epoch in range(int(os.getenv("PSTEST_FIRST_EPOCH", "0")), EPOCH_NUM):
            for batch_id, batch_data in enumerate(train_reader(trainer_id, trainers)):
                avg_loss_value, = exe.run(trainer_prog,
                                          feed=feeder.feed(batch_data),
                                          fetch_list=[avg_loss])
                losses.append(float(avg_loss_value.reshape(-1)[0]))
                time.sleep(float(os.getenv("PSTEST_SLEEP", "0")))
            if trainer_id == 0 and os.getenv("PSTEST_CKPT"):
                fluid.io.save_persistables(exe, os.path.join(os.getenv("PSTEST_CKPT"),
                                                             str(epoch)), trainer_prog)
            if trainer_id == 1 and os.getenv("PSTEST_DIE_AFTER") == str(epoch):
                os._exit(3)
        if out:
            dump(os.path.join(out, f"final_{trainer_id}.npz"), names)
            if fluid.global_scope().find_var(TABLE) is None:
                open(os.path.join(out, f"no_table_{trainer_id}"), "w").close()
            np.save(os.path.join(out, f"losses_{trainer_id}.npy"), np.array(losses))
        if trainer_id == 0 and os.getenv("PSTEST_SAVE"):
            fluid.io.save_persistables(exe, os.getenv("PSTEST_SAVE"), trainer_prog)
        # destory the resource of current trainer node in pserver server node
        exe.close()
    else:
        raise AssertionError("PADDLE_TRAINING_ROLE should be one of [TRAINER, PSERVER]")


if __name__ == "__main__":
    train()
