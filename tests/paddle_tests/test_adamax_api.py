"""Port of Paddle test/legacy_test/test_adamax_api.py: paddle.optimizer.Adamax in dygraph.

Kept: TestAdamaxAPI, TestAdamaxAPIWeightDecay (an int weight_decay), TestAdamaxAPIGroup
(parameter groups with their own weight_decay / beta1 / beta2).
Added (fluidc): Paddle's test only runs one step; here each parameter after the step is also
checked against Adamax's update written in numpy (a float weight_decay is an L2 decay added to
the gradient; moment, infinity norm max(beta2 * u + epsilon, |g|), lr / (1 - beta1)).
"""
import unittest

import numpy as np

import fluidc as paddle


def adamax_step(param, grad, lr=0.01, beta1=0.9, beta2=0.999, epsilon=1e-8, weight_decay=0.0):
    """One Adamax update from zero moments (beta1_pow = beta1 at the first step)."""
    g = grad + weight_decay * param
    moment = (1 - beta1) * g
    inf_norm = np.maximum(epsilon, np.abs(g))
    return param - lr / (1 - beta1) * moment / inf_norm


class AdamaxCheck:
    def check_step(self, layers_and_args, grads_of, step):
        before = {id(p): p.numpy().copy() for layer, _ in layers_and_args
                  for p in layer.parameters()}
        step()
        for layer, args in layers_and_args:
            for p in layer.parameters():
                want = adamax_step(before[id(p)], grads_of[id(p)], **args)
                np.testing.assert_allclose(p.numpy(), want, rtol=1e-5, atol=1e-6)


class TestAdamaxAPI(unittest.TestCase, AdamaxCheck):
    def test_adamax_api_dygraph(self):
        paddle.disable_static()
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear = paddle.nn.Linear(13, 5)
        adam = paddle.optimizer.Adamax(learning_rate=0.01, parameters=linear.parameters(),
                                       weight_decay=0.01)
        out = linear(a)
        out.backward()
        # fluidc addition: out.backward() seeds ones, so dW = a^T 1, db = 2
        grads = {id(linear.weight): value.T @ np.ones((2, 5), "float32"),
                 id(linear.bias): np.full(5, 2.0, "float32")}
        self.check_step([(linear, {"weight_decay": 0.01})], grads, adam.step)
        adam.clear_gradients()


class TestAdamaxAPIWeightDecay(unittest.TestCase, AdamaxCheck):
    def test_weight_decay_int(self):
        paddle.disable_static()
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear = paddle.nn.Linear(13, 5)
        adam = paddle.optimizer.Adamax(learning_rate=0.01, parameters=linear.parameters(),
                                       weight_decay=1)
        out = linear(a)
        out.backward()
        grads = {id(linear.weight): value.T @ np.ones((2, 5), "float32"),
                 id(linear.bias): np.full(5, 2.0, "float32")}
        self.check_step([(linear, {"weight_decay": 1.0})], grads, adam.step)
        adam.clear_gradients()


class TestAdamaxAPIGroup(TestAdamaxAPI):
    def test_adamax_api_dygraph(self):
        paddle.disable_static()
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear_1 = paddle.nn.Linear(13, 5)
        linear_2 = paddle.nn.Linear(5, 3)
        # This can be any optimizer supported by dygraph.
        adam = paddle.optimizer.Adamax(
            learning_rate=0.01,
            parameters=[
                {'params': linear_1.parameters()},
                {
                    'params': linear_2.parameters(),
                    'weight_decay': 0.001,
                    'beta1': 0.1,
                    'beta2': 0.99,
                },
            ],
            weight_decay=0.1,
        )
        out = linear_1(a)
        out = linear_2(out)
        out.backward()
        # fluidc addition: the chain rule through both layers, written out
        w2 = linear_2.weight.numpy()
        d_hidden = np.ones((2, 3), "float32") @ w2.T
        hidden = value @ linear_1.weight.numpy() + linear_1.bias.numpy()
        grads = {id(linear_1.weight): value.T @ d_hidden,
                 id(linear_1.bias): d_hidden.sum(0),
                 id(linear_2.weight): hidden.T @ np.ones((2, 3), "float32"),
                 id(linear_2.bias): np.full(3, 2.0, "float32")}
        self.check_step([(linear_1, {"weight_decay": 0.1}),
                         (linear_2, {"weight_decay": 0.001, "beta1": 0.1, "beta2": 0.99})],
                        grads, adam.step)
        adam.clear_gradients()


if __name__ == "__main__":
    unittest.main()
