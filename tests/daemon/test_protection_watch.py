"""Game protection at the live table (tabled/daemon/protection.py): a player identified with a
player card is weighed as one player across the spots they sit at, from the fold's
``player.seated`` notes, and the alert handed to the table names the card, the spot it played
at last, and the pack's rounds with the table clock's last measured offset (``clock.offset``)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from tabled.daemon.protection import ProtectionWatch
from tabled.game import ranking
from tabled.game.cards import card_text
from tabled.math import strategy
from tabled.math.informed import informed_raises
from tabled.math.paytable import load_paytable
from tabled.table.effects import Note

PAYTABLE = load_paytable("nsw")
CARD = "4000100010001001"
CLOCK = {"offset_ms": 7, "against": "central", "bound_ms": 3, "ok": True}


def texts(cards) -> list[str]:
    return [card_text(int(c)) for c in cards]


def round_notes(n: int, rng: np.random.Generator, flashed: int) -> list[Note]:
    """One round's dealt and settled notes: spot ``flashed`` sees all four hole cards (a dealer's
    flash) and plays them, spots 1 to 4 otherwise play the optimal strategy."""
    rid = f"T01-{n:06d}"
    deck = [int(c) for c in rng.permutation(52)]
    hands = {s: deck[5 * (s - 1):5 * s] for s in (1, 2, 3, 4)}
    dealer = deck[20:25]
    up = dealer[4]
    bets = {s: strategy.decide("optimal", hands[s], up) for s in hands}
    bets[flashed] = bool(informed_raises(np.array([ranking.evaluate(hands[flashed])]), np.array([hands[flashed]]),
                                         np.array([[up, *dealer[:4]]]), PAYTABLE)[0])
    settled = {"void": None, "profile": "nsw", "dealer": {"cards": texts(dealer)},
               "spots": [{"spot": s, "status": "played" if bets[s] else "folded", "cards": texts(hands[s])}
                         for s in hands]}
    return [Note("round.started", {}, rid), Note("round.dealt", {"dealer_up": [card_text(up)]}, rid),
            Note("round.settled", settled, rid), Note("round.finished", {"phase": "complete"}, rid)]


def seated(spot: int, moved_from: int | None) -> Note:
    return Note("player.seated", {"session": "T01-S00001", "card": CARD, "spot": spot, "moved_from": moved_from,
                                  "anonymous": False}, None)


@pytest.mark.slow
@pytest.mark.timeout(300)
async def test_a_carded_player_is_weighed_across_spots_and_the_alert_names_the_card():
    loop = asyncio.get_running_loop()
    submitted: list[tuple[str, dict]] = []
    got = asyncio.Event()

    def submit(kind: str, payload: dict) -> None:
        submitted.append((kind, payload))
        got.set()

    watch = ProtectionWatch(PAYTABLE, submit, loop, lambda: 1_772_452_800_000, seed=1)
    rng = np.random.default_rng(5)
    try:
        watch([seated(1, None)])
        for n in range(1, 61):
            if n == 16:
                watch([seated(3, 1)])  # the player moves from spot 1 to spot 3
            started, dealt, settled, finished = round_notes(n, rng, flashed=1 if n < 16 else 3)
            if n == 1:  # the clock measured mid-round counts from the next round on
                watch([started, dealt, Note("clock.offset", CLOCK, None), settled, finished])
            else:
                watch([started, dealt, settled, finished])
        # the weighing runs in its own thread; the wait only bounds a hang
        await asyncio.wait_for(got.wait(), timeout=240)
    finally:
        watch.close()
    (kind, payload), = submitted
    assert kind == "protection.evidence"
    assert payload["card"] == CARD and payload["spot"] == 3 and payload["hypothesis"] == "hole-4"
    player = watch.players[f"card {CARD}"]
    assert player.spots == {1, 3} and player.alert
    assert payload["decisions"] == player.evidence.alert_round > 15  # it took decisions at both spots
    assert {r["spot"] for r in payload["rounds"]} <= {1, 3}
    for r in payload["rounds"]:
        assert r["clock"] == ("offset not measured" if r["round_id"] == "T01-000001"
                              else "table clock +7 ms against central (within 3 ms)")
    assert all(r["player"] == "\u2022\u2022\u2022\u20221001" for r in payload["rounds"])
    # the spots it left behind are weighed as spots, apart from the player
    assert "spot 1" in watch.players and not watch.players["spot 1"].alert


@pytest.mark.timeout(120)
async def test_a_fault_in_the_weighing_is_logged_and_the_next_rounds_are_still_weighed(monkeypatch):
    import tabled.daemon.protection as live

    loop = asyncio.get_running_loop()
    weighed: list[list[str]] = []
    failed, done = asyncio.Event(), asyncio.Event()
    real = live.facts_of

    def facts_of(decided, paytable, rng):
        weighed.append(sorted({d.round_id for d in decided}))
        if len(weighed) == 1:
            loop.call_soon_threadsafe(failed.set)
            raise RuntimeError("the weighing failed")
        return real(decided, paytable, rng)

    monkeypatch.setattr(live, "facts_of", facts_of)
    watch = ProtectionWatch(PAYTABLE, lambda kind, payload: None, loop, lambda: 0, seed=1)
    counted = watch.count

    def add(d, fact):
        counted(d, fact)
        if (d.round_id, d.spot) == ("T01-000002", 4):  # the round's last spot
            loop.call_soon_threadsafe(done.set)
    watch.count = add
    rng = np.random.default_rng(9)
    try:
        watch(round_notes(1, rng, flashed=1))
        await asyncio.wait_for(failed.wait(), timeout=100)  # the waits bound a hang only
        watch(round_notes(2, rng, flashed=1))
        await asyncio.wait_for(done.wait(), timeout=100)
    finally:
        watch.close()
    assert weighed == [["T01-000001"], ["T01-000002"]]
    assert watch.players["spot 2"].evidence.rounds == 1  # the later round counted, the failed one not


@pytest.mark.timeout(120)
async def test_a_round_voided_while_it_settles_is_not_weighed_as_the_report_does_not_16_4(monkeypatch):
    """The round's last settlement is its own: voided while it settled (16.4), it is settled again
    as void, and neither the live watch nor ``tabled report protection`` weighs a void round."""
    import tabled.daemon.protection as live

    loop = asyncio.get_running_loop()
    weighed: list[list[str]] = []
    done = asyncio.Event()
    real = live.facts_of

    def facts_of(decided, paytable, rng):
        weighed.append(sorted({d.round_id for d in decided}))
        if decided:
            loop.call_soon_threadsafe(done.set)
        return real(decided, paytable, rng)

    monkeypatch.setattr(live, "facts_of", facts_of)
    watch = ProtectionWatch(PAYTABLE, lambda kind, payload: None, loop, lambda: 0, seed=1)
    rng = np.random.default_rng(9)
    try:
        started, dealt, settled, finished = round_notes(1, rng, flashed=1)
        voided = Note("round.settled", {**settled.payload, "void": "invalidated"}, settled.round_id)
        watch([started, dealt, settled])
        assert watch.waiting == [] and weighed == []  # not before the round has finished
        watch([voided, finished])
        watch(round_notes(2, rng, flashed=1))
        await asyncio.wait_for(done.wait(), timeout=100)  # the wait bounds a hang only
    finally:
        watch.close()
    assert [ids for ids in weighed if ids] == [["T01-000002"]]  # the voided round's spots were never weighed
