"""The recorded journals (tests/fixtures/journals), unpacked once per test session."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parents[1] / "fixtures" / "journals"
SESSIONS = ("simulated", "scripted")


@pytest.fixture(scope="session")
def journals(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("journals")
    out = {}
    for name in SESSIONS:
        path = folder / f"{name}.db"
        with gzip.open(FIXTURES / name / "journal.db.gz", "rb") as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        out[name] = path
    return out
