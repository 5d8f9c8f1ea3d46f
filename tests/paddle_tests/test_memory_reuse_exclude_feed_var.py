"""Port of Paddle test/legacy_test/test_memory_reuse_exclude_feed_var.py.

A CompiledProgram with BuildStrategy.enable_inplace and memory_optimize on, fed a DenseTensor (in
the list-of-dicts feed form) ten times: the fed tensor must keep its values (the memory reuse
must never write into a feed).
Changes: base.DenseTensor is written fluid.core.DenseTensor (the same class); the
paddle.pir_utils.OldIrGuard() around the run is dropped (fluidc programs are legacy ones, and
run_on_paddle.py runs this file on legacy programs); CUDA places dropped.
"""
import os
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

F = paddle.nn.functional


class TestMemoryReuseExcludeFeedVar(unittest.TestCase):
    def setUp(self):
        self.image_shape = [28, 28]
        self.iteration = 10

    def main_impl(self, place):
        image = paddle.static.data(name='image', shape=[-1, *self.image_shape], dtype='float32')
        relu_image = F.relu(image)
        loss = paddle.mean(relu_image)

        build_strategy = fluid.BuildStrategy()
        build_strategy.enable_inplace = True
        build_strategy.memory_optimize = True

        exe = fluid.Executor(place)
        exe.run(fluid.default_startup_program())

        compiled_prog = fluid.CompiledProgram(fluid.default_main_program(),
                                              build_strategy=build_strategy)

        image_tensor = fluid.core.DenseTensor()
        np_image = np.random.uniform(low=-10, high=10, size=self.image_shape).astype('float32')
        image_tensor.set(np_image, place)

        feed_dict = [{image.name: image_tensor}]

        for _ in range(self.iteration):
            exe.run(compiled_prog, feed=feed_dict, fetch_list=[loss])
            np.testing.assert_array_equal(np.array(image_tensor), np_image)

    def test_main(self):
        places = [fluid.CPUPlace()]
        if os.environ.get('FLAGS_CI_both_cpu_and_gpu', 'False').lower() in ['1', 'true', 'on'] \
                or not fluid.is_compiled_with_cuda():
            places.append(fluid.CPUPlace())

        for p in places:
            with fluid.program_guard(fluid.Program(), fluid.Program()):
                with fluid.unique_name.guard():
                    with fluid.scope_guard(fluid.Scope()):
                        self.main_impl(p)


if __name__ == '__main__':
    unittest.main()
