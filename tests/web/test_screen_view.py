"""The dealer's screen as a pure view of the table (tabled/views/screen.py): what is shown when,
the payments in the rules' order (12.2, 12.4) and struck through as the panel confirms them (9.5),
the 9.5 banner, the faults as they stand (14.13) and the progressive locked."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from tabled.daemon.assemble import make_core
from tabled.daemon.config import load_config
from tabled.journal.store import Journal
from tabled.game.cards import parse_cards
from tabled.game.settlement import settlement_from_dict
from tabled.game.settlement_text import render
from tabled.game.progressive import payment_order
from tabled.table.kinds import is_input
from tabled.views.screen import screen_view
from tests.table.harness import Harness

FIXTURES = Path(__file__).parents[1] / "fixtures" / "journals"

HITS = {
    2: "9s 8s 7s 6s 5s",          # straight flush
    5: "Ah Kh Qh Jh Th",          # royal flush
    6: "2d 5d 9d Jd Kd",          # flush
    "dealer": "Ac Kc 4c 3s 2h",   # ace-king: qualifies (9.1)
}


class Screen:
    """A harness whose every input is followed by the screen, as the daemon's listener does."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.view = screen_view(h.core)

    def feed(self, kind: str, **payload):
        self.view = screen_view(self.h.core, self.h.feed(kind, **payload), self.view)
        return self.view

    def panel(self, action: str, key: str = "dealer", **fields):
        return self.feed("panel", action=action, key=key, **fields)

    def deal(self, hands: dict[int | str, str]):
        """Deal the given hands in 7.4 order, the screen following each card set; the last view."""
        for target in self.h.round.dealt_to:
            self.feed("shuffler.hand", cards=list(parse_cards(hands[target])), back=self.h.round.back)
        return self.view


def progressive_spots(view) -> list[tuple[int, str]]:
    return [(p["spot"], p["state"]) for p in view["settlement"]["payments"] if p["kind"] == "progressive"]


def hits_round() -> Screen:
    s = Screen(Harness())
    for spot in (2, 5, 6):
        s.h.ante(spot, 1000, progressive=True)
        s.view = screen_view(s.h.core, [], s.view)
    s.panel("no_more_bets")
    s.deal(HITS)
    return s


def test_cards_are_shown_once_they_may_be_seen_7_4_2_8_6():
    s = hits_round()
    v = s.view
    assert v["round"]["phase"] == "deciding"
    assert v["dealer"]["up"] == ["2h"] and v["dealer"]["cards"] == [] and v["dealer"]["hand"] is None
    assert all(spot["cards"] == [] and spot["hand"] is None for spot in v["spots"])
    assert "spots 2, 5 and 6: fold or bet (8.1)" in v["next"]
    for spot in (2, 5, 6):
        s.feed("wager", spot=spot, area="bet", cents=2000)
    v = s.panel("reveal")
    assert v["dealer"]["cards"] == ["Ac", "Kc", "4c", "3s", "2h"]
    assert v["dealer"]["hand"] == "five odd cards: ace-king-four-three-two"
    by_spot = {spot["spot"]: spot for spot in v["spots"]}
    assert by_spot[5]["cards"] == ["Ah", "Kh", "Qh", "Jh", "Th"] and by_spot[5]["hand"] == "royal flush"
    assert by_spot[5]["decision"] == "bet $20.00" and by_spot[1]["cards"] == []


def test_wagers_sensed_then_locked_at_no_more_bets_5_8_7_2_1():
    s = Screen(Harness())
    v = s.feed("wager", spot=3, area="ante", cents=1500, stacks=2)
    spot = v["spots"][2]
    assert spot["sensed"]["ante"] == {"cents": 1500, "text": "$15.00", "stacks": 2}
    assert spot["locked"]["ante"] is None and v["round"]["phase"] == "betting"
    s.feed("wager", spot=3, area="ante", cents=1500, stacks=1)
    v = s.panel("no_more_bets")
    assert v["spots"][2]["locked"]["ante"]["cents"] == 1500 and v["spots"][2]["decision"] == "to decide"


def test_payments_in_the_order_of_12_2_and_12_4_struck_through_as_the_panel_confirms_9_5():
    s = hits_round()
    for spot in (2, 5, 6):
        s.feed("wager", spot=spot, area="bet", cents=2000)
    v = s.panel("reveal")
    # from the reveal: what SETTLE/DONE will confirm, spot N first (9.4, 12.2)
    assert v["settlement"]["preview"] and v["settlement"]["round_id"] == s.h.round.round_id
    assert [(p["spot"], p["state"]) for p in v["settlement"]["payments"]] == [(6, "next"), (5, "todo"), (2, "todo")]
    assert "then SETTLE/DONE on the panel" in v["next"]
    preview = v["settlement"]["payments"]
    v = s.panel("settle")
    st = settlement_from_dict(s.h.round.settlement)
    expected = [a.spot for a in payment_order(st.progressive.awards)]
    assert expected == [6, 2, 5]  # 12.2 right to left, 12.4: the straight flush before the royal
    assert progressive_spots(v) == [(6, "next"), (2, "todo"), (5, "todo")]
    # ante and bet first, spot N to spot 1 (12.2), each with the settlement's own amount
    spot_lines = [p for p in v["settlement"]["payments"] if p["kind"] == "spot"]
    assert [p["spot"] for p in spot_lines] == [6, 5, 2] and {p["state"] for p in spot_lines} == {"done"}
    assert [(p["spot"], p["cents"]) for p in spot_lines] == [(p["spot"], p["cents"]) for p in preview]
    for p in spot_lines:
        line = next(x for x in st.spots if x.spot == p["spot"])
        assert p["cents"] == abs(line.net_cents) and p["verb"] == "PAY"
    assert v["banner"]["rule"] == "9.5" and v["banner"]["spots"] == [2, 5, 6]
    assert "leave the cards face up" in v["banner"]["text"]
    assert "pay the progressive award on spot 6" in v["next"]
    v = s.panel("award_paid", spot=6)
    assert progressive_spots(v) == [(6, "done"), (2, "next"), (5, "todo")]
    v = s.panel("award_paid", spot=2)
    v = s.panel("award_paid", spot=5)
    # the round is over and the next one takes bets: its settlement stays, every payment confirmed
    assert v["round"]["phase"] == "betting" and v["banner"] is None
    assert v["settlement"]["finished"] and progressive_spots(v) == [(6, "done"), (2, "done"), (5, "done")]


def test_a_round_settled_in_one_input_is_shown_until_the_next_deal():
    s = Screen(Harness())
    s.h.ante(4, 500)
    s.panel("no_more_bets")
    for hand in ("2c 7d 9h Js Kd", "Ac Kc 4d 3s 2h"):  # spot 4, then the dealer (7.4)
        s.feed("shuffler.hand", cards=list(parse_cards(hand)), back=s.h.round.back)
    s.panel("fold", spot=4)
    s.panel("reveal")
    rid = s.h.round.round_id
    v = s.panel("settle")
    assert v["round"]["id"] != rid and v["settlement"]["round_id"] == rid and v["settlement"]["finished"]
    # the fold's collection (8.4) stays in the list, done, until the next round's cards are dealt
    assert [(p["kind"], p["spot"], p["verb"], p["cents"], p["state"]) for p in v["settlement"]["payments"]] \
        == [("folded", 4, "COLLECT", 500, "done")]
    s.h.ante(1, 500)
    s.panel("no_more_bets")
    v = screen_view(s.h.core, [], s.view)
    assert v["settlement"] is None


SIX_FOLDS = {1: "2c 7d 9h Js Kd", 2: "3c 8d Th Qs 4d", 3: "4c 9d Jh 2s 6d", 4: "5c Td Qh 3s 7h",
             5: "6c Jd Kh 4s 8s", 6: "7c Qd 2h 5s 9c", 7: "As Ad Ah Ks 6h", "dealer": "Ac Kc 8h 3d 5h"}


def told(view) -> list[tuple]:
    return [(p["kind"], p["spot"], p["verb"], p["cents"], p["state"]) for p in view["settlement"]["payments"]
            if p["kind"] == "folded"]


def test_every_fold_is_collected_in_the_payment_list_from_the_fold_until_the_next_deal_8_4():
    """Six folds in a round: each fold's collection (8.4) is in the payment list from the moment it
    is made, struck through once the board senses the ante cleared or the settlement is confirmed,
    and kept, with the round's other payments, until the next round's cards are dealt. The message
    lines only inform: the first fold is on screen when the sixth is long past them."""
    s = Screen(Harness())
    for spot in range(1, 8):
        s.h.ante(spot, 500 * spot)
    s.panel("no_more_bets")
    s.deal(SIX_FOLDS)
    v = s.panel("fold", spot=1)
    assert told(v) == [("folded", 1, "COLLECT", 500, "next")]
    assert v["settlement"]["payments"][0]["detail"] == "folded: collect the ante $5.00"
    assert v["settlement"]["payments"][0]["rule"] == "8.4"
    v = s.feed("wager", spot=1, area="ante", cents=0)  # the dealer has taken the ante
    assert told(v) == [("folded", 1, "COLLECT", 500, "done")]
    for spot in range(2, 7):
        v = s.panel("fold", spot=spot)
    v = s.feed("wager", spot=7, area="bet", cents=7000)
    assert not any("spot 1 folds" in m["text"] for m in v["messages"])  # gone from the lines...
    assert told(v) == [("folded", spot, "COLLECT", 500 * spot, "todo" if spot < 6 else "next")
                       for spot in range(6, 1, -1)] + [("folded", 1, "COLLECT", 500, "done")]  # ...not from the list
    v = s.panel("reveal")
    # the folds the dealer has not yet collected come first; the instruction names the amount
    assert [p["kind"] for p in v["settlement"]["payments"]] == ["folded"] * 6 + ["spot"]
    assert v["next"].startswith("collect spot 6: $30.00 (8.4); then pay and collect from spot 7 to spot 1")
    rid = s.h.round.round_id
    v = s.panel("settle")
    assert v["settlement"]["round_id"] == rid and v["settlement"]["finished"]
    assert told(v) == [("folded", spot, "COLLECT", 500 * spot, "done") for spot in range(6, 0, -1)]
    for spot in range(1, 4):
        s.h.ante(spot, 500)
    v = screen_view(s.h.core, [], s.view)
    assert v["round"]["phase"] == "betting" and len(told(v)) == 6  # kept through the next round's bets
    s.panel("no_more_bets")
    v = screen_view(s.h.core, [], s.view)
    assert v["settlement"] is None  # the next round's cards are being dealt


def test_the_instruction_names_the_next_payment_and_its_amount():
    s = hits_round()
    for spot in (2, 5, 6):
        s.feed("wager", spot=spot, area="bet", cents=2000)
    v = s.panel("reveal")
    first = v["settlement"]["payments"][0]
    assert first["state"] == "next" and first["spot"] == 6
    assert v["next"] == f"{first['verb'].lower()} spot 6: ${first['cents'] // 100}.{first['cents'] % 100:02d}; " \
                        "from spot 7 to spot 1, then SETTLE/DONE on the panel (9.4, 12.2)"


def test_faults_as_they_stand_and_the_progressive_locked_14_13():
    s = Screen(Harness())
    s.h.t = 60_000
    v = s.feed("equipment.fault", equipment="pool", reason="link lost")
    (fault,) = v["faults"]
    # in the dealer's words; the technical reason is for the pit
    assert fault["what"] == "progressive pool cannot be reached: check the network to the pool"
    assert fault["detail"] == "link lost" and fault["rule"] == "14.13"
    assert fault["key"] == "inspector" and fault["since_ms"] == 60_000 and "inspector" in fault["dealer_does"]
    assert v["meter"]["locked"] and not v["meter"]["offline"]
    s.h.t = 180_000
    v = s.feed("tick")
    assert v["faults"][0]["since_ms"] == 60_000 and v["now_ms"] == 180_000  # how long: two minutes
    # an inspector approves play with the progressive offline
    v = s.panel("approve_play", key="inspector")
    assert v["meter"]["offline"] and v["meter"]["text"] == "PROGRESSIVE OFFLINE"
    assert v["faults"][0]["key"] is None and "progressive offline" in v["faults"][0]["dealer_does"]
    v = s.feed("equipment.ok", equipment="pool")
    assert v["faults"] == [] and not v["meter"]["locked"]


def test_the_dealers_latest_lines_are_kept_in_order():
    s = Screen(Harness())
    for spot in range(1, 8):
        s.feed("wager", spot=spot, area="bet", cents=1000)
    texts = [m["text"] for m in s.view["messages"]]
    assert len(texts) == 6 and texts[-1].startswith("spot 7: no bet before the cards are dealt")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["simulated", "scripted"])
def test_every_screen_of_a_recorded_journal_is_json_and_shows_no_card_too_early(name, tmp_path):
    """Each input of the recorded journals, folded and shown as the daemon does: the screen is
    plain JSON, no player's card shows before the reveal (8.6) and the faults are the table's."""
    db = tmp_path / "journal.db"
    with gzip.open(FIXTURES / name / "journal.db.gz") as src, db.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    core = make_core(load_config(FIXTURES / name / "config.toml"), None)
    view, shown = None, 0
    with Journal.open(db, readonly=True) as journal:
        for rec in journal.records_after(0):
            if not is_input(rec.kind):
                continue
            view = screen_view(core, core.apply(rec.kind, rec.payload, rec.time_us // 1000), view)
            assert json.loads(json.dumps(view)) == view
            phase = view["round"]["phase"] if view["round"] else None
            if phase not in ("revealed", "settling", "complete"):
                assert all(not spot["cards"] for spot in view["spots"]) and not view["dealer"]["cards"]
            equipment = {f["id"].split(":", 1)[1] for f in view["faults"] if f["id"].startswith("equipment:")}
            assert equipment == set(core.equipment.faults)
            shown += bool(view["settlement"])
    assert shown > 100


def test_seven_folds_every_collection_listed_as_the_journal_settles_it_8_4():
    """Every spot folds: each fold's collection is in the payment list from the fold, and after
    SETTLE/DONE with the amounts of the round's ``round.settled`` record (the journal's)."""
    s = Screen(Harness())
    for spot in range(1, 8):
        s.h.ante(spot, 500 * spot)
    s.panel("no_more_bets")
    s.deal(SIX_FOLDS)
    for spot in range(1, 8):
        v = s.panel("fold", spot=spot)
    assert told(v) == [("folded", 7, "COLLECT", 3500, "next")] + \
        [("folded", spot, "COLLECT", 500 * spot, "todo") for spot in range(6, 0, -1)]
    s.panel("reveal")
    effects = s.h.feed("panel", action="settle", key="dealer")
    s.view = screen_view(s.h.core, effects, s.view)
    (record,) = [e for e in effects if getattr(e, "kind", None) == "round.settled"]
    journal = {line.spot: line.net_cents for line in settlement_from_dict(record.payload).spots}
    listed = [(p["spot"], p["verb"], p["cents"], p["state"]) for p in s.view["settlement"]["payments"]]
    assert listed == [(spot, "COLLECT", -journal[spot], "done") for spot in range(7, 0, -1)]
    assert listed == [(spot, "COLLECT", 500 * spot, "done") for spot in range(7, 0, -1)]


def test_words_for_people_one_spot_one_rule_a_device_not_answering():
    """"spot 7", not "spots 7"; a line that names its rule is not followed by it again; a device
    whose link is lost is "not answering", the library's words kept for the pit."""
    s = Screen(Harness())
    s.h.ante(7, 500)
    v = s.panel("no_more_bets")
    assert v["next"] == "deal to spot 7 and the dealer (7.2.2)"
    v = s.deal(SIX_FOLDS)
    assert v["next"] == "spot 7: fold or bet (8.1)"
    for m in v["messages"]:
        assert not (m["rule"] and m["text"].endswith(f"({m['rule']})")), m
    lost = "link lost: port closed: device reports readiness to read but returned no data " \
           "(device disconnected or multiple access on port?)"
    v = s.feed("equipment.fault", equipment="meter", reason=lost)
    (fault,) = v["faults"]
    assert fault["what"] == "meter not answering: check its cable and its power"
    assert fault["detail"] == lost and fault["rule"] == "14.13" and "14.13" not in fault["what"]
    said = v["messages"][-1]["text"]
    assert said.startswith("meter not answering: check its cable and its power: notify an inspector") and \
        "port closed" not in said
    v = s.feed("equipment.fault", equipment="betspots", reason="[Errno 2] could not open port /dev/tabled-betspots")
    assert [f["what"] for f in v["faults"]] == ["bet-spot board not answering: check its cable and its power",
                                                 "meter not answering: check its cable and its power"]


def test_one_wording_of_a_settlement_on_the_screen_and_in_tabled_settle():
    """The words the dealer reads for each wager are those ``tabled settle``, ``tabled recall`` and
    the pit print (tabled/game/settlement_text.py): never "paid $10.00, pay $10.00" beside "ante
    wins: pay $10.00", nor "taken at the lock" beside "progressive wager kept"."""
    s = hits_round()
    for spot in (2, 5, 6):
        s.feed("wager", spot=spot, area="bet", cents=2000)
    s.panel("reveal")
    v = s.panel("settle")
    table = render(settlement_from_dict(s.h.round.settlement))
    for p in v["settlement"]["payments"]:
        if p["kind"] == "spot":
            for words in p["detail"].split("; "):
                assert words in table, words
    assert "taken at the lock" not in table and "progressive wager kept" in table
