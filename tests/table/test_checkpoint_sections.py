"""The table's checkpoint in sections, one per part (hours, decks, equipment, the pool's book),
each versioned; and a checkpoint written before the parts had their own (the table's fields at
its top level: what tables in the field hold) restores, through each part's one upcast, to the
same table, which folds on exactly as one restored from today's checkpoint."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabled.table.checkpoint import CheckpointError
from tabled.table.core import TableCore
from tabled.table.effects import PoolOp

from .harness import MINUTE, Harness

ROYAL = {1: "2c 3d 5h 7s 9c", 2: "2d 4d 6h 8s Tc", 3: "As Ks Qs Js Ts", 4: "3c 4c 6d 8d Jh",
         5: "2h 5c 7d 9s Qc", 6: "3h 6c 8c Td Kh", 7: "4h 7c 9d Jc Ah", "dealer": "Ac Kd 4s 5d 9h"}
SECTIONS = ("hours", "decks", "equipment", "pool")


def flat(snap: dict[str, Any]) -> dict[str, Any]:
    """``snap`` in the layout ``TableCore.snapshot()`` wrote before the parts had their own
    sections: every field at the top level, an owed operation without the table, the hands or the
    time its awards were held."""
    s = {k: v for k, v in snap.items() if k not in SECTIONS}
    hours, decks, eq, pool = (snap[k] for k in SECTIONS)
    return {
        **s, "limits": hours["limits"], "card_source": decks["source"], "is_open": hours["is_open"],
        "closing_at": hours["closing_at"], "pending_minimum": hours["pending_minimum"],
        "decks": decks["status"], "next_deck": decks["next_deck"], "cut_done": decks["cut_done"],
        "recognition": decks["recognition"], "shuffler_failed": decks["shuffler_failed"],
        "faults": eq["faults"], "approved": eq["approved"], "door_open": decks["door_open"],
        "fault_lamp": eq["fault_lamp"], "abstained": hours["abstained"],
        "pool_cents": pool["cents"], "pool_seq": pool["seq"], "awards_held": pool["awards_held"],
        **({"award_pending": pool["award_pending"]} if "award_pending" in pool else {}),
        "undelivered": {k: {f: d[f] for f in ("op", "round_id", "spot", "cents", "reason", "hits", "done")}
                        for k, d in pool["undelivered"].items()},
        **({"device_out": decks["device_out"]} if "device_out" in decks else {}),
        **({"shuffles": decks["shuffles"]} if "shuffles" in decks else {}),
    }


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def restore(h: Harness, snap: dict[str, Any]) -> TableCore:
    return TableCore.from_snapshot(as_json(snap), h.core.spot_count, h.profile)


def both(h: Harness) -> tuple[TableCore, TableCore]:
    """The table restored from today's checkpoint and from the same state in the older layout."""
    snap = h.core.snapshot()
    old = flat(as_json(snap))
    assert not set(SECTIONS) & set(old) - {"decks"} and "v" not in old["decks"]  # truly the older layout
    return restore(h, snap), restore(h, old)


def fold_on(core: TableCore, inputs: list[tuple[str, dict[str, Any]]], t: int) -> list[Any]:
    out = []
    for i, (kind, payload) in enumerate(inputs):
        out.append(core.apply(kind, dict(payload), t + i * 1000))
    return out


def same_from_here(h: Harness, inputs: list[tuple[str, dict[str, Any]]]) -> TableCore:
    """Restored from either layout, the table is the one checkpointed, and folds ``inputs`` the
    same way (what the shuffling device was asked is never in a checkpoint: restored, the table
    asks again for what it needs, cardsource.py, so only the two restored tables are compared)."""
    today, older = both(h)
    assert older.snapshot() == today.snapshot() == as_json(h.core.snapshot())
    assert older.standing_effects() == today.standing_effects()
    t = h.t + 1000
    assert fold_on(older, inputs, t) == fold_on(today, inputs, t)
    assert older.snapshot() == today.snapshot()
    return older


def test_each_part_has_its_own_versioned_section():
    snap = Harness().core.snapshot()
    assert all(snap[part]["v"] == 1 for part in SECTIONS)
    assert not {"faults", "pool_cents", "limits", "card_source", "undelivered"} & set(snap)


def test_an_award_held_while_the_pool_was_down_restores_from_the_older_layout_and_is_paid_as_before_9_5_14_13():
    h = Harness()
    h.to_reveal(ROYAL)
    h.settled_then_pool_down()
    (owed,) = [op for op in h.core.standing_pool_ops() if op.op == "awards"]
    assert owed.held_since_ms is not None and owed.table_id == "T01" and dict(owed.hands)[3]  # what the feed sends
    result = h.pool.apply_awards(owed.round_id, owed.hits)
    older = same_from_here(h, [("equipment.ok", {"equipment": "pool"}),
                               ("pool.awards", {"round_id": owed.round_id, "result": result}),
                               ("panel", {"action": "award_paid", "key": "dealer", "spot": 3}),
                               ("tick", {})])
    assert not older.pool.undelivered and not older.pool.awards_held


def test_the_upcast_fills_in_what_an_older_owed_operation_did_not_carry_11_5():
    h = Harness()
    h.to_reveal(ROYAL)
    h.settled_then_pool_down()
    today, older = both(h)
    assert older.standing_pool_ops() == today.standing_pool_ops() == h.core.standing_pool_ops()
    awards = [op for op in older.standing_pool_ops() if op.op == "awards"]
    assert awards and awards[0].schedule == h.profile.progressive_schedule


def test_faults_a_device_out_of_play_and_the_sign_restore_from_the_older_layout_14_13_15_2_16_8_6_2():
    h = Harness()
    h.feed("device.link", device="meter", up=False, reason="unplugged")       # 14.13
    h.panel("approve_play", key="inspector")
    h.feed("shuffler.door", open=True)
    h.panel("announce_closure", key="supervisor", minutes=30)                # 16.8
    h.panel("announce_minimum", key="supervisor", cents=1000)                # 6.2
    h.feed("pool.meter", balance_cents=1_000_000, seq=4, change="award", table_id="T02", award_cents=5000)
    order = list(range(52))
    for _ in range(4):                                                        # 15.1, then 15.2: out of play
        h.feed("shuffler.shuffled", deck="B", cards=order)
    assert h.core.decks.device_out is not None and h.core.pool.award_pending and h.core.equipment.faults
    h.t += 31 * MINUTE
    same_from_here(h, [("device.link", {"device": "meter", "up": True}), ("shuffler.door", {"open": False}),
                       ("panel", {"action": "clear_device", "key": "inspector"}), ("tick", {})])


def test_a_section_of_a_version_this_table_does_not_read_is_refused_by_name():
    snap = as_json(Harness().core.snapshot())
    snap["equipment"]["v"] = 2
    with pytest.raises(CheckpointError, match="equipment section version 2"):
        TableCore.from_snapshot(snap, 7, Harness(ready=False).profile)


#: what may happen at a table between two checkpoints
STEPS: list[tuple[str, dict[str, Any]]] = [
    ("wager", {"spot": 2, "area": "ante", "cents": 1000}),
    ("wager", {"spot": 2, "area": "progressive", "cents": 100}),
    ("panel", {"action": "no_more_bets", "key": "dealer"}),
    ("equipment.fault", {"equipment": "pool", "reason": "down"}),
    ("equipment.ok", {"equipment": "pool"}),
    ("device.link", {"device": "betspots", "up": False, "reason": "cable"}),
    ("device.link", {"device": "betspots", "up": True}),
    ("panel", {"action": "approve_play", "key": "inspector"}),
    ("shuffler.door", {"open": True}),
    ("shuffler.door", {"open": False}),
    ("shuffler.fault", {"fault": "jam", "deck": "A"}),
    ("panel", {"action": "new_cards", "key": "supervisor", "deck": "B"}),
    ("deck.verified", {"deck": "B", "cards": list(range(52))}),
    ("shuffler.shuffled", {"deck": "B"}),
    ("pool.meter", {"balance_cents": 1_000_500, "seq": 7, "change": "contribution"}),
    ("panel", {"action": "announce_minimum", "key": "supervisor", "cents": 300}),
    ("panel", {"action": "set_maximum", "key": "supervisor", "cents": 40_000}),
    ("tick", {}),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=st.lists(st.sampled_from(range(len(STEPS))), max_size=10),
       after=st.lists(st.sampled_from(range(len(STEPS))), max_size=6))
def test_any_state_restores_from_the_older_layout_and_folds_on_the_same(before, after):
    h = Harness()
    for i in before:
        kind, payload = STEPS[i]
        h.feed(kind, **payload)
        h.t += 1000
    same_from_here(h, [STEPS[i] for i in after])


def test_a_pool_operation_carries_the_table_it_is_owed_by_11_5():
    h = Harness()
    h.auto_pool = False
    ops = [e for e in h.ante(1, 1000, progressive=True) + h.panel("no_more_bets") if isinstance(e, PoolOp)]
    assert ops and all(op.table_id == "T01" for op in ops)
