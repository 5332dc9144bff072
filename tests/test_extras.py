"""The optional parts (pyproject.toml's extras): a table with a local pool needs none of them, and a
command that needs a missing one says in one line which extra to install.

Each command runs in its own interpreter in which the extras' modules cannot be imported, as on a
table PC where they were never installed."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tabled.journal.store import Journal

ROOT = Path(__file__).resolve().parents[1]
EXTRA_MODULES = ("numpy", "tqdm", "psycopg", "psycopg_binary", "matplotlib")
WITHOUT = """
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None  # "import name" fails as when the module is not installed
from tabled.cli import main
sys.exit(main(sys.argv[2:]))
"""


def tabled_without(modules: tuple[str, ...], *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT, ",".join(modules), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_the_extras_are_declared_and_the_base_needs_none_of_their_libraries():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert {"linked", "math", "sim", "plot"} <= set(extras)
    base = " ".join(project["dependencies"])
    assert not any(lib in base for lib in ("psycopg", "numpy", "tqdm", "matplotlib"))
    assert any(d.startswith("psycopg") for d in extras["linked"])
    assert any(d.startswith("numpy") for d in extras["math"]) and any(d.startswith("numpy") for d in extras["sim"])
    assert any(d.startswith("matplotlib") for d in extras["plot"])


def test_a_table_with_a_local_pool_runs_its_commands_without_any_extra(tmp_path):
    journal = tmp_path / "journal.db"
    with Journal.open(journal) as j:
        j.append("panel", {"action": "open_table", "key": "supervisor"})
    for args in (("--help",), ("rank", "As", "Ks", "Qs", "Js", "Ts"),
                 ("settle", str(ROOT / "tabled" / "examples" / "round.json")),
                 ("audit", "verify", "--journal", str(journal)),
                 ("recall", "--journal", str(journal)),
                 ("pool", "status", "--path", str(tmp_path / "none.db"))):
        done = tabled_without(EXTRA_MODULES, *args)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert "not installed" not in done.stderr, (args, done.stderr)
        if args[0] != "pool":  # no pool at that path: a one-line error of its own
            assert done.returncode == 0, (args, done.stderr)


@pytest.mark.parametrize("args, extra", [
    (("analyze", "--profile", "nsw"), "math"),
    (("simulate", "--profile", "nsw", "--rounds", "10"), "math"),
    (("simulate", "-h"), "math"),
    (("pool", "status", "--dsn", "postgresql://tabled@127.0.0.1:1/tabled"), "linked"),
], ids=["analyze", "simulate", "simulate-help", "linked-pool"])
def test_a_command_whose_extra_is_missing_names_it_in_one_line(args, extra):
    done = tabled_without(EXTRA_MODULES, *args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"pip install 'tabled[{extra}]'" in lines[0], done.stderr
    assert lines[0].startswith(f"tabled {args[0]}: error: ")


@pytest.mark.slow
def test_the_simulated_table_without_its_extra_stops_before_any_round(tmp_path):
    config = tmp_path / "sim.toml"
    config.write_text((ROOT / "config" / "sim.toml").read_text().replace('"../var/', f'"{tmp_path}/')
                      .replace('"sim-staff.toml"', f'"{ROOT}/config/sim-staff.toml"')
                      .replace('listen = "127.0.0.1:8750"', 'listen = "127.0.0.1:0"'))
    done = tabled_without(("numpy",), "run", "--config", str(config), "--rounds", "1")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'tabled[sim]'" in lines[0], done.stderr
    with Journal.open(tmp_path / "journal.db", readonly=True) as j:
        assert not [r for r in j.records_after(0) if r.kind.startswith("round.")]


def test_simulate_plot_without_matplotlib_names_the_plot_extra(tmp_path):
    done = tabled_without(("matplotlib",), "simulate", "--profile", "nsw", "--rounds", "10",
                          "--plot", str(tmp_path / "p.png"))
    assert done.returncode == 2 and "pip install 'tabled[plot]'" in done.stderr, done.stderr
