"""Every test builds its programs fresh: new default programs, scope and name counters."""
import os

# The kernels the tests build stay with the checkout, out of the user's cache (unless
# FLUIDC_CACHE_DIR names one); subprocesses of tests inherit it.
os.environ.setdefault("FLUIDC_CACHE_DIR", os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), ".pytest_cache", "fluidc-kernels"))
# Runs check the generated code: with an empty cache a first run would go on tier 0 (numpy,
# runtime/tiered.py). Tier-0 tests turn it on themselves.
os.environ["FLUIDC_TIERED"] = "0"
# Plans are the same on every machine: every product the C backend can compute is generated
# (by default large ones are measured against the library's; tests/test_product_choice.py).
os.environ["FLUIDC_PRODUCTS"] = "generated"

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import fluidc as fluid  # noqa: E402
from fluidc.frontend import framework, unique_name  # noqa: E402


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """A test module's top-level paddle.enable_static() (as Paddle's tests have) holds for its
    tests, and for no other module's."""
    framework.set_mode(None)
    yield
    if isinstance(collector, pytest.Module):
        collector.fluidc_mode = framework.framework_mode()
        framework.set_mode(None)


@pytest.fixture(autouse=True)
def fresh_programs(request):
    """Each test gets empty default programs, a new global scope and fresh unique names, and
    starts in its module's mode: what its top-level code chose, else a fresh script's (no
    enable_static / disable_static), and with the default dtype float32."""
    module = request.node.getparent(pytest.Module)
    framework.set_mode(getattr(module, "fluidc_mode", None))
    main, startup = fluid.Program(), fluid.Program()
    old_main = framework.switch_main_program(main)
    old_startup = framework.switch_startup_program(startup)
    scope = fluid.Scope()
    with unique_name.guard(), fluid.scope_guard(scope):
        yield
    fluid.set_default_dtype("float32")
    framework.switch_main_program(old_main)
    framework.switch_startup_program(old_startup)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
