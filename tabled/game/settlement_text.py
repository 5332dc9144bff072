"""A round's settlement as the table ``tabled settle`` prints (rule 16.11): every wager on every
spot with the rule behind it, in payment order, then the progressive awards and the house's totals.
One text for the command, ``tabled recall`` and the pit's view, so they cannot differ; each wager in
the words the dealer reads on the screen and in ``tabled run`` (:func:`wager_words`)."""

from __future__ import annotations

from .cards import hand_text
from .settlement import Outcome, Settlement, WagerSettlement, money


def wager_words(w: WagerSettlement) -> str:
    """One wager in the dealer's words (the amounts are the settlement's)."""
    if w.outcome is Outcome.TAKEN:
        words = f"{w.wager} wager kept"
    elif w.outcome is Outcome.PAID:
        words = f"{w.wager} wins: pay {money(w.winnings_cents)}" + (" (max payout, 10.2)" if w.capped else "")
    elif w.outcome is Outcome.COLLECTED:
        words = f"{w.wager} loses: collect {money(w.settled_cents or w.placed.cents)}"
    elif w.outcome is Outcome.RETURNED:
        words = f"{w.wager}: return {money(w.returned_cents)}"
    else:  # stand off (9.4.1.3), void (9.2): the wager stays with the player
        words = f"{w.wager} {w.outcome}"
    excess = w.placed.cents - w.settled_cents
    if w.outcome in (Outcome.PAID, Outcome.COLLECTED) and excess > 0:
        words += f", return the excess {money(excess)}"
    if w.tokens_forfeited_cents:
        words += f", take the token {money(w.tokens_forfeited_cents)}"
    return words


def _signed(cents: int) -> str:
    return ("+" if cents > 0 else "") + money(cents)


def render(st: Settlement) -> str:
    out: list[str] = [f"Settlement (profile {st.profile})"]
    if st.void:
        out.append(f"ROUND VOID ({st.void}): every wager returned, progressive wagers paid back")
    if st.dealer_hand is not None:
        q = "qualifies (9.1)" if st.dealer_qualifies else "does not qualify (9.1): \"no hand\", bets void (9.2)"
        out.append(f"Dealer: {hand_text(st.dealer_cards)}  {st.dealer_hand}  -> {q}")
    out.append("Spots in payment order, spot N (dealer's immediate right) to spot 1 (12.2):")
    for s in st.spots:
        cards = hand_text(s.cards) if s.cards else "no cards"
        hand = f"  {s.hand}" if s.hand else ""
        out.append(f"spot {s.spot}  {s.status}  {cards}{hand}" + (f"  [{s.note}]" if s.note else ""))
        for w in s.wagers:
            if w.outcome.value == "none":
                continue
            out.append(f"    {w.wager:<12} {wager_words(w):<52} {_signed(w.net_cents):>13}   {w.rule}")
        if s.award:
            a = s.award
            text = f"{a.category.label} {money(a.amount_cents)}, on top of ante and bet (11.8)"
            out.append(f"    {'jackpot':<12} {text:<52} {_signed(a.amount_cents):>13}   {a.rule}")
        if s.contribution_reversed:
            out.append("    (progressive contribution reversed)")
        verdict = "pay" if s.total_cents > 0 else "collect" if s.total_cents < 0 else "nothing changes hands"
        out.append(f"    {'TOTAL':<12} {verdict:<52} {_signed(s.total_cents):>13}")
    pr = st.progressive
    out.append(f"Progressive pool before awards: {money(pr.pool_before_cents)}")
    if pr.awards:
        out.append("Progressive awards in payment order (12.2, 12.4):")
        for i, a in enumerate(pr.awards, 1):
            out.append(f"  {i}. spot {a.spot}  {a.category.label:<15} {money(a.amount_cents):>14}"
                       f"  from pool {money(a.from_pool_cents)}, operator {money(a.operator_topup_cents)}  ({a.rule})")
    out.append(f"Progressive pool after: {money(pr.pool_after_cents)}"
               + (f" (reset, {money(pr.reset_funding_cents)} put back)" if pr.reset else ""))
    out.append(f"House pays {money(st.house_pays_cents)}, collects {money(st.house_collects_cents)}: "
               f"net {_signed(st.net_cents)} to players")
    return "\n".join(out)


__all__ = ["render", "wager_words"]
