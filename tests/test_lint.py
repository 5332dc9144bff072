"""The code base passes ruff with the rules chosen in pyproject.toml ([tool.ruff])."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    # ruff from the test extra, in the interpreter running the tests: no PATH lookup
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
