"""The fold stays in modules a reader can hold: none of tabled/table above 500 lines."""

from __future__ import annotations

from pathlib import Path

import tabled.table

LIMIT = 500
FOLD = Path(tabled.table.__file__).parent


def test_no_module_of_the_fold_is_longer_than_500_lines():
    modules = sorted(FOLD.glob("*.py"))
    assert len(modules) > 20  # the folder itself, not an empty match
    long = {p.name: n for p in modules if (n := len(p.read_text().splitlines())) > LIMIT}
    assert long == {}, f"split these by job (each part its own module): {long}"
