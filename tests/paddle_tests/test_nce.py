"""Port of Paddle test/legacy_test/test_nce.py.

TestNCE, TestNCECase1Tensor and TestNCETensorIsTest are OpTests of the nce op with
custom_neg_classes (the negatives fixed, so no draw is random): here the op is appended to a
legacy Program with Block.append_op (OpTest's own Operator machinery is internal), its outputs
are checked against the file's numpy `nce` (check_output), and check_grad's Input / Weight /
Bias gradients of the mean Cost (OpTest's loss) are compared with central differences of that
numpy reference, with OpTest's max_relative_error (0.02) and its relative-error measure.
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


def nce(
    input, weight, bias, sample_weight, labels, num_classes, num_sample_class
):
    samples = []
    sample_labels = []
    batch_size = input.shape[0]
    num_true_class = labels.shape[1]
    for i in range(batch_size):
        w = 1 if sample_weight is None else sample_weight[i]
        for label in labels[i]:
            samples.append((i, label, True, w))
            sample_labels.append(label)
        for num in range(num_sample_class):
            samples.append((i, num, False, w))
            sample_labels.append(num)
    # forward bias
    sample_out = np.zeros(len(samples)).astype(np.float32)
    if bias is not None:
        for i in range(len(samples)):
            sample_out[i] = bias[samples[i][1]]
    # forward weight
    for i in range(len(samples)):
        sample_out[i] += np.dot(input[samples[i][0]], weight[samples[i][1]])

    # forward activation
    sample_out = 1.0 / (1.0 + np.exp(-sample_out))
    # forward cost
    out = np.zeros(batch_size).astype(np.float32)
    b = 1.0 / num_classes * num_sample_class
    for i in range(len(samples)):
        o = sample_out[i]
        cost = -np.log(o / (o + b)) if samples[i][2] else -np.log(b / (o + b))
        out[samples[i][0]] += cost * samples[i][3]
    return (
        out[:, np.newaxis],
        np.array(sample_out).reshape(
            batch_size, num_sample_class + num_true_class
        ),
        np.array(sample_labels).reshape(
            batch_size, num_sample_class + num_true_class
        ),
    )


def nce_cost_float64(inputs, num_classes, num_neg):
    """The mean Cost of the file's reference, in float64 (for the numeric gradient)."""
    x, w, bias = inputs['Input'], inputs['Weight'], inputs['Bias']
    labels, sw = inputs['Label'], inputs['SampleWeight']
    negs = np.tile(np.arange(num_neg), (x.shape[0], 1))
    sample = np.concatenate([labels, negs], 1)
    o = 1.0 / (1.0 + np.exp(-((x[:, None, :] * w[sample]).sum(-1) + bias[sample])))
    b = 1.0 / num_classes * num_neg
    true = np.arange(sample.shape[1]) < labels.shape[1]
    cost = np.where(true, -np.log(o / (o + b)), -np.log(b / (o + b)))
    return (cost.sum(1) * sw).mean()


class TestNCE(unittest.TestCase):
    def generate_data(
        self,
        dim,
        batch_size,
        num_classes,
        num_true_class,
        num_neg_samples,
        is_sparse,
    ):
        input = np.random.randn(batch_size, dim).astype(np.float32)
        weight = np.random.randn(num_classes, dim).astype(np.float32)
        bias = np.random.randn(num_classes).astype(np.float32)
        sample_weight = np.random.randn(batch_size).astype(np.float32)
        labels = np.random.randint(
            0, num_classes, (batch_size, num_true_class)
        ).astype("int64")
        self.attrs = {
            'num_total_classes': num_classes,
            'num_neg_samples': num_neg_samples,
            'custom_neg_classes': list(range(num_neg_samples)),
            'seed': 0,
            'sampler': 0,
            'is_sparse': is_sparse,
            'is_test': self.is_test,
        }
        self.inputs = {
            'Input': input,
            'Label': labels,
            'Weight': weight,
            'Bias': bias,
            'SampleWeight': sample_weight,
        }

    def set_is_test(self):
        self.is_test = False

    def set_data(self):
        self.generate_data(5, 25, 100, 1, 2, False)

    def compute(self):
        out = nce(
            self.inputs['Input'],
            self.inputs['Weight'],
            self.inputs['Bias'],
            self.inputs['SampleWeight'],
            self.inputs['Label'],
            self.attrs['num_total_classes'],
            self.attrs['num_neg_samples'],
        )
        if self.is_test:
            self.outputs = {'Cost': out[0]}
        else:
            self.outputs = {
                'Cost': out[0],
                'SampleLogits': out[1],
                'SampleLabels': out[2],
            }

    def setUp(self):
        np.random.seed(2018)
        self.op_type = 'nce'
        self.set_is_test()
        self.set_data()
        self.compute()

    def build(self):
        """The nce op over data vars named after its inputs; (outputs by slot, the vars)."""
        main = paddle.static.default_main_program()
        block = main.global_block()
        ins = {}
        for slot, value in self.inputs.items():
            ins[slot] = paddle.static.data(slot, list(value.shape), str(value.dtype))
            ins[slot].stop_gradient = slot == 'Label'
        outs = {slot: block.create_var(name=f'nce_{slot}', dtype=dtype) for slot, dtype in
                (('Cost', 'float32'), ('SampleLogits', 'float32'), ('SampleLabels', 'int64'))}
        block.append_op(type='nce', inputs=ins, outputs=outs, attrs=self.attrs)
        return outs, ins

    def test_check_output(self):
        outs, _ = self.build()
        exe = paddle.static.Executor(paddle.CPUPlace())
        fetch = [outs[slot] for slot in self.outputs]
        got = exe.run(feed=self.inputs, fetch_list=fetch)
        for slot, value in zip(self.outputs, got):
            np.testing.assert_allclose(value, self.outputs[slot], rtol=1e-5, atol=1e-5,
                                       err_msg=slot)

    def test_check_grad(self):
        outs, ins = self.build()
        wrt = ["Input", "Weight", "Bias"]
        loss = paddle.mean(outs['Cost'])
        grads = paddle.static.gradients([loss], [ins[s] for s in wrt])
        exe = paddle.static.Executor(paddle.CPUPlace())
        analytic = exe.run(feed=self.inputs, fetch_list=grads)
        values = {k: v.astype(np.float64) if v.dtype == np.float32 else v
                  for k, v in self.inputs.items()}
        n_cls, n_neg = self.attrs['num_total_classes'], self.attrs['num_neg_samples']
        delta = 0.005  # OpTest's numeric_grad_delta
        for slot, got in zip(wrt, analytic):
            x = values[slot]
            numeric = np.zeros_like(x)
            for i in np.ndindex(x.shape):
                orig = x[i]
                x[i] = orig + delta
                plus = nce_cost_float64(values, n_cls, n_neg)
                x[i] = orig - delta
                minus = nce_cost_float64(values, n_cls, n_neg)
                x[i] = orig
                numeric[i] = (plus - minus) / (2 * delta)
            # OpTest's measure: |analytic - numeric| / max(|numeric|, 1e-3)
            rel = np.abs(got - numeric) / np.maximum(np.abs(numeric), 1e-3)
            self.assertLessEqual(rel.max(), 0.02, f'{slot} gradient')


class TestNCECase1Tensor(TestNCE):
    def set_data(self):
        self.generate_data(10, 20, 100, 2, 5, False)


class TestNCETensorIsTest(TestNCE):
    # if is_test = True, there's no need to calculate grad
    def set_is_test(self):
        self.is_test = True

    def test_check_grad(self):
        pass


if __name__ == '__main__':
    unittest.main()
