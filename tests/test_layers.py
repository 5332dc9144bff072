"""The layer rules of pyproject.toml's [tool.importlinter] hold: lint-imports keeps every contract."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_import_contract_is_kept():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    lint_imports = Path(sys.executable).with_name("lint-imports")
    assert lint_imports.exists(), "lint-imports is missing: install the test extra (pip install -e '.[test]')"
    done = subprocess.run([str(lint_imports), "--no-cache", "--config", str(ROOT / "pyproject.toml")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    report = done.stdout + done.stderr
    assert done.returncode == 0, f"an import contract is broken:\n{report}"
    # every contract of the file was checked, none skipped
    assert re.search(rf"Contracts: {len(contracts)} kept, 0 broken", report), report
