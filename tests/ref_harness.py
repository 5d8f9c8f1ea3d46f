"""Op-level test helpers: run OpDescs through their references, extern runs, inference on
given shapes, and gradient checks against central finite differences in float64."""
import numpy as np
import torch

from fluidc.frontend.dtypes import convert_dtype, to_numpy_dtype
from fluidc.frontend.ops.registry import EMPTY_VAR, OpDesc, VarInfo, get_op_def, grad_name

RNG = np.random.default_rng(0)


def _info(a) -> VarInfo:
    return VarInfo(tuple(np.shape(a)), convert_dtype(np.asarray(a).dtype))


def run_ops(ops, env, lower=True):
    """Run OpDescs over env (name -> array) via references; composites lowered when `lower`."""
    for op in ops:
        d = get_op_def(op.type)
        attrs = d.complete_attrs(op.attrs)
        ins = {s: [env[n] for n in names if n != EMPTY_VAR] for s, names in op.inputs.items()}
        if d.kind == "composite" and lower:
            infos = {n: _info(v) for n, v in env.items()}
            inferred = d.infer({s: [_info(x) for x in v] for s, v in ins.items()}, attrs)
            for s, names in op.outputs.items():
                for n, vi in zip(names, inferred.get(s, [])):
                    infos.setdefault(n, vi)

            def new_var(vi, infos=infos):
                name = f"tmp_{len(infos)}"
                infos[name] = vi
                return name
            run_ops(d.lower(op, infos, new_var), env, lower)
            continue
        outs = d.reference(ins, attrs)
        for s, names in op.outputs.items():
            for n, v in zip(names, outs.get(s, [])):
                if n != EMPTY_VAR:
                    env[n] = v
    return env


def run_extern(op_type, ins, attrs, gen=None):
    """An extern/view op's `run` on torch copies of numpy inputs, outputs preallocated by infer."""
    d = get_op_def(op_type)
    a = d.complete_attrs(attrs)
    infos = d.infer({s: [_info(x) for x in v] for s, v in ins.items()}, a)
    tins = {s: [torch.from_numpy(np.array(x)) for x in v] for s, v in ins.items()}
    outs = {s: [torch.from_numpy(np.zeros(vi.shape, to_numpy_dtype(vi.dtype))) for vi in v]
            for s, v in infos.items()}
    d.run(tins, outs, a, gen if gen is not None else torch.Generator().manual_seed(0))
    return {s: [t.numpy() for t in v] for s, v in outs.items()}


def check_run(op_type, ins, attrs, rtol=1e-5, atol=1e-6):
    """`run` agrees with `reference` on every output (values and dtypes)."""
    a = get_op_def(op_type).complete_attrs(attrs)
    ref = get_op_def(op_type).reference(ins, a)
    got = run_extern(op_type, ins, attrs)
    for s, vals in ref.items():
        for r, g in zip(vals, got[s]):
            assert g.dtype == r.dtype, (op_type, s)
            np.testing.assert_allclose(g, r, rtol=rtol, atol=atol, err_msg=f"{op_type}.{s}")
    return got


def infer(op_type, ins, attrs=None):
    """Infer from {slot: [(shape, dtype)]}."""
    d = get_op_def(op_type)
    return d.infer({s: [VarInfo(tuple(sh), convert_dtype(dt)) for sh, dt in v]
                    for s, v in ins.items()}, d.complete_attrs(attrs or {}))


def make_fwd(op_type, inputs, attrs):
    """A forward OpDesc binding each input slot to named vars, every output slot to fresh ones."""
    d = get_op_def(op_type)
    env, ins = {}, {}
    for s, v in inputs.items():
        vals = v if isinstance(v, list) else [v]
        ins[s] = [f"{s}_{i}" for i in range(len(vals))]
        env.update(zip(ins[s], vals))
    outs = {s.name: [f"out_{s.name}"] for s in d.outputs}
    return OpDesc(op_type, ins, outs, dict(attrs)), env


def check_grad(op_type, inputs, attrs, wrt, outs=("Out",), lower=True, eps=1e-6, tol=1e-5):
    """The grad ops' results against central differences of sum(out * dout) in float64."""
    fwd, env = make_fwd(op_type, inputs, attrs)
    forward_lowered = get_op_def(op_type).reference is None  # a composite without its own
    run_ops([fwd], env, lower=forward_lowered)
    douts = {}
    for s in outs:
        n = fwd.output(s)[0]
        douts[n] = RNG.standard_normal(env[n].shape)
        env[grad_name(n)] = douts[n]
    grads = run_ops(get_op_def(op_type).grad(fwd), dict(env), lower=lower)

    def loss(e):
        e = run_ops([fwd], {k: v for k, v in e.items() if k in fwd.input_arg_names},
                    lower=forward_lowered)
        return sum(float((e[n] * d).sum()) for n, d in douts.items())

    for s in wrt:
        for n in fwd.input(s):
            x = env[n]
            num = np.zeros_like(x)
            for idx in np.ndindex(x.shape):
                plus, minus = x.copy(), x.copy()
                plus[idx] += eps
                minus[idx] -= eps
                num[idx] = (loss({**env, n: plus}) - loss({**env, n: minus})) / (2 * eps)
            np.testing.assert_allclose(grads[grad_name(n)], num, rtol=tol, atol=tol,
                                       err_msg=f"{op_type} d/d{s}")
    return fwd, grads
