"""Game protection's alerts, as the table writes them down.

The daemon weighs every decided spot's decisions off the table's loop (tabled/daemon/protection.py,
the statistic of tabled.math.protection) and, when a spot's evidence first reaches the alert
level, hands the table a ``protection.evidence`` input. The fold writes it down as a
``protection.alert`` note for the pit and the floor. Nothing at the table changes: an alert is
evidence for people (the surveillance room, the floor), never a reason for the dealer to act, and
it is not shown on the dealer's screen.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tabled.table.effects import Effect, Note, Say
from tabled.table.players import card_problem, masked

#: the fields an alert carries, each checked; the journal holds no floats, so the evidence is its
#: natural log and the gain over the honest optimum in thousandths. ``card``, when the player
#: identified with a player card, names them (pages show it masked: ``player``)
FIELDS = {"spot": int, "hypothesis": str, "follows": str, "decisions": int, "evidence_ln_milli": int,
          "gain_milliantes": int, "rounds": list}


def alert_note(p: Mapping[str, Any], round_id: str | None) -> list[Effect]:
    """The ``protection.alert`` note for a ``protection.evidence`` input, or a refusal naming the
    field that is wrong."""
    for name, kind in FIELDS.items():
        value = p.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            return [Say(f"protection.evidence: {name} is {value!r}, not {kind.__name__}", level="refused")]
    card = p.get("card")
    if card is not None and card_problem(card):
        return [Say(f"protection.evidence: {card_problem(card)}", level="refused")]
    ln = p["evidence_ln_milli"] / 1000
    # Ville's inequality: an honest player's evidence ever reaches E with probability at most 1/E
    evidence = math.exp(min(ln, 700))
    who = f"spot {p['spot']}" + (f", player {masked(card)}" if card else "")
    text = (f"{who}: its decisions follow {p['follows']} (evidence e^{ln:.1f} = {evidence:.3g}, "
            f"at most {math.exp(-max(ln, 0)):.2g} for an honest player over {p['decisions']} decisions; "
            f"{p['gain_milliantes'] / 1000:+.2f} antes over the honest optimum)")
    player = masked(card) if card else None
    return [Note("protection.alert", {**{k: p[k] for k in FIELDS}, "card": card, "player": player, "text": text},
                 round_id)]
