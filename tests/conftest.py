"""Every test builds its programs fresh: new default programs, scope and name counters."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend import framework, unique_name


@pytest.fixture(autouse=True)
def fresh_programs():
    """Each test gets empty default programs, a new global scope and fresh unique names."""
    main, startup = fluid.Program(), fluid.Program()
    old_main = framework.switch_main_program(main)
    old_startup = framework.switch_startup_program(startup)
    scope = fluid.Scope()
    with unique_name.guard(), fluid.scope_guard(scope):
        yield
    framework.switch_main_program(old_main)
    framework.switch_startup_program(old_startup)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
