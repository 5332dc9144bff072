"""Par sheets and simulation results as text for people and as plain data for programs.

Money is shown in whole cents. An exact amount that falls between cents (the progressive's
break-even meter) is rounded half up to the nearest cent for people and given exactly as well,
in the text and in the JSON (``"303640000/19"``: numerator/denominator, in cents).
"""

from __future__ import annotations

import math
from fractions import Fraction

from tabled.game.profiles import Profile
from tabled.game.ranking import Category
from tabled.game.settlement import money

from . import analysis, counting
from .analysis import Analysis, ParSheet
from .progressive import ProgressiveMath, progressive_math
from .simulator import OUTCOME_NAMES, SimulationResult, exact_progressive_return
from .strategy import STRATEGIES


def _odds_line(profile: Profile) -> str:
    return ", ".join(f"{c.label} {profile.bet_odds[c]}" for c in reversed(Category))


def par_sheet_text(sheet: ParSheet) -> list[str]:
    lines = [f"{'outcome':<32}{'pays':>6}{'deals':>24}{'probability':>14}{'return':>11}"]
    for o in sheet.outcomes:
        lines.append(f"{o.name:<32}{o.units:>+6}{o.deals:>24,}{o.probability:>14.8f}"
                     f"{o.return_contribution:>+11.6f}")
    lines.append(f"{'total (units of ante)':<32}{'':>6}{sheet.total_units:>24,}{1:>14.8f}"
                 f"{sheet.total_units / sheet.deals:>+11.6f}")
    lines.append(f"house edge per ante {sheet.house_edge:.4%}; element of risk (per unit wagered) "
                 f"{sheet.element_of_risk:.4%}; raise rate {sheet.raise_rate:.4%}; "
                 f"standard deviation {sheet.std_dev:.4f} antes")
    return lines


def nearest_cent(cents: Fraction) -> int:
    """An exact amount of cents rounded half up to a whole cent (a meter shows whole cents)."""
    return math.floor(cents + Fraction(1, 2))


def _meter_points(pm: ProgressiveMath, reset_cents: int) -> list[int]:
    points = {reset_cents, 1_000_000, 5_000_000, 10_000_000, 20_000_000}
    even = pm.break_even_meter_cents()
    if even is not None:
        points.add(nearest_cent(even))
    return sorted(p for p in points if p >= 0)


def progressive_section(profile: Profile) -> tuple[list[str], dict]:
    pm = progressive_math(profile)
    s = profile.progressive_schedule
    even = pm.break_even_meter_cents()
    lines = [f"Progressive wager {money(profile.progressive_wager_cents)} (11.3): royal flush "
             f"max({money(s.royal_minimum_cents)}, {s.royal_pool_percent}% of the meter), straight "
             f"flush max({money(s.straight_flush_minimum_cents)}, {s.straight_flush_pool_percent}%), "
             + ", ".join(f"{c.label} {money(v)}" for c, v in s.fixed_awards_cents.items()),
             "return per wager (the wager is not returned on a win; one winner per round):"]
    table = []
    for meter in _meter_points(pm, s.reset_cents):
        r = pm.return_at(meter)
        lines.append(f"  meter {money(meter):>15}: {float(r):+.4%}")
        table.append({"meter_cents": meter, "return": float(r)})
    if even is None:
        lines.append("break-even meter: none (no share of the meter is paid)")
    else:
        lines.append(f"break-even meter: {money(nearest_cent(even))} (exactly {even} cents)")
    data = {
        "wager_cents": profile.progressive_wager_cents,
        "break_even_meter_cents": None if even is None else nearest_cent(even),
        "break_even_meter_cents_exact": None if even is None else str(even),
        "return_at_meter": table,
        "return_slope_per_meter_cent": float(pm.return_at(Fraction(10**12) + 1) - pm.return_at(10**12)),
    }
    return lines, data


def analysis_text(profile: Profile, result: Analysis, detail: str, qualifying: int) -> str:
    sheet = result.sheets[detail]
    out = [
        f"Caribbean Stud Poker par sheet: profile {profile.name} ({profile.description})",
        f"bet odds (10.1, to 1): {_odds_line(profile)}; ante {profile.ante_odds} to 1",
        f"deals: {analysis.DEALS:,} = {analysis.HANDS:,} player hands x {analysis.UP_CARDS} up cards "
        f"x {counting.DEALER_HANDS_PER_UP_CARD:,} dealer hole-card sets",
        f"dealer qualifies (9.1, ace-king or better) in {qualifying:,} of {analysis.HANDS:,} hands",
        "",
        f"{detail} strategy: {STRATEGIES[detail]}",
        *par_sheet_text(sheet),
        "",
        f"{'strategy':<14}{'total units':>22}{'house edge':>12}{'element of risk':>17}"
        f"{'raise rate':>12}{'std dev':>9}",
    ]
    for name, s in result.sheets.items():
        out.append(f"{name:<14}{s.total_units:>22,}{s.house_edge:>12.4%}{s.element_of_risk:>17.4%}"
                   f"{s.raise_rate:>12.4%}{s.std_dev:>9.4f}")
    if profile.max_bet_payout_cents is not None:
        out.append(f"(the maximum bet payout {money(profile.max_bet_payout_cents)} (10.2) depends on "
                   "the ante's size and is not in these figures)")
    out.append("")
    out.extend(progressive_section(profile)[0])
    return "\n".join(out)


def analysis_data(profile: Profile, result: Analysis, qualifying: int) -> dict:
    return {
        "profile": profile.name,
        "bet_odds": {c.name.lower(): profile.bet_odds[c] for c in Category},
        "ante_odds": profile.ante_odds,
        "deals": analysis.DEALS,
        "dealer_qualifying_hands": qualifying,
        "hands": analysis.HANDS,
        "strategies": {name: s.as_dict() for name, s in result.sheets.items()},
        "progressive": progressive_section(profile)[1],
    }


def simulation_text(profile: Profile, sim: SimulationResult, exact: ParSheet) -> str:
    low, high = sim.ci95()
    out = [
        f"simulated {sim.rounds:,} rounds x {sim.spots} spots = {sim.hands:,} hands, profile "
        f"{profile.name}, strategy {sim.strategy}, seed {sim.seed}, ante {money(sim.ante_cents)}",
        f"return per ante: {sim.return_per_ante:+.5f}  (95% CI {low:+.5f} .. {high:+.5f}, "
        f"standard error {sim.standard_error:.5f}); exact {-exact.house_edge:+.5f}  "
        f"({(sim.return_per_ante + exact.house_edge) / sim.standard_error:+.2f} standard errors)",
        "",
        f"{'outcome':<32}{'simulated':>12}{'exact':>12}",
    ]
    exact_by_name = {o.name: o.probability for o in exact.outcomes}
    for code in [*reversed(range(len(Category))), 10, 11, 12, 13]:
        name = OUTCOME_NAMES[code]
        out.append(f"{name:<32}{sim.outcome_counts[code] / sim.hands:>12.6f}{exact_by_name[name]:>12.6f}")
    if sim.progressive_cents:
        ex = exact_progressive_return(profile, sim.pool_cents)
        p_low = sim.progressive_return - 1.96 * sim.progressive_standard_error
        p_high = sim.progressive_return + 1.96 * sim.progressive_standard_error
        out += ["", f"progressive return per wager at meter {money(sim.pool_cents)}: "
                f"{sim.progressive_return:+.4f} (95% CI {p_low:+.4f} .. {p_high:+.4f}); "
                f"exact {ex:+.4f} (rounds with a straight or royal flush settled by the game "
                f"core: {sim.core_rounds})"]
    return "\n".join(out)


def simulation_data(profile: Profile, sim: SimulationResult, exact: ParSheet) -> dict:
    exact_by_name = {o.name: o.probability for o in exact.outcomes}
    return {
        "profile": profile.name, "strategy": sim.strategy, "seed": sim.seed, "rounds": sim.rounds,
        "spots": sim.spots, "hands": sim.hands, "ante_cents": sim.ante_cents,
        "net_cents": sim.net_cents, "return_per_ante": sim.return_per_ante,
        "standard_error": sim.standard_error, "ci95": list(sim.ci95()),
        "exact_return_per_ante": -exact.house_edge,
        "outcomes": {OUTCOME_NAMES[c]: {"hands": int(sim.outcome_counts[c]),
                                        "frequency": sim.outcome_counts[c] / sim.hands,
                                        "exact": exact_by_name[OUTCOME_NAMES[c]]}
                     for c in range(14)},
        "progressive": None if not sim.progressive_cents else {
            "wager_cents": sim.progressive_cents, "meter_cents": sim.pool_cents,
            "net_cents": sim.progressive_net_cents, "return": sim.progressive_return,
            "standard_error": sim.progressive_standard_error,
            "exact_return": exact_progressive_return(profile, sim.pool_cents),
            "rounds_settled_by_core": sim.core_rounds,
        },
    }


def plot_running(sim: SimulationResult, exact: ParSheet, path: str) -> None:
    """The running return per ante against the exact value (matplotlib, the ``plot`` extra)."""
    try:
        import matplotlib
    except ImportError:
        raise ValueError("--plot needs matplotlib: pip install 'tabled[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hands = [h for h, _ in sim.running]
    values = [v for _, v in sim.running]
    exact_value = -exact.house_edge
    # 95% band around the exact value: the final standard error scaled to each point's hand count
    half = [1.96 * sim.standard_error * (sim.hands / h) ** 0.5 for h in hands]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.fill_between(hands, [exact_value - x for x in half], [exact_value + x for x in half],
                    color="0.85", label="95% of runs fall here")
    ax.plot(hands, values, label="simulated return per ante")
    ax.axhline(exact_value, color="black", linestyle="--", label=f"exact {exact_value:+.5f}")
    ax.set_xscale("log")
    ax.set_xlabel("hands played")
    ax.set_ylabel("return per ante")
    ax.set_title(f"Caribbean Stud, {sim.profile}, strategy {sim.strategy}, seed {sim.seed}")
    ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(path)
    finally:
        plt.close(fig)
