"""The dealer's lines: each instruction once, in the rules' words (tabled/table/display.py).

A fold is told to collect the ante when it happens (8.4) and never again at settlement; a
progressive award is announced once, as its numbered payment (12.2, 12.4); when the dealer does
not qualify the bet is void (9.2) on every line, and "stand off" is only 9.4.1.3's tie; the
progressive wager is "kept", in plain words."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tabled.table.effects import Say
from tabled.game.cards import parse_cards

from .harness import Harness, notes, says

ROYAL_ROUND = {
    1: "2c 7d 9h Js Kd",         # folds
    3: "Ah Kh Qh Jh Th",         # royal flush, with the progressive
    "dealer": "Ac Kc 4d 3s 2h",  # ace-king: qualifies (9.1)
}


def play(hands: dict, bets: set[int], antes: dict[int, int], progressive: set[int] = frozenset()) -> Harness:
    h = Harness()
    for spot, cents in antes.items():
        h.ante(spot, cents, progressive=spot in progressive)
    h.panel("no_more_bets")
    h.deal(hands)
    for spot in antes:
        h.bet(spot) if spot in bets else h.panel("fold", spot=spot)
    h.panel("reveal")
    h.panel("settle")
    for a in notes(h.log, "round.settled")[-1].payload["progressive"]["awards"]:
        h.panel("award_paid", spot=a["spot"])
    assert h.core.rounds_finished == 1
    return h


def lines_for(h: Harness, spot: int) -> list[str]:
    return [s.text for s in says(h.log) if s.spot == spot]


def test_a_fold_is_told_to_collect_the_ante_once_8_4():
    h = play(ROYAL_ROUND, bets={3}, antes={1: 500, 3: 1000}, progressive={3})
    collects = [t for t in lines_for(h, 1) if "collect" in t.lower()]
    assert collects == ["spot 1 folds: collect the ante $5.00"]


def test_a_progressive_award_is_announced_once_12_2():
    h = play(ROYAL_ROUND, bets={3}, antes={1: 500, 3: 1000}, progressive={3})
    award = [t for t in lines_for(h, 3) if "royal flush" in t.lower() and "$10,000.25" in t]
    assert len(award) == 1 and award[0].startswith("progressive payment 1: spot 3 royal flush $10,000.25")
    # the spot's own line settles ante and bet; the progressive wager stays in the drop, in plain words
    (line,) = [t for t in lines_for(h, 3) if t.startswith("spot 3 [")]
    assert "progressive wager kept" in line and "taken at the lock" not in line


def test_no_hand_makes_the_bet_void_on_every_line_9_2():
    h = play({2: "Ad Ah 5c 6d 9s", "dealer": "Kc Qd 4h 3s 2c"}, bets={2}, antes={2: 500})
    text = [s.text for s in says(h.log)]
    assert any("no hand: bets void, antes paid (9.2)" in t for t in text)
    assert any(t.startswith("spot 2 [") and "bet void" in t and "ante wins: pay $5.00" in t for t in text)
    assert not any("stand off" in t for t in text)


def test_a_tie_is_a_stand_off_9_4_1_3():
    h = play({2: "Ad Kd 5c 4d 3s", "dealer": "Ac Kc 5h 4s 3h"}, bets={2}, antes={2: 500})
    (line,) = [t for t in lines_for(h, 2) if t.startswith("spot 2 [")]
    assert "ante stand off" in line and "bet stand off" in line and "void" not in line


CARDS = st.permutations(range(52))


@settings(max_examples=60, deadline=None)
@given(deck=CARDS, decisions=st.lists(st.booleans(), min_size=3, max_size=3),
       progressive=st.lists(st.booleans(), min_size=3, max_size=3))
def test_each_spot_gets_one_instruction_and_each_award_one_payment(deck, decisions, progressive):
    """Any deal, any decisions: every spot is told to pay or collect its ante and bet on exactly one
    line (8.4 at the fold, else at settlement), and each progressive award is announced once."""
    spots = [1, 4, 7]
    hands = {n: " ".join(_text(c) for c in deck[5 * i:5 * i + 5]) for i, n in enumerate(spots)}
    hands["dealer"] = " ".join(_text(c) for c in deck[15:20])
    bets = {n for n, d in zip(spots, decisions) if d}
    h = play(hands, bets, {n: 500 for n in spots}, {n for n, p in zip(spots, progressive) if p})
    settled = notes(h.log, "round.settled")[-1].payload
    for n in spots:
        ante_lines = [t for t in lines_for(h, n) if "ante" in t and ("collect" in t.lower() or "pay" in t.lower()
                                                                        or "void" in t or "stand off" in t)]
        assert len(ante_lines) == 1, (n, lines_for(h, n))
        assert not any("taken at the lock" in t for t in lines_for(h, n))
    awards = [a["spot"] for a in settled["progressive"]["awards"]]
    announced = [s.spot for s in says(h.log) if isinstance(s, Say) and s.text.startswith("progressive payment")]
    assert announced == awards


def _text(card: int) -> str:
    from tabled.game.cards import card_text
    text = card_text(card)
    assert parse_cards(text)  # a card this harness can deal
    return text
