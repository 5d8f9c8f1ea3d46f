"""Port of Paddle test/legacy_test/test_layers.py's TestBook, part 2: make_* cases on 2.x ops.

run-on-paddle: pir

The TestBook cases whose layers Paddle 3.3.1 builds only on PIR programs (F.normalize's
paddle.maximum, F.mish, F.kl_div): make_l2_normalize, make_mish, make_kldiv_loss (which Paddle
does not compare with dygraph; here it is compared with numpy). The rest, and what the port changed and
dropped, is test_layers_book.py; the machinery (seeded data, the numpy value in place of the
dygraph run) is its BookCase.
"""
import numpy as np

import fluidc as paddle

from .test_layers_book import BookCase

paddle.enable_static()


class TestBook(BookCase):
    def make_l2_normalize(self):
        x = self._get_data(name='x', shape=[8, 7, 10], dtype="float32")
        output = paddle.nn.functional.normalize(x, axis=1)
        return output

    def test_l2_normalize(self):
        def expect(feed, p):
            x = feed['x'].astype(np.float64)
            return x / np.maximum(np.sqrt((x * x).sum(axis=1, keepdims=True)), 1e-12)
        self.check(self.make_l2_normalize, expect)

    def make_mish(self):
        input = self._get_data(name="input", shape=[16], dtype="float32")
        out = paddle.nn.functional.mish(input, name='mish')
        return out

    def test_mish(self):
        def expect(feed, p):
            x = feed['input'].astype(np.float64)
            return x * np.tanh(np.log1p(np.exp(x)))
        self.check(self.make_mish, expect)

    def make_kldiv_loss(self):
        x = self._get_data(name='x', shape=[32, 128, 128], dtype="float32",
                           append_batch_size=False)
        target = self._get_data(name='target', shape=[32, 128, 128], dtype="float32",
                                append_batch_size=False)
        loss = paddle.nn.functional.kl_div(input=x, label=target, reduction='batchmean')
        return loss

    def test_kldiv_loss(self):
        def expect(feed, p):
            x, t = (feed[n].astype(np.float64) for n in ('x', 'target'))
            return np.asarray((t * (np.log(t) - x)).sum() / 32)
        self.check(self.make_kldiv_loss, expect)
