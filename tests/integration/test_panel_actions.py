"""Every rule action the core enforces is reachable from the dealer's panel, over the real devices
(serial simulators on ptys, the panel and shoe behind the simulated USB backend): refused and
journaled with the wrong key, approved and journaled with the right one, and the
actions played through whole rounds: 9.7 concede, 14.12 absent, 16.3.1 void player, 16.5 forfeit,
NZ 14.1 dead hand, 16.8 a closure taking effect only 20 minutes later (injected clock)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tabled.commands.run import Seams, run_table
from tabled.profiles import load_profile
from tests.integration.harness import FAST, POLL, Run, Discard, config, journal_records

START = 1_700_000_040.0  # the injected clock's start, POSIX seconds: on a whole minute (the sign's)


class Clock:
    """The table's clock in the test's hand: time passes only when the test says so."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now

    def advance(self, minutes: float) -> None:
        self.now += minutes * 60


async def play_at(tmp: Path, scenario, *, clock=None, profile: str | None = None, sims=None, **cfg_kw) -> Run:
    """tests.integration.harness.play with an injected clock and a jurisdiction profile (``sims``:
    simulators that outlive the daemon, for a restart)."""
    run = Run(scenario)
    cfg = config(tmp, **cfg_kw)
    if profile:
        cfg = dataclasses.replace(cfg, table=dataclasses.replace(cfg.table, profile=load_profile(profile),
                                                                 profile_name=profile))
    await run_table(cfg, 0, out=Discard(), human=True,
                    seams=Seams(clock=clock or Clock(), timing=FAST, poll_interval=POLL, state_dir=tmp / "dev",
                                sims=sims, hooks=run))
    return run


def notes(tmp: Path, kind: str) -> list[tuple[str, str]]:
    return [(r.payload["action"], r.payload["key"]) for r in journal_records(tmp, kind)]


# (button, fields, core action, a key that may not, the key that may): tabled/game/keys.py
ACTIONS = [
    ("concede", {"spot": 1}, "concede", "inspector", "supervisor"),                  # 9.7
    ("absent", {"spot": 1}, "absent", "inspector", "supervisor"),                    # 14.12
    ("exposed-card", {"spot": 0}, "exposed_card", "inspector", "supervisor"),        # 14.5, 14.6
    ("no-ante-hand", {"spot": 3}, "hand_without_ante", "inspector", "supervisor"),   # 14.8, NZ 14.7
    ("play-first", {"spot": 1}, "play_first", "dealer", "supervisor"),               # 14.11.1
    ("dead-hand", {"spot": 1}, "dead_hand", "dealer", "supervisor"),                 # NZ 14.1
    ("void-player", {"spot": 2}, "void_player", "dealer", "supervisor"),             # 16.3.1
    ("forfeit", {"spot": 5}, "void_player", "inspector", "supervisor"),              # 16.3.1, 16.5
    ("announce-closure", {"value": 30}, "announce_closure", "dealer", "supervisor"),  # 16.8
    ("announce-minimum", {"value": 1000}, "announce_minimum", "inspector", "supervisor"),  # 6.2
    ("new-cards", {}, "new_cards", "dealer", "supervisor"),                          # 3.6
    ("switch-to-shoe", {}, "use_card_source", "inspector", "supervisor"),            # 15.2.2
    ("void-round", {"spots": [1]}, "invalidate_round", "dealer", "supervisor"),      # 16.4, 16.5
]


async def test_each_action_needs_its_key_refused_and_approved_both_journaled_issue_4_3_7_3_6_16_4_16_5(tmp_path):
    async def scenario(run):
        await run.phase("betting")
        await run.until(lambda: all(run.core.round.spots[n].ante for n in range(1, 8)))
        for button, fields, _, wrong, right in ACTIONS:
            run.floor.press(button, wrong, **fields)
            run.floor.press(button, right, **fields)
        run.floor.press("verify-count", "inspector", value=52)  # 3.7: any key may have the cards counted
        await run.until(lambda: run.said("3.7", "deck counted"), act=False)

    run = await play_at(tmp_path, scenario)
    refused, approved = notes(tmp_path, "panel.refused"), notes(tmp_path, "panel.approved")
    for button, _, action, wrong, right in ACTIONS:
        assert (action, wrong) in refused, button
        assert (action, right) in approved, button
    assert ("count_cards", "inspector") in approved
    assert len(set(refused)) == len(ACTIONS)  # nothing else refused for its key (new cards: one per deck)
    # each refusal said which key it needs, on the dealer's display
    assert run.said("16.3.1", "void_player: refused: needs the supervisor key (key is dealer)", level="refused")
    # what the approved actions did, in the round they were pressed in
    void = journal_records(tmp_path, "round.void")[0].payload
    assert void["rule"] == "16.4"
    lines = {s["spot"]: s for s in void["spots"]}
    assert "forfeit_cents" in lines[1] and "forfeit_cents" in lines[5]   # 16.5: named at the void, and FORFEIT
    assert "returned_cents" in lines[3]
    assert run.said("16.3.1", "spot 2: wagers void, return them")
    assert run.said("16.8", "table closes at")
    assert run.said("6.2", "minimum rises to $10.00")
    assert run.said("3.6", "new cards for deck A") and run.said("3.6", "new cards for deck B")
    assert run.said("15.2.2", "cards now dealt from the shoe")
    assert run.said("NZ 14.1", "profile nsw has no dead hands", level="refused")  # the key was right


def settled_spot(tmp: Path, round_no: int, spot: int) -> dict:
    rec = journal_records(tmp, "round.settled")[round_no].payload
    return next(s for s in rec["spots"] if s["spot"] == spot)


async def test_concede_after_the_reveal_9_7_absent_player_14_12_void_player_16_3_1(tmp_path):
    async def scenario(run):
        await run.rounds(1)
        await run.phase("deciding")  # round 2: before any player decides
        run.floor.press("absent", spot=1)                    # 14.12: spot 1's player is not there
        run.floor.press("void-player", "supervisor", spot=3)  # 16.3.1: spot 3's wagers void
        await run.until(lambda: run.core.round.spots[3].status == "void", act=False)
        await run.phase("revealed")
        played = [s.number for s in run.core.round.spots.values() if s.status == "played"]
        assert played, "a player bet this round"
        run.conceded = played[0]
        run.floor.press("concede", spot=run.conceded)         # 9.7
        await run.until(lambda: run.core.round.spots[run.conceded].status == "conceded", act=False)
        await run.rounds(1)

    run = await play_at(tmp_path, scenario)
    absent, void, conceded = (settled_spot(tmp_path, 1, n) for n in (1, 3, run.conceded))
    assert absent["status"] == "absent"  # ante and progressive returned
    assert (absent["ante"]["outcome"], absent["progressive"]["outcome"]) == ("returned", "returned")
    assert void["status"] == "void"      # returned (not forfeited)
    assert all(void[w]["returned_cents"] == void[w]["placed_cents"] > 0 for w in ("ante", "progressive"))
    assert conceded["status"] == "conceded"  # ante and bet collected
    assert conceded["ante"]["collected_cents"] == conceded["ante"]["placed_cents"] > 0
    assert conceded["bet"]["collected_cents"] == conceded["bet"]["placed_cents"] > 0
    reversed_ = {r.payload["spot"]: r.payload["reason"] for r in journal_records(tmp_path, "pool.reversed")}
    assert reversed_ == {1: "14.12 absent player", 3: "16.3.1 void wagers"}  # both had a progressive wager
    assert run.said("14.12", "spot 1: player absent") and run.said("9.7", "conceding hand")
    assert ("void_player", "supervisor") in notes(tmp_path, "panel.approved")


async def test_dead_hand_forfeits_everything_under_nz_14_1_only(tmp_path):
    async def scenario(run):
        await run.phase("deciding")
        run.floor.press("dead-hand", "supervisor", spot=4)  # NZ 14.1: information passed
        await run.until(lambda: run.core.round.spots[4].status == "dead", act=False)
        await run.rounds(1)

    await play_at(tmp_path, scenario, profile="nz-irregularities")
    dead = settled_spot(tmp_path, 0, 4)
    assert dead["status"] == "dead"
    assert dead["ante"]["collected_cents"] == dead["ante"]["placed_cents"] == 2500  # forfeited
    assert dead["progressive"]["outcome"] != "returned" and dead["progressive_award"] is None
    assert ("dead_hand", "supervisor") in notes(tmp_path, "panel.approved")


async def test_closure_announced_takes_effect_only_20_minutes_later_16_8(tmp_path):
    clock = Clock()

    async def scenario(run):
        await run.phase("betting")
        run.floor.press("announce-closure", "supervisor", value=19)  # too short a notice: refused
        await run.until(lambda: run.said("16.8", "closure refused"), act=False)
        run.floor.press("announce-closure", "supervisor", value=20)
        await run.until(lambda: run.core.hours.closing_at is not None, act=False)
        await run.rounds(1)
        clock.advance(19.9)               # not yet: the table stays open
        await run.rounds(1)
        assert run.core.hours.is_open and run.core.round is not None
        clock.advance(0.1)                # the sign has been up 20 minutes
        await run.rounds(1)               # the round in play finishes; no new one starts
        assert not run.core.hours.is_open and run.core.round is None

    run = await play_at(tmp_path, scenario, clock=clock)
    assert run.said("16.8", "table closed")
    refused = run.said("16.8", "closure refused", level="refused")[0]
    assert "this gives 19." in refused.text
    started = journal_records(tmp_path, "round.started")
    assert len(started) == 3
    # 16.8: the minutes as keyed, counted from the input's own journal time (no rounding)
    announced = [r for r in journal_records(tmp_path, "panel.button") if r.payload["button"] == "announce_closure"]
    assert [r.payload["value"] for r in announced] == [19, 20]
    closes = [s.text for s in run.said("16.8", "table closes at")]
    assert len(closes) == 1 and "20 minutes from now" in closes[0]


async def test_shuffler_door_open_during_a_round_is_shown_and_lights_the_fault_lamp_15_2(tmp_path):
    from tabled_drivers.panel import Lamp, LampState

    async def scenario(run):
        await run.phase("betting")
        await run.sims.control("shuffler").call("door", open=True)
        await run.until(lambda: run.said("15.2", "door open during the round", level="flag"), act=False)
        await run.until(lambda: run.sims.panel.lamps[Lamp.FAULT] is LampState.FLASHING, act=False)
        await run.sims.control("shuffler").call("door", open=False)
        await run.until(lambda: run.sims.panel.lamps[Lamp.FAULT] is LampState.OFF, act=False)
        assert run.said(None, "shuffling device door closed")
        await run.rounds(1)

    await play_at(tmp_path, scenario)
    door = journal_records(tmp_path, "shuffler.door")  # journaled inputs: recall shows them
    assert [r.payload["open"] for r in door] == [True, False] and door[0].round_id == "SIM01-000001"
