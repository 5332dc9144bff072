"""docs/rules.md stays complete and true: every rule number of the NSW rules and of the NZ page has
a row; every rule number, code reference and test reference on the page exists. The rule numbers
and section headings of both rulebooks are data in the repository (docs/rule-numbers.toml), and
nothing in the repository points outside it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
INDEX_FILE = REPO / "docs" / "rule-numbers.toml"
DOC_FILE = REPO / "docs" / "rules.md"

RULE_TOKEN = re.compile(r"(NZ )?(\d+(?:\.\d+)+)(\([a-z]\))?")
TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
CODE_REF = re.compile(r"`((?:tabled|drivers)/[\w/]+\.py):(?!:)([\w.]+)`")
PATH_REF = re.compile(r"`((?:tabled|drivers|tests|docs|config|systemd)/[\w/.-]*)`")
#: what would send a reader, or a test, outside the repository
OUTSIDE = re.compile(r"\.\./shared|\bshared/(?:rules|testdata|MONEY|DESIGN)|MONEY\.md")


def read(path: Path, what: str) -> str:
    if not path.is_file():
        pytest.fail(f"{what} is missing: {path}")
    return path.read_text(encoding="utf-8")


def number_key(number: str) -> tuple[int, ...]:
    return tuple(int(p) for p in number.split("."))


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
def index() -> dict:
    return tomllib.loads(read(INDEX_FILE, "docs/rule-numbers.toml"))


@pytest.fixture(scope="module")
def nsw(index) -> list[str]:
    return [n for section in index["nsw"]["sections"] for n in section["rules"]]


@pytest.fixture(scope="module")
def nz(index) -> list[str]:
    return list(index["nz"]["rules"])


def test_the_rule_index_is_whole_and_in_rulebook_order(index, nsw, nz):
    sections = index["nsw"]["sections"]
    assert [s["number"] for s in sections] == list(range(1, 17))
    assert sections[8]["heading"] == "Final Settlement" and sections[13]["heading"] == "Irregularities"
    assert len(nsw) == len(set(nsw)) == 161
    for section in sections:
        assert section["heading"] and section["rules"], section
        assert all(re.fullmatch(r"\d+(\.\d+)+", n) for n in section["rules"]), section
        assert {number_key(n)[0] for n in section["rules"]} == {section["number"]}, section
    assert [number_key(n) for n in nsw] == sorted(number_key(n) for n in nsw)
    assert {"1.1", "9.4.1.1", "14.13", "16.13"} <= set(nsw)
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
    missing = [path for path in sorted(set(PATH_REF.findall(doc))) if not (REPO / path).exists()]
    assert not missing, f"docs/rules.md names paths that do not exist: {missing}"


TEXT_FILES = {".md", ".toml", ".json", ".py", ".sh", ".txt", ".conf", ".rules", ".service", ".cfg", ".ini"}
#: where a pointer outside the repository could hide (the code's comments included)
CHECKED = ("README.md", "Makefile", "pyproject.toml", "setup.py", ".ci", "docs", "config", "systemd", "packaging",
           "requirements", "tabled", "drivers", "tests", "benchmarks")


def test_nothing_points_outside_the_repository():
    """Documents, configs, profiles, examples, code and tests stand alone: no path beside the
    clone, no document kept elsewhere. Rules are cited by number."""
    files = []
    for name in CHECKED:
        path = REPO / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += [p for p in sorted(path.rglob("*")) if p.is_file() and (p.suffix in TEXT_FILES or p.name == "run")]
    files = [p for p in files if p != Path(__file__).resolve()]  # this file names what it looks for
    assert len(files) > 100
    found = [f"{p.relative_to(REPO)}:{n}: {line.strip()}" for p in files
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if OUTSIDE.search(line)]
    assert not found, "\n".join(found)


def test_the_parsers_read_what_the_doc_means():
    assert tokens("9.2, 9.3.1, NZ 13.3(d), NZ 14.1") == ["9.2", "9.3.1", "NZ 13.3(d)", "NZ 14.1"]
    assert map_rows("| rule | a | b | c |\n| --- | --- | --- | --- |\n| 1.1 | x | y | z |\n"
                    "\n| choice | a |\n| q | r |") \
        == [["1.1", "x", "y", "z"]]
    assert OUTSIDE.search("see ../shared/rules/x.txt") and OUTSIDE.search("MONEY.md step 1")
    assert OUTSIDE.search("shared/rules/nsw-caribbean-stud-rules.txt")
    assert not OUTSIDE.search("one jackpot shared by many tables")
