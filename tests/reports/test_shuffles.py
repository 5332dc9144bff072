"""`tabled report shuffles`'s figures: every shuffle with its cards judged again per deck, the
table's alarms listed, and a device without card recognition reported as such."""

from __future__ import annotations

import random
from types import SimpleNamespace

from tabled.reports.shuffles import shuffles, shuffles_text


def record(seq, kind, **payload):
    return SimpleNamespace(seq=seq, time_us=seq * 1000, kind=kind, payload=payload)


def test_each_deck_is_judged_again_and_its_alarms_listed():
    rng, records = random.Random(3), []
    for seq in range(1, 41):
        deck = "AB"[seq % 2]
        new = list(range(52))
        rng.shuffle(new)
        records.append(record(seq, "shuffler.shuffled", deck=deck, cards=new))
    records.append(record(41, "shuffle.alarm", deck="A", rule="15.1", why="2 rising sequences"))
    decks = shuffles(records)
    # the first order of each deck is the reference of its next shuffle
    assert set(decks) == {"A", "B"} and decks["A"].judged == decks["B"].judged == 19
    assert 24 < decks["A"].mean_rising < 29 and decks["B"].mean_kept < 3
    assert [a["rule"] for a in decks["A"].alarms] == ["15.1"] and not decks["B"].alarms
    assert "deck A: alarm at record 41 (15.1)" in shuffles_text(decks)


def test_a_device_without_card_recognition_gives_nothing_to_judge():
    records = [record(1, "shuffler.shuffled", deck="A"), record(2, "shuffler.shuffled", deck="A")]
    assert shuffles(records) == {}
    assert "without card recognition" in shuffles_text({})
