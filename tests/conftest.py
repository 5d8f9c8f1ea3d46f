"""Every test builds its programs fresh: new default programs, scope and name counters."""
import os

# The kernels the tests build stay with the checkout, out of the user's cache (unless
# FLUIDC_CACHE_DIR names one); subprocesses of tests inherit it.
os.environ.setdefault("FLUIDC_CACHE_DIR", os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".pytest_cache", "fluidc-kernels"))

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import fluidc as fluid  # noqa: E402
from fluidc.frontend import framework, unique_name  # noqa: E402


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
