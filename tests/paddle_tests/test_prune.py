"""Port of Paddle test/legacy_test/test_prune.py: TestExecutorRunAutoPrune (Executor.run's
use_prune and pruning by fetch_list / feed / optimizer ops).

Dropped: class TestPrune (it calls the private Program._prune / Program._prune_with_input);
the three test_prune_with_cache_* cases (they monkeypatch the private Executor._prune_program to
count calls); x.desc.set_need_check_feed(False) (a VarDesc internal).
fluid.optimizer.SGD/AdamOptimizer -> paddle.optimizer.SGD/Adam; framework.Program ->
paddle.static.Program. scope.find_var(name).get_tensor() is the public Scope API and is kept.
"""
import operator
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class TestExecutorRunAutoPrune(unittest.TestCase):
    def net1(self):
        x = paddle.static.data(name='x', shape=[-1, 2], dtype='float32')
        label = paddle.static.data(name="label", shape=[-1, 1], dtype="int64")
        w_param_attrs = paddle.ParamAttr(name="fc_weight", learning_rate=0.5,
                                         initializer=paddle.nn.initializer.Constant(1.0),
                                         trainable=True)
        y = paddle.static.nn.fc(x=[x], size=2, activation="softmax", weight_attr=w_param_attrs)
        loss1 = paddle.mean(x=paddle.nn.functional.cross_entropy(
            input=y, label=label, reduction='none', use_softmax=False))
        loss2 = paddle.mean(x=paddle.nn.functional.cross_entropy(
            input=y, label=label, reduction='none', use_softmax=False))
        loss1.persistable = True
        loss2.persistable = True
        return x, y, label, loss1, loss2, w_param_attrs

    def net2(self):
        x1 = paddle.static.data(name='x1', shape=[-1, 2], dtype='float32')
        x2 = paddle.static.data(name='x2', shape=[-1, 2], dtype='float32')
        label = paddle.static.data(name="label", shape=[-1, 1], dtype="int64")
        w1_param_attrs = paddle.ParamAttr(name="fc_weight1", learning_rate=0.5,
                                          initializer=paddle.nn.initializer.Constant(1.0),
                                          trainable=True)
        w2_param_attrs = paddle.ParamAttr(name="fc_weight2", learning_rate=0.5,
                                          initializer=paddle.nn.initializer.Constant(1.0),
                                          trainable=True)
        y1 = paddle.static.nn.fc(x=[x1], size=2, activation="softmax", weight_attr=w1_param_attrs)
        y2 = paddle.static.nn.fc(x=[x2], size=2, activation="softmax", weight_attr=w2_param_attrs)
        loss1 = paddle.mean(x=paddle.nn.functional.cross_entropy(
            input=y1, label=label, reduction='none', use_softmax=False))
        loss2 = paddle.mean(x=paddle.nn.functional.cross_entropy(
            input=y2, label=label, reduction='none', use_softmax=False))
        return x1, x2, y1, y2, label, loss1, loss2, w1_param_attrs, w2_param_attrs

    @staticmethod
    def _inputs():
        x_np = np.random.random(size=(10, 2)).astype('float32')
        label_np = np.random.randint(1, size=(10, 1)).astype('int64')
        return x_np, label_np

    def test_not_prune(self):
        program, startup_program = paddle.static.Program(), paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            with paddle.static.program_guard(program, startup_program):
                x, y, label, loss1, loss2, w_param_attrs = self.net1()
                exe = paddle.static.Executor(paddle.CPUPlace())
                exe.run(startup_program)
                x_np, label_np = self._inputs()
                exe.run(program, feed={'x': x_np, 'label': label_np},
                        fetch_list=[loss1.name], use_prune=False)
                self.assertIsNotNone(scope.find_var(loss1.name))
                self.assertIsNotNone(scope.find_var(loss2.name))

    def test_prune_fetches_without_optimizer(self):
        program, startup_program = paddle.static.Program(), paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            with paddle.static.program_guard(program, startup_program):
                x, y, label, loss1, loss2, w_param_attrs = self.net1()
                exe = paddle.static.Executor(paddle.CPUPlace())
                exe.run(startup_program)
                weight_init = np.array(scope.find_var(w_param_attrs.name).get_tensor())
                x_np, label_np = self._inputs()
                exe.run(program, feed={'x': x_np, 'label': label_np},
                        fetch_list=[loss1.name], use_prune=True)
                self.assertIsNotNone(scope.find_var(loss1.name))
                self.assertIsNone(scope.find_var(loss2.name))  # loss2 is pruned
                weight = np.array(scope.find_var(w_param_attrs.name).get_tensor())
                np.testing.assert_array_equal(weight_init, weight)  # weight not changed

    def _prune_with_sgd(self, compiled):
        program, startup_program = paddle.static.Program(), paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            with paddle.static.program_guard(program, startup_program):
                x, y, label, loss1, loss2, w_param_attrs = self.net1()
                paddle.optimizer.SGD(learning_rate=0.5).minimize(loss1)
                exe = paddle.static.Executor(paddle.CPUPlace())
                exe.run(startup_program)
                prog = paddle.static.CompiledProgram(program) if compiled else program
                weight_init = np.array(scope.find_var(w_param_attrs.name).get_tensor())
                x_np, label_np = self._inputs()
                exe.run(prog, feed={'x': x_np, 'label': label_np},
                        fetch_list=[loss1.name], use_prune=True)
                self.assertIsNotNone(scope.find_var(loss1.name))
                self.assertIsNone(scope.find_var(loss2.name))  # loss2 is pruned
                weight = np.array(scope.find_var(w_param_attrs.name).get_tensor())
                np.testing.assert_array_compare(operator.__ne__, weight_init, weight)

    def test_prune_fetches_with_optimizer(self):
        self._prune_with_sgd(compiled=False)

    def test_prune_compiled_program(self):
        self._prune_with_sgd(compiled=True)

    def test_prune_feed_without_optimizer(self):
        program, startup_program = paddle.static.Program(), paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            with paddle.static.program_guard(program, startup_program):
                x, y, label, loss1, loss2, w_param_attrs = self.net1()
                exe = paddle.static.Executor(paddle.CPUPlace())
                exe.run(startup_program)
                weight_init = np.array(scope.find_var(w_param_attrs.name).get_tensor())
                x_np, label_np = self._inputs()
                exe.run(program, feed={y.name: x_np, 'label': label_np},
                        fetch_list=[loss1.name], use_prune=True)
                self.assertIsNotNone(scope.find_var(loss1.name))
                self.assertIsNone(scope.find_var(loss2.name))
                weight = np.array(scope.find_var(w_param_attrs.name).get_tensor())
                np.testing.assert_array_equal(weight_init, weight)  # weight unchanged

    def test_prune_feed_with_optimizer(self):
        program, startup_program = paddle.static.Program(), paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            with paddle.static.program_guard(program, startup_program):
                x, y, label, loss1, loss2, w_param_attrs = self.net1()
                paddle.optimizer.SGD(learning_rate=0.5).minimize(loss1)
                exe = paddle.static.Executor(paddle.CPUPlace())
                exe.run(startup_program)
                x_np, label_np = self._inputs()
                # feeding y cuts the graph the optimizer needs: an error
                self.assertRaises(Exception, exe.run, program,
                                  feed={y.name: x_np, 'label': label_np},
                                  fetch_list=[loss1.name], use_prune=True)
                self.assertIsNotNone(scope.find_var(loss1.name))
                self.assertIsNone(scope.find_var(loss2.name))

    def _multi_optimizers(self, minimize_returns_tuple):
        exe = paddle.static.Executor(paddle.CPUPlace())
        program, startup_program = paddle.static.Program(), paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            with paddle.static.program_guard(program, startup_program):
                x, y, label, loss1, loss2, w_param_attrs = self.net1()
                sgd_optimizer = paddle.optimizer.SGD(learning_rate=0.5)
                train1 = sgd_optimizer.minimize(loss1)
                if minimize_returns_tuple:
                    train1 = train1[0]
                cloned_program = program.clone()
                sgd_optimizer.minimize(loss2)
                exe.run(startup_program)
                x_np, label_np = self._inputs()
                exe.run(program, feed={'x': x_np, 'label': label_np},
                        fetch_list=[loss1.name], use_prune=False)
                weight_without_prune = np.array(scope.find_var(w_param_attrs.name).get_tensor())

        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup_program)
            exe.run(program, feed={'x': x_np, 'label': label_np},
                    fetch_list=[loss1.name, train1], use_prune=True)
            weight_with_prune = np.array(scope.find_var(w_param_attrs.name).get_tensor())

        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup_program)
            exe.run(cloned_program, feed={'x': x_np, 'label': label_np},
                    fetch_list=[loss1.name], use_prune=False)
            weight_expected = np.array(scope.find_var(w_param_attrs.name).get_tensor())

        np.testing.assert_array_equal(weight_with_prune, weight_expected)
        np.testing.assert_array_compare(operator.__ne__, weight_without_prune, weight_expected)

    def test_prune_with_multi_optimizers(self):
        self._multi_optimizers(minimize_returns_tuple=True)

    def test_prune_program_with_tupe_in_fetch_list(self):
        self._multi_optimizers(minimize_returns_tuple=False)

    def test_prune_program_partial_parameter_updated(self):
        program, startup_program = paddle.static.Program(), paddle.static.Program()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            with paddle.static.program_guard(program, startup_program):
                x1, x2, y1, y2, label, loss1, loss2, w1_attrs, w2_attrs = self.net2()
                loss1.persistable = True
                loss2.persistable = True
                train1 = paddle.optimizer.SGD(learning_rate=0.5).minimize(loss1)
                paddle.optimizer.SGD(learning_rate=0.5).minimize(loss2)
                exe = paddle.static.Executor(paddle.CPUPlace())
                exe.run(startup_program)
                weight1_init = np.array(scope.find_var(w1_attrs.name).get_tensor())
                weight2_init = np.array(scope.find_var(w2_attrs.name).get_tensor())
                x_np, label_np = self._inputs()
                exe.run(program, feed={'x1': x_np, 'label': label_np},
                        fetch_list=[loss1.name, train1], use_prune=True)
                self.assertIsNotNone(scope.find_var(w1_attrs.name))
                self.assertIsNotNone(scope.find_var(w2_attrs.name))
                self.assertIsNotNone(scope.find_var(loss1.name))
                self.assertIsNone(scope.find_var(loss2.name))
                weight1 = np.array(scope.find_var(w1_attrs.name).get_tensor())
                weight2 = np.array(scope.find_var(w2_attrs.name).get_tensor())
                np.testing.assert_array_compare(operator.__ne__, weight1_init, weight1)
                np.testing.assert_array_equal(weight2_init, weight2)  # weight2 unchanged


if __name__ == '__main__':
    unittest.main()
