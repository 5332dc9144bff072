"""Who sits where and each player's session figures, as the fold rates them (tabled/table/players.py)."""

from __future__ import annotations

import json

from tabled.table.core import TableCore
from tabled.table.players import masked, masked_fields

from .harness import Harness as TableHarness
from .harness import notes, refused

LOSING = ("2c 7d 9h Js Kd", "3c 8d Th Qs 5d")   # no pair: fold
PAIRS = ("Ad Ah 5c 6d 9s", "Kh Ks 7c 8c Ts")    # a pair of aces, of kings: bet and beat the dealer
DEALER = "Ac Kc 4d 3s 2h"          # ace-king: qualifies (9.1)


def Harness(interval_minutes: int = 0) -> TableHarness:
    """A table with player ratings on, as a start whose configuration has them journals it."""
    h = TableHarness()
    h.feed("player.tracking", on=True, interval_minutes=interval_minutes)
    return h


def play(h: TableHarness, antes: dict[int, int], bets: tuple[int, ...] = (), progressive: tuple[int, ...] = ()) -> str:
    """One round: the antes placed, dealt, the spots in ``bets`` bet (aces) and the rest fold."""
    rid = h.round.round_id
    for spot, cents in antes.items():
        h.ante(spot, cents, progressive=spot in progressive)
    h.panel("no_more_bets")
    h.deal({**{s: (PAIRS if s in bets else LOSING)[i] for i, s in enumerate(antes)}, "dealer": DEALER})
    for spot in antes:
        if spot in bets:
            h.bet(spot)
        else:
            h.panel("fold", spot=spot)
    h.panel("reveal")
    h.panel("settle")
    for spot in progressive:
        if h.round is not None and h.round.round_id == rid:
            h.panel("award_paid", spot=spot)
    h.feed("shuffler.shuffled", deck="A")
    h.feed("shuffler.shuffled", deck="B")
    return rid


def ratings(h: TableHarness) -> dict[str | None, dict]:
    return {n.payload["card"]: n.payload for n in notes(h.log, "player.rating")}


def test_a_seated_player_is_rated_from_each_round_settled():
    h = Harness()
    h.t = 1_000
    seated = notes(h.feed("player.card", spot=2, card="40001234"), "player.seated")
    assert seated[0].payload == {"session": "T01-S00001", "card": "40001234", "spot": 2, "moved_from": None,
                                 "anonymous": False}
    r1 = play(h, {2: 1000}, bets=(2,))                   # aces beat the dealer's ace-king: 9.4.1.1
    r2 = play(h, {2: 500})                               # folds: the ante collected (8.4)
    play(h, {3: 500})                                    # spot 2 sits out
    h.t = 90_000
    h.feed("player.leaves", card="40001234")
    rating = ratings(h)["40001234"]
    assert rating["rounds"] == [[r1, 2], [r2, 2]]
    assert (rating["rounds_played"], rating["rounds_sat_out"], rating["rounds_void"]) == (2, 1, 0)
    assert (rating["ante_cents"], rating["bet_cents"], rating["average_ante_cents"]) == (1500, 2000, 750)
    assert rating["result_cents"] == 1000 + 2000 - 500   # ante 1 to 1, a pair 1 to 1 (10.1), then a fold
    assert (rating["start_ms"], rating["end_ms"], rating["reason"]) == (1_000, 90_000, "left")


def test_play_without_a_card_is_an_anonymous_seat_session_that_ends_when_the_spot_is_left():
    h = Harness()
    play(h, {4: 500})
    seated = notes(h.log, "player.seated")
    assert seated[0].payload["anonymous"] and seated[0].payload["spot"] == 4
    for _ in range(3):
        play(h, {1: 500})
    rating = ratings(h)[None]
    assert rating["anonymous"] and rating["rounds_played"] == 1 and rating["rounds_sat_out"] == 3
    assert rating["reason"] == "no wager for 3 rounds"


def test_a_card_at_a_spot_ends_the_anonymous_session_there_and_starts_the_players():
    h = Harness()
    play(h, {4: 500})
    h.feed("player.card", spot=4, card="77778888")
    play(h, {4: 500})
    h.feed("player.leaves", spot=4)
    by_card = ratings(h)
    assert by_card[None]["rounds_played"] == 1 and by_card[None]["reason"] == "a card at the spot"
    assert by_card["77778888"]["rounds_played"] == 1


def test_a_player_moving_spots_keeps_one_session():
    h = Harness()
    h.feed("player.card", spot=1, card="1111")
    r1 = play(h, {1: 500})
    eff = h.feed("player.card", spot=5, card="1111")
    assert notes(eff, "player.seated")[0].payload["moved_from"] == 1
    r2 = play(h, {5: 1000}, bets=(5,))
    h.feed("player.leaves", spot=5)
    rating = ratings(h)["1111"]
    assert rating["session"] == "T01-S00001" and rating["spots"] == [1, 5]
    assert rating["rounds"] == [[r1, 1], [r2, 5]] and rating["ante_cents"] == 1500
    assert len(notes(h.log, "player.rating")) == 1       # no anonymous session at spot 5


def test_two_players_swapping_spots_keep_their_sessions():
    h = Harness()
    h.feed("player.card", spot=1, card="AAAA1")
    h.feed("player.card", spot=2, card="BBBB2")
    r1 = play(h, {1: 500, 2: 1000})
    h.feed("player.card", spot=1, card="BBBB2")          # B takes A's spot: A is displaced, still rated
    assert h.core.players.at(1).card == "BBBB2" and h.core.players.with_card("AAAA1").spot is None
    h.feed("player.card", spot=2, card="AAAA1")
    r2 = play(h, {1: 2000, 2: 500})
    h.feed("player.leaves", card="AAAA1")
    h.feed("player.leaves", card="BBBB2")
    a, b = ratings(h)["AAAA1"], ratings(h)["BBBB2"]
    assert a["rounds"] == [[r1, 1], [r2, 2]] and a["ante_cents"] == 1000
    assert b["rounds"] == [[r1, 2], [r2, 1]] and b["ante_cents"] == 3000
    assert len(notes(h.log, "player.rating")) == 2


def test_a_displaced_player_not_seated_again_leaves_when_the_next_round_ends():
    h = Harness()
    h.feed("player.card", spot=1, card="AAAA1")
    h.t = 5_000
    h.feed("player.card", spot=1, card="BBBB2")
    h.t = 9_000
    play(h, {1: 500})
    a = ratings(h)["AAAA1"]
    assert a["end_ms"] == 5_000 and a["reason"] == "spot taken by another card" and a["rounds_played"] == 0
    assert h.core.players.at(1).card == "BBBB2"


def test_a_void_round_is_not_rated_as_played_1_1():
    h = Harness()
    h.feed("player.card", spot=3, card="30303030")
    h.ante(3, 1000)
    h.panel("no_more_bets")
    h.panel("invalidate_round", key="supervisor", reason="test: misdeal")   # the whole round void
    play(h, {3: 500})
    h.feed("player.leaves", spot=3)
    rating = ratings(h)["30303030"]
    assert (rating["rounds_played"], rating["rounds_void"], rating["ante_cents"]) == (1, 1, 500)


def test_a_session_spanning_a_14_13_fault_goes_on_with_the_progressive_offline():
    h = Harness()
    h.feed("player.card", spot=1, card="14131413")
    play(h, {1: 500}, progressive=(1,))
    h.feed("equipment.fault", equipment="pool", reason="cut")   # 14.13: no new round until approved
    play(h, {1: 500})                                            # the round open for wagers goes on
    assert h.round is None
    assert not notes(h.log, "player.rating")
    h.panel("approve_play", key="inspector")
    assert h.round.progressive_offline
    play(h, {1: 500})
    h.feed("equipment.ok", equipment="pool")
    play(h, {1: 1000}, bets=(1,))
    h.feed("player.leaves", spot=1)
    rating = ratings(h)["14131413"]
    assert rating["rounds_played"] == 4 and rating["progressive_cents"] == 100
    assert rating["ante_cents"] == 2500


def test_a_restart_mid_session_rates_as_the_table_that_never_stopped():
    def session(restart: bool) -> dict:
        h = Harness()
        h.feed("player.card", spot=2, card="55556666")
        play(h, {2: 1000}, bets=(2,))
        play(h, {6: 500})                                 # an anonymous session at 6 too
        if restart:
            snap = json.loads(json.dumps(h.core.snapshot()))
            h.core = TableCore.from_snapshot(snap, 7, h.profile)
        play(h, {2: 500, 6: 500})
        h.feed("player.leaves", spot=2)
        h.feed("player.leaves", spot=6)
        return {k: [n.payload for n in notes(h.log, "player.rating")] for k in ("ratings",)}

    assert session(restart=True) == session(restart=False)
    assert len(session(restart=True)["ratings"]) == 2


def test_replaying_the_inputs_makes_the_same_notes():
    h = Harness()
    h.feed("player.card", spot=2, card="55556666")
    play(h, {2: 1000, 3: 500}, bets=(2,))
    h.feed("player.leaves", spot=2)
    again = TableCore("T01", 7, h.limits, h.profile)
    replayed = [e for kind, p, t in h.inputs for e in again.apply(kind, p, t)]
    kinds = ("player.seated", "player.rating")
    assert [n.payload for k in kinds for n in notes(replayed, k)] == [n.payload for k in kinds for n in notes(h.log, k)]


def test_bad_player_inputs_are_refused_in_one_line():
    h = Harness()
    assert "spot=9: must be an integer from 1 to 7" in refused(h.feed("player.card", spot=9, card="1234"))[0].text
    assert "letters and digits" in refused(h.feed("player.card", spot=1, card="12 34"))[0].text
    assert "4 to 32 characters" in refused(h.feed("player.card", spot=1, card="12"))[0].text
    assert "no player at spot 3" in refused(h.feed("player.leaves", spot=3))[0].text
    assert "\u2022\u2022\u2022\u20229999 is not seated" in refused(h.feed("player.leaves", card="99999999"))[0].text
    assert not h.core.players.open


def test_a_card_number_is_masked_to_its_last_four():
    assert masked("4000123412341234") == "\u2022\u2022\u2022\u20221234"
    assert masked(None) == "anonymous"


def test_a_refused_card_number_is_not_repeated_and_a_players_record_reads_masked():
    h = Harness()
    (say,) = refused(h.feed("player.card", spot=1, card="4000100010001001" * 3))
    assert "4 to 32 characters, not 48" in say.text and "4000100010001001" not in say.text
    (say,) = refused(h.feed("player.card", spot=1, card="4000 1000 1000 1001"))
    assert "letters and digits" in say.text and "1000" not in say.text
    assert masked_fields("player.round", {"at_ms": 5, "sessions": [{"card": "4000100010001001", "spot": 1}]}) == \
        {"at_ms": 5, "sessions": [{"card": "\u2022\u2022\u2022\u20221001", "spot": 1}]}
    assert masked_fields("player.seated", {"card": None})["card"] is None         # anonymous: nothing to mask
    assert masked_fields("shoe.card", {"card": 12}) == {"card": 12}              # a playing card, not a player's


def test_a_table_without_ratings_folds_as_before_and_refuses_a_card():
    h = TableHarness()
    assert "player ratings are not on" in refused(h.feed("player.card", spot=1, card="1234"))[0].text
    play(h, {1: 500})
    assert not notes(h.log, "player.seated") and "players" not in h.core.snapshot()


def test_a_long_session_is_rated_at_the_configured_interval_and_goes_on():
    h = Harness(interval_minutes=30)
    h.feed("player.card", spot=1, card="12121212")
    h.t = 29 * 60_000
    play(h, {1: 500})
    assert not notes(h.log, "player.rating")
    h.t = 31 * 60_000
    play(h, {1: 500})
    interim = notes(h.log, "player.rating")
    assert [n.payload["interim"] for n in interim] == [True] and interim[0].payload["rounds_played"] == 2
    h.t = 40 * 60_000
    h.feed("player.leaves", spot=1)
    final = notes(h.log, "player.rating")[-1].payload
    assert not final["interim"] and final["session"] == interim[0].payload["session"] and final["rounds_played"] == 2


def test_ratings_turned_off_end_every_session():
    h = Harness()
    h.feed("player.card", spot=1, card="12121212")
    h.feed("player.tracking", on=False)
    assert ratings(h)["12121212"]["reason"] == "ratings turned off"
    assert "true or false" in refused(h.feed("player.tracking", on="yes"))[0].text
