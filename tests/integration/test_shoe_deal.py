"""Dealing from the card-reading shoe (7.3) over the real devices, when the shoe cannot be trusted:
a card it cannot read (the dealer keys it in, or declares a misdeal: 14.1), a card drawn out of
turn, the shoe lifted off its base, the shoe running out (3.7), a card of the wrong back colour
(3.1, 3.2.2: an integrity fault that voids the round, 16.4.2), each journaled as it comes."""

from __future__ import annotations

import contextlib
import io

import pytest

from tabled_drivers.panel import Lamp, LampState
from tabled_drivers.shoe import BackColour
from tabled.cli import main
from tabled.game.cards import card_text
from tabled.sim.table import SimulatedTable
from tests.crash import Crash
from tests.integration.harness import FAST, journal_records
from tests.integration.test_panel_actions import play_at


async def at_the_deal(run) -> list[int]:
    """Play a round to its deal; the dealer then draws by hand (the floor stands still)."""
    await run.rounds(1)
    await run.phase("dealing")
    run.floor.done.add((run.core.round_id, "draw"))  # the test draws, not the floor
    return run.floor.shoe_deck


def cards_to_deal(run) -> int:
    return 5 * len(run.core.round.dealt_to) - run.core.round.deliveries


async def test_unreadable_card_keyed_in_by_the_dealer_and_the_deal_goes_on_7_3(tmp_path):
    async def scenario(run):
        deck = await at_the_deal(run)
        run.sims.shoe.draw(deck.pop())
        run.sims.shoe.draw_unreadable()                      # the second card: face not read
        await run.until(lambda: run.core.round.unread is not None, act=False)
        assert run.said("7.3", "card 2 could not be read by the shoe", level="flag")
        await run.until(lambda: run.sims.panel.lamps[Lamp.FAULT] is LampState.FLASHING, act=False)
        run.floor.press("enter-card", value=deck.pop())       # the dealer reads it and keys it in
        await run.until(lambda: run.core.round.deliveries == 2, act=False)
        for _ in range(cards_to_deal(run)):
            run.sims.shoe.draw(deck.pop())
        await run.until(lambda: run.core.round.phase == "deciding", act=False)
        assert run.sims.panel.lamps[Lamp.FAULT] is LampState.OFF
        await run.rounds(1)

    await play_at(tmp_path, scenario, card_source="shoe")
    settled = journal_records(tmp_path, "round.settled")
    assert len(settled) >= 2 and all(s.payload["void"] is None for s in settled)
    keyed = [r for r in journal_records(tmp_path, "panel.button") if r.payload["button"] == "enter_card"]
    assert len(keyed) == 1 and keyed[0].payload["src"].startswith("panel@")  # the keyed card, journaled as such


async def test_unreadable_card_then_misdeal_14_1_and_a_card_drawn_before_keying_stops_the_deal(tmp_path):
    async def scenario(run):
        deck = await at_the_deal(run)
        run.sims.shoe.draw_unreadable()
        await run.until(lambda: run.core.round.unread is not None, act=False)
        run.sims.shoe.draw(deck.pop())  # the dealer draws on without keying the card in
        await run.until(lambda: run.said("14.1", "drawn before unreadable card 1 was keyed in"), act=False)
        run.floor.press("enter-card", value=deck.pop())  # too late: refused, not dealt
        await run.until(lambda: run.said("7.3", "no unreadable card waits", level="refused"), act=False)
        assert run.core.round.deliveries == 0
        run.floor.press("misdeal")                       # 14.1, 14.4
        await run.until(lambda: run.core.round is None or run.core.round.phase != "dealing", act=False)
        await run.rounds(1)                              # the next round deals normally

    await play_at(tmp_path, scenario, card_source="shoe")
    voids = journal_records(tmp_path, "round.void")
    assert [v.payload["rule"] for v in voids] == ["14.4"]
    assert all("returned_cents" in s for s in voids[0].payload["spots"])


async def test_shoe_lifted_and_put_back_between_cards_deal_goes_on_emptied_mid_deal_is_3_7(tmp_path):
    async def scenario(run):
        deck = await at_the_deal(run)
        run.sims.shoe.draw(deck.pop())
        run.sims.shoe.remove()
        run.sims.shoe.replace()                          # no card drawn meanwhile
        await run.until(lambda: run.said("7.3", "the deal continues"), act=False)
        for _ in range(cards_to_deal(run)):
            run.sims.shoe.draw(deck.pop())
        await run.rounds(1)
        await run.phase("dealing")
        run.floor.done.add((run.core.round_id, "draw"))
        run.sims.shoe.load([card_text(c) for c in run.floor.shoe_deck[:3]])
        for _ in range(3):
            run.sims.shoe.draw()                         # a short deck: the shoe runs out
        await run.until(lambda: run.said("14.1", "the shoe ran out after 3 cards"), act=False)
        await run.until(lambda: not run.core.decks.status["S"]["verified"], act=False)  # 3.7: replace it
        run.floor.press("misdeal")
        await run.until(lambda: run.core.round is None or run.core.round.phase != "dealing", act=False)

    run = await play_at(tmp_path, scenario, card_source="shoe")
    assert run.said("3.7", "deck S failed verification: 3 cards", level="flag")
    assert [v.payload["rule"] for v in journal_records(tmp_path, "round.void")] == ["14.4"]
    assert journal_records(tmp_path, "round.settled")[1].payload["void"] is None  # lifted, put back: played


async def test_card_with_the_wrong_back_is_an_integrity_fault_that_voids_the_round_3_1_3_2_2_16_4_2(tmp_path):
    async def scenario(run):
        deck = await at_the_deal(run)
        rid = run.core.round_id
        run.sims.shoe.draw(deck.pop())
        run.sims.shoe.draw(deck.pop(), back=BackColour.BLUE)  # the red deck's card... with a blue back
        await run.until(lambda: run.core.round_id != rid, act=False)  # void at once: no supervisor needed
        assert run.said("3.1", "blue back in a round played with the red deck", level="flag")
        await run.rounds(1)                                 # play goes on

    await play_at(tmp_path, scenario, card_source="shoe")
    voids = journal_records(tmp_path, "round.void")
    assert [v.payload["rule"] for v in voids] == ["3.1"]
    assert all("returned_cents" in s for s in voids[0].payload["spots"])
    drawn = [r.payload for r in journal_records(tmp_path, "shoe.card")]
    assert [d.get("back") for d in drawn].count("blue") == 1  # the card that voided it is in the journal


async def test_unreadable_card_wait_survives_a_daemon_restart_then_keyed_in_7_3_14_1(tmp_path):
    """The wait is folded from the journal: the restarted daemon still waits for the card (FAULT
    lamp flashing), takes the keyed card, and the round is played out, not voided."""
    sims = await SimulatedTable(tmp_path / "dev", seed=1, timing=FAST).start()
    try:
        async def killed_while_waiting(run):
            deck = await at_the_deal(run)
            run.sims.shoe.draw(deck.pop())
            run.sims.shoe.draw_unreadable()
            await run.until(lambda: run.core.round.unread is not None, act=False)
            raise Crash("kill -9 while the deal waits for the unreadable card")

        with pytest.raises(Crash):
            await play_at(tmp_path, killed_while_waiting, card_source="shoe", sims=sims)

        async def resumed(run):
            r = run.core.round
            run.floor.done.add((r.round_id, "draw"))       # the test draws, not the floor
            assert r.phase == "dealing" and r.unread == 2 and r.deliveries == 1
            await run.until(lambda: run.sims.panel.lamps[Lamp.FAULT] is LampState.FLASHING, act=False)
            left = [c for c in range(52) if c not in r.seen]
            run.floor.press("enter-card", value=left.pop())  # the dealer keys the card in
            await run.until(lambda: run.core.round.deliveries == 2, act=False)
            for _ in range(cards_to_deal(run)):
                run.sims.shoe.draw(left.pop())
            await run.until(lambda: run.core.round.phase == "deciding", act=False)
            assert run.sims.panel.lamps[Lamp.FAULT] is LampState.OFF
            await run.rounds(1)

        await play_at(tmp_path, resumed, card_source="shoe", sims=sims)
    finally:
        await sims.close()
    assert not journal_records(tmp_path, "round.void")
    settled = journal_records(tmp_path, "round.settled")
    assert len(settled) >= 2 and settled[1].payload["void"] is None
    unreadable = journal_records(tmp_path, "shoe.unreadable")
    assert [r.payload["reader_seq"] for r in unreadable] == [2]
    out = io.StringIO()  # recall shows the wait and the keyed card with the round
    with contextlib.redirect_stdout(out):
        assert main(["recall", "--journal", str(tmp_path / "journal.db"), "--round", unreadable[0].round_id]) == 0
    assert "shoe.unreadable" in out.getvalue() and "button=enter_card" in out.getvalue()


async def test_card_exposed_on_the_dealers_hand_is_the_dealers_up_card_14_6_nz_14_6(tmp_path):
    async def scenario(run):
        deck = await at_the_deal(run)
        for _ in range(len(run.core.round.dealt_to)):  # the first pass: the dealer's first card last
            run.sims.shoe.draw(deck.pop())
        await run.until(lambda: len(run.core.round.dealer_cards) == 1, act=False)
        run.exposed = run.core.round.dealer_cards[0]
        run.floor.press("exposed-card", spot=0)          # it fell face up on the dealer's hand
        await run.until(lambda: run.core.round.exposed == 1, act=False)
        for _ in range(cards_to_deal(run)):
            run.sims.shoe.draw(deck.pop())
        await run.until(lambda: run.core.round.phase == "deciding", act=False)
        assert run.core.round.dealer_up == [run.exposed]   # the fifth card went down
        await run.rounds(1)

    run = await play_at(tmp_path, scenario, card_source="shoe")
    # the press names the dealer's hand; the table takes the card the shoe last dealt the dealer
    pressed = [r.payload for r in journal_records(tmp_path, "panel.button") if r.payload["button"] == "exposed_card"]
    assert pressed == [{"button": "exposed_card", "key": "dealer", "spot": 0,
                        "src": pressed[0]["src"], "seq": pressed[0]["seq"]}]
    dealt = journal_records(tmp_path, "round.dealt")[1].payload
    assert dealt["dealer_up"] == [card_text(run.exposed)]
    assert run.said("14.6", "fifth card face down")
    assert journal_records(tmp_path, "round.settled")[1].payload["void"] is None
