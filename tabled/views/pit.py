"""What the pit sees: the dealer's screen with the supervisor's detail. Pure: no clock, no I/O.

The shell (tabled/daemon/pit.py) reads the journal's records of :data:`KINDS` as they are
committed and hands each to :meth:`PitLog.take`; the table's loop hands over the devices as the
table sees them (:func:`pit_devices`); :func:`pit_view` puts them together with the dealer's screen
(tabled/views/screen.py) and the journal's head as the shell verified it. Shown:

- the last :data:`ROUNDS_KEPT` rounds in full: each round's settlement as ``tabled settle``
  prints it (16.11, :func:`tabled.game.settlement_text.render`), from its ``round.settled`` record
  (of a round voided while it settled, the void one that takes the first one's place);
- the faults that stand (as the dealer's screen shows them) and the 14.13 faults cleared before,
  with who let each clear: the inspector whose approval was in force (key and time), else the
  equipment itself, working again;
- every panel action a supervisor's or inspector's key carried out or was refused, with the rule;
- the pool as the meter shows it and its last :data:`HITS_KEPT` hits at this table (the awards as
  the pool determined them, ``progressive.awarded``);
- the devices and their links (14.13 for the meter and the bet-spot board);
- the board's check of the payments (9.3, 9.4): each SETTLE DONE refused over a wrong area, each
  round a supervisor closed over a mismatch (due, left and the difference per area) and each
  area emptied before settlement ended, from their notes (tabled/table/payout_check.py).
- game protection's alerts (``protection.alert``, tabled/table/protection.py): the spot, the
  hidden cards its decisions follow, the evidence, and the rounds that carry it.
- the players seated now with their session's running figures (tabled/table/players.py), each
  card number masked.
Every amount is integer cents beside the words shown.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

from tabled.game.round_facts import RoundError
from tabled.game.settlement import money, settlement_from_dict, supersedes
from tabled.game.settlement_text import render
from tabled.table.links import DEVICES
from tabled.table.names import DEVICE_NAMES, EQUIPMENT
from tabled.table.players import masked

ROUNDS_KEPT = 10    # 16.11: the last ten rounds
HITS_KEPT = 25
DECISIONS_KEPT = 25
CLEARED_KEPT = 25
#: the journal records the pit reads
KINDS = ("round.settled", "fault.raised", "fault.cleared", "panel.approved", "panel.refused", "progressive.awarded",
         "payments.refused", "payments.override", "payments.removed_early", "protection.alert")
MISPAYS_KEPT = 25
ALERTS_KEPT = 25
APPROVE_PLAY = "approve_play"  # the inspector's approval under 14.13
DEALER = "dealer"  # the dealer's own actions are the round's course, not the pit's decisions


def _when(seq: int, time_ms: int) -> dict[str, int]:
    return {"record": seq, "time_ms": time_ms}


class PitLog:
    """The pit's memory of the journal, fed record by record in journal order: the last rounds,
    hits, key decisions and cleared faults, each bounded."""

    def __init__(self) -> None:
        self.rounds: deque[dict[str, Any]] = deque(maxlen=ROUNDS_KEPT)
        self.hits: deque[dict[str, Any]] = deque(maxlen=HITS_KEPT)
        self.decisions: deque[dict[str, Any]] = deque(maxlen=DECISIONS_KEPT)
        self.cleared: deque[dict[str, Any]] = deque(maxlen=CLEARED_KEPT)
        self.mispays: deque[dict[str, Any]] = deque(maxlen=MISPAYS_KEPT)
        self.alerts: deque[dict[str, Any]] = deque(maxlen=ALERTS_KEPT)  # game protection's, as noted
        self.raised: dict[str, dict[str, Any]] = {}           # equipment -> its standing fault
        self.approval: dict[str, Any] | None = None            # the inspector's approval in force (14.13)
        self.last_seq = 0

    def take(self, seq: int, time_ms: int, round_id: str | None, kind: str, payload: Mapping[str, Any]) -> None:
        """One journal record (records already taken are ignored, so a reader may overlap)."""
        if seq <= self.last_seq:
            return
        self.last_seq = seq
        if kind == "round.settled":
            shown = _round(seq, time_ms, round_id, payload)
            last = self.rounds[-1] if self.rounds else None
            if last is not None and last["round_id"] == round_id and supersedes(payload, last):
                self.rounds[-1] = shown  # voided while it settled: its void settlement is its settlement
            else:
                self.rounds.append(shown)
        elif kind == "protection.alert":
            # the page names the player by the masked card (``player``), never the whole number
            self.alerts.append({**_when(seq, time_ms), "round_id": round_id,
                                **{k: v for k, v in payload.items() if k != "card"}})
        elif kind == "progressive.awarded":
            result = payload.get("result") or {}
            for a in result.get("awards") or []:
                self.hits.append(_hit(seq, time_ms, round_id, payload, result, a))
        elif kind == "panel.refused" or (kind == "panel.approved" and payload.get("key") != DEALER):
            decision = {**_when(seq, time_ms), "round_id": round_id, "action": str(payload.get("action", "")),
                        "key": str(payload.get("key", "")), "rule": payload.get("rule"),
                        "verdict": "approved" if kind == "panel.approved" else "refused"}
            self.decisions.append(decision)
            if kind == "panel.approved" and decision["action"] == APPROVE_PLAY:
                self.approval = decision
        elif kind in ("payments.refused", "payments.override", "payments.removed_early"):
            self.mispays.append(_mispay(seq, time_ms, round_id, kind, payload))
        elif kind == "fault.raised":
            equipment = str(payload.get("equipment", ""))
            self.raised[equipment] = {**_when(seq, time_ms), "equipment": equipment,
                                      "reason": str(payload.get("reason") or "failed"), "rule": payload.get("rule")}
            self.approval = None  # a new fault needs an inspector again (14.13)
        elif kind == "fault.cleared":
            equipment = str(payload.get("equipment", ""))
            raised = self.raised.pop(equipment, None)
            approval = self.approval if raised is None or (
                self.approval is not None and self.approval["record"] > raised["record"]) else None
            by = ({"key": approval["key"], "action": APPROVE_PLAY, **_when(approval["record"], approval["time_ms"])}
                  if approval is not None else None)
            self.cleared.append({"equipment": equipment, "name": DEVICE_NAMES.get(equipment, equipment),
                                 "reason": raised["reason"] if raised else None,
                                 "raised": _when(raised["record"], raised["time_ms"]) if raised else None,
                                 "cleared": _when(seq, time_ms), "by": by,
                                 "by_text": f"{by['key']} approved play (14.13)" if by
                                 else "the equipment, working again"})
            if not self.raised:
                self.approval = None


def _round(seq: int, time_ms: int, round_id: str | None, payload: Mapping[str, Any]) -> dict[str, Any]:
    """One settled round as the pit shows it: the settlement table of ``tabled settle`` and its totals."""
    shown: dict[str, Any] = {**_when(seq, time_ms), "round_id": round_id}
    try:
        st = settlement_from_dict(payload)
    except RoundError as exc:
        return {**shown, "table": None, "problem": f"the settlement cannot be read: {exc}"}
    return {**shown, "table": render(st), "problem": None, "void": st.void.value if st.void else None,
            "house_pays_cents": st.house_pays_cents, "house_collects_cents": st.house_collects_cents,
            "net_cents": st.net_cents, "totals": f"house pays {money(st.house_pays_cents)}, "
                                                 f"collects {money(st.house_collects_cents)}"}


def _mispay(seq: int, time_ms: int, round_id: str | None, kind: str, p: Mapping[str, Any]) -> dict[str, Any]:
    """A payment the board's check found wrong, as the pit reads it from its note."""
    shown = {**_when(seq, time_ms), "round_id": round_id, "kind": kind, "rule": p.get("rule")}
    if kind == "payments.removed_early":
        return {**shown, "text": f"spot {p.get('spot')} {p.get('area')}: chips removed before settlement ended"}
    areas = "; ".join(f"spot {a.get('spot')} {a.get('area')}: {a.get('state')}, due "
                      f"{money(int(a.get('due_cents', 0)))}, left {money(int(a.get('left_cents', 0)))}"
                      for a in p.get("areas") or [])
    if kind == "payments.refused":
        return {**shown, "text": f"SETTLE DONE refused: {areas}"}
    diff = int(p.get("difference_cents", 0))
    who = p.get("name") or (f"badge {p['person']}" if p.get("person") is not None else "supervisor")
    return {**shown, "difference_cents": diff,
            "text": f"closed by {who} as the felt lay: {areas}; "
                    + (f"{money(diff)} against the house" if diff > 0 else f"{money(-diff)} against the player"
                       if diff < 0 else "no difference")}


def _hit(seq: int, time_ms: int, round_id: str | None, payload: Mapping[str, Any], result: Mapping[str, Any],
         award: Mapping[str, Any]) -> dict[str, Any]:
    cents = int(award.get("amount_cents", 0))
    return {**_when(seq, time_ms), "round_id": round_id, "pool": payload.get("pool"),
            "spot": award.get("spot"), "category": award.get("category"), "amount_cents": cents,
            "amount": money(cents), "from_pool_cents": award.get("from_pool_cents"),
            "operator_topup_cents": award.get("operator_topup_cents"), "rule": award.get("rule"),
            "pool_before_cents": result.get("pool_before_cents"), "pool_after_cents": result.get("pool_after_cents"),
            "text": f"spot {award.get('spot')} {award.get('category')} {money(cents)}: pool "
                    f"{money(int(award.get('from_pool_cents') or 0))}, operator "
                    f"{money(int(award.get('operator_topup_cents') or 0))}"}


def pit_devices(core: Any) -> list[dict[str, Any]]:
    """Each device's link as the table sees it, the 14.13 fault of the equipment among them, and
    the pool's link. ``core`` is read, never changed."""
    rows = []
    for device in DEVICES:
        if device == "cards" and not core.players.on:
            continue  # read only where player ratings are on
        lost = core.equipment.links.lost.get(device)
        fault = core.equipment.faults.get(device)
        rows.append({"device": device, "name": DEVICE_NAMES.get(device, device), "up": lost is None,
                     "link": "up" if lost is None else f"lost: {lost}", "equipment": device in EQUIPMENT,
                     "fault": fault})
    pool_fault = core.equipment.faults.get("pool")
    rows.append({"device": "pool", "name": "progressive pool", "up": pool_fault is None,
                 "link": "up" if pool_fault is None else f"cannot be reached: {pool_fault}", "equipment": True,
                 "fault": pool_fault})
    return rows


def pit_players(core: Any) -> list[dict[str, Any]]:
    """The players seated now, by spot, with their session's figures so far; the card masked.
    ``core`` is read, never changed."""
    rows = []
    for s in core.players.seated():
        f = s.figures()
        rows.append({"spot": s.spot, "card": masked(s.card), "anonymous": s.card is None,
                     "session": s.session, "start_ms": s.start_ms,
                     **{k: f[k] for k in ("rounds_played", "rounds_sat_out", "rounds_void", "ante_cents",
                                          "average_ante_cents", "bet_cents", "progressive_cents", "result_cents")},
                     "text": f"{f['rounds_played']} rounds, {f['rounds_sat_out']} out; average ante "
                             f"{money(f['average_ante_cents'])}, ante {money(f['ante_cents'])}, bets "
                             f"{money(f['bet_cents'])}, progressive {money(f['progressive_cents'])}; "
                             f"result {money(f['result_cents'])}"})
    return rows


def pit_view(screen: Mapping[str, Any], devices: list[dict[str, Any]], log: PitLog,
             journal: Mapping[str, Any], screen_seq: int = 0,
             players: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The pit's view: ``screen`` (the dealer's screen, as made for the same batch, numbered
    ``screen_seq``), ``devices`` (:func:`pit_devices`), what ``log`` holds and ``journal``: the head
    and its verification as the shell found them (head_seq, head_hash, verified_seq, ok, problem)."""
    return {
        "screen": screen,
        "screen_seq": screen_seq,
        "rounds": list(reversed(log.rounds)),           # newest first
        "faults": {"open": screen.get("faults", []), "cleared": list(reversed(log.cleared))},
        "decisions": list(reversed(log.decisions)),
        "mispays": list(reversed(log.mispays)),
        "protection": list(reversed(log.alerts)),     # newest first
        "pool": {"meter": screen.get("meter"), "hits": list(reversed(log.hits))},
        "devices": devices,
        "players": list(players or []),
        "journal": dict(journal),
        "now_ms": screen.get("now_ms"),
    }


__all__ = ["PitLog", "pit_view", "pit_devices", "pit_players", "KINDS", "ROUNDS_KEPT", "HITS_KEPT", "DEVICE_NAMES"]
