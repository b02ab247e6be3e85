"""Test-side PyPI packages (scripts/pydeps.sh installs them into <repo>/.pyenv).

Outside that venv a test needing one skips; ctest sets CT_REQUIRE_PYDEPS=1 when it runs the
tests in the venv (tests/CMakeLists.txt), and there a missing package fails the test, so the
full test command cannot pass by skipping the cross-checks."""
import importlib
import os

import pytest


def need(name):
    """The module `name`, or skip (fail under CT_REQUIRE_PYDEPS=1) when it is missing."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        if os.environ.get("CT_REQUIRE_PYDEPS") == "1":
            pytest.fail(f"{name} is required here (scripts/pydeps.sh installs it): {e}")
        pytest.skip(f"{name} is not installed (scripts/pydeps.sh installs it)")
