"""A report for people (text), for programs (JSON: integer cents, exact fractions as
``"numerator/denominator"`` beside a rounded figure) and for spreadsheets (CSV, one row per
period)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from datetime import datetime, tzinfo
from fractions import Fraction
from typing import Any

from tabled.game.settlement import money
from tabled.table.players import masked_setting

from .figures import WAGERS, ConfigChange, Progressive, Report, WagerMoney
from .integrity import ClockOffsets


def _cents_text(value: Fraction | int) -> str:
    """Whole cents for people: rounded half away from zero, as a dollar amount."""
    f = Fraction(value)
    whole = int(abs(f) + Fraction(1, 2)) * (1 if f >= 0 else -1)
    return money(whole)


def _exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)


def _percent(value: Fraction | None) -> str:
    return "-" if value is None else f"{float(value):.2%}"


def _ratio(value: Fraction | None, digits: int = 2) -> str:
    return "-" if value is None else f"{float(value):.{digits}f}"


def _when(us: int | None, zone: tzinfo) -> str:
    if us is None:
        return "-"
    return datetime.fromtimestamp(us / 1_000_000, zone).strftime("%Y-%m-%d %H:%M:%S")


def text(r: Report, zone: tzinfo) -> str:
    play, t, pr, ig = r.play, r.theory, r.progressive, r.integrity
    out = [f"{r.period.name}: {_when(r.period.start_us, zone)} to {_when(r.period.end_us, zone)} "
           f"({zone}){'' if r.table is None else f', table {r.table}'}, profile {r.profile or '-'}"]
    out.append(f"play: {play.rounds} rounds settled, {play.void_rounds} void, from {_when(play.first_us, zone)} to "
               f"{_when(play.last_us, zone)}; open {play.open_us / 3.6e9:.2f} h, "
               f"{_ratio(play.rounds_per_hour, 1)} rounds an hour; {play.hands} hands, "
               f"{_ratio(play.hands_per_round)} a round; folds (8.4) {play.folds} = "
               f"{_percent(play.per_hand(play.folds))} of hands, bets (8.5) {play.bets} = "
               f"{_percent(play.per_hand(play.bets))}")
    header, rows = money_rows(r)
    for row in [list(header), *rows]:
        out.append("".join(f"{cell:{align}{width}}" for cell, (align, width) in zip(row, MONEY_WIDTHS)))
    all_rounds = play.rounds + play.void_rounds
    per_round = Fraction(pr.wagers, all_rounds) if all_rounds else None
    out.append(f"progressive: {pr.wagers} wagers in {pr.rounds_with_wagers} rounds ({_ratio(per_round)} a round); "
               f"contributions {pr.contributions} = {money(pr.contributed_cents)} to the pool, "
               f"{money(pr.retained_cents)} retained; reversals {pr.reversals} = {money(pr.reversed_cents)}; "
               f"awards {pr.awards} = {money(pr.awards_cents)} ({money(pr.from_pool_cents)} from the pool, "
               f"{money(pr.operator_topup_cents)} by the operator)"
               + ("" if not pr.by_category else ": " + ", ".join(f"{k} {v}" for k, v in pr.by_category.items())))
    out.append(_pool_line(pr))
    out.append(f"  progressive win {money(r.money['progressive'].win_cents)}, theoretical "
               f"{_cents_text(pr.expected_win)} at each round's meter (11.7, 12.1; no deviation: one royal "
               "flush outweighs a day)")
    sd = t.std_dev_cents
    source = (f"the par sheet's {t.par_sheet_std_dev:.4f} antes a hand x root of the antes squared"
              if t.par_sheet_std_dev is not None else "exact, of the hands dealt and the decisions made")
    deviation = t.deviation
    out.append(f"against the mathematics ({t.hands} hands of ante and bet; {t.left_out} left out): actual win "
               f"{money(t.actual_cents)}, theoretical {_cents_text(t.expected)} (exactly {_exact(t.expected)} "
               f"cents), at optimal play {_cents_text(t.optimal)}")
    out.append(f"  standard deviation {_cents_text(Fraction(sd))} ({source}); actual - theoretical = "
               f"{'-' if deviation is None else f'{deviation:+.2f}'} standard deviations"
               + (f"  ** FLAG: more than {t.sigmas:g} **" if t.flagged else f" (flag beyond {t.sigmas:g})"))
    out.append("integrity:")
    out.append("  voids and irregularities: " + (", ".join(f"{k}: {v}" for k, v in sorted(ig.irregularities.items()))
                                                or "none"))
    if ig.faults:
        for f in ig.faults:
            out.append(f"  fault {f.equipment} ({f.rule}): {_when(f.raised_us, zone)} to {_when(f.cleared_us, zone)}, "
                       f"{f.minutes:.2f} minutes in the period: {f.reason}")
    else:
        out.append("  faults: none")
    out.append("  " + clock_line(ig.clock))
    for done in ig.installs:  # 25 CFR 547.12
        out.append(f"  software {done['what']} {done['result']}: tabled {done['version']} by {done['by']}, "
                   f"{done['started']} to {done['ended']}, manifest {str(done['manifest_sha256'] or 'none')[:16]}")
    for restart in ig.restarts:
        out.append(f"  restarted after an unclean stop (power lost or a crash) at {_when(restart['at_us'], zone)}: "
                   f"down {restart['down_s']} s, last record #{restart['last_seq']}")
    if ig.closures:
        for c in ig.closures:
            out.append(f"  table closed (16.8): announced {_when(c.announced_us, zone)}, closed from "
                       f"{_when(c.closes_us, zone)} to {_when(c.opened_us, zone) if c.opened_us else 'the end'}, "
                       f"{c.minutes:.2f} minutes in the period")
    else:
        out.append("  table closed (16.8): not in the period")
    for s in ig.stops:
        out.append(f"  14.13 period {_when(s.start_us, zone)} to {_when(s.end_us, zone)}: {s.approvals} inspector "
                   f"approvals, {s.rounds_offline} rounds with the progressive offline")
    if ig.mispays:
        mp = ig.mispays
        out.append(f"  payments checked by the board (9.3, 9.4): over {money(mp.over_cents)} (against the house), "
                   f"short {money(mp.short_cents)} (against the player), in rounds a supervisor closed over a "
                   f"mismatch; chips removed before settlement ended {mp.removed_early}")
        for name, d in sorted(mp.by_dealer.items()):
            out.append(f"    {name}: rounds checked {d.rounds_checked}, mispays caught (SETTLE DONE refused) "
                       f"{d.refused}, closed by a supervisor {d.overridden}, over {money(d.over_cents)}, "
                       f"short {money(d.short_cents)}")
    out.append("  key actions: " + ("; ".join(f"{k}: " + ", ".join(f"{a} {n}" for a, n in sorted(v.items()))
                                              for k, v in sorted(ig.keys.items())) or "none"))
    out.append("  refusals: " + ("; ".join(f"{k}: " + ", ".join(f"{a} {n}" for a, n in sorted(v.items()))
                                           for k, v in sorted(ig.refusals.items())) or "none"))
    if ig.people or ig.people_refused:  # a table with a staff list: who turned each key
        out.append("  key actions by person: " + ("; ".join(f"{k}: " + ", ".join(f"{a} {n}" for a, n in sorted(
            v.items())) for k, v in sorted(ig.people.items())) or "none"))
        out.append("  refusals by person: " + ("; ".join(f"{k}: " + ", ".join(f"{a} {n}" for a, n in sorted(
            v.items())) for k, v in sorted(ig.people_refused.items())) or "none"))
    out += _config_lines(r.configs, zone)
    for p in r.problems:
        out.append(f"PROBLEM: {p}")
    return "\n".join(out)


def clock_line(c: ClockOffsets) -> str:
    """The clock's offsets in the period (Mississippi 8-4.5), in one line."""
    if not c.measured:
        line = "clock: no offset measured in the period"
    else:
        line = (f"clock: {c.measured} offsets measured against {', '.join(sorted(c.against))}, "
                f"{c.least_ms:+d} to {c.most_ms:+d} ms, {c.beyond} beyond the bound")
    return line + ("; error conditions: " + "; ".join(c.conditions) if c.conditions else "")


def setting_text(key: str, value: Any) -> str:
    """A setting's value for people: cents as dollars, absent as such, the rest as JSON."""
    if value is None:
        return "(not set)"
    value = masked_setting(key, value)
    if key.endswith("_cents") and type(value) is int:  # a bool is not cents
        return money(value)
    return json.dumps(value, ensure_ascii=False)


def change_text(c: ConfigChange) -> str:
    """What a start changed, in one line."""
    if c.start.first:
        return "the journal's first configuration"
    if not c.start.changes:
        return "the same settings as the start before"
    return "; ".join(f"{d['key']} {setting_text(d['key'], d.get('before'))} -> {setting_text(d['key'], d.get('after'))}"
                     for d in c.start.changes)


def _config_lines(configs: Sequence[ConfigChange], zone: tzinfo) -> list[str]:
    if not configs:
        return ["configuration: no start in the period (the configuration of the start before it)"]
    out = ["configuration:"]
    for c in configs:
        between = f"after round {c.round_before or '-'}, before round {c.round_after or '-'}"
        out.append(f"  start at {_when(c.start.time_us, zone)} (record #{c.start.seq}, configuration "
                   f"{c.start.sha256[:16]}, {c.start.source}), {between}: "
                   + ("CHANGED " if c.start.changes and not c.start.first else "") + change_text(c))
    return out


def _config_data(c: ConfigChange) -> dict[str, Any]:
    return {"record": c.start.seq, "time_us": c.start.time_us, "sha256": c.start.sha256, "source": c.start.source,
            "first": c.start.first, "round_before": c.round_before, "round_after": c.round_after,
            "changes": [{**d, "before": masked_setting(d["key"], d.get("before")),
                         "after": masked_setting(d["key"], d.get("after"))} for d in c.start.changes]}


def _pool_line(pr: Progressive) -> str:
    if pr.pool_movement_cents is None or pr.pool_start_cents is None or pr.pool_end_cents is None:
        return "  pool: no settled round with the pool's figures in the period"
    other = pr.pool_movement_cents - pr.table_pool_cents
    return (f"  pool: {money(pr.pool_start_cents)} as the first round opened, {money(pr.pool_end_cents)} after the "
            f"last: moved {money(pr.pool_movement_cents)}; this table's contributions - reversals - awards from the "
            f"pool + reset funding ({money(pr.reset_funding_cents)}) = {money(pr.table_pool_cents)}"
            + ("" if other == 0 else f"; {money(other)} from elsewhere (other tables of a linked pool)"))


#: the text report's money table: each column's alignment and width (the hold column is set apart)
MONEY_WIDTHS = (("<", 12), (">", 8), (">", 16), (">", 12), (">", 16), (">", 16), (">", 14), (">", 14), (">", 16),
                (">", 10))
MONEY_COLUMNS = ("money", "wagers", "chips", "tokens", "paid", "collected", "returned", "tokens taken", "win", "hold")


def money_rows(r: Report) -> tuple[tuple[str, ...], list[list[str]]]:
    """The money per wager and in total, as the text report's table has it: header and rows."""
    return MONEY_COLUMNS, [[name, str(m.wagers), money(m.chips_cents), money(m.tokens_cents), money(m.paid_cents),
                            money(m.collected_cents), money(m.returned_cents), money(m.tokens_taken_cents),
                            money(m.win_cents), _percent(m.hold)]
                           for name, m in [*r.money.items(), ("total", r.total)]]


SHIFT_COLUMNS = ("shift", "rounds", "hands", "wagered", "win", "hold", "ante+bet win", "theoretical", "band",
                 "deviation")


def shift_rows(parts: Sequence[Report]) -> tuple[tuple[str, ...], list[list[str]]]:
    """A period's parts (a day's shifts) a row each: play, money, and the win against the mathematics,
    with the band of the flag's standard deviations around the theoretical win."""
    rows = []
    for r in parts:
        t, deviation = r.theory, r.theory.deviation
        band = "\u00b1" + _cents_text(Fraction(t.sigmas * t.std_dev_cents))
        day = f"gaming day {r.period.day} " if r.period.day else ""
        rows.append([r.period.name.removeprefix(day), str(r.play.rounds), str(r.play.hands),
                     money(r.total.wagered_cents), money(r.total.win_cents), _percent(r.total.hold),
                     money(t.actual_cents), _cents_text(t.expected), band,
                     "-" if deviation is None else f"{deviation:+.2f} sd" + (" FLAG" if t.flagged else "")])
    return SHIFT_COLUMNS, rows


def _money_data(m: WagerMoney) -> dict[str, Any]:
    return {"wagers": m.wagers, "chips_cents": m.chips_cents, "tokens_cents": m.tokens_cents,
            "wagered_cents": m.wagered_cents, "paid_cents": m.paid_cents, "collected_cents": m.collected_cents,
            "returned_cents": m.returned_cents, "tokens_taken_cents": m.tokens_taken_cents,
            "win_cents": m.win_cents, "hold": None if m.hold is None else float(m.hold),
            "hold_exact": None if m.hold is None else _exact(m.hold)}


def data(r: Report) -> dict[str, Any]:
    play, t, pr, ig = r.play, r.theory, r.progressive, r.integrity
    return {
        "period": {"name": r.period.name, "start_us": r.period.start_us, "end_us": r.period.end_us,
                   "gaming_day": r.period.day.isoformat() if r.period.day else None, "shift": r.period.shift},
        "table": r.table, "profile": r.profile,
        "play": {"rounds": play.rounds, "void_rounds": play.void_rounds, "open_seconds": play.open_us / 1e6,
                 "first_round_started_us": play.first_us, "last_round_ended_us": play.last_us,
                 "rounds_per_hour": None if play.rounds_per_hour is None else float(play.rounds_per_hour),
                 "hands": play.hands, "hands_per_round": None if play.hands_per_round is None
                 else float(play.hands_per_round), "folds": play.folds, "bets": play.bets,
                 "folds_per_hand": _number(play.per_hand(play.folds)),
                 "bets_per_hand": _number(play.per_hand(play.bets))},
        "money": {**{name: _money_data(r.money[name]) for name in WAGERS}, "total": _money_data(r.total)},
        "progressive": {"wagers": pr.wagers, "rounds_with_wagers": pr.rounds_with_wagers,
                        "contributions": pr.contributions, "contributed_cents": pr.contributed_cents,
                        "retained_cents": pr.retained_cents, "reversals": pr.reversals,
                        "reversed_cents": pr.reversed_cents, "awards": pr.awards, "awards_cents": pr.awards_cents,
                        "from_pool_cents": pr.from_pool_cents, "operator_topup_cents": pr.operator_topup_cents,
                        "awards_by_category": dict(pr.by_category),
                        "reset_funding_cents": pr.reset_funding_cents, "pool_start_cents": pr.pool_start_cents,
                        "pool_end_cents": pr.pool_end_cents, "pool_movement_cents": pr.pool_movement_cents,
                        "pool_movement_by_this_table_cents": pr.table_pool_cents,
                        "wagers_by_round": dict(pr.by_round),
                        "theoretical_win_cents": _exact(pr.expected_win)},
        "theoretical": {"hands": t.hands, "left_out": t.left_out, "actual_win_cents": t.actual_cents,
                        "theoretical_win_cents": _exact(t.expected), "theoretical_win": float(t.expected),
                        "optimal_play_win_cents": _exact(t.optimal), "optimal_play_win": float(t.optimal),
                        "std_dev_cents": t.std_dev_cents, "std_dev_source": "par sheet" if t.par_sheet_std_dev
                        is not None else "hands", "par_sheet_std_dev_antes": t.par_sheet_std_dev,
                        "deviation": t.deviation, "flag_beyond": t.sigmas,
                        "flagged": t.flagged},
        "integrity": {"irregularities": ig.irregularities, "void_rounds": ig.void_rounds,
                      "faults": [{"equipment": f.equipment, "rule": f.rule, "reason": f.reason,
                                  "raised_us": f.raised_us, "cleared_us": f.cleared_us, "minutes": f.minutes}
                                 for f in ig.faults],
                      "fault_minutes": ig.fault_minutes, "keys": ig.keys, "refusals": ig.refusals,
                      "closures_16_8": [{"announced_us": c.announced_us, "closes_us": c.closes_us,
                                         "opened_us": c.opened_us, "minutes": c.minutes} for c in ig.closures],
                      "people": ig.people, "people_refusals": ig.people_refused,
                      "installs": ig.installs, "restarts_after_unclean_stops": ig.restarts,
                      "clock": {"measured": ig.clock.measured, "least_offset_ms": ig.clock.least_ms,
                                "most_offset_ms": ig.clock.most_ms, "beyond_bound": ig.clock.beyond,
                                "against": sorted(ig.clock.against), "error_conditions": ig.clock.conditions},
                      "mispays": {"over_cents": ig.mispays.over_cents, "short_cents": ig.mispays.short_cents,
                                  "removed_early": ig.mispays.removed_early,
                                  "by_dealer": {k: vars(v) for k, v in ig.mispays.by_dealer.items()}},
                      "stops_14_13": [{"start_us": s.start_us, "end_us": s.end_us, "approvals": s.approvals,
                                       "rounds_offline": s.rounds_offline} for s in ig.stops]},
        "configuration_starts": [_config_data(c) for c in r.configs],
        "problems": r.problems,
        "rounds": r.round_ids,
    }


CSV_COLUMNS = ["period", "start_us", "end_us", "rounds", "void_rounds", "rounds_per_hour", "hands", "folds", "bets",
               *[f"{w}_{f}" for w in (*WAGERS, "total") for f in ("wagers", "chips_cents", "tokens_cents",
                                                                     "paid_cents", "collected_cents",
                                                                     "returned_cents", "win_cents", "hold")],
               "progressive_rounds_with_wagers", "progressive_contributed_cents", "progressive_reversed_cents",
               "progressive_awards_cents", "pool_start_cents", "pool_end_cents", "pool_movement_cents",
               "theoretical_hands", "actual_win_cents", "theoretical_win_cents", "optimal_play_win_cents",
               "std_dev_cents", "deviation", "flagged", "irregularities", "fault_minutes", "refusals",
               "closed_minutes", "configuration_starts", "settings_changed"]


def csv_text(reports: Sequence[Report]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in reports:
        d = data(r)
        row: list[Any] = [r.period.name, r.period.start_us, r.period.end_us, r.play.rounds, r.play.void_rounds,
                          d["play"]["rounds_per_hour"], r.play.hands, r.play.folds, r.play.bets]
        for w in (*WAGERS, "total"):
            m = d["money"][w]
            row += [m["wagers"], m["chips_cents"], m["tokens_cents"], m["paid_cents"], m["collected_cents"],
                    m["returned_cents"], m["win_cents"], m["hold"]]
        t = d["theoretical"]
        pr = r.progressive
        row += [pr.rounds_with_wagers, pr.contributed_cents, pr.reversed_cents, pr.awards_cents, pr.pool_start_cents,
                pr.pool_end_cents, pr.pool_movement_cents,
                t["hands"], t["actual_win_cents"], t["theoretical_win_cents"], t["optimal_play_win_cents"],
                t["std_dev_cents"], t["deviation"], t["flagged"], sum(r.integrity.irregularities.values()),
                r.integrity.fault_minutes, sum(sum(v.values()) for v in r.integrity.refusals.values()),
                sum(c.minutes for c in r.integrity.closures), len(r.configs),
                " ".join(sorted({str(change["key"]) for c in r.configs if not c.start.first
                                 for change in c.start.changes}))]
        writer.writerow(row)
    return buffer.getvalue()


def _number(value: Fraction | None) -> float | None:
    return None if value is None else float(value)
