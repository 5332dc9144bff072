"""The terminal's keys as the dealer button panel (drivers/sim/keys.py): every key of the map
presses its button, spots and numbers are typed first, the key switch turns, and the keys are
read from a real terminal (a pty) in cbreak mode only, which is put back afterwards."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import termios
from pathlib import Path

import pytest

from tabled_drivers.panel import (NUMBER_BUTTONS, SPOT_BUTTONS, SPOTS_BUTTONS, Button, ButtonPressed, KeyPosition,
                           KeyTurned, NumberEntered, PanelDriver, SignIn, SignOut, SpotAction)
from tabled_drivers.sim.keys import KEY_SWITCH, KEYMAP, PanelKeys, TerminalKeys, key_map_text
from tabled_drivers.sim.panel import PanelSimulator

from .support import FAST, plugged_in


class Panel:
    """Records what the keys did to the panel."""

    def __init__(self) -> None:
        self.done: list[tuple] = []

    def press(self, button, **selected) -> None:
        self.done.append(("press", button, selected))

    def turn_key(self, position) -> None:
        self.done.append(("key", position))


def test_the_map_has_one_key_per_button_and_three_for_the_key_switch():
    assert sorted(KEYMAP.values()) == sorted(Button)
    assert len(set(KEYMAP) | set(KEY_SWITCH)) == len(KEYMAP) + len(KEY_SWITCH)
    assert set(KEY_SWITCH.values()) == set(KeyPosition)
    text = key_map_text()
    assert all(f"{k} {b.name.lower().replace('_', ' ')}" in text for k, b in KEYMAP.items())


@pytest.mark.parametrize("key", sorted(KEYMAP))
def test_every_key_presses_its_button(key):
    button, panel = KEYMAP[key], Panel()
    keys = PanelKeys(panel)
    typed = "3" if button in SPOT_BUTTONS else "2500" if button in NUMBER_BUTTONS else \
        "25" if button in SPOTS_BUTTONS else ""
    lines = [keys.feed(k) for k in typed + key]
    selected = ({"spot": 3} if button in SPOT_BUTTONS else {"value": 2500} if button in NUMBER_BUTTONS
                else {"spots": [2, 5]} if button in SPOTS_BUTTONS else {})
    assert panel.done == [("press", button, selected)]
    assert lines[-1].startswith("pressed ") and keys.entry == ""


@pytest.mark.parametrize("typed, said", [
    ("c", "concede needs a spot: type 1-7 (0: the dealer's hand) first"),
    ("9c", "concede needs a spot: type 1-7 (0: the dealer's hand) first"),
    ("i", "announce minimum needs a number: type it first"),
    ("5n", "no more bets takes no number: Esc clears the entry 5"),
    ("8o", "void round: spots are 1-7, one digit each"),
    ("Q", "key 'Q' is not a panel button (? shows the keys)"),
])
def test_a_key_that_cannot_act_says_why_and_presses_nothing(typed, said):
    panel = Panel()
    keys = PanelKeys(panel)
    lines = [keys.feed(k) for k in typed]
    assert lines[-1] == said and panel.done == []


def test_entry_editing_and_the_key_switch():
    panel = Panel()
    keys = PanelKeys(panel)
    assert [keys.feed(k) for k in "12\x7f"] == ["entry 1", "entry 12", "entry 1"]
    assert keys.feed("\x1b") == "entry cleared" and keys.entry == ""
    assert keys.feed("S") == "key switch: supervisor"
    assert keys.feed("0") == "entry 0" and keys.feed("e") == "pressed exposed card on the dealer"
    assert keys.feed("D") == "key switch: dealer"
    assert panel.done == [("key", KeyPosition.SUPERVISOR), ("press", Button.EXPOSED_CARD, {"spot": 0}),
                          ("key", KeyPosition.DEALER)]
    assert keys.feed("?") == key_map_text() and keys.feed(" ") is None


async def test_keys_typed_on_a_terminal_reach_the_host_as_panel_frames():
    """A pty is the terminal: its slave is the daemon's stdin, the test types on the master."""
    master, slave = os.openpty()
    before = termios.tcgetattr(slave)
    out = io.StringIO()
    try:
        async with plugged_in(PanelSimulator(timing=FAST), PanelDriver) as (sim, driver, journal):
            reader = TerminalKeys(PanelKeys(sim), fd=slave, out=out)
            assert reader.start()
            mode = termios.tcgetattr(slave)
            assert not mode[3] & termios.ICANON and not mode[3] & termios.ECHO  # cbreak: each key at once
            assert mode[3] & termios.ISIG  # ^C is still the daemon's signal
            os.write(master, b"nS3pD2500i")
            await journal.until_count(ButtonPressed, 3)
            reader.stop()
            assert journal.device_events() == [
                ButtonPressed(device="panel", button=Button.NO_MORE_BETS, key=KeyPosition.DEALER),
                KeyTurned(device="panel", position=KeyPosition.SUPERVISOR),
                SpotAction(device="panel", button=Button.VOID_PLAYER, key=KeyPosition.SUPERVISOR, spot=3),
                KeyTurned(device="panel", position=KeyPosition.DEALER),
                NumberEntered(device="panel", button=Button.ANNOUNCE_MINIMUM, key=KeyPosition.DEALER, value=2500),
            ]
        assert termios.tcgetattr(slave) == before  # the terminal is given back as it was
        assert "[panel] pressed void player on spot 3" in out.getvalue()
        assert out.getvalue().startswith("[panel] panel keys: n no more bets")
    finally:
        os.close(master)
        os.close(slave)


async def test_keys_are_not_taken_when_the_input_is_not_a_terminal():
    read, write = os.pipe()
    try:
        reader = TerminalKeys(PanelKeys(Panel()), fd=read, out=io.StringIO())
        assert reader.start() is False
        reader.stop()
        assert not asyncio.get_running_loop().remove_reader(read)  # nothing was watching it
    finally:
        os.close(read)
        os.close(write)



async def test_a_person_deals_a_round_on_the_keys(tmp_path):
    """``[simulation] dealer = "manual"``: the simulated players bet, the person at the terminal
    (a pty) opens the table with the supervisor's key and presses every dealer button."""
    from tabled.sim.table import dealt_by_hand
    from tests.integration.harness import journal_records, play

    master, slave = os.openpty()
    out = io.StringIO()

    async def scenario(run):
        person = asyncio.create_task(dealt_by_hand(run.sims, run.floor, out, stdin_fd=slave))

        async def until(cond):
            await run.until(cond, act=False)

        try:
            await asyncio.sleep(0.2)
            assert not run.core.hours.is_open
            os.write(master, b"SaD")  # 16.8: the supervisor's key opens the table
            await until(lambda: run.core.round is not None and run.core.round.phase == "betting"
                        and all(s.ante for s in run.core.round.spots.values()))
            os.write(master, b"n")  # 7.2.1: no more bets
            await until(lambda: run.core.round.phase == "deciding"
                        and (run.core.round.round_id, "decide") in run.floor.done)
            await asyncio.sleep(0.3)  # the players put their bets down
            os.write(master, b"r")  # 8.6: reveal
            await until(lambda: run.core.round.phase in ("revealed", "settling"))
            for _ in range(3):  # settle done, and once more for each progressive payment (9.5)
                if run.core.rounds_finished:
                    break
                os.write(master, b"s")
                await asyncio.sleep(0.3)
            await until(lambda: run.core.rounds_finished == 1)
        finally:
            person.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await person

    try:
        await play(tmp_path, scenario)
    finally:
        os.close(master)
        os.close(slave)
    actions = [r.payload["action"] for r in journal_records(tmp_path, "panel.approved")]
    assert actions[0] == "open_table"
    assert len(journal_records(tmp_path, "round.settled")) == 1
    assert "[panel] pressed no more bets" in out.getvalue() and "[panel] key switch: supervisor" in out.getvalue()


@pytest.mark.parametrize("device", ["panel", "shoe"])
async def test_tabled_sim_shoe_and_panel_serve_a_pty_and_take_the_terminals_keys(tmp_path, device):
    """``tabled sim panel`` / ``tabled sim shoe`` with a terminal (a pty) as stdin: the port path on
    stdout, the keys typed become the device's events at a driver that opens that port."""
    import subprocess
    import sys

    from tabled_drivers.link.client import serial_opener
    from tabled_drivers.shoe import CardDrawn, ShoeDriver, ShoeRemoved

    master, slave = os.openpty()
    link = str(tmp_path / device)
    tabled = os.path.join(os.path.dirname(sys.executable), "tabled")
    proc = subprocess.Popen([tabled, "sim", device, "--link", link, "--seed", "3"], stdin=slave,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert (await asyncio.to_thread(proc.stdout.readline)).decode().strip() == link
        from .support import Journal
        journal = Journal()
        cls = PanelDriver if device == "panel" else ShoeDriver
        driver = cls(opener=serial_opener(link), consumer=journal, timing=FAST)
        await driver.start()
        try:
            await driver.wait_up(10)
            if device == "panel":
                os.write(master, b"I4cD")
                await journal.until(lambda j: j.of(SpotAction))
                assert journal.of(SpotAction) == [SpotAction(device="panel", button=Button.CONCEDE,
                                                             key=KeyPosition.INSPECTOR, spot=4)]
            else:
                os.write(master, b"  o")
                await journal.until(lambda j: j.of(ShoeRemoved))
                drawn = journal.of(CardDrawn)
                assert [c.reader_seq for c in drawn] == [1, 2] and drawn[0].card != drawn[1].card
        finally:
            await driver.stop()
    finally:
        proc.terminate()
        await asyncio.to_thread(proc.wait, 10)
        proc.stdout.close()
        said = proc.stderr.read().decode()
        proc.stderr.close()
        os.close(master)
        os.close(slave)
    assert f"[{device}] {device} keys:" in said or f"[{device}] panel keys:" in said


def test_a_shoe_or_panel_given_a_port_is_driven_over_it(tmp_path):
    from tabled.daemon.config import load_config
    from tabled.daemon.devices import build_drivers

    text = Path(__file__).resolve().parents[3].joinpath("config", "hardware.toml").read_text()
    text = text.replace("[devices.panel]", '[devices.panel]\nport = "/dev/tabled-panel-serial"')
    path = tmp_path / "tabled.toml"
    path.write_text(text)
    cfg = load_config(path)
    assert cfg.devices.panel.port == "/dev/tabled-panel-serial" and cfg.devices.shoe.port is None
    drivers = build_drivers(lambda name: None, spots=7, ports={"shuffler": "a", "betspots": "b", "meter": "c",
                                                                "panel": cfg.devices.panel.port})
    assert drivers["panel"].client.opener.port == "/dev/tabled-panel-serial"
    assert drivers["shoe"].client.opener.port.startswith("usb:")  # the shoe stays on USB


async def test_a_person_signs_in_and_out_on_the_keys_and_the_pin_is_never_shown():
    async with plugged_in(PanelSimulator(timing=FAST), PanelDriver) as (sim, driver, journal):
        keys = PanelKeys(sim)
        lines = [keys.feed(k) for k in "1001j"]
        assert lines[-1] == "badge 1001: type the PIN, then j"
        lines = [keys.feed(k) for k in "2468"]
        assert lines == ["PIN for badge 1001: *", "PIN for badge 1001: **", "PIN for badge 1001: ***",
                         "PIN for badge 1001: ****"]
        assert keys.feed("c").startswith("badge 1001 is signing in")  # a button does not take the PIN
        assert keys.feed("j") == "badge 1001: sign in sent"
        assert [keys.feed(k) for k in "1001J"][-1] == "badge 1001: sign out sent"
        assert keys.feed("j") == "type the badge number (1-999999) first"
        assert [keys.feed(k) for k in "7j12j"][-1] == "sign in: a PIN is 4 to 8 digits; type the badge again"
        await journal.until_count(SignOut, 1)
        assert [(e.badge, e.pin) for e in journal.of(SignIn)] == [(1001, "2468")]
