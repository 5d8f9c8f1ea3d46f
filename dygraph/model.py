"""paddle.Model (Paddle's hapi high-level API): prepare / fit / evaluate / predict, with
Paddle's batch semantics (docs/architecture.md, "Dygraph": paddle.Model). Made in dygraph
mode, the batch steps are the plain eager loop (forward, loss, backward, optimizer step, clear
gradients), so fit's numbers are a hand-written loop's; made in static mode, they run the
programs of dygraph/static_model.py."""
from __future__ import annotations

import inspect
import os
import warnings

import numpy as np

from .autograd import no_grad
from .callbacks import config_callbacks
from .tensor import Tensor


def _to_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _flatten(data) -> list:
    """A batch's fields as one flat list (nested lists/tuples of fields flattened)."""
    if isinstance(data, (list, tuple)):
        return [leaf for d in data for leaf in _flatten(d)]
    return [data]


def _eager(value) -> Tensor:
    if isinstance(value, Tensor):
        return value
    from . import to_tensor
    return to_tensor(np.asarray(value))


def _numpy(value) -> np.ndarray:
    return value.numpy() if isinstance(value, Tensor) else np.asarray(value)


def _specs(specs, network, is_input: bool) -> list:
    """The InputSpec list: as given (one spec or a list or dict of them, each named), or for
    inputs left out one per positional argument of forward without a default (labels left
    out: none)."""
    from ..frontend.framework import in_dygraph_mode
    from .jit_program import InputSpec
    if specs is None:
        if not is_input:
            return []
        if not in_dygraph_mode():
            raise TypeError("'inputs' must be list in static graph mode")
        params = inspect.signature(network.forward).parameters.values()
        return [InputSpec([None], "float32", p.name) for p in params
                if p.default is inspect.Parameter.empty and
                p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    specs = list(specs.values()) if isinstance(specs, dict) else _to_list(specs)
    for s in specs:
        if not (hasattr(s, "shape") and hasattr(s, "dtype")):
            raise TypeError(f"Model's {'inputs' if is_input else 'labels'} must be "
                            f"paddle.static.InputSpec (shape, dtype, name), got "
                            f"{type(s).__name__}")
        if not getattr(s, "name", None):
            raise ValueError(f"Requires Input[{s}].name != None, but receive `None` with "
                             f"{s}.")
    return specs


class Model:
    """paddle.Model(network, inputs=None, labels=None)."""

    def __init__(self, network, inputs=None, labels=None) -> None:
        from ..frontend.layers.api2.layer import Layer
        if not isinstance(network, Layer):
            raise TypeError(f"'network' must be a paddle.nn.Layer, got {type(network).__name__}")
        self.network = network
        self._inputs = _specs(inputs, network, True)
        # the input specs save(training=False) uses: None until the first batch gives them
        # (no inputs given), False when the given specs serve
        self._input_info = None if inputs is None else False
        self._labels = _specs(labels, network, False)
        self._optimizer = None
        self._loss = None
        self._accumulate = 1
        self._metrics: list = []
        self.stop_training = False
        from ..frontend.framework import in_dygraph_mode
        from .static_model import StaticGraph
        # made in static mode: programs run by an executor (dygraph/static_model.py)
        self._static = None if in_dygraph_mode() else StaticGraph(self)

    # -- setup --------------------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None) -> None:
        """Bind the optimizer, the loss (a Layer or function of outputs + labels) and the
        metrics (paddle.metric.Metric instances)."""
        from ..runtime.metrics import Metric
        from .amp_configs import amp_level
        amp_level(amp_configs, optimizer, self._static is None)  # checked; float32 on CPU
        if loss is not None and not callable(loss):
            raise TypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable "
                            "function.")
        self._optimizer, self._loss = optimizer, loss
        self._metrics = _to_list(metrics)
        for m in self._metrics:
            if not isinstance(m, Metric):
                raise AssertionError(f"{type(m).__name__} is not sub class of Metric")
        if self._static is not None:
            self._static.prepare()

    def parameters(self, *args, **kwargs) -> list:
        return self.network.parameters(*args, **kwargs)

    def _metrics_name(self) -> list[str]:
        names = ["loss"] if self._loss is not None else []
        for m in self._metrics:
            names += _to_list(m.name())
        return names

    # -- one batch ----------------------------------------------------------------------------
    def _split(self, inputs, labels) -> tuple[list, list]:
        return self._feed(inputs), [_eager(y) for y in _to_list(labels)]

    def _feed(self, inputs) -> list:
        """The inputs as tensors; without input specs, the first batch's shapes and dtypes
        are kept for save(training=False), as Paddle does."""
        from ..frontend.framework import in_dygraph_mode
        if not in_dygraph_mode():
            raise RuntimeError("this paddle.Model was made in dygraph mode and runs eagerly: "
                               "call paddle.disable_static() first, or make the Model after "
                               "paddle.enable_static() to run it over static programs")
        inputs = [_eager(x) for x in _to_list(inputs)]
        if self._input_info is None:
            self._input_info = [([None] + list(x.shape[1:]), x.dtype) for x in inputs]
        return inputs

    def _update_metrics(self, outputs: list, labels: list) -> list:
        results = []
        for m in self._metrics:
            outs = m.compute(*(outputs + labels))
            results.append(m.update(*[_numpy(o) for o in _to_list(outs)]))
        return results

    def _step(self, mode: str, inputs, labels, update: bool = True) -> tuple[list, list]:
        """One train or eval step: (the losses as arrays, the metrics' batch values). Train:
        forward, the losses' sum backward, and with `update` the optimizer's step and the
        grads cleared (without, they accumulate). Eval: eval mode, no gradients, the losses
        when there are labels."""
        if mode == "train" and (self._optimizer is None or self._loss is None):
            raise RuntimeError("model not ready, please call `model.prepare()` first")
        if self._static is not None:
            return self._static.step(mode, inputs, labels, update)
        inputs, labels = self._split(inputs, labels)
        if mode == "eval":
            self.network.eval()
            with no_grad():
                outputs = _to_list(self.network(*inputs))
                losses = _to_list(self._loss(*(outputs + labels))) \
                    if self._loss is not None and labels else []
                metrics = self._update_metrics(outputs, labels)
            return [_numpy(v) for v in losses], metrics
        self.network.train()
        outputs = _to_list(self.network(*inputs))
        losses = _to_list(self._loss(*(outputs + labels)))
        total = losses[0]
        for extra in losses[1:]:
            total = total + extra
        total.backward()
        if update:
            self._optimizer.step()
            self._optimizer.clear_grad()
        return [_numpy(v) for v in losses], self._update_metrics(outputs, labels)

    def _result(self, losses: list, metrics: list):
        """Paddle's return forms: (losses, metrics), or whichever of them the model has."""
        if self._loss is not None and self._metrics:
            return losses, metrics
        return losses if self._loss is not None else metrics

    def train_batch(self, inputs, labels=None, update: bool = True):
        """One training step: the losses (numpy arrays), with the metrics' batch values when
        the model has metrics."""
        return self._result(*self._step("train", inputs, labels, update))

    def eval_batch(self, inputs, labels=None):
        """One evaluation step: the losses and/or the metrics' batch values."""
        return self._result(*self._step("eval", inputs, labels))

    def predict_batch(self, inputs) -> list:
        """The network's outputs (numpy arrays) in eval mode."""
        if self._static is not None:
            return self._static.predict(inputs)
        inputs = self._feed(inputs)
        self.network.eval()
        with no_grad():
            return [_numpy(o) for o in _to_list(self.network(*inputs))]

    # -- loops --------------------------------------------------------------------------------
    def _loader(self, data, batch_size, shuffle, drop_last, num_workers):
        from ..runtime.pyreader import DataLoader, Dataset
        if data is None or isinstance(data, DataLoader):
            return data
        if isinstance(data, Dataset):
            return DataLoader(data, batch_size=batch_size, shuffle=shuffle,
                              drop_last=drop_last, num_workers=num_workers, return_list=True)
        if hasattr(data, "__iter__"):
            return data
        raise TypeError(f"the data must be a paddle.io.Dataset or DataLoader, got "
                        f"{type(data).__name__}")

    @staticmethod
    def _steps(loader):
        try:
            return len(loader)
        except (TypeError, NotImplementedError):
            return None

    def _run_one_epoch(self, loader, cbks, mode: str, num_iters=None) -> dict:
        logs: dict = {}
        outputs = []
        n_in = len(self._inputs)
        steps = self._steps(loader)  # once: a shuffling loader's len() draws an order
        for step, data in enumerate(loader):
            if num_iters is not None and step >= num_iters:
                break
            data = _flatten(data)
            cbks.on_batch_begin(mode, step, logs)
            if mode == "predict":
                outputs.append(self.predict_batch(data[:n_in]))
            else:
                # accumulate_grad_batches: an update every k-th step and at the last
                update = (step + 1) % self._accumulate == 0 or step + 1 == steps
                losses, _ = self._step(mode, data[:n_in], data[n_in:], update)
                values = [[float(v.reshape(-1)[0]) for v in losses]] if losses else []
                for m in self._metrics:
                    values += _to_list(m.accumulate())
                names = self._metrics_name()[0 if losses or self._loss is None else 1:]
                logs.update(zip(names, values))
            logs["step"] = step
            logs["batch_size"] = int(np.shape(data[0])[0])
            cbks.on_batch_end(mode, step, logs)
            if mode == "train" and self.stop_training:
                break
        if mode == "predict":
            logs["outputs"] = outputs
        return logs

    def _reset_metrics(self) -> None:
        for m in self._metrics:
            m.reset()

    def fit(self, train_data=None, eval_data=None, batch_size: int = 1, epochs: int = 1,
            eval_freq: int = 1, log_freq: int = 10, save_dir=None, save_freq: int = 1,
            verbose: int = 2, drop_last: bool = False, shuffle: bool = True,
            num_workers: int = 0, callbacks=None, accumulate_grad_batches: int = 1,
            num_iters=None) -> None:
        """Train for `epochs` epochs (evaluating every eval_freq epochs when eval_data is
        given), with Paddle's progress display and callbacks."""
        if train_data is None:
            raise AssertionError("train_data must be given!")
        train_loader = self._loader(train_data, batch_size, shuffle, drop_last, num_workers)
        eval_loader = self._loader(eval_data, batch_size, False, False, num_workers)
        steps = self._steps(train_loader)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps,
                                log_freq=log_freq, save_freq=save_freq, save_dir=save_dir,
                                verbose=verbose, metrics=self._metrics_name(),
                                batch_size=batch_size)
        self.stop_training = False
        self._accumulate = int(accumulate_grad_batches)
        left = num_iters  # num_iters: at most that many steps in all
        logs: dict = {}
        cbks.on_begin("train")
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            self._reset_metrics()
            logs = self._run_one_epoch(train_loader, cbks, "train", left)
            cbks.on_epoch_end(epoch, logs)
            if eval_loader is not None and epoch % eval_freq == 0:
                self._evaluate_with(eval_loader, cbks)
            if left is not None:
                left -= logs.get("step", -1) + 1
            if self.stop_training or left == 0:
                break
        cbks.on_end("train", logs)

    def _evaluate_with(self, loader, cbks, num_iters=None) -> dict:
        cbks.on_begin("eval", {"steps": self._steps(loader), "metrics": self._metrics_name()})
        self._reset_metrics()
        logs = self._run_one_epoch(loader, cbks, "eval", num_iters)
        cbks.on_end("eval", logs)
        return logs

    def evaluate(self, eval_data, batch_size: int = 1, log_freq: int = 10, verbose: int = 2,
                 num_workers: int = 0, callbacks=None, num_iters=None) -> dict:
        """The loss and metrics over eval_data: {name: value}."""
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name(), batch_size=batch_size)
        logs = self._evaluate_with(loader, cbks, num_iters)
        return {k: logs[k] for k in self._metrics_name() if k in logs}

    def predict(self, test_data, batch_size: int = 1, num_workers: int = 0,
                stack_outputs: bool = False, verbose: int = 1, callbacks=None) -> list:
        """Per output, the list of its batch arrays (stack_outputs: one array)."""
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, verbose=verbose, metrics=[],
                                batch_size=batch_size)
        cbks.on_begin("predict", {"steps": self._steps(loader)})
        logs = self._run_one_epoch(loader, cbks, "predict")
        cbks.on_end("predict", logs)
        per_output = [list(o) for o in zip(*logs["outputs"])]
        if stack_outputs:
            return [np.vstack(o) for o in per_output]
        return per_output

    # -- files --------------------------------------------------------------------------------
    def save(self, path: str, training: bool = True) -> None:
        """training: path.pdparams (the network's state dict) and path.pdopt (the optimizer's,
        when it has one), as Paddle writes them; else an inference model by paddle.jit.save
        with the model's input specs."""
        from .io import save
        if not isinstance(path, str) or not path or os.path.basename(path) == "":
            raise ValueError(f"'path' should be a file path prefix like 'dir/name', got "
                             f"{path!r}")
        dirname = os.path.dirname(path)
        if dirname:
            os.makedirs(dirname, exist_ok=True)
        if self._static is not None:
            self._static.save(path, training)
            return
        if not training:
            from .jit_io import save as jit_save
            from .jit_program import InputSpec
            if self._input_info is None:
                raise RuntimeError("'inputs' were not given to Model and no batch has run: "
                                   "set inputs, or run the model before saving an inference "
                                   "model")
            specs = [InputSpec(shape, dtype, s.name) for (shape, dtype), s in
                     zip(self._input_info, self._inputs)] if self._input_info else self._inputs
            jit_save(self.network, path, input_spec=specs)
            return
        save(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None:
            state = self._optimizer.state_dict()
            if state:
                save(state, path + ".pdopt")

    def load(self, path: str, skip_mismatch: bool = False, reset_optimizer: bool = False):
        """Load path.pdparams into the network (a missing or differently shaped entry raises
        ValueError, or with skip_mismatch is skipped with a warning), and path.pdopt into the
        optimizer unless reset_optimizer."""
        from .io import load
        if path.endswith(".pdparams"):
            path = path[:-len(".pdparams")]
        if not os.path.exists(path + ".pdparams"):
            raise ValueError(f"{path}.pdparams does not exist")
        saved = load(path + ".pdparams", return_numpy=True)
        matched = {}
        for key, param in self.network.state_dict().items():
            try:
                if key not in saved:
                    raise ValueError(f"{key} is not found in the providing file.")
                if list(saved[key].shape) != list(param.shape):
                    raise ValueError(f"{key} receives a shape {list(saved[key].shape)}, "
                                     f"but the expected shape is {list(param.shape)}.")
                matched[key] = saved[key]
            except ValueError as err:
                if not skip_mismatch:
                    raise
                warnings.warn(f"Skip loading for {key}. {err}")
        self.network.set_state_dict(matched)
        if self._optimizer is not None and not reset_optimizer and \
                os.path.exists(path + ".pdopt"):
            state = load(path + ".pdopt", return_numpy=True)
            if self._static is not None:
                self._static.load_optimizer(state)
            else:
                self._optimizer.set_state_dict(state)


    def summary(self, input_size=None, dtype=None) -> dict:
        """paddle.summary of the network; input_size defaults to the input specs' shapes."""
        from .summary import summary
        if input_size is None:
            input_size = [tuple(s.shape) for s in self._inputs]
        return summary(self.network, input_size, dtype)


__all__ = ["Model"]
