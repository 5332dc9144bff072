"""Tests use the code through its public names: no test reaches into another module's private
attribute or imports a private name, so the code can change inside without breaking its tests."""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
OURS = ("tabled", "tabled_drivers")
#: public API of the standard library that happens to start with an underscore (namedtuple)
PUBLIC_UNDERSCORE = frozenset({"_replace", "_asdict", "_fields", "_make"})


def private_uses(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in OURS:
            found += [f"line {node.lineno}: from {node.module} import {a.name}"
                      for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue  # a test's own helper class
            if node.attr in PUBLIC_UNDERSCORE:
                continue
            found.append(f"line {node.lineno}: .{node.attr}")
    return found


def test_no_test_uses_a_private_name_of_another_module():
    offences = {str(p.relative_to(TESTS)): uses for p in sorted(TESTS.rglob("*.py"))
                if (uses := private_uses(p.read_text()))}
    assert not offences, "\n".join(f"{path}: {', '.join(uses)}" for path, uses in offences.items())


def test_the_check_sees_a_private_attribute_and_a_private_import():
    source = ("devices._translate(1)\n"
              "from tabled.x import _y\n"
              "from tests.helpers import _w\n"  # a test's own helper
              "self._z\n"                        # a test's own class
              "t._replace()\n"                   # namedtuple's public API
              "t.__dict__\n")
    assert sorted(private_uses(source)) == ["line 1: ._translate", "line 2: from tabled.x import _y"]
