"""The real Paddle fixture models for the tests that run them: tools/oracle/fixture_cases.py (their
single source, shared with the oracle scripts; loaded by path, tools/ is not a package) as `fc`,
and the skip mark for a checkout without ../shared/fixtures."""
import importlib.util
import os

import pytest

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("fixture_cases", os.path.join(_REPO, "tools", "oracle", "fixture_cases.py"))
fc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fc)
needs_fixtures = pytest.mark.skipif(not os.path.isdir(fc.FIXTURES), reason="../shared/fixtures/paddle_models not present")
