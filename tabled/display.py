"""What the dealer is told at settlement: pay or collect on every spot, then the progressive
payments in the order of 12.2 and 12.4 (docs/settlement.md "Spots")."""

from __future__ import annotations

from tabled.effects import Say
from tabled.game.settlement import Outcome, Settlement, money


def spot_line(line) -> str:
    """One spot in the dealer's words: each wager's action, then the net."""
    parts = []
    for w in line.wagers:
        if w.outcome is not Outcome.NONE:
            parts.append(f"{w.wager} {w.action}")
    net = line.net_cents
    verb = "PAY" if net > 0 else "COLLECT" if net < 0 else "EVEN"
    hand = f" [{line.hand.description}]" if line.hand else ""
    return f"spot {line.spot}{hand}: {verb} {money(abs(net))} ({'; '.join(parts)})"


def settlement_lines(st: Settlement) -> list[Say]:
    """Spot N (the dealer's immediate right) down to spot 1; then progressive awards in order."""
    says: list[Say] = []
    if st.void:
        says.append(Say(f"round void ({st.void}): return every wager", level="flag"))
    # the dealer's hand and whether it qualifies (9.1, 9.2) were announced at the reveal (8.6):
    # once is enough, so the settlement starts with the spots
    for line in st.spots:
        if any(w.outcome is not Outcome.NONE for w in line.wagers):
            says.append(Say(spot_line(line), line.spot, line.ante.rule))
    for i, a in enumerate(st.progressive.awards, 1):  # already in 12.2 / 12.4 order
        says.append(Say(f"progressive payment {i}: spot {a.spot} {a.category.label} {money(a.amount_cents)}"
                        f" (pool {money(a.from_pool_cents)}, operator {money(a.operator_topup_cents)})",
                        a.spot, a.rule))
    return says
