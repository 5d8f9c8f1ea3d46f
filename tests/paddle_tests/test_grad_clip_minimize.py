"""Port of Paddle test/legacy_test/test_grad_clip_minimize.py: paddle.nn.ClipGradByGlobalNorm /
ClipGradByNorm / ClipGradByValue called on (param, grad) pairs in dygraph, against numpy.

Kept: all of it (TestGradClipByGlobalNorm, TestGradClipByNorm, TestGradClipByValue: 7 cases),
with Paddle's tolerances.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

base = fluid
ClipGradByGlobalNorm = paddle.nn.ClipGradByGlobalNorm
ClipGradByNorm = paddle.nn.ClipGradByNorm
ClipGradByValue = paddle.nn.ClipGradByValue


def dygraph_clip(clip, para_and_grad):
    with base.dygraph.guard():
        p_g_var = []
        for p, g in para_and_grad:
            new_p = paddle.to_tensor(p)
            new_g = paddle.to_tensor(g)
            p_g_var.append((new_p, new_g))

        new_p_g_var = clip(p_g_var)

        p_g_dy_out = []
        for p, g in new_p_g_var:
            p_g_dy_out.append((p.numpy(), g.numpy()))

        return p_g_dy_out


def generate_p_g(shape, init_scale):
    return [(np.random.uniform(-init_scale, init_scale, shape).astype('float32'),
             np.random.uniform(-init_scale, init_scale, shape).astype('float32'))
            for _ in range(10)]


class TestGradClipByGlobalNorm(unittest.TestCase):
    def init_value(self):
        self.max_global_norm = 5.0
        self.init_scale = 1.0

        self.shape = (20, 20)

    def generate_p_g(self):
        self.para_and_grad = generate_p_g(self.shape, self.init_scale)

    def get_numpy_global_norm_result(self):
        global_norm = 0.0
        for p, g in self.para_and_grad:
            global_norm += np.sum(np.square(g))

        global_norm_np = np.sqrt(global_norm)

        new_np_p_g = []
        scale = 1.0
        if global_norm_np > self.max_global_norm:
            scale = self.max_global_norm / global_norm_np

        for p, g in self.para_and_grad:
            new_np_p_g.append((p, g * scale))

        return new_np_p_g

    def get_dygrap_global_norm_result(self):
        return dygraph_clip(ClipGradByGlobalNorm(self.max_global_norm), self.para_and_grad)

    def test_clip_by_global_norm(self):
        self.init_value()
        self.generate_p_g()
        np_p_g = self.get_numpy_global_norm_result()
        dy_out_p_g = self.get_dygrap_global_norm_result()

        for (p_np, g_np), (p_dy, g_dy) in zip(np_p_g, dy_out_p_g):
            np.testing.assert_allclose(g_np, g_dy, rtol=1e-06, atol=1e-08)

    def test_clip_by_global_norm_2(self):
        self.init_value()

        self.init_scale = 0.2
        self.max_global_norm = 10
        self.generate_p_g()
        np_p_g = self.get_numpy_global_norm_result()
        dy_out_p_g = self.get_dygrap_global_norm_result()

        for (p_np, g_np), (p_dy, g_dy) in zip(np_p_g, dy_out_p_g):
            np.testing.assert_allclose(g_np, g_dy, rtol=1e-06, atol=1e-08)


class TestGradClipByNorm(unittest.TestCase):
    def init_value(self):
        self.max_norm = 5.0
        self.init_scale = 1.0

        self.shape = (10, 10)

    def generate_p_g(self):
        self.para_and_grad = generate_p_g(self.shape, self.init_scale)

    def get_numpy_norm_result(self):
        new_p_g = []
        for p, g in self.para_and_grad:
            norm = np.sqrt(np.sum(np.square(g)))

            if norm > self.max_norm:
                new_p_g.append((p, g * self.max_norm / norm))
            else:
                new_p_g.append((p, g))

        return new_p_g

    def get_dygrap_norm_result(self):
        return dygraph_clip(ClipGradByNorm(self.max_norm), self.para_and_grad)

    def test_clip_by_norm(self):
        self.init_value()
        self.generate_p_g()
        np_p_g = self.get_numpy_norm_result()
        dy_out_p_g = self.get_dygrap_norm_result()

        for (p_np, g_np), (p_dy, g_dy) in zip(np_p_g, dy_out_p_g):
            np.testing.assert_allclose(g_np, g_dy, rtol=1e-06, atol=1e-08)

    def test_clip_by_norm_2(self):
        self.init_value()

        self.init_scale = 0.2
        self.max_norm = 10.0
        self.generate_p_g()
        np_p_g = self.get_numpy_norm_result()
        dy_out_p_g = self.get_dygrap_norm_result()

        for (p_np, g_np), (p_dy, g_dy) in zip(np_p_g, dy_out_p_g):
            np.testing.assert_allclose(g_np, g_dy, rtol=1e-06, atol=1e-08)


class TestGradClipByValue(unittest.TestCase):
    def init_value(self):
        self.max_value = 0.8
        self.min_value = -0.1
        self.init_scale = 1.0

        self.shape = (10, 10)

    def generate_p_g(self):
        self.para_and_grad = generate_p_g(self.shape, self.init_scale)

    def get_numpy_clip_result(self):
        new_p_g = []
        for p, g in self.para_and_grad:
            new_p_g.append((p, np.clip(g, self.min_value, self.max_value)))

        return new_p_g

    def get_dygrap_clip_result(self):
        return dygraph_clip(ClipGradByValue(max=self.max_value, min=self.min_value),
                            self.para_and_grad)

    def test_clip_by_value(self):
        self.init_value()
        self.generate_p_g()
        np_p_g = self.get_numpy_clip_result()
        dy_out_p_g = self.get_dygrap_clip_result()

        for (p_np, g_np), (p_dy, g_dy) in zip(np_p_g, dy_out_p_g):
            np.testing.assert_allclose(g_np, g_dy, rtol=1e-06, atol=1e-08)

    def test_clip_by_value_2(self):
        self.init_value()

        self.init_scale = 0.2
        self.generate_p_g()
        np_p_g = self.get_numpy_clip_result()
        dy_out_p_g = self.get_dygrap_clip_result()

        for (p_np, g_np), (p_dy, g_dy) in zip(np_p_g, dy_out_p_g):
            np.testing.assert_allclose(g_np, g_dy, rtol=1e-06, atol=1e-08)

    def test_clip_by_value_3(self):
        self.init_value()

        self.init_scale = 0.5
        self.max_value = 0.6
        self.min_value = None
        self.generate_p_g()
        np_p_g = self.get_numpy_clip_result()
        dy_out_p_g = self.get_dygrap_clip_result()

        for (p_np, g_np), (p_dy, g_dy) in zip(np_p_g, dy_out_p_g):
            np.testing.assert_allclose(g_np, g_dy, rtol=1e-06, atol=1e-08)


if __name__ == '__main__':
    unittest.main()
