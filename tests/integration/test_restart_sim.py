"""``tabled run`` on the simulated table, killed with SIGKILL (a real crash) at each point of a round
and started again: the cards and chips are still on the felt (the simulated floor puts
them back as the journal left them), so the interrupted round is settled once, exactly as it would
have been without the crash, the run finishes its rounds, and the journal's chain and the pool's
ledger check out. And in a terminal each thing is shown once.

Each daemon is a subprocess; the crash point is found from its JSON log lines on stdout.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tabled.daemon.config import load_config
from tabled.game.cards import parse_card
from tabled.profiles import load_profile
from tabled.game.round_facts import RoundFacts, RoundVoid, SpotFacts, SpotStatus, Wager
from tabled.game.settlement import settle, settlement_as_dict
from tabled.journal.store import Journal
from tabled.math.strategy import decide

ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT = 60.0  # seconds: a run of a few rounds takes about one
PACE_MS = 150       # the killed run's people take this long after each action: the kill lands there
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def tabled_argv(*args: str) -> list[str]:
    script = Path(sys.executable).with_name("tabled")
    head = [str(script)] if script.exists() else [sys.executable, "-m", "tabled.cli"]
    return [*head, *args]


def child_env(tmp: Path | None = None) -> dict[str, str]:
    """The daemon's environment; with ``tmp``, its temporary folders (the simulated devices' state,
    left behind by a kill -9) go under ``tmp``, which the test owns, rather than the system's."""
    env = {k: v for k, v in os.environ.items() if k not in ("INVOCATION_ID", "JOURNAL_STREAM", "NOTIFY_SOCKET",
                                                             "WATCHDOG_USEC", "TABLED_CONFIG")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if tmp is not None:
        (tmp / "tmp").mkdir(exist_ok=True)
        env["TMPDIR"] = str(tmp / "tmp")
    return env


def sim_config(tmp: Path, *, drop_spots: tuple[int, ...] = ()) -> Path:
    """config/sim.toml with the journal and the pool under ``tmp`` (and some players left out)."""
    tmp.mkdir(parents=True, exist_ok=True)
    lines = (ROOT / "config" / "sim.toml").read_text().replace('"../var/', f'"{tmp}/') \
        .replace('"sim-staff.toml"', f'"{ROOT}/config/sim-staff.toml"') \
        .replace('listen = "127.0.0.1:8750"', 'listen = "127.0.0.1:0"').splitlines()
    lines = [ln for ln in lines if not any(ln.strip().startswith(f"{{ spot = {n},") for n in drop_spots)]
    path = tmp / "sim.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


class Daemon:
    """One ``tabled run`` with stdout a pipe (so: JSON lines), optionally SIGKILLed at a record."""

    def __init__(self, config: Path, rounds: int, kill_at=None, pace_ms: int = 0):
        argv = tabled_argv("run", "--config", str(config), "--rounds", str(rounds), "--pace-ms", str(pace_ms))
        self.proc = subprocess.Popen(argv,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                                     env=child_env(config.parent))
        self.records: list[dict] = []
        self.not_json: list[str] = []
        self.killed_at: dict | None = None
        self.children_at_kill: list[int] = []
        guard = threading.Timer(RUN_TIMEOUT, self.proc.kill)  # a hung daemon fails the test, not the suite
        guard.start()
        try:
            for line in self.proc.stdout:
                try:
                    rec = json.loads(line)
                except ValueError:
                    self.not_json.append(line)
                    continue
                self.records.append(rec)
                if kill_at is not None and self.killed_at is None and kill_at(rec):
                    self.children_at_kill = simulator_children(self.proc.pid)
                    self.proc.send_signal(signal.SIGKILL)  # kill -9: no goodbye
                    self.killed_at = rec
            self.stderr = self.proc.stderr.read()
            self.returncode = self.proc.wait()
        finally:
            guard.cancel()
            self.proc.stdout.close()
            self.proc.stderr.close()

    def warnings(self) -> list[dict]:
        return [r for r in self.records if r.get("level") in ("warning", "error", "critical")]


def journal_of(tmp: Path) -> list:
    j = Journal.open(tmp / "journal.db")
    try:
        return list(j.records_after(0))
    finally:
        j.close()


def notes(records: list, kind: str) -> list:
    return [r for r in records if r.kind == kind]


def tabled_ok(*args: str) -> str:
    done = subprocess.run(tabled_argv(*args), capture_output=True, text=True, cwd=ROOT, env=child_env(), timeout=60)
    assert done.returncode == 0, f"tabled {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


# -- the settlement recomputed from what the journal holds -------------------------------------------------

def recompute(settled: dict, profile_name: str) -> dict:
    """The game core's settlement of the facts the settlement itself names (cards, statuses, wagers
    as placed), so a settlement that does not follow from its facts shows up."""
    def wager(w: dict) -> Wager:
        return Wager(w["placed_cents"], w["token_cents"])
    spots = []
    for s in settled["spots"]:
        cards = tuple(parse_card(c) for c in s["cards"])
        progressive = wager(s["progressive"]) if s["progressive"]["outcome"] != "none" else Wager(0, 0)
        spots.append(SpotFacts(s["spot"], SpotStatus(s["status"]), ante=wager(s["ante"]), bet=wager(s["bet"]),
                               progressive=progressive, cards=cards))
    facts = RoundFacts(len(spots), tuple(parse_card(c) for c in settled["dealer"]["cards"]), tuple(spots),
                       settled["progressive"]["pool_before_cents"],
                       RoundVoid(settled["void"]) if settled["void"] else None)
    return json.loads(json.dumps(settlement_as_dict(settle(facts, load_profile(profile_name)))))


def assert_settlement_follows_from_the_round(records: list, round_id: str, config: Path) -> dict:
    """The round's one settlement agrees with its journaled deal and wagers, and the players'
    decisions are their strategy's on the journaled cards."""
    cfg = load_config(config)
    players = {p.spot: p for p in cfg.simulation.players}
    settled = [r.payload for r in notes(records, "round.settled") if r.round_id == round_id]
    assert len(settled) == 1, f"round {round_id} settled {len(settled)} times"
    st = settled[0]
    assert st["void"] is None
    assert recompute(st, cfg.table.profile.name) == st
    dealt = [r.payload for r in notes(records, "round.dealt") if r.round_id == round_id]
    assert dealt, f"round {round_id} has no deal in the journal"
    deal = dealt[-1]
    assert " ".join(st["dealer"]["cards"]) == deal["dealer"]
    up = parse_card(deal["dealer_up"][0])
    for s in st["spots"]:
        p = players.get(s["spot"])
        if p is None:
            assert s["status"] == "empty"
            continue
        assert " ".join(s["cards"]) == deal["spots"][str(s["spot"])]
        assert s["ante"]["placed_cents"] == p.ante_cents                      # 5.2: as the player placed it
        assert s["progressive"]["placed_cents"] == (100 if p.progressive else 0)  # 11.3
        cards = [parse_card(c) for c in s["cards"]]
        bets = decide(p.strategy, cards, up)
        assert s["status"] == ("played" if bets else "folded")                # 8.1
        assert s["bet"]["placed_cents"] == (2 * p.ante_cents if bets else 0)  # 5.5
    return st


# -- the run that never crashed -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("reference")
    run = Daemon(sim_config(tmp), 4)
    assert run.returncode == 0, run.stderr
    return {r.round_id: r.payload for r in notes(journal_of(tmp), "round.settled")}


def said(rule: str, round_id: str | None = None):
    return lambda r: r.get("rule") == rule and (round_id is None or r.get("round_id") == round_id)


#: where the daemon dies: (name, the record it dies at, the phase the journal holds, dealt already)
KILL_POINTS = [
    ("as the table opens", lambda r: r.get("event") == "link.up", (None, "preparing", "betting"), False),
    ("between rounds", lambda r: r.get("event") == "round.finished", ("preparing", "betting"), False),
    ("while betting", lambda r: "place your bets" in r.get("event", "") and r.get("round_id") == "SIM01-000002",
     ("betting",), False),
    ("during the deal", said("7.2.1", "SIM01-000002"), ("dealing", "deciding"), False),
    ("after the deal", lambda r: r.get("event") == "round.dealt", ("deciding",), True),
    ("after decisions", said("8.5"), ("deciding",), True),
    ("after the reveal", lambda r: r.get("rule") in ("9.1", "9.2"), ("revealed",), True),
]


@pytest.mark.slow
@pytest.mark.parametrize("name, kill_at, phases, dealt", KILL_POINTS, ids=[k[0] for k in KILL_POINTS])
def test_sigkill_and_restart_settles_the_round_once_as_if_nothing_happened(tmp_path, reference, name, kill_at,
                                                                           phases, dealt):
    crash_and_restart(tmp_path, sim_config(tmp_path), name, kill_at, phases, reference if dealt else None)


@pytest.mark.slow
def test_sigkill_during_a_deal_from_the_card_shoe(tmp_path):
    """7.3: the dealer draws the cards not yet read from the shoe; none is dealt twice (3.7)."""
    config = sim_config(tmp_path)
    config.write_text(config.read_text().replace('card_source = "shuffler"', 'card_source = "shoe"'))
    crash_and_restart(tmp_path, config, "shoe deal", said("7.2.1", "SIM01-000002"), ("dealing",), None)


def crash_and_restart(tmp_path: Path, config: Path, name: str, kill_at, phases: tuple, reference: dict | None):
    """Kill -9 at ``kill_at``, run again for two rounds and check everything a restart promises;
    ``reference``: the settlements of a run that never crashed, for a round whose cards were out."""
    first = Daemon(config, 3, kill_at, pace_ms=PACE_MS)
    assert first.killed_at is not None and first.returncode == -signal.SIGKILL, first.stderr
    assert not first.not_json, f"not JSON on stdout without a terminal: {first.not_json[:3]}"
    before = journal_of(tmp_path)
    finished_before = {r.round_id for r in notes(before, "round.finished")}

    second = Daemon(config, 2)
    assert second.returncode == 0, second.stderr
    assert not second.not_json
    # nothing to repair: no past posting (5.6), no lost deck (15.1, 15.2), no refusal, no fault
    assert second.warnings() == [], second.warnings()[:3]
    recovered = [r for r in second.records if r.get("event") == "journal.recovered"]
    if before:
        assert len(recovered) == 1
        assert recovered[0]["phase"] in phases, (name, recovered[0])
        interrupted = recovered[0]["round_id"]
    else:
        interrupted = None

    after = journal_of(tmp_path)
    finished = [r.round_id for r in notes(after, "round.finished")]
    assert len(finished) == len(set(finished)) == len(finished_before) + 2  # it finished its rounds, each once
    for rid in finished:
        assert_settlement_follows_from_the_round(after, rid, config)
    if interrupted is not None:
        assert interrupted in finished
        if reference is not None:  # the cards were on the felt: the round ends exactly as the uncrashed run's
            assert [r.payload for r in notes(after, "round.settled") if r.round_id == interrupted] \
                == [reference[interrupted]]
    # every contribution once (docs/settlement.md): the ledger agrees with the journal, the chain is whole
    tabled_ok("audit", "verify", "--journal", str(tmp_path / "journal.db"))
    tabled_ok("pool", "verify", "--config", str(config))
    tabled_ok("pool", "reconcile", "--config", str(config))


@pytest.mark.slow
def test_simulated_devices_do_not_outlive_a_killed_daemon(tmp_path):
    """The simulators are the daemon's children: after its kill -9 they go too (their stdin closes)."""
    first = Daemon(sim_config(tmp_path), 3, lambda r: r.get("event") == "round.dealt")
    assert first.returncode == -signal.SIGKILL
    # what the killed daemon could not clean up is in the test's own folder, not the system's
    assert [p.parent for p in tmp_path.glob("tmp/tabled-sim-*")] == [tmp_path / "tmp"]
    assert len(first.children_at_kill) == 3  # shuffler, bet-spot board, meter: one process each
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p) for p in first.children_at_kill):
        time.sleep(0.05)
    assert [p for p in first.children_at_kill if _alive(p)] == []


def simulator_children(pid: int) -> list[int]:
    """The simulator processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid and b"tabled_drivers.sim" in argv:
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


# -- a terminal ---------------------------------------------------------------------------------------------

def run_in_terminal(config: Path, rounds: int, *options: str) -> list[str]:
    """``tabled run`` with stdout and stderr on a pty, as in a terminal; its lines, colours stripped."""
    master, slave = os.openpty()
    proc = subprocess.Popen(tabled_argv("run", "--config", str(config), "--rounds", str(rounds), "--pace-ms", "0",
                                        *options),
                            stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, cwd=ROOT,
                            env=child_env(config.parent))
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + RUN_TIMEOUT
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert proc.returncode == 0, out.decode(errors="replace")[-2000:]
    return [ANSI.sub("", ln).rstrip() for ln in out.decode(errors="replace").replace("\r", "").splitlines()]


@pytest.mark.slow
def test_a_terminal_shows_each_thing_once(tmp_path):
    # six players at seven spots: the empty seat is flagged after three rounds (16.9), a warning
    # that is both a dealer's line and a log record
    lines = run_in_terminal(sim_config(tmp_path, drop_spots=(7,)), 4)
    text = "\n".join(lines)
    assert not text.lstrip().startswith("{"), "JSON in a terminal"
    assert sum("has not wagered for 3 rounds" in ln for ln in lines) == 1, text
    assert sum("has not wagered for 4 rounds" in ln for ln in lines) == 1, text
    # the dealer's hand is announced once per round, at the reveal (9.1 / 9.2)
    reveals = [ln for ln in lines if ln.strip().startswith("dealer")]
    assert len(reveals) == 4 and all(ln.strip().startswith("dealer: ") for ln in reveals), reveals
    # no line twice in a row and no console log line repeating a printed line
    assert all(a != b for a, b in zip(lines, lines[1:]) if a.strip()), text
    printed = {ln.strip() for ln in lines}
    for ln in lines:
        m = re.search(r"\[(?:warning|error|info)\s*\] (.*?)(?:\s{2,}|\s+\w+=|$)", ln)
        if m:
            event = m.group(1).strip()
            assert not any(event in p and p != ln.strip() for p in printed), f"shown twice: {event}"
    assert Counter(ln for ln in lines if " dealt " in ln).most_common(1)[0][1] == 1
