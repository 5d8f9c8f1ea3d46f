"""A pytest plugin (pyproject's addopts load it): the repository root is the fluidc package, so
it holds an __init__.py, and pytest would collect it as a package and import it under the name
of the clone's directory, which fails unless that name is a Python identifier. The tests import
fluidc as installed instead, so the root is collected as a plain directory."""
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parent.parent


@pytest.hookimpl(tryfirst=True)
def pytest_collect_directory(path, parent):
    if Path(path).resolve() == _ROOT:
        return pytest.Dir.from_parent(parent, path=path)
    return None
