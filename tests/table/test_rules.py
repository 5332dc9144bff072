"""Each rule the round and the table core enforce, cited by number."""

from tabled.table.effects import PoolOp, ProgressiveAcceptance, Shuffle
from tabled.game.limits import check_notice
from tabled.game import seats

from .harness import MINUTE, Harness, commands, notes, refused, rules_said, says

DEAL2 = {1: "2c 7d 9h Js Kd", 2: "3c 3d 9c Ts Qd", "dealer": "Ac Kc 4d 3s 2h"}


def ready_to_decide(h: Harness, progressive=(1, 2)):
    h.ante(1, 500, progressive=1 in progressive)
    h.ante(2, 500, progressive=2 in progressive)
    h.panel("no_more_bets")
    h.deal(DEAL2)


def test_limits_6_1_minimum_maximum_unit():
    h = Harness()
    assert "6.1" in rules_said(h.ante(1, 400))           # below the minimum
    assert "6.1" in rules_said(h.ante(1, 60_000))        # above the maximum
    assert "6.1" in rules_said(h.ante(1, 550))           # not in $1 units above the minimum
    eff = h.panel("no_more_bets")
    assert refused(eff)[0].rule == "6.1"                 # the round does not go on with it
    assert not says(h.ante(1, 600), "flag")
    assert not refused(h.panel("no_more_bets"))


def test_one_wager_per_area_5_8():
    h = Harness()
    assert "5.8" in rules_said(h.feed("wager", spot=1, area="ante", cents=500, stacks=2))
    assert refused(h.panel("no_more_bets"))[0].rule == "5.8"


def test_progressive_exactly_posted_5_3_11_3_and_only_with_ante_11_1():
    h = Harness()
    assert "11.1" in rules_said(h.feed("wager", spot=1, area="progressive", cents=100))
    h.ante(1, 500)
    assert "11.3" in rules_said(h.feed("wager", spot=1, area="progressive", cents=200))
    assert refused(h.panel("no_more_bets"))[0].rule == "11.3"
    h.feed("wager", spot=1, area="progressive", cents=100)
    eff = h.panel("no_more_bets")
    assert [e for e in eff if isinstance(e, PoolOp)][0].spot == 1


def test_progressive_acceptance_follows_the_ante_11_1():
    h = Harness()
    on = commands(h.ante(5, 500), "betspots")
    off = commands(h.feed("wager", spot=5, area="ante", cents=0), "betspots")
    assert on[0] == ProgressiveAcceptance(h.round.round_id, 5, True, (5,))
    assert off[0] == ProgressiveAcceptance(h.round.round_id, 5, False, ())


def test_bet_must_be_twice_the_ante_14_9_blocks_the_reveal():
    h = Harness()
    ready_to_decide(h)
    eff = h.feed("wager", spot=1, area="bet", cents=900)
    assert "5.5" in rules_said(eff)
    h.bet(2)
    assert refused(h.panel("reveal"))[0].rule == "14.9"
    h.feed("wager", spot=1, area="bet", cents=1000)       # 14.9.1 corrected
    assert not refused(h.panel("reveal"))
    assert h.round.phase == "revealed"


def test_fold_after_noncompliant_bet_returns_the_bet_14_9_2():
    h = Harness()
    ready_to_decide(h)
    h.feed("wager", spot=1, area="bet", cents=700)
    h.panel("fold", spot=1)
    h.bet(2)
    h.panel("reveal")
    h.panel("settle")
    st = notes(h.log, "round.settled")[-1].payload
    line = [s for s in st["spots"] if s["spot"] == 1][0]
    assert line["ante"]["net_cents"] == -500 and line["bet"]["outcome"] == "returned"


def test_reveal_needs_every_decision_8_6():
    h = Harness()
    ready_to_decide(h)
    h.bet(1)
    assert refused(h.panel("reveal"))[0].rule == "8.6"


def test_concede_after_reveal_never_undone_9_7_9_8():
    h = Harness()
    ready_to_decide(h)
    assert refused(h.panel("concede", spot=1))           # not before the reveal
    h.bet(1)
    h.bet(2)
    h.panel("reveal")
    assert not refused(h.panel("concede", spot=1))
    assert refused(h.panel("concede", spot=1))[0].rule == "9.8"
    h.feed("wager", spot=1, area="ante", cents=0)       # collected: not past posting (9.7)
    h.feed("wager", spot=1, area="bet", cents=0)
    assert not h.round.past_posting_open()


def test_misdeal_voids_all_and_reverses_contributions_14_4():
    h = Harness()
    h.ante(1, 500, progressive=True)
    h.panel("no_more_bets")
    rid = h.round.round_id
    eff = h.panel("misdeal")
    assert "14.4" in rules_said(eff)
    assert [e.op for e in eff if isinstance(e, PoolOp)] == ["reverse"]
    assert h.pool.balance == 1_000_000                   # contribution reversed exactly once
    void = notes(h.log, "round.void")[-1]
    assert void.round_id == rid and void.payload["spots"] == [{"spot": 1, "returned_cents": 600}]
    assert h.round.round_id != rid                        # 14.4: a new round is dealt


def test_misdeal_refused_after_players_handled_cards_14_1():
    h = Harness()
    ready_to_decide(h)
    h.bet(1)
    assert refused(h.panel("misdeal"))[0].rule == "14.1"


def test_two_exposed_cards_is_a_misdeal_14_3_one_is_not_14_5_14_6():
    h = Harness()
    h.ante(1, 500)
    h.panel("no_more_bets")
    assert "14.5" in rules_said(h.panel("exposed_card", target=1))
    assert h.round.phase == "dealing"
    assert "14.3" in rules_said(h.panel("exposed_card", target=1))
    h2 = Harness(card_source="shoe")  # 14.6: on the dealer's hand (the dealer's up card: test_shoe.py)
    h2.ante(1, 500)
    h2.panel("no_more_bets")
    h2.feed("shoe.card", card=0)
    h2.feed("shoe.card", card=1)
    assert "14.6" in rules_said(h2.panel("exposed_card", target="dealer", card=1))
    assert "14.3" in rules_said(h2.panel("exposed_card", target=1))


def test_wrong_card_count_to_dealer_is_misdeal_14_2_to_player_void_hand_14_7():
    h = Harness()
    h.ante(1, 500, progressive=True)
    h.ante(2, 500)
    h.panel("no_more_bets")
    eff = h.feed("shuffler.hand", cards=[0, 1, 2, 3], back="red")
    assert "14.7" in rules_said(eff) and h.round.spots[1].status == "void"
    assert h.pool.balance == 1_000_000                   # its contribution reversed
    h.feed("shuffler.hand", cards=[10, 11, 12, 13, 14], back="red")
    eff = h.feed("shuffler.hand", cards=[20, 21, 22, 23, 24, 25], back="red")
    assert "14.2" in rules_said(eff)


def test_card_seen_twice_voids_the_round_3_7():
    h = Harness()
    h.ante(1, 500)
    h.panel("no_more_bets")
    h.feed("shuffler.hand", cards=[0, 1, 2, 3, 4], back="red")
    eff = h.feed("shuffler.hand", cards=[4, 5, 6, 7, 8], back="red")
    assert "3.7" in rules_said(eff)
    assert notes(h.log, "round.void")[-1].payload["rule"] == "3.7"


def test_wrong_back_colour_is_an_integrity_fault_3_2():
    h = Harness()
    h.ante(1, 500)
    h.panel("no_more_bets")
    h.feed("shuffler.hand", cards=[0, 1, 2, 3, 4], back="blue")  # deck A is red
    assert notes(h.log, "round.void")[-1].payload["rule"] == "3.2"


def test_absent_player_returns_ante_and_progressive_14_12():
    h = Harness()
    ready_to_decide(h)
    eff = h.panel("absent", spot=2)
    assert "14.12" in rules_said(eff) and h.pool.balance == 1_000_000 + 25
    h.bet(1)
    h.panel("reveal")
    h.panel("settle")
    line = [s for s in notes(h.log, "round.settled")[-1].payload["spots"] if s["spot"] == 2][0]
    assert line["ante"]["outcome"] == "returned" and line["progressive"]["outcome"] == "returned"


def test_hand_without_ante_nsw_discard_14_8_nz_redeal():
    h = Harness()
    ready_to_decide(h)
    assert "14.8" in rules_said(h.panel("hand_without_ante", spot=6))
    nz = Harness(profile="nz-irregularities")
    nz.ante(1, 500)
    nz.panel("no_more_bets")
    assert "NZ 14.7" in rules_said(nz.panel("hand_without_ante", spot=6))


def test_past_posting_5_6_blocks_settlement_until_resolved():
    h = Harness()
    ready_to_decide(h)
    eff = h.feed("wager", spot=2, area="ante", cents=2500)  # grows after no more bets
    assert "5.6" in rules_said(eff)
    h.bet(1)
    h.feed("wager", spot=2, area="bet", cents=1000)
    h.panel("reveal")
    assert refused(h.panel("settle"))[0].rule == "5.6"
    h.panel("resolve_past_posting", spot=2)
    assert not refused(h.panel("settle"))
    line = [s for s in notes(h.log, "round.settled")[-1].payload["spots"] if s["spot"] == 2][0]
    assert line["ante"]["placed_cents"] == 500             # settled on the locked ante


def test_past_posting_cleared_when_wager_restored_and_bet_change_after_reveal():
    h = Harness()
    ready_to_decide(h)
    h.bet(1)
    h.bet(2)
    h.panel("reveal")
    assert "5.6" in rules_said(h.feed("wager", spot=1, area="bet", cents=5000))
    assert "5.6" in rules_said(h.feed("wager", spot=1, area="bet", cents=1000))  # restored
    assert not h.round.past_posting_open()


def test_shuffler_jam_reshuffles_15_1_and_failure_voids_round_15_2():
    h = Harness()
    eff = h.feed("shuffler.fault", fault="jam", deck="B")
    assert "15.1" in rules_said(eff) and commands(eff, "shuffler")[0] == Shuffle("B")
    h.ante(1, 500, progressive=True)
    h.panel("no_more_bets")
    eff = h.feed("shuffler.fault", fault="failed")
    assert "15.2.1" in rules_said(eff) and h.pool.balance == 1_000_000
    assert h.round is None                                # 15.2.2: no round until another source
    h.panel("use_card_source", key="supervisor", source="shoe")
    h.feed("deck.verified", deck="S", cards=list(range(52)))
    h.panel("shuffle_and_cut")
    assert h.round.phase == "betting" and h.round.card_source == "shoe"


def test_supervisor_invalidation_refund_and_forfeit_16_4_16_5():
    h = Harness()
    ready_to_decide(h)
    assert refused(h.panel("invalidate_round", reason="x"))  # dealer key: refused
    eff = h.panel("invalidate_round", key="supervisor", reason="fraud", forfeit=[2])
    void = notes(eff, "round.void")[0].payload
    assert {"spot": 2, "forfeit_cents": 600} in void["spots"]
    assert {"spot": 1, "returned_cents": 600} in void["spots"]
    assert h.pool.balance == 1_000_000 + 25               # only spot 1's contribution reversed
    # the settlement says the same: spot 2's wagers go to the house, spot 1's back to the player
    settled = {s["spot"]: s for s in notes(h.log, "round.settled")[-1].payload["spots"]}
    assert settled[2]["status"] == "forfeited" and settled[2]["net_cents"] == -500  # the progressive: in the drop
    assert (settled[2]["ante"]["outcome"], settled[2]["ante"]["rule"]) == ("collected", "16.5")
    assert settled[2]["progressive"]["outcome"] == "taken at the lock"
    assert settled[1]["ante"]["outcome"] == "void" and settled[1]["net_cents"] == 100


def test_a_player_voided_and_forfeited_loses_every_wager_to_the_house_16_3_1_16_5():
    h = Harness()
    ready_to_decide(h)
    h.panel("void_player", key="supervisor", spot=2, forfeit=True)
    h.bet(1)
    h.panel("reveal")
    h.panel("settle")
    line = [s for s in notes(h.log, "round.settled")[-1].payload["spots"] if s["spot"] == 2][0]
    assert line["status"] == "forfeited" and line["ante"]["outcome"] == "collected" and line["net_cents"] == -500
    assert h.pool.balance == 1_000_000 + 2 * 25           # nothing reversed: the progressive stays in the pool


def test_void_player_16_3_1():
    h = Harness()
    ready_to_decide(h)
    h.panel("void_player", key="supervisor", spot=2)
    h.bet(1)
    h.panel("reveal")
    h.panel("settle")
    line = [s for s in notes(h.log, "round.settled")[-1].payload["spots"] if s["spot"] == 2][0]
    # the progressive wager went to the drop at the lock: it is paid back (and reversed)
    assert line["net_cents"] == 100 and line["ante"]["outcome"] == "void"
    assert h.pool.balance == 1_000_000 + 25


def test_play_first_14_11_1():
    h = Harness()
    ready_to_decide(h)
    h.panel("play_first", key="supervisor", spot=2)
    assert refused(h.bet(1))[0].rule == "14.11.1"
    h.bet(2)
    assert not refused(h.bet(1))


def test_keys_supervisor_and_inspector_actions_refused_without_the_key():
    h = Harness()
    eff = h.panel("approve_play", key="supervisor")
    assert refused(eff)[0].rule == "14.13" and notes(eff, "panel.refused")
    eff = h.panel("announce_closure", key="dealer", minutes=30)
    assert refused(eff)[0].rule == "16.8"
    eff = h.panel("announce_closure", key="supervisor", minutes=30)
    assert notes(eff, "panel.approved")


def test_equipment_fault_blocks_new_round_until_inspector_approves_14_13():
    h = Harness()
    h.ante(1, 500, progressive=True)
    h.panel("no_more_bets")
    h.feed("equipment.fault", equipment="meter", reason="no answer")
    h.deal(DEAL2 | {1: DEAL2[1]})
    h.bet(1)
    h.panel("reveal")
    h.panel("settle")                                      # the round in play may finish
    assert h.core.rounds_finished == 1 and h.round is None
    h.feed("shuffler.shuffled", deck="B")
    assert h.round is None
    h.panel("approve_play", key="inspector")
    assert h.round.phase == "betting" and h.round.progressive_offline
    assert "14.13" in rules_said(h.feed("wager", spot=1, area="ante", cents=500)
                                 + h.feed("wager", spot=1, area="progressive", cents=100))


def test_closure_and_minimum_raise_need_20_minutes_16_8_6_2():
    h = Harness()
    assert refused(h.panel("announce_closure", key="supervisor", minutes=19))[0].rule == "16.8"
    assert refused(h.panel("announce_minimum", key="supervisor", cents=1000, minutes=10))
    h.panel("announce_minimum", key="supervisor", cents=1000, minutes=20)
    h.panel("announce_closure", key="supervisor", minutes=40)
    # a round before the minimum takes effect plays at $5
    h.ante(1, 500)
    assert not refused(h.panel("no_more_bets"))
    h.panel("misdeal")
    h.t = 25 * MINUTE
    h.feed("shuffler.shuffled", deck="A")
    h.panel("misdeal") if h.round.phase != "betting" else None
    # the current round was created before 20 minutes; finish it by voiding it
    h.panel("invalidate_round", key="supervisor", reason="test")
    assert h.round.limits.minimum_cents == 1000
    assert "6.1" in rules_said(h.ante(1, 500))
    h.t = 41 * MINUTE
    h.panel("invalidate_round", key="supervisor", reason="test")
    assert h.round is None and not h.core.hours.is_open          # 16.8: closed at the announced time


def test_notice_rule_helper():
    assert check_notice(0, 20 * MINUTE, "6.2") is None
    assert check_notice(0, 20 * MINUTE - 1, "6.2").rule == "6.2"


def test_seats_16_9_three_rounds_abstaining_while_others_play():
    counts = {}
    flagged = []
    for _ in range(3):
        counts, flagged = seats.after_round(counts, 3, [1, 2])
    assert flagged == [3]
    counts, flagged = seats.after_round(counts, 3, [1])  # not all other seats in use: reset
    assert flagged == [] and counts[3] == 0


def test_seats_flagged_through_the_core():
    h = Harness(spots=2)
    for _ in range(3):
        h.ante(1, 500)
        h.panel("no_more_bets")
        h.panel("misdeal")
        h.feed("shuffler.shuffled", deck="A")
        h.feed("shuffler.shuffled", deck="B")
    assert "16.9" in rules_said(h.log)


def test_deck_not_52_profile_nz_voids_nsw_flags():
    nz = Harness(profile="nz-irregularities")
    ready_to_decide(nz)
    assert "NZ 14.9" in rules_said(nz.panel("count_cards", count=51))
    nsw = Harness()
    ready_to_decide(nsw)
    eff = nsw.panel("count_cards", count=51)
    assert "3.7" in rules_said(eff) and nsw.round.phase == "deciding"


def test_malformed_input_is_refused_not_a_crash():
    h = Harness()
    assert refused(h.feed("wager", spot=9, area="ante", cents=500))
    assert refused(h.feed("wager", spot=1, area="ante", cents=5.5))
    assert refused(h.feed("wager", spot=1, area="side", cents=500))
    assert refused(h.feed("panel", action="nonsense", key="dealer"))
    assert refused(h.feed("shuffler.hand", cards=[1, 2]))
    assert refused(h.feed("nonsense"))
    assert refused(h.panel("fold"))                       # missing spot
