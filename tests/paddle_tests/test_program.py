"""Port of Paddle test/legacy_test/test_program.py: TestProgram's public-API cases.

Dropped: test_program (Program._create_block/_rollback are private), test_parse_program_from_string
and all of TestProgramProto / TestProgramHash (they work on program.desc: serialize_to_string,
need_update, cached_hash_str, op._set_attr), test_prune_with_input_type_error (private
Program._prune_with_input), test_copy_info_from_error (private _copy_param_info_from).
test_program_clone's hand-built mul op is kept; Paddle only prints the programs, the port also
checks that the clone has the same op and vars.
"""
import unittest

import fluidc as paddle

paddle.enable_static()


class TestProgram(unittest.TestCase):
    def test_program_clone(self):
        prog = paddle.static.Program()
        x = prog.global_block().create_var(name='X', shape=[1000, 784], dtype='float32')
        y = prog.global_block().create_var(name='Y', shape=[784, 100], dtype='float32')
        out = prog.global_block().create_var(name='Out', dtype='float32')
        prog.global_block().append_op(type="mul", inputs={'X': [x], 'Y': [y]},
                                      outputs={'Out': [out]})
        cloned = prog.clone()
        self.assertIn('mul', str(prog))
        self.assertEqual([op.type for op in cloned.global_block().ops], ['mul'])
        for name in ('X', 'Y', 'Out'):
            self.assertTrue(cloned.global_block().has_var(name))

    def test_program_clone_with_parameter(self):
        main_program, startup_program = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main_program, startup_program):
            d = paddle.static.data(name='x', shape=[-1, 784], dtype='float32')
            hidden = paddle.static.nn.fc(x=d, size=100)
            paddle.static.nn.fc(x=hidden, size=100)
        new_program = main_program.clone()
        self.assertNotEqual(0, len(new_program.blocks[0].all_parameters()))

    def test_program_all_parameters(self):
        program = paddle.static.default_main_program()
        data = paddle.static.data(name='x', shape=[None, 13], dtype='float32')
        hidden = paddle.static.nn.fc(x=data, size=10)
        loss = paddle.mean(hidden)
        paddle.optimizer.SGD(learning_rate=0.01).minimize(loss)
        # the parameters are fc_0.w_0 and fc_0.b_0
        param_list = program.all_parameters()
        self.assertEqual(len(param_list), 2)
        self.assertEqual(param_list[0].name, "fc_0.w_0")
        self.assertEqual(param_list[1].name, "fc_0.b_0")

    def test_random_seed_error(self):
        program = paddle.static.default_main_program()
        with self.assertRaises(ValueError):
            program.random_seed = "seed"


if __name__ == '__main__':
    unittest.main()
