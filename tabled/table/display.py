"""What the dealer is told at settlement: pay or collect on every spot, then the progressive
payments in the order of 12.2 and 12.4 (docs/settlement.md "Spots").

Each instruction is given once, in the rules' words. A spot whose wagers were dealt with when it
happened (a fold, 8.4; a concession, 9.7; an absent player, 14.12; a dead hand, NZ 14.1; a hand of
the wrong size, 14.7) was told then and is not told again here: a dealer must never be asked to
collect or pay twice. When the dealer does not qualify the bet is *void* (9.2), never "stand off"
(which is 9.4.1.3's tie); a progressive wager stays in the drop it went to at "no more bets".
"""

from __future__ import annotations

from tabled.table.effects import Say
from tabled.game.round_facts import SpotStatus
from tabled.game.settlement import Outcome, Settlement, SpotSettlement, money
from tabled.game.settlement_text import wager_words

#: spots whose wagers the dealer settled when it happened, on the line said then
TOLD_WHEN_IT_HAPPENED = frozenset({SpotStatus.FOLDED, SpotStatus.CONCEDED, SpotStatus.ABSENT, SpotStatus.DEAD,
                                   SpotStatus.VOID, SpotStatus.FORFEITED})


def spot_line(line: SpotSettlement) -> str:
    """One spot in the dealer's words: the net, then each wager."""
    parts = [wager_words(w) for w in line.wagers if w.outcome is not Outcome.NONE]
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
        if line.status in TOLD_WHEN_IT_HAPPENED:
            continue
        if any(w.outcome is not Outcome.NONE for w in line.wagers):
            says.append(Say(spot_line(line), line.spot, line.ante.rule))
    for i, a in enumerate(st.progressive.awards, 1):  # already in 12.2 / 12.4 order
        says.append(Say(f"progressive payment {i}: spot {a.spot} {a.category.label} {money(a.amount_cents)}"
                        f" (pool {money(a.from_pool_cents)}, operator {money(a.operator_topup_cents)})",
                        a.spot, a.rule))
    return says
