"""paddle.optimizer.lr: learning-rate schedules computed in Python. In a static program the
optimizer holds the rate in a persistable var; the Executor writes the schedule's current value
into it before each run, so `scheduler.step()` between runs changes the rate the next run uses."""
from __future__ import annotations

import math
import warnings
from typing import Callable, Sequence

from ..frontend.errors import FluidcError


class ScheduleError(FluidcError, ValueError):
    """A learning-rate schedule was given an impossible setting."""


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ScheduleError(message)


class LRScheduler:
    """Base: last_epoch counts step() calls from -1; last_lr is get_lr() after the last step."""

    def __init__(self, learning_rate: float = 0.1, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        if not isinstance(learning_rate, (float, int)) or isinstance(learning_rate, bool):
            raise TypeError(f"The type of learning rate must be float, but received "
                            f"{type(learning_rate)}")
        _require(learning_rate >= 0, f"Invalid learning rate: {learning_rate}")
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._var_name = None  # the program var the optimizer keeps the rate in
        self.step()

    def __call__(self) -> float:
        """The current learning rate."""
        return self.last_lr

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (or jump to `epoch`) and recompute the rate."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed() if closed is not None else self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")

    def state_keys(self) -> None:
        self.keys = ["last_epoch", "last_lr"]

    def state_dict(self) -> dict:
        """The values that resume the schedule."""
        self.state_keys()
        return {k: self.__dict__[k] for k in self.keys if k in self.__dict__}

    def set_state_dict(self, state_dict: dict) -> None:
        """Resume from state_dict()."""
        self.state_keys()
        for key in self.keys:
            if key not in state_dict:
                raise FluidcError(f"{type(self).__name__}.set_state_dict: the state lacks "
                                  f"'{key}'")
            self.__dict__[key] = state_dict[key]
        if len(state_dict) > len(self.keys):
            warnings.warn("There are some unused values in state_dict. Maybe the optimizer have "
                          "different 'LearningRateDecay' when invoking state_dict and set_dict")

    set_dict = set_state_dict

    def get_lr(self) -> float:
        raise NotImplementedError


class NoamDecay(LRScheduler):
    """base * d_model^-0.5 * min(epoch^-0.5, warmup^-1.5 * epoch)."""

    def __init__(self, d_model: int, warmup_steps: int, learning_rate: float = 1.0,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        _require(d_model > 0, "d_model should be grater than 0")
        self.d_model, self.warmup_steps = d_model, warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * (self.d_model ** -0.5) * min(a, b)


class PiecewiseDecay(LRScheduler):
    """values[i] while epoch < boundaries[i]; the last value after."""

    def __init__(self, boundaries: Sequence[int], values: Sequence[float], last_epoch: int = -1,
                 verbose: bool = False) -> None:
        _require(len(boundaries) > 0, "The boundaries cannot be empty.")
        _require(len(values) > len(boundaries),
                 f"The values have one more element than boundaries, but received "
                 f"len(values) [{len(values)}] < len(boundaries) + 1 [{len(boundaries) + 1}].")
        self.boundaries, self.values = boundaries, values
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self) -> float:
        for bound, value in zip(self.boundaries, self.values):
            if self.last_epoch < bound:
                return value
        return self.values[len(self.values) - 1]


class NaturalExpDecay(LRScheduler):
    """base * exp(-gamma * epoch)."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        _require(gamma > 0.0, "'gamma' must be a positive number so that the learning rate "
                              "will decay.")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """base / (1 + gamma * epoch)."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """(base - end) * (1 - epoch/decay_steps)^power + end, epochs capped (or cycled)."""

    def __init__(self, learning_rate: float, decay_steps: int, end_lr: float = 0.0001,
                 power: float = 1.0, cycle: bool = False, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        _require(isinstance(decay_steps, int) and decay_steps > 0,
                 "'decay_steps' must be a positive integer.")
        _require(power > 0.0, "'power' must be greater than 0.0 so that the learning rate "
                              "will decay.")
        self.decay_steps, self.end_lr, self.power, self.cycle = decay_steps, end_lr, power, cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            steps = self.decay_steps * (1 if epoch == 0 else math.ceil(epoch / self.decay_steps))
        else:
            epoch = min(epoch, self.decay_steps)
        return (self.base_lr - self.end_lr) * ((1 - float(epoch) / float(steps)) ** self.power) \
            + self.end_lr


class LinearWarmup(LRScheduler):
    """start_lr rising linearly to end_lr over warmup_steps, then learning_rate (a float or a
    schedule of its own, stepped from 0 after the warm-up)."""

    def __init__(self, learning_rate, warmup_steps: int, start_lr: float, end_lr: float,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(learning_rate, (float, int, LRScheduler)):
            raise TypeError(f"the type of learning_rate should be [int, float or LRScheduler], "
                            f"the current type is {learning_rate}")
        _require(isinstance(warmup_steps, int) and warmup_steps > 0,
                 "'warmup_steps' must be a positive integer.")
        _require(end_lr > start_lr, f"end_lr {end_lr} must be greater than start_lr {start_lr}")
        self.learning_rate, self.warmup_steps = learning_rate, warmup_steps
        self.start_lr, self.end_lr = start_lr, end_lr
        super().__init__(start_lr, last_epoch, verbose)

    def state_dict(self) -> dict:
        state = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            state["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict: dict) -> None:
        super().set_state_dict({k: v for k, v in state_dict.items() if k != "LinearWarmup_LR"})
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.set_state_dict(state_dict["LinearWarmup_LR"])

    def get_lr(self) -> float:
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * float(self.last_epoch) / \
                float(self.warmup_steps) + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate


class ExponentialDecay(LRScheduler):
    """base * gamma^epoch."""

    def __init__(self, learning_rate: float, gamma: float, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        _require(0.0 < gamma < 1.0, "'gamma' must be in interval (0.0, 1.0) so that the "
                                    "learning rate will decay.")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * (self.gamma ** self.last_epoch)


class MultiStepDecay(LRScheduler):
    """base * gamma^(milestones passed)."""

    def __init__(self, learning_rate: float, milestones: Sequence[int], gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(milestones, (tuple, list)):
            raise TypeError(f"The type of 'milestones' in 'MultiStepDecay' must be 'tuple, "
                            f"list', but received {type(milestones)}.")
        _require(all(a < b for a, b in zip(milestones, milestones[1:])),
                 "The elements of milestones must be incremented")
        _require(gamma < 1.0, "gamma should be < 1.0.")
        self.milestones, self.gamma = milestones, gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        passed = sum(1 for m in self.milestones if self.last_epoch >= m)
        return self.base_lr * (self.gamma ** passed)


class StepDecay(LRScheduler):
    """base * gamma^(epoch // step_size)."""

    def __init__(self, learning_rate: float, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(step_size, int):
            raise TypeError(f"The type of 'step_size' must be 'int', but received "
                            f"{type(step_size)}.")
        _require(gamma < 1.0, "gamma should be < 1.0.")
        _require(step_size > 0, "'step_size' must be a positive integer.")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * (self.gamma ** (self.last_epoch // self.step_size))


class LambdaDecay(LRScheduler):
    """base * lr_lambda(epoch)."""

    def __init__(self, learning_rate: float, lr_lambda: Callable[[int], float],
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not callable(lr_lambda):
            raise TypeError(f"The type of 'lr_lambda' in 'LambdaDecay' must be 'function', but "
                            f"received {type(lr_lambda)}.")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """base * the product of lr_lambda(1..epoch)."""

    def __init__(self, learning_rate: float, lr_lambda: Callable[[int], float],
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not callable(lr_lambda):
            raise TypeError(f"The type of 'lr_lambda' in 'MultiplicativeDecay' must be "
                            f"'function', but received {type(lr_lambda)}.")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        lr = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            lr *= self.lr_lambda(epoch)
        return lr


class CosineAnnealingDecay(LRScheduler):
    """SGDR's cosine annealing from base to eta_min over T_max epochs (recursive form; step(n)
    uses the closed form)."""

    def __init__(self, learning_rate: float, T_max: int, eta_min: float = 0,  # noqa: N803
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(T_max, int):
            raise TypeError(f"The type of 'T_max' in 'CosineAnnealingDecay' must be 'int', but "
                            f"received {type(T_max)}.")
        if not isinstance(eta_min, (float, int)):
            raise TypeError(f"The type of 'eta_min' in 'CosineAnnealingDecay' must be 'float, "
                            f"int', but received {type(eta_min)}.")
        _require(T_max > 0, "'T_max' must be a positive integer.")
        self.T_max, self.eta_min = T_max, float(eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        t, e = self.T_max, self.last_epoch
        if e == 0:
            return self.base_lr
        if (e - 1 - t) % (2 * t) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / t)) / 2
        return (1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t)) * \
            (self.last_lr - self.eta_min) + self.eta_min

    def _get_closed_form_lr(self) -> float:
        return self.eta_min + (self.base_lr - self.eta_min) * \
            (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class ReduceOnPlateau(LRScheduler):
    """lr *= factor when the metric passed to step(metric) stops improving for `patience`
    epochs (then `cooldown` epochs of rest), never below min_lr."""

    def __init__(self, learning_rate: float, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: float = 0, epsilon: float = 1e-8,
                 verbose: bool = False) -> None:
        mode, threshold_mode = mode.lower(), threshold_mode.lower()
        _require(mode in ("min", "max"), f"mode: {mode} is unknown!")
        _require(factor < 1.0, "new_lr = origin_lr * gamma and gamma should be < 1.0.")
        _require(threshold_mode in ("rel", "abs"),
                 f"threshold mode: {threshold_mode} is unknown!")
        if not isinstance(learning_rate, (float, int)):
            raise TypeError(f"The type of 'learning_rate' in 'ReduceOnPlateau' must be 'float', "
                            f"but received {type(learning_rate)}.")
        self.mode, self.factor, self.threshold_mode = mode, factor, threshold_mode
        self.patience, self.threshold, self.cooldown = patience, threshold, cooldown
        self.min_lr, self.epsilon = min_lr, epsilon
        self.cooldown_counter, self.best, self.num_bad_epochs = 0, None, 0
        # No first step(): it needs a metric.
        self.base_lr = self.last_lr = float(learning_rate)
        self.last_epoch, self.verbose, self._var_name = 0, verbose, None

    def state_keys(self) -> None:
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics, epoch: int | None = None) -> None:
        """Record this epoch's metric (a number or a one-element array)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        size = getattr(metrics, "size", None)
        if size is not None and not isinstance(metrics, (int, float)):
            if size != 1:
                raise ScheduleError(f"the size of metrics must be 1, but the current "
                                    f"metrics.size is {size}. Maybe that you should call "
                                    f"paddle.mean to process it first.")
            metrics = float(metrics.reshape(-1)[0]) if hasattr(metrics, "reshape") else metrics
        elif not isinstance(metrics, (int, float)):
            raise TypeError(f"metrics must be 'int', 'float', 'np.float64', 'numpy.ndarray' or "
                            f"'paddle.Tensor', but receive {type(metrics)}")
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(metrics, self.best):
            self.best, self.num_bad_epochs = metrics, 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                if self.verbose:
                    print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate "
                          f"to {self.last_lr}.")

    def _is_better(self, current, best) -> bool:
        rel = self.threshold_mode == "rel"
        if self.mode == "min":
            return current < (best - best * self.threshold if rel else best - self.threshold)
        return current > (best + best * self.threshold if rel else best + self.threshold)


class OneCycleLR(LRScheduler):
    """The one-cycle policy: from max_learning_rate / divide_factor up to max_learning_rate over
    the first phase_pct of total_steps, then down to end_learning_rate (three_phase: back to
    the start rate first, then down), annealed by cosine or linearly."""

    def __init__(self, max_learning_rate: float, total_steps: int, divide_factor: float = 25.0,
                 end_learning_rate: float = 0.0001, phase_pct: float = 0.3,
                 anneal_strategy: str = "cos", three_phase: bool = False, last_epoch: int = -1,
                 verbose: bool = False) -> None:
        for name, value in (("max_learning_rate", max_learning_rate),
                            ("end_learning_rate", end_learning_rate),
                            ("divide_factor", divide_factor)):
            if not isinstance(value, (float, int)):
                raise TypeError(f"'{name}' must be 'float' or 'int', but received {type(value)}")
        _require(max_learning_rate >= 0, "'max_learning_rate' must be a positive integer.")
        _require(end_learning_rate >= 0, "'end_learning_rate' must be a positive integer.")
        if not isinstance(total_steps, int):
            raise TypeError(f"'total_step' must be 'int', but received {type(total_steps)}")
        _require(total_steps > 0, "'total_step' must be a positive integer.")
        if not isinstance(phase_pct, float):
            raise TypeError(f"'phase_pct' must be 'float', but received {type(phase_pct)}")
        _require(0 <= phase_pct <= 1,
                 f"'phase_pct' must be between 0 and 1, but received {phase_pct}")
        _require(anneal_strategy in ("cos", "linear"),
                 f"'anneal_strategy' must by one of 'cos' or 'linear', but received "
                 f"{anneal_strategy}")
        initial_lr = max_learning_rate / float(divide_factor)
        peak, last = phase_pct * total_steps - 1, total_steps - 1
        if three_phase:
            _require(phase_pct < 0.5, "When three_phase is True, 'phase_pct' must be less than 0.5")
            down = 2 * phase_pct * total_steps - 2
            # (first step, last step, rate at the first, rate at the last) of each phase
            self._phases = [(0, peak, initial_lr, max_learning_rate),
                            (peak, down, max_learning_rate, initial_lr),
                            (down, last, initial_lr, float(end_learning_rate))]
        else:
            self._phases = [(0, peak, initial_lr, max_learning_rate),
                            (peak, last, max_learning_rate, float(end_learning_rate))]
        self.total_steps = total_steps
        self.anneal_strategy = anneal_strategy
        super().__init__(initial_lr, last_epoch, verbose)

    def _anneal(self, start_lr: float, end_lr: float, pct: float) -> float:
        if self.anneal_strategy == "cos":
            return end_lr + (start_lr - end_lr) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end_lr - start_lr) * pct + start_lr

    def get_lr(self) -> float:
        step = self.last_epoch
        _require(step <= self.total_steps,
                 f"Tried to step {step} times. However the number of total steps is "
                 f"{self.total_steps}")
        # the phase the step is in; the last one also takes the step after it (total_steps)
        first, end, start_lr, end_lr = next(
            (phase for phase in self._phases if step <= phase[1]), self._phases[-1])
        return self._anneal(start_lr, end_lr, (step - first) / (end - first))


class CyclicLR(LRScheduler):
    """Cyclical rates between base_learning_rate and max_learning_rate: up over step_size_up
    steps, down over step_size_down; the amplitude scaled per cycle (triangular2: halved each
    cycle) or per iteration (exp_range: exp_gamma^iteration), or by scale_fn."""

    def __init__(self, base_learning_rate: float, max_learning_rate: float, step_size_up: int,
                 step_size_down: int | None = None, mode: str = "triangular",
                 exp_gamma: float = 1.0, scale_fn: Callable[[float], float] | None = None,
                 scale_mode: str = "cycle", last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(max_learning_rate, (float, int)):
            raise TypeError(f"'max_learning_rate' must be 'float' or 'int', but received "
                            f"{type(max_learning_rate)}")
        _require(max_learning_rate >= 0, f"'max_learning_rate' must be a positive integer, but "
                                         f"received {max_learning_rate}")
        for name, value in (("step_size_up", step_size_up), ("step_size_down", step_size_down)):
            if value is None:
                continue
            if not isinstance(value, int):
                raise TypeError(f"The type of '{name}' must be int, but received {type(value)}")
            _require(value > 0, f"'{name}' must be a positive integer, but received {value}")
        if not isinstance(exp_gamma, float):
            raise TypeError(f"The type of 'exp_gamma' must be float, but received "
                            f"{type(exp_gamma)}")
        _require(mode in ("triangular", "triangular2", "exp_range") or scale_fn is not None,
                 "'mode' is invalid and 'scale_fn' is not specified, make sure one of 'mode' or "
                 "'scale_fn' is valid")
        _require(scale_mode in ("cycle", "iterations"),
                 "'scale_mode' must be one of 'cycle' or 'iterations")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = float(max_learning_rate)
        self.amplitude = self.max_lr - base_learning_rate
        self.mode, self.gamma = mode, exp_gamma
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "exp_range":
            self.scale_fn, self.scale_mode = (lambda x: self.gamma ** x), "iterations"
        elif mode == "triangular2":
            self.scale_fn, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), "cycle"
        else:
            self.scale_fn, self.scale_mode = (lambda x: 1.0), "cycle"
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle  # how far into this cycle
        if pct <= self.step_up_pct:
            height = pct / self.step_up_pct
        else:
            height = (1 - pct) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == "cycle" else iterations
        return self.base_lr + self.amplitude * height * self.scale_fn(x)


class LinearLR(LRScheduler):
    """learning_rate * a factor going linearly from start_factor to end_factor over total_steps,
    then kept (recursive form, as Paddle computes it)."""

    def __init__(self, learning_rate: float, total_steps: int, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, last_epoch: int = -1, verbose: bool = False) -> None:
        _require(0 < start_factor <= 1.0, f"`start_factor` must be greater than 0 and less or "
                                          f"equal to 1, but got {start_factor}")
        _require(0 <= end_factor <= 1.0, f"`end_factor` must be greater than 0 and less than 1, "
                                         f"but got {end_factor}")
        _require(total_steps > 0, f"`total_steps` must be greater than 0, but got {total_steps}")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_steps = total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        span = self.end_factor - self.start_factor
        return self.last_lr * (1.0 + span / (self.total_steps * self.start_factor
                                             + (self.last_epoch - 1) * span))


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: cosine annealing from base to eta_min over T_i epochs, restarting at the base with
    T_i multiplied by T_mult after each restart (T_cur counts epochs since the restart)."""

    def __init__(self, learning_rate: float, T_0: int, T_mult: int = 1,  # noqa: N803
                 eta_min: float = 0, last_epoch: int = -1, verbose: bool = False) -> None:
        _require(isinstance(T_0, int) and T_0 > 0, f"Expected positive integer T_0, but got {T_0}")
        _require(isinstance(T_mult, int) and T_mult >= 1,
                 f"Expected integer T_mult >= 1, but got {T_mult}")
        self.T_0 = self.T_i = T_0
        self.T_mult, self.eta_min = T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return self.eta_min + (self.base_lr - self.eta_min) * \
            (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (restarting when T_cur reaches T_i) or jump to `epoch`."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        else:
            _require(epoch >= 0, f"Expected non-negative epoch, but got {epoch}")
            if epoch < self.T_0:
                self.T_i, self.T_cur = self.T_0, epoch
            elif self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                # restarts so far: the n with T_0 * (T_mult^n - 1) / (T_mult - 1) <= epoch
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to "
                  f"{self.last_lr}.")
