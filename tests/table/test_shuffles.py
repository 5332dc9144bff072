"""15.1 judged from the cards' order: a shuffle that leaves the deck's previous order standing is
reshuffled and the supervisor told; alarms repeated of late take the device out of play (15.2)."""

from __future__ import annotations

import random

from tabled.daemon.config import load_config
from tabled.daemon.assemble import make_core
from tabled.table.effects import Note, Say, Shuffle


def core():
    c = make_core(load_config(None), None)
    for deck in ("A", "B"):
        c.apply("deck.verified", {"deck": deck, "cards": list(range(52))}, 0)
    return c


def shuffled(c, deck, cards):
    return c.apply("shuffler.shuffled", {"deck": deck, "cards": cards}, 0)


def test_random_shuffles_raise_nothing_and_the_deck_is_shuffled():
    c, rng = core(), random.Random(5)
    for _ in range(30):
        order = list(range(52))
        rng.shuffle(order)
        effects = shuffled(c, "A", order)
        assert not [e for e in effects if isinstance(e, Note) and e.kind == "shuffle.alarm"]
        assert c.decks.status["A"]["shuffled"]


def test_a_deck_come_back_cut_once_is_reshuffled_and_the_supervisor_told_15_1():
    c, rng = core(), random.Random(1)
    first = list(range(52))
    rng.shuffle(first)
    shuffled(c, "A", first)
    c.decks.status["A"]["shuffled"] = False  # dealt from, sent back to be shuffled
    effects = shuffled(c, "A", first[20:] + first[:20])  # the input came back, cut once
    alarm = [e for e in effects if isinstance(e, Note) and e.kind == "shuffle.alarm"]
    assert alarm and alarm[0].payload["rule"] == "15.1" and alarm[0].payload["rising_sequences"] == 2
    assert any(isinstance(e, Say) and e.rule == "15.1" and e.text.startswith("supervisor:") for e in effects)
    assert Shuffle("A") in effects and not c.decks.status["A"]["shuffled"]
    assert not c.decks.shuffler_failed


def test_repeated_alarms_take_the_device_out_of_play_15_2():
    c = core()
    order = list(range(52))
    shuffled(c, "A", order)
    shuffled(c, "A", order)        # not intermixed at all: 15.1, reshuffle
    assert not c.decks.shuffler_failed
    effects = shuffled(c, "A", order)  # again: the device is not intermixing
    assert [e.payload["rule"] for e in effects if isinstance(e, Note) and e.kind == "shuffle.alarm"] == ["15.2"]
    assert c.decks.shuffler_failed and any(isinstance(e, Say) and e.rule == "15.2.2" for e in effects)
    c.apply("panel", {"action": "use_card_source", "key": "supervisor", "source": "shuffler"}, 0)
    assert c.decks.shuffler_failed  # out of play until an inspector clears it (tests/table/test_outofplay.py)
    c.apply("panel", {"action": "clear_device", "key": "inspector"}, 0)
    assert not c.decks.shuffler_failed and not c.decks.shuffles  # back with new cards: its history starts again


def test_the_watch_survives_a_checkpoint():
    c = core()
    order = list(range(52))
    shuffled(c, "A", order)
    again = type(c).from_snapshot(c.snapshot(), c.spot_count, c.profile)
    effects = shuffled(again, "A", order)
    assert [e.kind for e in effects if isinstance(e, Note)] == ["shuffle.read", "shuffle.alarm"]
