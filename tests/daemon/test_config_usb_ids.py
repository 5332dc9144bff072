"""The USB ids agree everywhere: driver constants, simulators, config defaults, the shipped
hardware config and the udev rules."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from tabled_drivers import panel, shoe
from tabled_drivers.sim import panel as sim_panel, shoe as sim_shoe
from tabled.daemon.config import load_config

from tests.daemon.configs import MINIMAL_TABLE

REPO = Path(__file__).resolve().parents[2]
DRIVER_IDS = {"shoe": (shoe.VENDOR_ID, shoe.PRODUCT_ID), "panel": (panel.VENDOR_ID, panel.PRODUCT_ID)}
MINIMAL = MINIMAL_TABLE


def _ids(cfg, name: str) -> tuple[int, int]:
    dev = getattr(cfg.devices, name)
    return dev.vendor_id, dev.product_id


def test_the_two_usb_devices_have_distinct_ids():
    assert DRIVER_IDS["shoe"] != DRIVER_IDS["panel"]


@pytest.mark.parametrize("name,sim", [("shoe", sim_shoe), ("panel", sim_panel)])
def test_simulator_enumerates_with_the_drivers_ids(name, sim):
    spec = sim.usb_spec()
    assert (spec.vendor_id, spec.product_id) == DRIVER_IDS[name]


@pytest.mark.parametrize("name", ["shoe", "panel"])
def test_config_defaults_are_the_drivers_ids(tmp_path, name):
    path = tmp_path / "tabled.toml"
    path.write_text(textwrap.dedent(MINIMAL))
    assert _ids(load_config(path), name) == DRIVER_IDS[name]
    assert _ids(load_config(None), name) == DRIVER_IDS[name]


@pytest.mark.parametrize("name", ["shoe", "panel"])
def test_shipped_hardware_config_names_the_drivers_ids(name):
    assert _ids(load_config(REPO / "config" / "hardware.toml"), name) == DRIVER_IDS[name]


@pytest.mark.parametrize("name", ["shoe", "panel"])
def test_udev_rule_matches_the_drivers_ids(name):
    rules = (REPO / "systemd" / "99-tabled.rules").read_text()
    lines = [ln for ln in rules.splitlines() if f'SYMLINK+="tabled-{name}"' in ln]
    assert len(lines) == 1, f"one udev rule names /dev/tabled-{name}"
    vid = re.search(r'ATTR\{idVendor\}=="([0-9a-f]{4})"', lines[0])
    pid = re.search(r'ATTR\{idProduct\}=="([0-9a-f]{4})"', lines[0])
    assert vid and pid, "udev matches sysfs ids as four lower-case hex digits"
    assert (int(vid.group(1), 16), int(pid.group(1), 16)) == DRIVER_IDS[name]
