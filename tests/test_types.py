"""The code base passes mypy with the settings of pyproject.toml ([tool.mypy]): strictly on the game
core and the table's fold, with the default checks (and the bodies of unannotated functions)
everywhere else.

``drivers/`` is installed as the package ``tabled_drivers`` (setup.py's package_dir), which mypy
cannot find in an editable install. The test gives it that name with a link in a temporary folder
on MYPYPATH. By hand, from the checkout::

    mkdir -p /tmp/types && ln -sfn "$PWD/drivers" /tmp/types/tabled_drivers
    MYPYPATH=/tmp/types .venv/bin/mypy -p tabled -p tabled_drivers
"""

import pytest
import os
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def mypy(*args: str, link_dir: Path) -> subprocess.CompletedProcess[str]:
    """mypy from the test extra, in the interpreter running the tests, with drivers/ as tabled_drivers."""
    (link_dir / "tabled_drivers").symlink_to(ROOT / "drivers", target_is_directory=True)
    env = {**os.environ, "MYPYPATH": str(link_dir)}
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull, *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    # a driver's errors name it by its place in the checkout, not by the link
    done.stdout = done.stdout.replace(f"{link_dir}/tabled_drivers/", "drivers/")
    return done


@pytest.mark.slow
def test_mypy_finds_nothing(tmp_path):
    done = mypy("-p", "tabled", "-p", "tabled_drivers", link_dir=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    # every package was checked: the game core, the shell and the drivers
    checked = int(done.stdout.rsplit("in ", 1)[1].split()[0])
    assert checked > 80, done.stdout


def test_the_game_core_and_the_fold_pass_mypy_strict(tmp_path):
    done = mypy("--strict", "-p", "tabled.game", "-p", "tabled.table", "-p", "tabled.views", link_dir=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_pure_layers_are_configured_strict():
    """[tool.mypy]'s override for the game core and the fold turns on every flag of ``mypy --strict``
    (``strict`` itself is a global setting), so a plain run holds them to it."""
    overrides = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]["overrides"]
    pure = next(o for o in overrides if "tabled.game.*" in o["module"])
    assert "tabled.table.*" in pure["module"]
    strict_flags = {"disallow_any_generics", "disallow_subclassing_any", "disallow_untyped_calls",
                    "disallow_untyped_defs", "disallow_incomplete_defs", "disallow_untyped_decorators",
                    "warn_return_any", "no_implicit_reexport", "strict_equality", "extra_checks"}
    assert {flag for flag in strict_flags if pure.get(flag) is True} == strict_flags


def test_the_mypy_running_is_the_one_pinned_in_the_test_extra_and_the_requirements():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    pin = next(d for d in extra if d.startswith("mypy"))
    pinned = [line.split()[0] for line in (ROOT / "requirements" / "types.txt").read_text().splitlines()
              if line and not line.startswith((" ", "#"))]
    assert pin in pinned, (pin, pinned)
    assert pin == f"mypy=={version('mypy')}", "reinstall the test extra: pip install -e '.[test]'"
