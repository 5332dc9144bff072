"""`tabled report shuffles`'s figures: every shuffle the device read, as the table judged it
(``shuffle.read`` notes, made here by the fold's own watch), per deck, the table's alarms listed,
and a device without card recognition reported as such."""

from __future__ import annotations

import random
from types import SimpleNamespace

from tabled.reports.shuffles import shuffles, shuffles_text
from tabled.table import notes
from tabled.table.shuffles import Shuffles


def record(seq, kind, **payload):
    return SimpleNamespace(seq=seq, time_us=seq * 1000, kind=kind, payload=payload)


WATCH: list[Shuffles] = []


def read(seq, deck, cards, watch=None):
    """The ``shuffle.read`` note the fold writes for an order the device read."""
    watch = watch if watch is not None else WATCH[-1]
    note = notes.shuffle_read(deck, cards, watch.judge(deck, cards), None)
    return record(seq, note.kind, **note.payload)


def setup_function():
    WATCH.append(Shuffles())


def test_each_deck_is_judged_again_and_its_alarms_listed():
    rng, records = random.Random(3), []
    for seq in range(1, 41):
        deck = "AB"[seq % 2]
        new = list(range(52))
        rng.shuffle(new)
        records.append(read(seq, deck, new))
    records.append(record(41, "shuffle.alarm", deck="A", rule="15.1", why="2 rising sequences"))
    decks = shuffles(records)
    # the first order of each deck is the reference of its next shuffle
    assert set(decks) == {"A", "B"} and decks["A"].judged == decks["B"].judged == 19
    assert 24 < decks["A"].mean_rising < 29 and decks["B"].mean_kept < 3
    assert [a["rule"] for a in decks["A"].alarms] == ["15.1"] and not decks["B"].alarms
    assert "deck A: alarm at record 41 (15.1)" in shuffles_text(decks)


def test_a_device_without_card_recognition_gives_nothing_to_judge():
    records = [record(1, "shuffler.shuffled", deck="A"), record(2, "shuffler.shuffled", deck="A")]  # inputs
    assert shuffles(records) == {}
    assert "without card recognition" in shuffles_text({})


def test_every_card_equally_likely_at_every_position_and_a_device_that_leaves_half_in_place():
    """The positions' test against its simulated null: random shuffles pass; a device that riffles
    only the top half leaves the bottom half where it was, and no simulated set comes near it."""
    from tabled_drivers.sim import mixing
    rng = random.Random(11)
    for mixer, random_device in ((mixing.random_order, True), (mixing.partial_riffle, False)):
        order, records = list(range(52)), []
        for seq in range(1, 400):
            order = mixer(order, rng)
            records.append(read(seq, "A", order))
        found = shuffles(records)["A"].positions
        assert found is not None and found.shuffles == 399 and found.degrees == 51 * 51
        if random_device:
            assert found.p_value > 1e-2, found
        else:
            assert found.as_large == 0 and found.p_value == 1 / (1 + found.replicates), found
        assert f"{found.as_large} of {found.replicates} simulated as large" in shuffles_text(shuffles(records))


def test_one_shuffle_gives_no_positions_figure():
    records = [read(1, "A", list(range(52)))]
    assert shuffles(records)["A"].positions is None
    assert "under 2 shuffles" in shuffles_text(shuffles(records))


def test_a_span_judges_only_its_shuffles_and_alarms_with_the_order_before_it_as_reference():
    rng, records = random.Random(7), []
    for seq in range(1, 21):
        new = list(range(52))
        rng.shuffle(new)
        records.append(read(seq, "A", new))
    records.append(record(21, "shuffle.alarm", deck="A", rule="15.1", why="cut"))
    records.insert(5, record(5.5, "shuffle.alarm", deck="A", rule="15.1", why="before the span"))
    span = shuffles(records, start_us=10_000, end_us=21_500)   # records 10 .. 21
    assert span["A"].judged == 11 and len(span["A"].orders) == 11  # record 10 judged against record 9
    assert [a["seq"] for a in span["A"].alarms] == [21]
    whole = shuffles(records)
    assert whole["A"].judged == 19 and len(whole["A"].alarms) == 2


def test_new_cards_start_again_and_another_device_is_reported_apart_15_2_2_3_6():
    rng, records, seq = random.Random(9), [], 0

    def shuffled(deck):
        nonlocal seq
        seq += 1
        new = list(range(52))
        rng.shuffle(new)
        records.append(read(seq, deck, new))

    def action(kind, **payload):
        nonlocal seq
        seq += 1
        records.append(record(seq, kind, key="supervisor", **payload))

    for _ in range(4):
        shuffled("A")
    action("panel.approved", action="new_cards", deck="A", rule="3.6")
    WATCH[-1].new_cards("A")
    for _ in range(3):
        shuffled("A")                                   # the first of the new cards is judged against nothing
    action("panel", action="use_card_source", source="shuffler")       # the input: not read
    action("panel.approved", action="use_card_source", source="shuffler", rule="15.2.2")  # its note
    WATCH[-1].device_replaced()
    for _ in range(5):
        shuffled("A")
    records.append(record(seq + 1, "shuffle.alarm", deck="A", rule="15.1", why="cut"))
    decks = shuffles(records)
    assert list(decks) == ["A", "A (device 2)"]
    first, second = decks["A"], decks["A (device 2)"]
    assert (first.device, first.judged, len(first.orders)) == (1, 3 + 2, 7)
    assert (second.device, second.judged, len(second.orders), len(second.alarms)) == (2, 4, 5, 1)
    assert "A (device 2)" in shuffles_text(decks) and "deck A (device 2): alarm at record" in shuffles_text(decks)


def test_the_device_an_inspector_cleared_keeps_its_name_and_starts_again_on_new_cards_15_2():
    records = [read(1, "A", list(range(52)))]
    records.append(record(2, "panel.approved", action="clear_device", key="inspector", rule="15.2"))
    WATCH[-1].device_replaced()
    records.append(read(3, "A", list(range(52))))  # new cards, as they came
    decks = shuffles(records)
    assert list(decks) == ["A"] and decks["A"].judged == 0 and decks["A"].device == 1
