"""Rules docs/rules.md listed as enforced but untested, each proved here at the table core (the
panel's reveal button and the felt included), cited by number."""

from .harness import Harness, notes, refused, rules_said, says

DEALER_QUALIFIES = "Ac Kc 4d 2s 2h"  # a pair of twos


def settled_line(h: Harness, spot: int) -> dict:
    return next(s for s in notes(h.log, "round.settled")[-1].payload["spots"] if s["spot"] == spot)


def finish_round(h: Harness) -> None:
    h.panel("invalidate_round", key="supervisor", reason="test: next round")


# -- 3.6: new cards ----------------------------------------------------------------------------------

def test_new_cards_need_the_supervisor_and_are_not_used_until_verified_and_shuffled_3_6_3_4_4_1():
    h = Harness()                                           # round 1 plays deck A; B is verified and shuffled
    assert h.round.deck == "A" and h.core.decks.status["B"] == {"shuffled": True, "verified": True}
    eff = h.panel("new_cards", deck="B")                    # the dealer's key: refused (3.6 is a supervisor's)
    assert refused(eff)[0].rule == "3.6" and h.core.decks.status["B"]["verified"]
    eff = h.panel("new_cards", key="supervisor", deck="B")
    assert "3.6" in rules_said(eff) and notes(eff, "panel.approved")
    assert h.core.decks.status["B"] == {"shuffled": False, "verified": False}
    finish_round(h)
    assert h.round.deck == "B" and h.round.phase == "preparing"   # the new deck is not used as it is
    h.feed("shuffler.shuffled", deck="B")
    assert h.round.phase == "preparing"                           # 3.4: shuffled but not checked
    h.feed("deck.verified", deck="B", cards=list(range(51)) + [0])  # a duplicate: fails the check
    assert h.round.phase == "preparing" and not h.core.decks.status["B"]["verified"]
    h.feed("deck.verified", deck="B", cards=list(range(52)))
    assert h.round.phase == "betting"                             # checked (3.4) and shuffled (4.1)


def test_new_cards_verified_but_not_shuffled_wait_for_the_shuffle_4_1_and_bad_deck_refused_3_6():
    h = Harness()
    h.panel("new_cards", key="supervisor", deck="B")
    h.feed("deck.verified", deck="B", cards=list(range(52)))
    finish_round(h)
    assert h.round.deck == "B" and h.round.phase == "preparing"   # 4.1: never dealt unshuffled
    h.feed("shuffler.shuffled", deck="B")
    assert h.round.phase == "betting"
    assert refused(h.panel("new_cards", key="supervisor", deck="C"))  # no such deck: said, not a crash
    assert h.round.phase == "betting"


def test_new_cards_for_the_shoe_are_verified_then_shuffled_and_cut_before_use_3_6_4_2():
    h = Harness(card_source="shoe")
    assert h.round.phase == "betting"
    h.panel("new_cards", key="supervisor", deck="S")
    finish_round(h)
    assert h.round.phase == "preparing"
    h.panel("shuffle_and_cut")
    assert h.round.phase == "preparing"                           # 3.4: cut, but not checked
    h.feed("deck.verified", deck="S", count=52)
    assert h.round.phase == "betting"


# -- 5.5 / 5.6 (our choice): a bet before the deal ---------------------------------------------------

def test_a_bet_before_the_deal_is_flagged_and_blocks_no_more_bets_until_removed_5_5_5_6():
    h = Harness()
    h.ante(1, 500)
    eff = h.feed("wager", spot=1, area="bet", cents=1000)
    flag = says(eff, "flag")
    assert flag and flag[0].rule == "5.6" and "5.5" in flag[0].text and flag[0].spot == 1
    eff = h.panel("no_more_bets")
    assert refused(eff)[0].rule == "5.6" and refused(eff)[0].spot == 1
    assert h.round.phase == "betting" and not h.pool.contributions
    h.feed("wager", spot=1, area="bet", cents=0)             # the dealer has it removed
    assert not refused(h.panel("no_more_bets"))
    assert h.round.phase == "dealing"


# -- 8.3, 8.6: the panel's reveal button ---------------------------------------------------------------

def reveal_actions(h: Harness, eff: list) -> list:
    """What a press did, as the notes and lines show it: the spots folded, then whether it revealed."""
    folded = [e.spot for e in eff if getattr(e, "rule", None) == "8.4" and "folds" in e.text]
    return folded + (["reveal"] if h.round is not None and h.round.phase == "revealed" else [])


def test_reveal_button_folds_each_undecided_spot_with_an_empty_bet_area_then_reveals_8_3_8_6():
    h = Harness()
    for n in (1, 2, 3, 4):
        h.ante(n, 500)
    h.panel("no_more_bets")
    h.deal({1: "2c 7d 9h Js Kd", 2: "3c 3d 9c Ts Qd", 3: "4c 5d 6h 8s Jd", 4: "5c 5h 7c 8h Qs",
            "dealer": DEALER_QUALIFIES})
    h.board({1: {"bet": 1000}})                              # spot 1 bets on the felt
    h.panel("fold", spot=3)                                  # spot 3 folded by the dealer already
    assert h.round.spots[1].status == "played"
    assert refused(h.panel("reveal"))[0].rule == "8.6"       # a bare reveal: spots 2 and 4 undecided
    eff = h.press("reveal")
    assert reveal_actions(h, eff) == [2, 4, "reveal"] and not refused(eff)
    assert {n: s.status for n, s in h.round.spots.items() if n <= 4} == \
        {1: "played", 2: "folded", 3: "folded", 4: "folded"}
    h.panel("settle")
    assert settled_line(h, 2)["ante"]["collected_cents"] == 500   # 8.4: a fold loses the ante


def test_reveal_button_never_folds_a_spot_with_chips_on_its_bet_area_14_9_and_outside_deciding_8_3():
    h = Harness()
    h.ante(1, 500)
    h.ante(2, 500)
    eff = h.press("reveal")                                  # betting: nothing folded, the round says no
    assert refused(eff) and h.round.phase == "betting"
    assert [s.status for s in h.round.spots.values()] == ["empty"] * 7
    h.panel("no_more_bets")
    h.deal({1: "2c 7d 9h Js Kd", 2: "3c 3d 9c Ts Qd", "dealer": DEALER_QUALIFIES})
    h.board({1: {"bet": 1000}, 2: {"bet": 700}})             # spot 2: a bet not twice the ante
    eff = h.press("reveal")
    assert reveal_actions(h, eff) == []                      # chips on the bet area: not folded
    assert refused(eff)[0].rule == "14.9" and h.round.spots[2].status == "played"


def test_reveal_button_goes_by_the_felt_not_a_refused_bet_input_8_3_14_11_1():
    h = Harness()
    h.ante(1, 500)
    h.ante(2, 500)
    h.ante(3, 500)
    h.panel("no_more_bets")
    h.deal({1: "2c 7d 9h Js Kd", 2: "3c 3d 9c Ts Qd", 3: "4c 5d 6h 8s Jd", "dealer": DEALER_QUALIFIES})
    h.panel("play_first", key="supervisor", spot=2)
    eff = h.board({1: {"bet": 1000}})                        # spot 1 bets out of turn: refused
    assert refused(eff)[0].rule == "14.11.1" and h.round.spots[1].status == "playing"
    eff = h.press("reveal")
    # spot 2 (playing first) folds; then spot 1's chips are its bet (14.11.1), never folded; spot 3 folds
    assert reveal_actions(h, eff) == [2, 3, "reveal"] and not refused(eff)
    assert h.round.spots[1].status == "played" and h.round.spots[1].locked_bet.cents == 1000


def spot_2_plays_first() -> Harness:
    """Spots 1 and 2 dealt, the dealer qualifying; a supervisor has spot 2 decide first (14.11.1)."""
    h = Harness()
    h.ante(1, 500)
    h.ante(2, 500)
    h.panel("no_more_bets")
    h.deal({1: "2c 7d 9h Js Kd", 2: "3c 3d 9c Ts Qd", "dealer": DEALER_QUALIFIES})
    h.panel("play_first", key="supervisor", spot=2)
    return h


def test_bet_held_back_by_play_first_counts_once_the_first_spot_decided_14_11_1():
    h = spot_2_plays_first()
    assert refused(h.board({1: {"bet": 1000}}))[0].rule == "14.11.1"   # out of turn: refused
    assert h.round.spots[1].status == "playing" and not h.round.spots[1].bet  # spot 2 has not decided yet
    eff = h.panel("fold", spot=2)
    assert [e.text for e in says(eff) if e.rule == "8.5"] == ["spot 1 bets $10.00"]
    assert h.round.spots[1].status == "played" and h.round.spots[1].bet.cents == 1000  # the chips are the bet
    h.feed("wager", spot=1, area="bet", cents=0)             # taken back before the reveal (14.9.1)
    assert h.round.spots[1].status == "playing"
    assert not says(h.feed("tick"), None)                    # offered once per amount, not on every step
    assert h.round.spots[1].status == "playing"
    h.board({1: {"bet": 1200}})                              # a new amount on the felt is a new bet
    assert h.round.spots[1].bet.cents == 1200 and h.round.spots[1].status == "played"


# -- 9.5, 12.2, 12.4: confirming progressive payments in order -----------------------------------------

PROGRESSIVE_DEAL = {1: "9h Th Jh Qh Kh",    # straight flush (12.4: paid before any royal)
                    2: "3c 3d 3s 8c 8d",    # full house
                    3: "As Ks Qs Js Ts",    # royal flush
                    "dealer": DEALER_QUALIFIES}


def settling_with_three_hits(auto_pool: bool = True) -> Harness:
    h = Harness()
    for n in (1, 2, 3):
        h.ante(n, 500, progressive=True)
    h.panel("no_more_bets")
    h.deal(PROGRESSIVE_DEAL)
    for n in (1, 2, 3):
        h.bet(n)
    h.panel("reveal")
    h.auto_pool = auto_pool
    h.panel("settle")
    return h


def test_progressive_payments_confirmed_only_in_the_order_of_12_2_and_12_4_9_5():
    h = settling_with_three_hits()
    rid = h.round.round_id
    order = [a["spot"] for a in h.round.awards["awards"]]
    assert order == [1, 3, 2]      # 12.2 right to left from the royal (spot 3), 12.4: the straight flush before it
    eff = h.panel("award_paid", spot=3)                     # the royal first: refused
    assert refused(eff)[0].rule == "12.2" and "pay spot 1 first" in refused(eff)[0].text
    eff = h.panel("award_paid", spot=2)                     # the full house before the royal: refused
    assert refused(eff)[0].rule == "12.2"
    assert all(h.round.spots[n].award_held for n in (1, 2, 3))
    assert not refused(h.panel("award_paid", spot=1))
    assert refused(h.panel("award_paid", spot=2))[0].rule == "12.2"
    assert refused(h.panel("award_paid", spot=1))[0].rule == "9.5"  # already paid: nothing waits
    assert not refused(h.panel("award_paid", spot=3))
    assert h.round.round_id == rid and h.round.phase == "settling"  # 9.5: the full house is still unpaid
    assert not refused(h.panel("award_paid", spot=2))
    assert h.core.rounds_finished == 1 and (h.round is None or h.round.round_id != rid)


def test_no_payment_confirmed_before_the_pool_has_taken_the_awards_9_5():
    h = settling_with_three_hits(auto_pool=False)
    assert h.round.phase == "settling" and h.round.awards is None
    eff = h.panel("award_paid", spot=2)
    assert refused(eff)[0].rule == "9.5" and "wait" in refused(eff)[0].text
    assert h.round.spots[2].award_held


# -- NZ 14.1: a dead hand in the round ------------------------------------------------------------------

def test_dead_hand_declared_by_a_supervisor_forfeits_ante_bet_and_progressive_nz_14_1():
    h = Harness(profile="nz-irregularities")
    for n in (1, 2):
        h.ante(n, 500, progressive=True)
    h.panel("no_more_bets")
    h.deal({1: "9h Th Jh Qh Kh", 2: "3c 3d 9c Ts Qd", "dealer": DEALER_QUALIFIES})
    h.bet(1)
    h.bet(2)
    assert refused(h.panel("dead_hand", spot=1))[0].rule == "NZ 14.1"  # the dealer's key: refused
    eff = h.panel("dead_hand", key="supervisor", spot=1)
    assert "NZ 14.1" in rules_said(eff) and h.round.spots[1].status == "dead"
    assert refused(h.panel("dead_hand", key="supervisor", spot=1))[0].rule == "NZ 14.1"  # once
    assert refused(h.panel("concede", spot=1))                # a dead hand makes no more decisions
    h.panel("reveal")
    eff = h.panel("settle")
    assert not [e for e in eff if getattr(e, "op", None) == "awards"]  # its straight flush wins nothing
    line = settled_line(h, 1)
    assert line["status"] == "dead" and line["progressive_award"] is None
    assert line["ante"]["collected_cents"] == 500 and line["bet"]["collected_cents"] == 1000
    assert line["net_cents"] == -1500                          # ante and bet collected at settlement
    # the progressive wager went to the drop at the lock (11.6) and stays there: never returned
    assert line["progressive"]["returned_cents"] == 0 and not line["contribution_reversed"]
    assert h.pool.balance == 1_000_000 + 2 * 25 and not h.pool.reversed
    assert h.core.rounds_finished == 1


def test_dead_hand_refused_in_nsw_and_outside_deciding_nz_14_1():
    nsw = Harness()
    nsw.ante(1, 500)
    nsw.panel("no_more_bets")
    nsw.deal({1: "2c 7d 9h Js Kd", "dealer": DEALER_QUALIFIES})
    eff = nsw.panel("dead_hand", key="supervisor", spot=1)
    assert refused(eff)[0].rule == "NZ 14.1" and "no dead hands" in refused(eff)[0].text
    assert nsw.round.spots[1].status == "playing"
    nz = Harness(profile="nz-irregularities")
    nz.ante(1, 500)
    assert refused(nz.panel("dead_hand", key="supervisor", spot=1))  # betting: no hand yet
    nz.panel("no_more_bets")
    nz.deal({1: "2c 7d 9h Js Kd", "dealer": DEALER_QUALIFIES})
    assert refused(nz.panel("dead_hand", key="supervisor", spot=2))[0].rule == "NZ 14.1"  # not in play
    assert nz.round.spots[2].status == "empty"


# -- NZ 14.8: a complete hand without an ante (nz-irregularities) --------------------------------------

def test_complete_hand_without_ante_after_the_deal_is_discarded_and_play_continues_nz_14_8():
    h = Harness(profile="nz-irregularities")
    h.ante(1, 500, progressive=True)
    h.panel("no_more_bets")
    rid = h.round.round_id
    h.deal({1: "2c 7d 9h Js Kd", "dealer": DEALER_QUALIFIES})
    eff = h.panel("hand_without_ante", spot=5)                # found after the deal is complete
    assert rules_said(eff) == {"NZ 14.8"} and "discard rack" in says(eff)[0].text
    assert not notes(eff, "round.void") and h.round.round_id == rid and h.round.phase == "deciding"
    assert refused(h.panel("hand_without_ante", spot=1))[0].rule == "14.8"  # spot 1 has an ante
    h.bet(1)
    h.panel("reveal")
    h.panel("settle")
    assert [s["spot"] for s in notes(h.log, "round.settled")[-1].payload["spots"]
            if s["status"] != "empty"] == [1]                   # spot 5 takes no part in the result
    assert h.pool.balance == 1_000_000 + 25                      # spot 1's contribution stands
