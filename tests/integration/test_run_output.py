"""What ``tabled run`` shows: in a terminal a banner, the rounds, what the meter itself shows and a
summary on exit; off a terminal the log in the configured format, one record per round with
``--quiet``; and the simulated people's pace from ``[simulation] pace_ms``."""

from __future__ import annotations

import pytest

import json
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

from tabled_drivers.meter import Display, MeterMessage
from tabled.commands import run as run_command
from tabled.daemon.assemble import make_core
from tabled.daemon.report import MeterWatch, RoundPrinter, Session, open_faults
from tabled.daemon.config import load_config
from tabled.table.effects import MeterShow, Note
from tabled.journal.store import Journal
from tabled.daemon.controller import Table
from tests.integration.test_restart_sim import ROOT, child_env, run_in_terminal, sim_config, tabled_argv


# -- in a terminal ----------------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_terminal_gets_a_banner_the_meter_as_it_reads_and_a_summary(tmp_path):
    config = sim_config(tmp_path)
    lines = run_in_terminal(config, 2)
    text = "\n".join(lines)
    assert lines[0] == "tabled: table SIM01, profile nsw, 7 spots, card source shuffler"
    assert lines[1].split() == "limits $5.00 to $500.00 in units of $1.00 (6.1); progressive wager $1.00 (11.3)".split()
    assert lines[2].split() == ["config", str(config)]
    assert lines[3].split() == ["journal", str(tmp_path / "journal.db")]
    assert lines[4].split() == ["pool", "main", "(local", f"{tmp_path / 'pool-main.db'}):", "$10,000.00"]
    # the meter line is what the meter reads back (2.4.3); the first reading is the pool at start
    meter = [ln.strip() for ln in lines if ln.strip().startswith("meter")]
    assert meter and meter[0] == "meter shows $10,000.00" and all(re.fullmatch(r"meter shows \$[\d,]+\.\d\d", m)
                                                                  for m in meter), meter
    with Journal.open(tmp_path / "journal.db", readonly=True) as j:
        settled = [r.payload for r in j.records_after(0) if r.kind == "round.settled"]
    house = sum(s["house_collects_cents"] - s["house_pays_cents"] for s in settled)
    pool = settled[-1]["progressive"]["pool_after_cents"]
    from tabled.game.settlement import money
    summary = [ln for ln in lines if ln.startswith("stopped:")]
    assert len(summary) == 1 and summary[0].startswith(
        f"stopped: 2 rounds this run, house net win {money(house)}, pool {money(pool)}"), text


@pytest.mark.slow
def test_quiet_in_a_terminal_names_the_house_net_win_each_round_as_at_exit(tmp_path):
    from tabled.game.settlement import money

    lines = run_in_terminal(sim_config(tmp_path), 3, "--quiet")
    with Journal.open(tmp_path / "journal.db", readonly=True) as j:
        settled = {r.round_id: r.payload for r in j.records_after(0) if r.kind == "round.settled"}
    wins = {rid: s["house_collects_cents"] - s["house_pays_cents"] for rid, s in settled.items()}
    rounds = [ln for ln in lines if ln.startswith("SIM01-")]
    assert len(rounds) == 3 == len(wins)
    for line in rounds:
        rid = line.split(":")[0]
        assert f"  house net win {money(wins[rid])}" in line, line
        assert " net $" not in line.replace("house net win", "")
    (summary,) = [ln for ln in lines if ln.startswith("stopped:")]
    assert summary.startswith(f"stopped: 3 rounds this run, house net win {money(sum(wins.values()))},"), summary


def test_open_faults_are_shown_again_after_a_restart_14_13(tmp_path):
    cfg = load_config(sim_config(tmp_path))
    with Journal.open(tmp_path / "journal.db") as j:
        j.append("equipment.fault", {"equipment": "meter", "reason": "progressive meter fault: power (14.13)"})
    with Journal.open(tmp_path / "journal.db", readonly=True) as j:
        core, _, _ = Table.replay(j, lambda snap: make_core(cfg, snap))
    assert open_faults(core) == ["open fault: meter: progressive meter fault: power (14.13) "
                                 "(notify an inspector: no new round without approval) [14.13]"]


class FakeMeter:
    def __init__(self, shown):
        self.shown = shown

    async def showing(self):
        if isinstance(self.shown, Exception):
            raise self.shown
        return self.shown


def watch(shown, up=("meter",), faults=None) -> MeterWatch:
    devices = SimpleNamespace(up=set(up), drivers={"meter": FakeMeter(shown)})
    return MeterWatch(devices, SimpleNamespace(equipment=SimpleNamespace(faults=faults or {})), out=None)


async def test_the_meter_line_is_what_the_meter_shows_or_that_it_is_down():
    assert await watch(Display(MeterMessage.AMOUNTS, (1_000_125,))).reading() == "meter shows $10,001.25"
    assert await watch(Display(MeterMessage.PROGRESSIVE_OFFLINE, ())).reading() == \
        "meter shows PROGRESSIVE OFFLINE (14.13)"
    assert await watch(Display(MeterMessage.BLANK, ())).reading() == "meter: blank"
    assert await watch(Display(MeterMessage.AMOUNTS, (5,)), up=()).reading() == "meter: down (no link)"
    assert await watch(ConnectionError("link lost")).reading() == "meter: down (link lost)"
    assert await watch(Display(MeterMessage.AMOUNTS, (5,)), faults={"meter": "power"}).reading() == \
        "meter: out of order (power) (14.13)"


def test_what_was_sent_to_the_meter_is_not_printed_as_what_it_shows():
    class Out(list):
        def write(self, text):
            self.append(text)

        def flush(self):
            pass
    out = Out()
    RoundPrinter(out)([MeterShow(1_000_125, False)])
    assert "".join(out) == ""


def test_the_session_tally_is_the_house_net_win_over_finished_rounds():
    s = Session()
    s([Note("round.settled", {"house_collects_cents": 7_500, "house_pays_cents": 2_000}, "R1"),
       Note("round.finished", {}, "R1"), Note("round.settled", {"house_collects_cents": 0,
                                                                 "house_pays_cents": 1_000_100}, "R2"),
       Note("round.finished", {}, "R2")])
    assert (s.rounds, s.house_net_cents) == (2, 7_500 - 2_000 - 1_000_100)


# -- off a terminal -----------------------------------------------------------------------------------------

def run_piped(config: Path, *args: str) -> list[str]:
    done = subprocess.run(tabled_argv("run", "--config", str(config), "--rounds", "2", "--pace-ms", "0", *args),
                          capture_output=True, text=True, cwd=ROOT, env=child_env(), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


@pytest.mark.slow
def test_quiet_off_a_terminal_keeps_one_record_per_round(tmp_path):
    records = [json.loads(ln) for ln in run_piped(sim_config(tmp_path), "--quiet")]
    events = [r["event"] for r in records if r["level"] == "info"]
    assert events == ["table.started", "round.settled", "round.settled", "table.stopped"], events
    assert records[-1]["rounds"] == 2


@pytest.mark.slow
def test_a_fault_left_by_an_earlier_run_is_cleared_by_the_simulated_inspector_14_13(tmp_path):
    """config/sim.toml has a simulated inspector: a fault the journal holds open (the meter, from
    an earlier run) does not stop the next start; the inspector approves play, the meter is
    working, its fault clears, and the journal keeps who approved it."""
    from tabled.journal.seals import find_signing_key

    config = sim_config(tmp_path)
    journal = tmp_path / "journal.db"
    key = run_command.own_signing_key(load_config(config), journal).journal.signing_key  # the run's own key
    with Journal.open(journal, exclusive=True, seal_with=find_signing_key(key)) as j:  # sealed, as a run writes
        j.append("equipment.fault", {"equipment": "meter", "reason": "progressive meter fault: power (14.13)"})
    run_piped(config)
    with Journal.open(tmp_path / "journal.db", readonly=True) as j:
        records = list(j.records_after(0))
    approved = [r.seq for r in records if r.kind == "panel.approved" and r.payload["action"] == "approve_play"
                and r.payload["key"] == "inspector"]
    cleared = [r.seq for r in records if r.kind == "fault.cleared" and r.payload["equipment"] == "meter"]
    started = [r.seq for r in records if r.kind == "round.started"]
    assert approved and cleared and approved[0] < cleared[0] < started[0]
    assert sum(r.kind == "round.finished" for r in records) == 2


@pytest.mark.slow
def test_log_format_console_is_honoured_off_a_terminal(tmp_path):
    config = sim_config(tmp_path)
    config.write_text(config.read_text().replace('format = "auto"', 'format = "console"'))
    lines = run_piped(config)
    assert lines and not any(ln.lstrip().startswith("{") for ln in lines)
    assert any("table.started" in ln and "table_id=SIM01" in ln for ln in lines)
    assert not any("\x1b[" in ln for ln in lines)  # no colours in a file or a pipe


def test_the_pace_comes_from_the_config_unless_the_command_line_says(tmp_path, monkeypatch):
    config = sim_config(tmp_path)
    assert load_config(ROOT / "config" / "sim.toml").simulation.pace_ms == 400  # make run: a pace to follow
    seen = []

    async def fake_run_table(cfg, rounds, **kw):
        seen.append(kw["pace_s"])
    monkeypatch.setattr(run_command, "run_table", fake_run_table)
    monkeypatch.setattr("tabled.host.output.install", lambda **kw: (SimpleNamespace(isatty=lambda: False), None))
    monkeypatch.setattr("tabled.host.log.configure_logging", lambda *a, **kw: "json")
    for pace_ms, expected in ((None, 0.4), (0, 0.0), (50, 0.05)):
        args = SimpleNamespace(config=str(config), rounds=1, quiet=False, pace_ms=pace_ms)
        assert run_command.run(args) == 0
        assert seen[-1] == expected
