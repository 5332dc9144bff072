"""Rule 3.4 with a shuffling device whose card recognition is off: the dealer or a game supervisor
checks each new deck and says so on the panel (the DECK CHECKED confirmation, journaled as the
deck's verification); with recognition on, the device's order remains the verification."""

from .harness import Harness, notes, refused, rules_said, says


def opened(recognition: bool | None) -> Harness:
    h = Harness(ready=False)
    h.panel("open_table", key="supervisor")
    if recognition is not None:
        assert "3.4" in rules_said(h.feed("shuffler.recognition", on=recognition))
    h.feed("shuffler.shuffled", deck="A")
    h.feed("shuffler.shuffled", deck="B")
    assert h.round.phase == "preparing"  # shuffled but not verified: no round opens (3.4)
    return h


def press_verify(h: Harness, key: str = "dealer") -> list:
    return h.press("verify_deck", key=key)


def test_without_recognition_the_dealers_check_verifies_the_deck_3_4():
    h = opened(recognition=False)
    eff = h.panel("deck_checked", deck="A")
    assert "3.4" in rules_said(eff) and h.core.decks.status["A"]["verified"]
    (note,) = notes(eff, "deck.checked")
    assert note.payload == {"deck": "A", "key": "dealer", "rule": "3.4"}  # journaled with the round's record
    assert h.round.phase == "betting"  # the round's deck is checked and shuffled: betting opens
    assert not h.core.decks.status["B"]["verified"]  # each deck is checked on its own
    assert refused(h.panel("deck_checked", deck="A"))[0].text == "deck A is already verified"


def test_a_supervisor_may_check_the_deck_an_inspector_may_not_3_4():
    h = opened(recognition=False)
    no = h.panel("deck_checked", key="inspector", deck="A")
    assert refused(no)[0].rule == "3.4" and "needs the dealer or supervisor key" in refused(no)[0].text
    assert not h.core.decks.status["A"]["verified"] and h.round.phase == "preparing"
    eff = h.panel("deck_checked", key="supervisor", deck="A")
    assert notes(eff, "panel.approved")[0].payload["action"] == "deck_checked"
    assert notes(eff, "deck.checked")[0].payload["key"] == "supervisor" and h.round.phase == "betting"


def test_with_recognition_on_only_the_devices_order_verifies_3_4():
    h = opened(recognition=True)
    no = refused(h.panel("deck_checked", deck="A"))
    assert no[0].rule == "3.4" and "reads the cards it shuffles" in no[0].text
    assert not h.core.decks.status["A"]["verified"] and h.round.phase == "preparing"
    h.feed("deck.verified", deck="A", cards=list(range(52)))  # the device's order, 52 distinct cards
    assert h.round.phase == "betting"


def test_a_device_that_has_not_said_is_not_taken_at_the_dealers_word_3_4():
    h = opened(recognition=None)
    assert "has not said whether it reads its cards" in refused(h.panel("deck_checked", deck="A"))[0].text


def test_bad_deck_checks_are_refused_not_crashes():
    h = opened(recognition=False)
    assert "no deck 'C'" in refused(h.panel("deck_checked", deck="C"))[0].text
    assert "malformed input" in refused(h.panel("deck_checked"))[0].text
    assert "true or false" in refused(h.feed("shuffler.recognition", on="yes"))[0].text
    shoe = Harness(card_source="shoe", ready=False)
    assert "shoe" in refused(shoe.panel("deck_checked", deck="A"))[0].text


def test_the_panels_verify_button_checks_the_deck_the_table_waits_for_3_4():
    """VERIFY DECK: the round's deck first, then the other; once both are verified it is the
    count of the deck in play again (3.7)."""
    h = opened(recognition=False)
    eff = press_verify(h)
    assert notes(eff, "deck.checked")[0].payload["deck"] == "A" and h.round.phase == "betting"
    eff = press_verify(h, "supervisor")
    assert notes(eff, "deck.checked")[0].payload == {"deck": "B", "key": "supervisor", "rule": "3.4"}
    assert not notes(press_verify(h), "deck.checked")  # both verified: a count, no deck check


def test_recognition_on_the_verify_button_stays_a_count_3_7():
    h = opened(recognition=True)
    h.feed("deck.verified", deck="A", cards=list(range(52)))
    eff = press_verify(h)
    assert not notes(eff, "deck.checked") and not h.core.decks.status["B"]["verified"]


def test_a_deck_checked_survives_a_checkpoint():
    from tabled.table.core import TableCore
    h = opened(recognition=False)
    h.panel("deck_checked", deck="B")
    snap = TableCore.from_snapshot(h.core.snapshot(), 7, h.core.profile)
    decks = snap.decks
    assert decks.recognition is False and decks.status["B"]["verified"] and not decks.status["A"]["verified"]
    assert says(h.panel("deck_checked", deck="A"))
