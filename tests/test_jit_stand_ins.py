"""A recording to_static call fetches only the values its backward reads (grad ops' inputs);
the others stay inside the forward plan, which aliases and fuses them as a static program's
(dygraph/jit_program.py `_stand_ins`). The gradients are eager's: from one output or several,
with a zero-filled grad reading a stand-in's shape, through paddle.grad and create_graph."""
import numpy as np
import pytest

import fluidc as paddle


def _block(d=16, heads=2):
    nn, F = paddle.nn, paddle.nn.functional

    class Block(nn.Layer):
        def __init__(self):
            super().__init__()
            self.qkv = nn.LayerList([nn.Linear(d, d) for _ in range(3)])
            self.out = nn.Linear(d, d)
            self.ln = nn.LayerNorm(d)

        def forward(self, x):
            def split(t):
                return paddle.transpose(paddle.reshape(t, [0, 0, heads, d // heads]),
                                        [0, 2, 1, 3])
            q, k, v = (split(fc(x)) for fc in self.qkv)
            att = F.softmax(paddle.scale(paddle.matmul(q, k, transpose_y=True), scale=0.5))
            ctx = paddle.reshape(paddle.transpose(paddle.matmul(att, v), [0, 2, 1, 3]),
                                 [0, 0, d])
            h = self.ln(x + self.out(ctx))
            a, b, c = paddle.split(h, 3, axis=1)  # b unused: its grad is zeros of its shape
            return F.gelu(a) + c, paddle.tanh(h)
    return Block


def _pair(seed=0):
    """(eager net, to_static net) from the same weights, and an input batch."""
    paddle.seed(seed)
    Block = _block()
    eager, static = Block(), Block()
    static.set_state_dict(eager.state_dict())
    x = np.random.default_rng(seed).standard_normal((2, 6, 16)).astype("float32")
    return eager, paddle.jit.to_static(static), x


def _grads(net):
    return [p.grad.numpy() for p in net.parameters()]


def test_values_no_grad_reads_are_not_fetched():
    _, net, x = _pair()
    out, _ = net(paddle.to_tensor(x, stop_gradient=False))
    out.sum().backward()
    cp = net.forward.concrete_program
    ops = {op.type: op for op in cp.main_program.global_block().ops}
    first_reshape = next(op for op in cp.main_program.global_block().ops
                         if op.type == "reshape2")
    scale = ops["scale"].output("Out")[0]
    softmax = ops["softmax"].output("Out")[0]
    stood_in = set(cp._stand_ins)
    # a reshape's input and output and the softmax's input: no grad op reads them
    for n in first_reshape.input("X") + first_reshape.output("Out") + [scale]:
        assert n in stood_in and n not in cp._fetch_all
    assert softmax in cp._fetch_all and softmax not in stood_in  # softmax_grad reads Out
    # stand-ins: the var's shape, NaN everywhere, read-only
    block = cp.main_program.global_block()
    for n, a in cp._stand_ins.items():
        assert a.shape == tuple(block.var(n).shape)
        if a.size:
            assert np.isnan(a).all() and not a.flags.writeable


@pytest.mark.parametrize("seed", [0, 1])
def test_training_gradients_match_eager(seed):
    eager, static, x = _pair(seed)
    for net in (eager, static):
        out, t = net(paddle.to_tensor(x))
        (out.square().mean() + t.mean()).backward()
    for a, b in zip(_grads(eager), _grads(static)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_each_output_alone_and_input_gradients_match_eager():
    eager, static, x = _pair(2)
    results = []
    for net in (eager, static):
        xt = paddle.to_tensor(x, stop_gradient=False)
        out, t = net(xt)
        g_out, = paddle.grad(out.sum(), xt, retain_graph=True)
        g_t, = paddle.grad((t * t).sum(), xt)
        results.append((g_out.numpy(), g_t.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_second_derivatives_match_eager():
    results = []
    for to_static in (False, True):
        paddle.seed(3)
        fc = paddle.nn.Linear(8, 8)

        def f(x):  # the product, the scale's input and output (softmax's input) stood in
            h = paddle.nn.functional.softmax(paddle.scale(fc(x), scale=0.5))
            return paddle.tanh(h) * x
        f = paddle.jit.to_static(f) if to_static else f
        x = paddle.to_tensor(np.linspace(-1, 1, 32, dtype="float32").reshape(4, 8),
                             stop_gradient=False)
        g, = paddle.grad(f(x).sum(), x, create_graph=True)
        gg, = paddle.grad((g * g).sum(), x)
        results.append((g.numpy(), gg.numpy()))
    block = f.concrete_program.main_program.global_block()
    made_by = {n: op.type for op in block.ops for n in op.output_arg_names}
    assert sorted(made_by[n] for n in f.concrete_program._stand_ins) == [
        "elementwise_add", "matmul_v2", "scale"]
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
