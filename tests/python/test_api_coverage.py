"""docs/api_coverage.md must match what actually resolves (regenerate with
`python tools/api_coverage.py` after adding or removing public names)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_api_coverage_document_is_current():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "api_coverage.py"), "--check"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
