"""Paddle's later optimizers: NAdam, RAdam, ASGD and Rprop, with Paddle 3.3.1's arguments,
checks, accumulators (names, shapes, start values) and update ops (frontend/ops/optim2.py).
Their dygraph step is the shadow program every optimizer gets (dygraph/optimizer.py)."""
from __future__ import annotations

import numpy as np

from ..frontend import unique_name
from ..frontend.dtypes import VarType, to_numpy_dtype
from ..frontend.ops.tensor import fill_constant_attrs
from .constant_fold import assign_value
from .optimizer import Optimizer, OptimizerArgumentError, _check


def _beta(name: str, value) -> None:
    _check(0.0 <= value < 1.0, f"Invalid {name}: {value}, expect 0. <= {name} < 1.0.")


def _non_negative(name: str, value) -> None:
    _check(0.0 <= value, f"Invalid {name} value: {value}, expect {name} >= 0.")


def _check_rate(learning_rate) -> None:
    if isinstance(learning_rate, (float, int)) and not isinstance(learning_rate, bool):
        _check(0.0 <= learning_rate, f"Invalid learning rate: {learning_rate}, expect "
                                     f"learning_rate >= 0.")


class _MomentsOptimizer(Optimizer):
    """NAdam and RAdam: two moments and three param-shaped powers, one update op."""

    _group_options = {"beta1": _beta, "beta2": _beta, "epsilon": _non_negative}
    _moment1_acc_str = "moment1"
    _moment2_acc_str = "moment2"
    _powers: tuple[str, ...] = ()  # the accumulators starting at 1.0, in Paddle's order
    _op_type = ""

    def __init__(self, learning_rate, beta1, beta2, epsilon, parameters, weight_decay,
                 grad_clip, name) -> None:
        _check_rate(learning_rate)
        _non_negative("epsilon", epsilon)
        _beta("beta1", beta1)
        _beta("beta2", beta2)
        self._check_own()
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon

    def _check_own(self) -> None:
        """The checks of the subclass's own arguments, made before the base's."""

    def _attrs(self, param) -> dict:
        return {k: float(self._option(param, k)) for k in ("epsilon", "beta1", "beta2")}

    def _append_optimize_op(self, block, param, grad, lr):
        accs = {n: self._add_accumulator(n, param, 1.0) for n in self._powers}
        accs.update({n: self._add_accumulator(n, param)
                     for n in (self._moment1_acc_str, self._moment2_acc_str)})
        ins = {"param": [param], "grad": [grad], "learning_rate": [lr],
               **{n: [v] for n, v in accs.items()}}
        outs = {"param_out": [param], **{n + "_out": [v] for n, v in accs.items()}}
        return block.append_op(self._op_type, ins, outs, self._attrs(param))


class NAdam(_MomentsOptimizer):
    """Adam with Nesterov momentum (Paddle's NAdam): a momentum schedule mu_t = beta1 (1 - 0.5
    * 0.96^(t * momentum_decay)) and its running product correct the first moment."""

    _momentum_decay_pow_acc_str = "momentum_decay_pow"
    _beta2_pow_acc_str = "beta2_pow"
    _mu_product_acc_str = "mu_product"
    _powers = (_momentum_decay_pow_acc_str, _beta2_pow_acc_str, _mu_product_acc_str)
    _op_type = "nadam"
    _group_options = {**_MomentsOptimizer._group_options, "momentum_decay": _non_negative}

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1.0e-8,
                 momentum_decay=0.004, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        self._momentum_decay = momentum_decay
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, weight_decay,
                         grad_clip, name)

    def _check_own(self) -> None:
        _non_negative("momentum_decay", self._momentum_decay)

    def _attrs(self, param) -> dict:
        return {**super()._attrs(param),
                "momentum_decay": float(self._option(param, "momentum_decay"))}


class RAdam(_MomentsOptimizer):
    """Rectified Adam (Paddle's RAdam): plain momentum steps while the variance estimate's
    length rho_t is at most 5, Adam's steps scaled by the rectifier r_t after."""

    _beta1_pow_acc_str = "beta1_pow"
    _beta2_pow_acc_str = "beta2_pow"
    _rho_acc_str = "rho"
    _powers = (_beta1_pow_acc_str, _beta2_pow_acc_str, _rho_acc_str)
    _op_type = "radam"

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1.0e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, weight_decay,
                         grad_clip, name)


class ASGD(Optimizer):
    """Paddle's ASGD: each parameter keeps its last `batch_num` gradients (y) and their sum
    (d); step t replaces the stored gradient t mod batch_num by the new one and moves the
    parameter by lr / min(t, batch_num) * d. The step counter m is an int64 accumulator; the
    stored gradient is gathered, updated by the asgd op and scattered back while the program
    runs, so a static program steps as Paddle's dygraph ASGD does."""

    _d_acc_str = "d"
    _y_acc_str = "y"
    _m_acc_str = "m"

    def __init__(self, learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision=False, name=None):
        if learning_rate is None:
            raise OptimizerArgumentError("learning_rate should not be none")
        if batch_num is None:
            raise OptimizerArgumentError("batch_num should not be none")
        _check(0 < batch_num, "batch_num should be greater than 0")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._n = int(batch_num)
        self._n_vars: dict[int, object] = {}  # program -> its int64 [1] batch_num

    def _n_var(self, block):
        """batch_num as an int64 [1] var, made once per program, as Paddle's _n_tensor."""
        key = block.program._serial
        if key not in self._n_vars:
            n = block.create_var(name=unique_name.generate("asgd_batch_num"), shape=[1],
                                 dtype=VarType.INT64, stop_gradient=True)
            block.append_op("fill_constant", outputs={"Out": [n]},
                            attrs=fill_constant_attrs([1], VarType.INT64, self._n))
            self._n_vars[key] = n
        return self._n_vars[key]

    def _append_optimize_op(self, block, param, grad, lr):
        shape = list(param.shape)
        d = self._add_accumulator(self._d_acc_str, param)
        ys = self._add_accumulator(self._y_acc_str, param, shape=[self._n, *shape])
        m = self._add_accumulator(self._m_acc_str, param, 0, [1], VarType.INT64)

        def tmp(stem, dtype, var_shape):
            return block.create_var(name=unique_name.generate(f"{param.name}_asgd_{stem}"),
                                    shape=var_shape, dtype=dtype, stop_gradient=True)
        n = self._n_var(block)
        index, count = tmp("index", VarType.INT64, [1]), tmp("count", VarType.INT64, [1])
        block.append_op("elementwise_mod", {"X": [m], "Y": [n]}, {"Out": [index]})
        block.append_op("increment", {"X": [m]}, {"Out": [m]}, {"step": 1.0})
        block.append_op("elementwise_min", {"X": [m], "Y": [n]}, {"Out": [count]})
        row, y = tmp("row", param.dtype, [1, *shape]), tmp("y", param.dtype, shape)
        block.append_op("gather", {"X": [ys], "Index": [index]}, {"Out": [row]}, {"axis": 0})
        block.append_op("reshape2", {"X": [row]}, {"Out": [y]}, {"shape": shape})
        op = block.append_op("asgd", {"param": [param], "grad": [grad], "learning_rate": [lr],
                                      "d": [d], "y": [y], "n": [count]},
                             {"param_out": [param], "d_out": [d], "y_out": [y]})
        row_out = tmp("row", param.dtype, [1, *shape])
        block.append_op("reshape2", {"X": [y]}, {"Out": [row_out]}, {"shape": [1, *shape]})
        block.append_op("scatter", {"X": [ys], "Ids": [index], "Updates": [row_out]},
                        {"Out": [ys]}, {"overwrite": True})
        return op


class Rprop(Optimizer):
    """Resilient backpropagation (Paddle's Rprop): a step size per element, grown by etas[1]
    while the gradient keeps its sign, shrunk by etas[0] when it flips (that step skipped),
    kept within learning_rate_range; the parameter moves by the step against the gradient's
    sign. The global rate only starts the step sizes: neither it nor per-parameter rate scales
    enter the update, as in Paddle."""

    _prevs_acc_str = "prevs"
    _learning_rates_acc_str = "learning_rates"

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None,
                 etas=(0.5, 1.2), grad_clip=None, multi_precision=False, name=None):
        if learning_rate is None:
            raise OptimizerArgumentError("learning_rate is not set")
        _check(0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1],
               "'0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1]' "
               "must be true")
        _check(0.0 < etas[0] < 1.0 < etas[1], "'0.0 < etas[0] < 1.0 < etas[1]' must be true")
        super().__init__(learning_rate, parameters, 0.0, grad_clip, name)
        self._initial_learning_rate = float(learning_rate)
        self._learning_rate_range = [float(v) for v in learning_rate_range]
        self._etas = [float(v) for v in etas]
        self._pairs: dict[tuple, tuple] = {}  # (program, dtype) -> (range var, etas var)

    def _param_lr(self, param, lr):
        return lr  # unused by the update (see the class doc)

    def _pair_vars(self, block, dtype):
        """The [1, 2] tensors of learning_rate_range and etas, made once per program and
        dtype, as Paddle's to_tensor makes them."""
        key = (block.program._serial, int(dtype))
        if key not in self._pairs:
            made = []
            for values in (self._learning_rate_range, self._etas):
                var = block.create_var(name=unique_name.generate("assign"), shape=[1, 2],
                                       dtype=dtype, stop_gradient=True)
                value = np.array([values], to_numpy_dtype(dtype))
                block.append_op("assign_value", outputs={"Out": [var]},
                                attrs=assign_value(var.name, value).attrs)
                made.append(var)
            self._pairs[key] = tuple(made)
        return self._pairs[key]

    def _append_optimize_op(self, block, param, grad, lr):
        prev = self._add_accumulator(self._prevs_acc_str, param)
        rates = self._add_accumulator(self._learning_rates_acc_str, param,
                                      self._initial_learning_rate)
        rate_range, etas = self._pair_vars(block, param.dtype)
        return block.append_op(
            "rprop", {"param": [param], "grad": [grad], "prev": [prev], "learning_rate": [rates],
                      "learning_rate_range": [rate_range], "etas": [etas]},
            {"param_out": [param], "prev_out": [prev], "learning_rate_out": [rates]})
