"""Helper of the per-op ports whose op has no public layer in Paddle 3.3.1 (cos_sim, lod_reset,
spectral_norm with given U / V, ...): the op appended to a fresh legacy Program with
Block.append_op, as OpTest's Operator would run it, fed the case's inputs; and OpTest's
numeric gradient (central differences) of a numpy reference.
"""
import numpy as np

import fluidc as fluid
import fluidc as paddle


def run_op(op_type, inputs, outputs, attrs=None, return_numpy=True, grad_inputs=(),
           exact_shapes=False):
    """Run one `op_type` op. `inputs`: slot -> array, or (array, recursive sequence lengths)
    for a LoD tensor; `outputs`: slot -> dtype. Returns slot -> fetched value (LoDTensors when
    return_numpy is False), and for each slot of grad_inputs, slot + '@GRAD': its gradient of
    the mean of the first output (paddle.static.gradients). The input vars' first dim is -1
    unless exact_shapes (for ops whose build-time checks read it, as mul's of Y)."""
    main = paddle.static.Program()
    place = paddle.CPUPlace()
    feed, in_vars = {}, {}
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        for slot, value in inputs.items():
            name = 'in_' + slot.lower()
            data, lod = value if isinstance(value, tuple) else (value, None)
            data = np.asarray(data)
            shape = list(data.shape) if exact_shapes else [-1] + list(data.shape[1:])
            var = paddle.static.data(name, shape, str(data.dtype),
                                     lod_level=len(lod) if lod else 0)
            var.stop_gradient = slot not in grad_inputs
            in_vars[slot] = var
            feed[name] = fluid.create_lod_tensor(data, lod, place) if lod else data
        out_vars = {slot: block.create_var(name='out_' + slot.lower(), dtype=dtype)
                    for slot, dtype in outputs.items()}
        block.append_op(type=op_type, inputs=in_vars, outputs=out_vars, attrs=attrs or {})
        fetch = dict(out_vars)
        if grad_inputs:
            loss = paddle.mean(next(iter(out_vars.values())))
            grads = paddle.static.gradients([loss], [in_vars[s] for s in grad_inputs])
            fetch.update({s + '@GRAD': g for s, g in zip(grad_inputs, grads)})
    got = paddle.static.Executor(place).run(main, feed=feed, fetch_list=list(fetch.values()),
                                            return_numpy=return_numpy)
    return dict(zip(fetch, got))


def numeric_grad(fn, inputs, name, delta=1e-3):
    """d mean(fn(**inputs)) / d inputs[name] by central differences, in float64."""
    base = {k: np.array(v, dtype='float64') for k, v in inputs.items()}
    grad = np.zeros_like(base[name])
    flat, src = grad.reshape(-1), base[name].reshape(-1)
    for i in range(src.size):
        keep = src[i]
        src[i] = keep + delta
        hi = np.mean(fn(**base))
        src[i] = keep - delta
        lo = np.mean(fn(**base))
        src[i] = keep
        flat[i] = (hi - lo) / (2 * delta)
    return grad
