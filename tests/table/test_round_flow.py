"""A whole round through the pure table core: betting, lock, deal, decide, reveal, settle."""

from tabled.table.effects import Lock, PoolOp, ProgressiveAcceptance, Shuffle

from .harness import Harness, commands, notes, refused, rules_said

HANDS = {
    1: "2c 7d 9h Js Kd",      # ace-king-less: folds
    3: "Ah Kh Qh Jh Th",      # royal flush, with the progressive
    "dealer": "Ac Kc 4d 3s 2h",  # ace-king: qualifies (9.1)
}


def test_a_round_end_to_end():
    h = Harness()
    assert h.round.phase == "betting"
    h.ante(1, 500)
    eff = h.ante(3, 1000, progressive=True)
    # 11.1: progressive acceptance enabled once spot 3 has an ante
    assert ProgressiveAcceptance(h.round.round_id, 3, True, (1, 3)) in commands(eff, "betspots")
    eff = h.panel("no_more_bets")
    # 7.2.1: the board is locked; 11.6: the accepted progressive wager contributes now
    # 11.2: the lock names the spot whose progressive wager was accepted: its lamp shows it
    assert Lock(h.round.round_id, (3,)) in eff
    assert [e.spot for e in eff if isinstance(e, PoolOp) and e.op == "contribute"] == [3]
    assert h.pool.balance == 1_000_000 + 25  # 25% of $1.00 (nsw contribution_basis_points)
    assert h.round.phase == "dealing"
    h.deal(HANDS)
    assert h.round.phase == "deciding"
    h.panel("fold", spot=1)
    h.bet(3)
    h.panel("reveal")
    assert h.round.phase == "revealed"
    rid = h.round.round_id
    eff = h.panel("settle")
    # 9.5: the royal's cards stay up until the award is paid; the pool paid in one step
    assert "9.5" in rules_said(eff)
    assert h.round.phase == "settling"
    settled = notes(h.log, "round.settled")[-1].payload
    by_spot = {s["spot"]: s for s in settled["spots"]}
    assert by_spot[1]["net_cents"] == -500                    # 8.4 folded ante collected
    assert by_spot[3]["ante"]["net_cents"] == 1000            # 9.4.1.1 ante 1 to 1
    assert by_spot[3]["bet"]["net_cents"] == 2000 * 250       # 10.1 royal flush 250 to 1
    assert by_spot[3]["progressive_award"]["amount_cents"] == 1_000_025  # 12.1.1: all of the pool
    eff = h.panel("award_paid", spot=3)
    assert not refused(eff)
    fin = notes(h.log, "round.finished")[-1]
    assert fin.round_id == rid and fin.payload["phase"] == "complete"
    # 4.1.2: the deck just used goes back to be shuffled; 3.2: the next round uses the other deck
    assert Shuffle("A") in eff
    assert h.round.deck == "B" and h.round.phase == "betting"
    assert h.pool.balance == h.profile.progressive_schedule.reset_cents


def test_settle_without_progressive_finishes_at_once():
    h = Harness()
    h.ante(2, 500)
    h.panel("no_more_bets")
    h.deal({2: "Ad Ah 5c 6d 9s", "dealer": "Kc Qd 4h 3s 2c"})  # dealer does not qualify (9.2)
    h.bet(2)
    h.panel("reveal")
    h.panel("settle")
    st = notes(h.log, "round.settled")[-1].payload
    line = [s for s in st["spots"] if s["spot"] == 2][0]
    assert st["dealer"]["qualifies"] is False
    assert line["ante"]["net_cents"] == 500 and line["bet"]["outcome"] == "void"  # 9.2, 9.3.1
    assert h.core.rounds_finished == 1


def test_no_more_bets_without_an_ante_is_refused_7_2():
    h = Harness()
    eff = h.panel("no_more_bets")
    assert refused(eff) and refused(eff)[0].rule == "7.2"
    assert h.round.phase == "betting"


def test_shoe_deal_7_3_pass_order_and_last_card_up():
    h = Harness(card_source="shoe")
    assert h.round.phase == "betting"
    h.ante(1, 500)
    h.ante(4, 500)
    h.panel("no_more_bets")
    # 7.3: one card to each spot with an ante, then the dealer, five passes
    order = list(range(15))
    for c in order:
        h.feed("shoe.card", card=c)
    assert h.round.spots[1].cards == [0, 3, 6, 9, 12]
    assert h.round.spots[4].cards == [1, 4, 7, 10, 13]
    assert h.round.dealer_cards == [2, 5, 8, 11, 14]
    assert h.round.dealer_up == [14]  # 7.3.3: the dealer's last card face up
    assert h.round.phase == "deciding"


def test_shoe_needs_shuffle_and_cut_4_2_and_no_cut_with_shuffler_4_4_2():
    h = Harness(card_source="shoe", ready=False)
    h.panel("open_table", key="supervisor")
    h.feed("deck.verified", deck="S", cards=list(range(52)))
    assert h.round.phase == "preparing"
    eff = h.panel("shuffle_and_cut", key="supervisor")  # 4.3: no person other than the dealer cuts
    assert refused(eff)
    h.panel("shuffle_and_cut")
    assert h.round.phase == "betting"
    s = Harness()
    assert refused(s.panel("shuffle_and_cut"))[0].rule == "4.4.2"


def test_cards_must_be_verified_before_use_3_4():
    h = Harness(ready=False)
    h.panel("open_table", key="supervisor")
    h.feed("shuffler.shuffled", deck="A")
    assert h.round.phase == "preparing"
    eff = h.feed("deck.verified", deck="A", cards=list(range(51)) + [0])  # 51 distinct
    assert "3.7" in rules_said(eff) and h.round.phase == "preparing"
    h.feed("deck.verified", deck="A", cards=list(range(52)))
    assert h.round.phase == "betting"
