"""docs/rules.md stays complete and true: every rule number of the NSW rules and of the NZ page has
a row; every rule number, code reference and test reference on the page exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RULES = Path(__file__).resolve().parents[2] / "shared" / "rules"  # shared/ sits beside the repository
NSW_FILE = RULES / "nsw-caribbean-stud-rules.txt"
NZ_FILE = RULES / "nz-gazette-1994-caribbean-stud-13-14.txt"
DOC_FILE = REPO / "docs" / "rules.md"

RULE_TOKEN = re.compile(r"(NZ )?(\d+(?:\.\d+)+)(\([a-z]\))?")
TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
CODE_REF = re.compile(r"`((?:tabled|drivers)/[\w/]+\.py):(?!:)([\w.]+)`")
PATH_REF = re.compile(r"`((?:tabled|drivers|tests|docs|shared)/[\w/.-]*)`")


def read(path: Path, what: str) -> str:
    if not path.is_file():
        pytest.fail(f"{what} is missing: {path} (the rules live in shared/rules beside the repository)")
    return path.read_text(encoding="utf-8")


def nsw_numbers(text: str) -> list[str]:
    """Every rule number that starts a line: '1.1In these rules', '9.4.1.1pay', '16.2 Rule'.
    Section titles ('9.Final Settlement') have no digit after the dot and are not rules."""
    return re.findall(r"^(\d+(?:\.\d+)+)", text, re.MULTILINE)


def nz_numbers(text: str) -> list[str]:
    """Rule numbers on the NZ page, as 'NZ 14.9'. Headings ('14.0 Irregularities') are not rules.
    The page opens in the middle of a rule: a lettered clause before the first numbered rule
    belongs to the rule before it ('(d) ...' then '13.4' makes 'NZ 13.3(d)')."""
    found: list[str] = []
    continuation: str | None = None
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"(\d+)\.(\d+)\s", line)
        if m and m.group(2) != "0":
            if not found and continuation:
                major, minor = int(m.group(1)), int(m.group(2))
                found.append(f"NZ {major}.{minor - 1}({continuation})")
            found.append(f"NZ {m.group(1)}.{m.group(2)}")
            continue
        c = re.match(r"\(([a-z])\)\s", line)
        if c and not found and continuation is None:
            continuation = c.group(1)
    return found


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def map_rows(doc: str) -> list[list[str]]:
    """Rows of every table whose first column is headed 'rule'."""
    rows: list[list[str]] = []
    in_map = False
    for line in doc.splitlines():
        if not line.startswith("|"):
            in_map = False
            continue
        c = cells(line)
        if c[0] == "rule":
            in_map = True
        elif in_map and not set(c[0]) <= set("-: "):
            rows.append(c)
    return rows


def tokens(rule_cell: str) -> list[str]:
    return [f"{nz or ''}{number}{letter or ''}" for nz, number, letter in RULE_TOKEN.findall(rule_cell)]


@pytest.fixture(scope="module")
def doc() -> str:
    return read(DOC_FILE, "docs/rules.md")


@pytest.fixture(scope="module")
def nsw() -> list[str]:
    numbers = nsw_numbers(read(NSW_FILE, "the NSW rules"))
    assert "1.1" in numbers and "9.4.1.1" in numbers and "16.13" in numbers, "NSW rules text not as expected"
    return numbers


@pytest.fixture(scope="module")
def nz() -> list[str]:
    numbers = nz_numbers(read(NZ_FILE, "the NZ Gazette page"))
    assert numbers[:2] == ["NZ 13.3(d)", "NZ 13.4"] and "NZ 14.9" in numbers, f"NZ page not as expected: {numbers}"
    return numbers


def test_the_rule_texts_are_read_whole(nsw, nz):
    assert len(nsw) == len(set(nsw)) == 161
    assert nz == ["NZ 13.3(d)", "NZ 13.4", "NZ 13.5"] + [f"NZ 14.{i}" for i in range(1, 10)]


def test_every_rule_number_has_a_row(doc, nsw, nz):
    listed = {t for row in map_rows(doc) for t in tokens(row[0])}
    missing = [n for n in nsw + nz if n not in listed]
    assert not missing, f"rules with no row in docs/rules.md: {missing}"


def test_every_number_in_the_rule_column_is_a_real_rule(doc, nsw, nz):
    real = set(nsw) | set(nz)
    bogus = [(row[0], t) for row in map_rows(doc) for t in tokens(row[0]) if t not in real]
    assert not bogus, f"not a rule number: {bogus}"


def test_every_row_is_outside_software_or_names_code_and_tests(doc):
    rows = map_rows(doc)
    assert len(rows) > 50
    for row in rows:
        assert len(row) == 4, f"row {row[0]!r}: {len(row)} columns, not rule | software | code | tests"
        rule, software, code, tests = row
        assert software, f"row {rule!r} says nothing"
        if "outside software" in software.lower() and code == "—":
            continue
        assert CODE_REF.search(code), f"row {rule!r}: no code reference and not outside software"
        assert TEST_REF.search(tests) or tests.lower().startswith("untested"), \
            f"row {rule!r}: no test named and not marked untested"


def _defined(source: str, name: str) -> bool:
    return re.search(rf"^\s*(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b", source, re.MULTILINE) is not None


def test_every_test_reference_exists(doc):
    refs = set(TEST_REF.findall(doc))
    assert len(refs) > 50
    wrong = []
    for path, name in sorted(refs):
        file = REPO / path
        if not file.is_file() or not _defined(file.read_text(encoding="utf-8"), name):
            wrong.append(f"{path}::{name}")
    assert not wrong, f"docs/rules.md names tests that do not exist: {wrong}"


def test_every_code_reference_exists(doc):
    refs = set(CODE_REF.findall(doc))
    assert len(refs) > 50
    wrong = []
    for path, dotted in sorted(refs):
        file = REPO / path
        source = file.read_text(encoding="utf-8") if file.is_file() else ""
        owner, _, member = dotted.rpartition(".")
        if owner:  # Class.method: the method is defined after the class statement
            m = re.search(rf"^class\s+{re.escape(owner)}\b", source, re.MULTILINE)
            ok = m is not None and _defined(source[m.end():], member)
        else:
            ok = _defined(source, dotted)
        if not ok:
            wrong.append(f"{path}:{dotted}")
    assert not wrong, f"docs/rules.md names code that does not exist: {wrong}"


def test_every_path_named_exists(doc):
    missing = []
    for path in sorted(set(PATH_REF.findall(doc))):
        base = RULES.parents[1] if path.startswith("shared/") else REPO
        if not (base / path).exists():
            missing.append(path)
    assert not missing, f"docs/rules.md names paths that do not exist: {missing}"


def test_the_parsers_read_what_the_doc_means():
    assert nsw_numbers("9.Final Settlement 10.Settlement Odds\n9.4.1.1pay the ante\n13.1.10five odd\n16.2 Rule 16.1") \
        == ["9.4.1.1", "13.1.10", "16.2"]
    assert nz_numbers("(d) in the case\n13.4 If two\n14.0 Irregularities\n14.2 The casino\n(a) only English") \
        == ["NZ 13.3(d)", "NZ 13.4", "NZ 14.2"]
    assert tokens("9.2, 9.3.1, NZ 13.3(d), NZ 14.1") == ["9.2", "9.3.1", "NZ 13.3(d)", "NZ 14.1"]
    assert map_rows("| rule | a | b | c |\n| --- | --- | --- | --- |\n| 1.1 | x | y | z |\n\n| choice | a |\n| q | r |") \
        == [["1.1", "x", "y", "z"]]
