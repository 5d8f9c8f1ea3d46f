"""Helper of the optimizer-op ports (nadam, radam, asgd, rprop): one update op appended to a
fresh legacy Program with Block.append_op, as OpTest's Operator runs it, every input fed at its
exact shape (0-d learning rates and [1] step counts included)."""
import numpy as np

import fluidc as paddle


def run_update_op(op_type, inputs, outputs, attrs):
    """Run `op_type` over `inputs` (slot -> array); `outputs`: slot -> expected array (its
    dtype is the output var's). Returns slot -> fetched value."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        ins = {slot: paddle.static.data(slot, list(np.shape(v)), str(np.asarray(v).dtype))
               for slot, v in inputs.items()}
        outs = {slot: block.create_var(name=slot, dtype=str(np.asarray(v).dtype))
                for slot, v in outputs.items()}
        block.append_op(type=op_type, inputs=ins, outputs=outs, attrs=attrs)
    got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=dict(inputs),
                                                        fetch_list=list(outs.values()))
    return dict(zip(outs, got))
