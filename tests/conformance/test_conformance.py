"""The differential harness against the committed answers of real PaddlePaddle 2.6.2
(tests/conformance/expected/, recorded by `harness.py record`): every case must agree, be both
an error, or be a documented difference (known.py, with its reason); docs/compatibility.md must
be current."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402


@pytest.fixture(scope="module")
def evaluated():
    return harness.evaluate()


@pytest.mark.parametrize("family", sorted(harness.FAMILIES))
def test_family_agrees_or_is_documented(evaluated, family):
    differ = [(c["id"], why) for c, verdict, why in evaluated[family] if verdict == "differ"]
    assert not differ, f"{len(differ)} undocumented differences, e.g. {differ[:10]}"
    agree = sum(1 for _, verdict, _ in evaluated[family] if verdict == "agree")
    assert agree >= len(evaluated[family]) // 4  # the harness compares something


def test_compatibility_page_is_current(evaluated):
    with open(os.path.join(harness.ROOT, "docs", "compatibility.md")) as f:
        assert f.read() == harness.report_markdown(evaluated), \
            "docs/compatibility.md is stale: run tests/conformance/harness.py report"
