"""The configuration: every bad key refuses the start with a message naming it."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from tabled.daemon.config import ConfigError, load_config

from tests.daemon.configs import MINIMAL_TABLE

REPO = Path(__file__).resolve().parents[2]

BASE = MINIMAL_TABLE


def write(tmp_path, text: str) -> Path:
    path = tmp_path / "tabled.toml"
    path.write_text(textwrap.dedent(text))
    return path


def test_shipped_configs_load():
    sim = load_config(REPO / "config" / "sim.toml")
    assert sim.simulation.enabled and len(sim.simulation.players) == 7
    assert sim.table.profile.name == "nsw" and sim.table.progressive_wager_cents == 100  # 11.3 from profile
    assert sim.journal.path == REPO / "var" / "journal.db"  # relative to the config file's directory
    hw = load_config(REPO / "config" / "hardware.toml")
    assert not hw.simulation.enabled
    assert hw.devices.shuffler.port == "/dev/tabled-shuffler"
    assert hw.journal.path == Path("/var/lib/tabled/journal.db")
    assert hw.table.unit_cents == 500


def test_embedded_default_is_the_simulated_table():
    default, sim = load_config(None), load_config(REPO / "config" / "sim.toml")
    # the differences: no simulated inspector, so a test's fault stands until the test acts (14.13), and
    # no payment check, which the tests of the check turn on (9.3, 9.4)
    assert sim.simulation.inspector and not default.simulation.inspector
    assert default.source is None and default.simulation == dataclasses.replace(sim.simulation, inspector=False)
    assert sim.table.check_payments and not default.table.check_payments
    assert default.table == dataclasses.replace(sim.table, check_payments=False) and default.log == sim.log


def test_minimal_file_gets_documented_defaults(tmp_path):
    cfg = load_config(write(tmp_path, BASE))
    assert cfg.journal.path == tmp_path / "var" / "journal.db"
    assert cfg.journal.checkpoint_every_rounds == 100
    (pool,) = cfg.pools
    assert (pool.name, pool.backend, pool.primary) == ("main", "local", True)
    assert pool.path == tmp_path / "var" / "pool-main.db"
    assert pool.contribution_bp == cfg.table.profile.contribution_basis_points  # 11.6 from profile
    assert cfg.primary_pool is pool
    assert cfg.table.card_source == "shuffler" and not cfg.simulation.enabled
    assert (cfg.log.format, cfg.log.level) == ("auto", "info")


def test_linked_and_reserve_pools(tmp_path):
    cfg = load_config(write(tmp_path, BASE + """
        [[pools]]
        name = "main"
        backend = "postgresql"
        dsn = "postgresql://tabled@db/tabled?sslmode=verify-full"
        contribution_bp = 7000
        primary = true
        [[pools]]
        name = "reserve"
        path = "/srv/reserve.db"
        contribution_bp = 1000
    """))
    main, reserve = cfg.pools
    assert (main.backend, main.dsn, main.path, main.contribution_bp) \
        == ("postgresql", "postgresql://tabled@db/tabled?sslmode=verify-full", None, 7000)
    assert (reserve.backend, reserve.path, reserve.primary, reserve.reset_cents) \
        == ("local", Path("/srv/reserve.db"), False, 0)


def test_profile_by_path_is_relative_to_the_config(tmp_path):
    (tmp_path / "house.toml").write_text((REPO / "tabled" / "profiles" / "nsw.toml").read_text().replace(
        'name = "nsw"', 'name = "house"'))
    cfg = load_config(write(tmp_path, BASE.replace('profile = "nsw"', 'profile = "house.toml"')))
    assert cfg.table.profile.name == "house" and cfg.table.profile_name == "house.toml"


def replace(old: str, new: str) -> str:
    assert old in BASE
    return BASE.replace(old, new)


BAD = [
    (replace("spots = 7", "spots = 9"), "table.spots: must be an integer from 1 to 7, got 9"),
    (replace("spots = 7", 'spots = "7"'), "table.spots: must be an integer from 1 to 7, got '7'"),
    (replace('id = "T01"', 'id = "T 01"'), "table.id: must be 1-32 letters"),
    (replace('profile = "nsw"', 'profile = "texas"'), "table.profile: no profile 'texas'"),
    (replace("minimum_cents = 500", "minimum_cents = 5.0"), "table.minimum_cents: must be whole cents"),
    (replace("minimum_cents = 500", "minimum_cents = 550"),
     "table.minimum_cents: must be a multiple of unit_cents (100) (6.1)"),
    (replace("maximum_cents = 50_000", "maximum_cents = 400"),
     "table.maximum_cents: must be at least minimum_cents (500)"),
    (replace("unit_cents = 100", "unit_cents = 0"), "table.unit_cents: must be at least 1 cent"),
    (replace("spots = 7", "spots = 7\ncard_source = \"hand\""),
     "table.card_source: must be one of 'shuffler', 'shoe', got 'hand'"),
    (replace("spots = 7", "spots = 7\nprogresive_wager_cents = 100"), "table.progresive_wager_cents: unknown key"),
    (replace("[table]", "[table]\n").replace("minimum_cents = 500\n", ""), "table.minimum_cents: is missing"),
    (BASE + "[journal]\ncheckpoint_every_rounds = 0\n",
     "journal.checkpoint_every_rounds: must be an integer from 1 to 1000000, got 0"),
    (BASE + "[journal]\npath = 7\n", "journal.path: must be non-empty text, got 7"),
    (BASE + "[journal]\nship_may_wait = true\n", "journal.ship_may_wait: goes with ship_to"),
    (BASE + "[[pools]]\nname = \"main\"\nbackend = \"redis\"\n",
     "pools[0].backend: must be one of 'local', 'postgresql', got 'redis'"),
    (BASE + "[[pools]]\nname = \"main\"\nbackend = \"postgresql\"\n", "pools[0].dsn: is missing"),
    (BASE + "[[pools]]\nname = \"main\"\ndsn = \"postgresql://x\"\n",
     "pools[0].dsn: is for backend = 'postgresql' only"),
    (BASE + "[[pools]]\nname = \"main\"\ncontribution_bp = 10001\n",
     "pools[0].contribution_bp: must be an integer from 0 to 10000, got 10001"),
    (BASE + "[[pools]]\nname = \"a\"\nprimary = true\n[[pools]]\nname = \"a\"\ncontribution_bp = 1\n",
     "pools[1].name: 'a' is used by another pool"),
    (BASE + "[[pools]]\nname = \"a\"\ncontribution_bp = 1\n[[pools]]\nname = \"b\"\ncontribution_bp = 1\n",
     "pools: exactly one pool must have primary = true"),
    (BASE + "[[pools]]\nname = \"a\"\nprimary = true\ncontribution_bp = 9000\n"
            "[[pools]]\nname = \"b\"\ncontribution_bp = 2000\n",
     "pools: contribution_bp adds up to 11000"),
    (BASE + "[[pools]]\nname = \"a\"\nprimary = true\n[[pools]]\nname = \"b\"\n",
     "pools[1].contribution_bp: is missing"),
    (BASE + "[devices.shuffler]\nbaudrate = 12\n",
     "devices.shuffler.baudrate: must be an integer from 1200 to 4000000, got 12"),
    (BASE + "[devices.shoe]\nvendor_id = 70000\n",
     "devices.shoe.vendor_id: must be an integer from 0 to 65535, got 70000"),
    (BASE + "[devices.shoe]\nserial = 5\n", "devices.shoe.serial: must be the device's serial number as text"),
    (BASE + "[devices.printer]\nport = \"/dev/x\"\n", "devices.printer: unknown key"),
    (BASE + "[simulation]\nplayers = [{spot = 8, ante_cents = 500}]\n",
     "simulation.players[0].spot: must be an integer from 1 to 7, got 8"),
    (BASE + "[simulation]\nplayers = [{spot = 1, ante_cents = 550}]\n",
     "simulation.players[0].ante_cents: must be from 500 to 50000 in units of 100 (6.1), got 550"),
    (BASE + "[simulation]\nplayers = [{spot = 1, ante_cents = 500}, {spot = 1, ante_cents = 500}]\n",
     "simulation.players[1].spot: spot 1 has another player already (5.8"),
    (BASE + "[simulation]\nplayers = [{spot = 1, ante_cents = 500, bluff = true}]\n",
     "simulation.players[0].bluff: unknown key"),
    (BASE + "[simulation]\nenabled = \"yes\"\n", "simulation.enabled: must be true or false, got 'yes'"),
    (BASE + "[simulation]\ndealer = \"robot\"\n", "simulation.dealer: must be one of 'auto', 'manual'"),
    (BASE + "[log]\nlevel = \"loud\"\n",
     "log.level: must be one of 'debug', 'info', 'warning', 'error', 'critical', got 'loud'"),
    (BASE + "[log]\nformat = \"xml\"\n", "log.format: must be one of 'auto', 'json', 'console', got 'xml'"),
    (BASE + "[extras]\nx = 1\n", "extras: unknown key (a typo?)"),
    ("[journal]\npath = \"j.db\"\n", "table: is missing"),
    (BASE + "[log\n", "is not valid TOML"),
]


@pytest.mark.parametrize("text, message", BAD, ids=[m.split(":")[0] for _, m in BAD])
def test_each_bad_key_is_named(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: ")
    assert message in str(info.value)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "nope.toml")


def test_the_tables_name_the_property_and_the_time_zone_head_its_slips(tmp_path):
    cfg = load_config(write(tmp_path, BASE + 'name = "Table 7"\nproperty = "Harbour Casino"\n'
                                              '[reports]\ntime_zone = "Australia/Sydney"\n'))
    assert (cfg.table.name, cfg.table.property_name) == ("Table 7", "Harbour Casino")
    assert (cfg.screen.table_name, cfg.screen.property_name, cfg.screen.time_zone) == (
        "Table 7", "Harbour Casino", "Australia/Sydney")
    assert load_config(write(tmp_path, BASE)).screen.property_name == ""
    with pytest.raises(ConfigError, match="table.property: must be printable text of at most 80 characters"):
        load_config(write(tmp_path, BASE + 'property = "' + "x" * 81 + '"\n'))
