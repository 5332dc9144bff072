"""The payment check's settings: ``[table] check_payments`` (off by default, on for the simulated
table) and the simulated dealer's ``[simulation.mistakes]``, each bad value refused in one line
naming its key."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tabled.daemon.config import ConfigError, Mistakes, load_config
from tests.daemon.configs import MINIMAL_TABLE

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tabled.toml"
    path.write_text(textwrap.dedent(text))
    return path


def test_off_by_default_on_for_the_simulated_table_whose_dealer_makes_no_mistake():
    assert not load_config(REPO / "config" / "hardware.toml").table.check_payments
    sim = load_config(REPO / "config" / "sim.toml")
    assert sim.table.check_payments and sim.simulation.mistakes == Mistakes() and not sim.simulation.mistakes


def test_the_mistakes_are_read_in_rounds_per_1000(tmp_path):
    checked = MINIMAL_TABLE.replace("unit_cents = 100", "unit_cents = 100\ncheck_payments = true")
    cfg = load_config(write(tmp_path, checked + "[simulation]\nenabled = true\n"
                                                "[simulation.mistakes]\noverpay = 20\nwrong_spot = 5\n"))
    assert cfg.simulation.mistakes == Mistakes(overpay=20, wrong_spot=5)


@pytest.mark.parametrize("extra, message", [
    ("[simulation.mistakes]\noverpay = 1001\n", "simulation.mistakes.overpay"),
    ("[simulation.mistakes]\nunderpay = -1\n", "simulation.mistakes.underpay"),
    ("[simulation.mistakes]\nmisdeal = 3\n", "misdeal"),
    ("[simulation.mistakes]\noverpay = 10\n", "needs [table] check_payments = true"),
])
def test_a_bad_mistake_setting_is_named(tmp_path, extra, message):
    path = write(tmp_path, MINIMAL_TABLE + "[simulation]\nenabled = true\n" + extra)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_check_payments_must_be_true_or_false(tmp_path):
    path = write(tmp_path, MINIMAL_TABLE.replace("unit_cents = 100", 'unit_cents = 100\ncheck_payments = "yes"'))
    with pytest.raises(ConfigError, match="table.check_payments"):
        load_config(path)
