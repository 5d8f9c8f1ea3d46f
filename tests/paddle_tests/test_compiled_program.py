"""Port of Paddle test/legacy_test/test_compiled_program.py: CompiledProgram runs a program as
the Executor does.

Kept: TestCompiledProgram.test_compiled_program_base (simple_fc_net's first loss, plain and
compiled: exactly equal), TestCompiledProgramError.test_program_or_graph_error.
Changed: new_program_scope (test_imperative_base) is written out (fresh programs, scope and
unique names); paddle.framework.random._manual_program_seed (private) -> the programs'
random_seed.
Dropped: test_compile_scope_error / test_compile_place_error (CompiledProgram._compile, a
private method; the place case needs CUDA).
"""
import contextlib
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from .simple_nets import simple_fc_net

base = fluid

paddle.enable_static()


@contextlib.contextmanager
def new_program_scope(seed):
    main, startup = base.Program(), base.Program()
    main.random_seed = startup.random_seed = seed
    with base.scope_guard(base.Scope()), base.program_guard(main, startup), \
            base.unique_name.guard():
        yield


class TestCompiledProgram(unittest.TestCase):
    def setUp(self):
        self.seed = 100
        self.img = np.random.random(size=(16, 784)).astype('float32')
        self.label = np.random.randint(low=0, high=10, size=[16, 1], dtype=np.int64)
        with new_program_scope(self.seed):
            paddle.seed(self.seed)
            place = base.CPUPlace()
            exe = base.Executor(place)

            loss = simple_fc_net()
            exe.run(base.default_startup_program())

            (loss_data,) = exe.run(base.default_main_program(),
                                   feed={"image": self.img, "label": self.label},
                                   fetch_list=[loss.name])
            self.loss = float(loss_data)

    def test_compiled_program_base(self):
        with new_program_scope(self.seed):
            paddle.seed(self.seed)
            place = base.CPUPlace()
            exe = base.Executor(place)

            loss = simple_fc_net()
            exe.run(base.default_startup_program())
            compiled_prog = base.CompiledProgram(base.default_main_program())

            (loss_data,) = exe.run(compiled_prog, feed={"image": self.img, "label": self.label},
                                   fetch_list=[loss.name])
            np.testing.assert_array_equal(float(loss_data), self.loss)


class TestCompiledProgramError(unittest.TestCase):
    def test_program_or_graph_error(self):
        self.assertRaises(TypeError, base.CompiledProgram, "program")


if __name__ == '__main__':
    unittest.main()
