"""paddle.Model made in static mode (Paddle's StaticGraphAdapter): prepare() builds, from the
default main program that holds the network's parameters, a program per mode, each with feed
vars from the input / label InputSpecs (by their names):

- "test" (predict): the network's outputs, cloned for test;
- "eval": outputs, the losses and the metrics' compute outputs, cloned for test;
- "train": the same plus optimizer.minimize of the losses' sum;

then runs the startup program for the variables it declared, keeping the values of those
already set (parameters the user initialized or loaded). A batch runs its program with one
Executor in the global scope and returns numpy arrays; metrics are updated with the fetched
compute outputs, as in dygraph mode. save(training=True) writes the network's state dict
(path.pdparams, Paddle's structured names) and the optimizer's variables by name
(path.pdopt, as Paddle's static adapter); training=False the test program as an inference
model (save_inference_model)."""
from __future__ import annotations

import numpy as np

from .model import _to_list


class StaticGraph:
    """The programs and executor behind a static-mode paddle.Model."""

    def __init__(self, model) -> None:
        from ..frontend.framework import default_main_program, default_startup_program
        self.model = model
        self._orig = default_main_program()
        self._startup = default_startup_program()
        self._progs: dict = {}
        self._exe = None

    # -- building -----------------------------------------------------------------------------
    def _build(self, mode: str) -> dict:
        from ..frontend.framework import program_guard
        from ..static import data
        m = self.model
        prog = self._orig.clone()
        with program_guard(prog, self._startup):
            inputs = [data(s.name, list(s.shape), s.dtype) for s in m._inputs]
            outputs = _to_list(m.network(*inputs))
            entry = {"program": prog, "inputs": inputs, "outputs": outputs, "labels": [],
                     "losses": [], "metrics": []}
            if mode == "test":
                entry["program"] = prog.clone(for_test=True)
                return entry
            labels = [data(s.name, list(s.shape), s.dtype) for s in m._labels]
            entry["labels"] = labels
            if m._loss is not None and labels:
                entry["losses"] = _to_list(m._loss(*(outputs + labels)))
            entry["metrics"] = [_to_list(metric.compute(*(outputs + labels)))
                                for metric in m._metrics]
            if mode == "eval":
                entry["program"] = prog.clone(for_test=True)
                return entry
            if m._optimizer is None or not entry["losses"]:
                raise RuntimeError("model not ready, please call `model.prepare()` first "
                                   "(with an optimizer, a loss and labels)")
            total = entry["losses"][0]
            for extra in entry["losses"][1:]:
                total = total + extra
            m._optimizer.minimize(total)
        return entry

    def prepare(self) -> None:
        """Builds the programs the model can run now (train only with an optimizer and a
        loss) and initializes what they declared."""
        from ..executor import Executor
        from ..runtime.place import CPUPlace
        m = self.model
        self._progs = {"test": self._build("test"), "eval": self._build("eval")}
        if m._optimizer is not None and m._loss is not None:
            self._progs["train"] = self._build("train")
        if self._exe is None:
            self._exe = Executor(CPUPlace())
        self._initialize()

    def _initialize(self) -> None:
        """Runs the startup program; variables that already held a value keep it."""
        from ..executor import global_scope
        scope = global_scope()
        kept = {}
        for var in self._startup.global_block().vars.values():
            found = scope.find_var(var.name)
            if found is not None:
                tensor = found.get_tensor()
                if tensor._is_initialized():
                    kept[var.name] = np.array(tensor)
        self._exe.run(self._startup)
        for name, value in kept.items():
            scope.find_var(name).get_tensor().set(value, self._exe.place)

    # -- running ------------------------------------------------------------------------------
    def _entry(self, mode: str) -> dict:
        entry = self._progs.get(mode)
        if entry is None:
            raise RuntimeError("model not ready, please call `model.prepare()` first")
        return entry

    def _run(self, mode: str, inputs, labels, fetch: list) -> list:
        entry = self._entry(mode)
        feed = {}
        for var, value in zip(entry["inputs"] + entry["labels"],
                              _to_list(inputs) + _to_list(labels)):
            feed[var.name] = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
        return self._exe.run(entry["program"], feed=feed, fetch_list=fetch)

    def step(self, mode: str, inputs, labels, update: bool = True) -> tuple[list, list]:
        """One train or eval batch: (the losses as arrays, the metrics' batch values)."""
        if not update:
            raise AssertionError("Does not support `update == False` in static graph mode "
                                 "by now.")
        entry = self._entry(mode)
        sizes = [len(outs) for outs in entry["metrics"]]
        fetched = self._run(mode, inputs, labels,
                            entry["losses"] + [v for outs in entry["metrics"] for v in outs])
        losses, rest = fetched[:len(entry["losses"])], fetched[len(entry["losses"]):]
        results = []
        for metric, n in zip(self.model._metrics, sizes):
            results.append(metric.update(*rest[:n]))
            rest = rest[n:]
        return losses, results

    def predict(self, inputs) -> list:
        return self._run("test", inputs, [], self._entry("test")["outputs"])

    # -- files --------------------------------------------------------------------------------
    def save(self, path: str, training: bool) -> None:
        from ..executor import global_scope
        from .io import save
        if not training:
            from ..static import save_inference_model
            entry = self._entry("test")
            save_inference_model(path, entry["inputs"], entry["outputs"], self._exe,
                                 program=entry["program"])
            return
        save(self.model.network.state_dict(), path + ".pdparams")
        train = self._progs.get("train")
        if train is None:
            return
        from ..runtime.io import is_belong_to_optimizer
        scope = global_scope()
        state = {v.name: np.array(scope.find_var(v.name).get_tensor())
                 for v in train["program"].list_vars()
                 if is_belong_to_optimizer(v) and scope.find_var(v.name) is not None}
        if state:
            save(state, path + ".pdopt")

    def load_optimizer(self, state: dict) -> None:
        """path.pdopt's values into the optimizer's variables of the train program."""
        from ..executor import global_scope
        scope = global_scope()
        for name, value in state.items():
            found = scope.find_var(name)
            if found is not None:
                found.get_tensor().set(np.asarray(value), self._exe.place)
