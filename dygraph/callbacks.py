"""paddle.callbacks: the hooks paddle.Model's loops call (Callback, CallbackList) and Paddle's
ProgBarLogger, ModelCheckpoint, EarlyStopping and LRScheduler callbacks."""
from __future__ import annotations

import numbers
import os
import time
import warnings

import numpy as np

class Callback:
    """Base: every hook does nothing; set_params / set_model give the loop's settings."""

    def __init__(self) -> None:
        self.model = None
        self.params: dict = {}

    def set_params(self, params: dict) -> None:
        self.params = params

    def set_model(self, model) -> None:
        self.model = model

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_eval_begin(self, logs=None): pass
    def on_eval_end(self, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_train_batch_begin(self, step, logs=None): pass
    def on_train_batch_end(self, step, logs=None): pass
    def on_eval_batch_begin(self, step, logs=None): pass
    def on_eval_batch_end(self, step, logs=None): pass
    def on_predict_batch_begin(self, step, logs=None): pass
    def on_predict_batch_end(self, step, logs=None): pass


class CallbackList:
    """The callbacks of one loop, each hook called on each in order."""

    def __init__(self, callbacks) -> None:
        self.callbacks = list(callbacks)

    def _call(self, name: str, *args) -> None:
        for c in self.callbacks:
            getattr(c, name)(*args)

    def on_begin(self, mode: str, logs=None) -> None:
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode: str, logs=None) -> None:
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch, logs=None) -> None:
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch, logs=None) -> None:
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode: str, step, logs=None) -> None:
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode: str, step, logs=None) -> None:
        self._call(f"on_{mode}_batch_end", step, logs)


def _format_value(v) -> str:
    return f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"


def _format_time(per_step: float) -> str:
    if per_step >= 1 or per_step == 0:
        return f" - {per_step:.0f}s/step"
    if per_step >= 1e-3:
        return f" - {per_step * 1e3:.0f}ms/step"
    return f" - {per_step * 1e6:.0f}us/step"


def _format_eta(seconds: float) -> str:
    if seconds > 3600:
        return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"
    if seconds > 60:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(seconds)}s"


class ProgBarLogger(Callback):
    """Prints Paddle's progress: `Epoch 1/2`, then every log_freq steps and at the end of an
    epoch the step's line, 'Eval begin...' / 'Eval samples: N' around evaluation. verbose=2:
    a line each, `step 10/32 - loss: 0.6931 - acc: 0.5000 - 3ms/step` (the loss of that step,
    the metrics accumulated so far); verbose=1: one line rewritten in place (backspaces and
    a carriage return, padded to the last one's width), `step 10/32 [=====>....] - loss: ...
    - ETA: 1s - 3ms/step`, ended by a newline at the last step."""

    def __init__(self, log_freq: int = 1, verbose: int = 2) -> None:
        super().__init__()
        self.log_freq, self.verbose = int(log_freq), int(verbose)
        self._width = 0

    def _print(self, text: str) -> None:
        if self.verbose:
            print(text, flush=True)

    def _line(self, mode: str, logs: dict) -> None:
        step, steps = self._count[mode], self.params.get("steps") if mode == "train" \
            else self._eval_steps
        bar = self.verbose == 1 and bool(steps)
        text = f"step {step}/{steps}" if steps else f"step {step}"
        if bar:
            done = int(30 * step / steps)
            text += " [" + ("=" * (done - 1) + ">" if step < steps else "=" * 30) + \
                "." * (30 - done) + "]"
        for k in self.params.get("metrics", []):
            if k in logs:
                values = logs[k] if isinstance(logs[k], (list, tuple, np.ndarray)) else [logs[k]]
                text += f" - {k}:" + "".join(_format_value(float(v)) for v in values)
        per_step = (time.time() - self._start) / max(step, 1)
        if bar and step < steps:
            text += f" - ETA: {_format_eta(per_step * (steps - step))}"
        text += _format_time(per_step)
        if not bar:
            self._print(text)
            return
        out = "\b" * self._width + "\r" + text + " " * max(self._width - len(text), 0)
        self._width = len(text)
        if step >= steps:
            out, self._width = out + "\n", 0
        print(out, end="", flush=True)

    def on_train_begin(self, logs=None):
        self._print("The loss value printed in the log is the current step, and the metric is "
                    "the average value of previous steps.")

    def on_epoch_begin(self, epoch, logs=None):
        self._count = {"train": 0}
        self._start = time.time()
        self._print(f"Epoch {epoch + 1}/{self.params.get('epochs')}")

    def on_train_batch_end(self, step, logs=None):
        self._count["train"] += 1
        steps = self.params.get("steps")
        if self._count["train"] % self.log_freq == 0 and (steps is None or
                                                           self._count["train"] < steps):
            self._line("train", logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.params.get("steps") is not None:
            self._line("train", logs)

    def _begin(self, mode: str, logs) -> None:
        self._count = {mode: 0}
        self._samples = 0
        self._eval_steps = (logs or {}).get("steps")
        self._start = time.time()
        self._print(f"{mode.capitalize()} begin...")

    def on_eval_begin(self, logs=None):
        self._begin("eval", logs)

    def on_predict_begin(self, logs=None):
        self._begin("predict", logs)

    def _batch_end(self, mode: str, logs) -> None:
        self._count[mode] += 1
        self._samples += logs.get("batch_size", 1)
        steps = self._eval_steps
        if self._count[mode] % self.log_freq == 0 and (steps is None or
                                                       self._count[mode] < steps):
            self._line(mode, logs)

    def on_eval_batch_end(self, step, logs=None):
        self._batch_end("eval", logs)

    def on_predict_batch_end(self, step, logs=None):
        self._batch_end("predict", logs)

    def on_eval_end(self, logs=None):
        self._line("eval", logs)
        self._print(f"Eval samples: {self._samples}")

    def on_predict_end(self, logs=None):
        self._line("predict", logs)
        self._print(f"Predict samples: {self._samples}")


class ModelCheckpoint(Callback):
    """Saves the model to save_dir/<epoch> every save_freq epochs and to save_dir/final at
    the end of training."""

    def __init__(self, save_freq: int = 1, save_dir=None) -> None:
        super().__init__()
        self.save_freq, self.save_dir = int(save_freq), save_dir

    def _save(self, name: str) -> None:
        path = os.path.join(self.save_dir, name)
        print(f"save checkpoint at {os.path.abspath(path)}")
        self.model.save(path)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_dir and epoch % self.save_freq == 0:
            self._save(str(epoch))

    def on_train_end(self, logs=None):
        if self.save_dir:
            self._save("final")


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate schedule after every batch (by_step) or epoch."""

    def __init__(self, by_step: bool = True, by_epoch: bool = False) -> None:
        super().__init__()
        if by_step == by_epoch:
            raise ValueError("by_step option is mutually exclusive with by_epoch")
        self.by_step, self.by_epoch = by_step, by_epoch

    def _step(self) -> None:
        from ..passes.lr_scheduler import LRScheduler as Schedule
        opt = getattr(self.model, "_optimizer", None)
        if opt is not None and isinstance(opt._learning_rate, Schedule):
            opt._learning_rate.step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()


class EarlyStopping(Callback):
    """Stops training when the monitored eval value has not improved by min_delta for more
    than `patience` evaluations (saving the best model to save_dir/best_model)."""

    def __init__(self, monitor: str = "loss", mode: str = "auto", patience: int = 0,
                 verbose: int = 1, min_delta: float = 0, baseline=None,
                 save_best_model: bool = True) -> None:
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode} is unknown, fallback to auto mode.")
            mode = "auto"
        if mode == "auto":
            mode = "max" if "acc" in monitor else "min"
        self.monitor, self.patience, self.verbose = monitor, int(patience), verbose
        self.baseline, self.save_best_model = baseline, save_best_model
        self.better = np.greater if mode == "max" else np.less
        self.min_delta = abs(min_delta) if mode == "max" else -abs(min_delta)
        self.save_dir = None

    def on_train_begin(self, logs=None):
        self.wait_epoch, self.stopped_epoch = 0, 0
        self.best_value = self.baseline if self.baseline is not None else \
            (-np.inf if self.better is np.greater else np.inf)
        self.save_dir = self.params.get("save_dir")

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of EarlyStopping should be loss or metric name.")
            return
        current = logs[self.monitor]
        if isinstance(current, (list, tuple)):
            current = current[0]
        if not isinstance(current, numbers.Number):
            return
        if self.better(current - self.min_delta, self.best_value):
            self.best_value, self.wait_epoch = current, 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(self.save_dir, "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch > self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and self.save_dir is not None:
                    print(f"Best checkpoint has been saved at "
                          f"{os.path.abspath(os.path.join(self.save_dir, 'best_model'))}")
        self.stopped_epoch += 1


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None,
                     log_freq: int = 2, verbose: int = 2, save_freq: int = 1, save_dir=None,
                     metrics=None) -> CallbackList:
    """The loop's callbacks: the user's, plus a ProgBarLogger, a ModelCheckpoint and an
    LRScheduler stepping per batch where the user gave none of that kind."""
    cbks = list(callbacks) if isinstance(callbacks, (list, tuple)) else \
        ([] if callbacks is None else [callbacks])
    for c in cbks:
        if not isinstance(c, Callback):
            raise TypeError(f"callbacks must be paddle.callbacks.Callback instances, got "
                            f"{type(c).__name__}")
    if not any(isinstance(c, ProgBarLogger) for c in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(c, ModelCheckpoint) for c in cbks):
        cbks.append(ModelCheckpoint(save_freq, save_dir))
    if not any(isinstance(c, LRScheduler) for c in cbks):
        cbks.append(LRScheduler())
    params = {"batch_size": batch_size, "epochs": epochs, "steps": steps, "verbose": verbose,
              "metrics": list(metrics or []), "save_dir": save_dir}
    for c in cbks:
        c.set_params(params)
        c.set_model(model)
    return CallbackList(cbks)


__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "LRScheduler", "EarlyStopping"]
