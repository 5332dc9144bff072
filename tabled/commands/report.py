"""``tabled report shift|day|range``: the table's figures for a shift, a gaming day or any span
of time, from the journal alone, set against the exact mathematics (docs/reports.md).

The gaming day starts at ``--day-start`` in the casino's time zone ``--tz`` and is cut into shifts
at ``--shifts``; a round belongs to the shift in which it started. ``shift`` and ``day`` report the
shift (or day) of the journal's last record, or every one from ``--from`` to ``--to`` (gaming
days, inclusive); ``range`` reports from ``--from`` to ``--to`` (local date-times, the end
excluded). Output: text, ``--json`` (one object per line per period), ``--csv`` (a row per
period) or ``--pdf FILE`` (the figures and charts laid out for filing and signing, with who printed it
and when; the text is printed too).
"""

from __future__ import annotations

import argparse
import getpass
import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tabled.commands._arguments import UserError, whole_number
from tabled.commands.audit import add_journal_arguments
from tabled.daemon.config import ReportsConfig, find_config, load_config
from tabled.journal.store import Journal, JournalError, Record, storage_error
from tabled.game.profiles import Profile
from tabled.math.paytable import Paytable
from tabled.profiles import load_profile
from tabled.reports.figures import Report, report
from tabled.reports.periods import Calendar, CalendarError, Period, parse_clock, range_period
from tabled.reports.render import csv_text, data, text
from tabled.reports.rounds import REPORT_KINDS, gather

NAME = "report"
HELP = "shift, day or range reports from the journal: play, money, win against the mathematics, integrity"

#: how far back before a period's start to look for the table free of faults (below)
LEAD_US = 24 * 3_600_000_000
#: records read after a period's end: the rounds started in it finish there
TAIL_US = 6 * 3_600_000_000
CHUNK = 20_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("period", choices=("shift", "day", "range", "shuffles", "protection", "players"),
                        help="shift or day (the last one in the journal, or each from --from to --to), range, "
                             "shuffles (the shuffling device's randomness over the whole journal, 15.1), "
                             "protection (whether any player's decisions follow the dealer's hole cards or "
                             "other spots' hands, over the whole journal or --from/--to), "
                             "or players (each player's rated sessions, docs/ratings.md)")
    add_journal_arguments(parser)
    parser.add_argument("--from", dest="start", metavar="WHEN",
                        help="shift/day: the first gaming day (YYYY-MM-DD); range: the start (YYYY-MM-DDTHH:MM)")
    parser.add_argument("--to", dest="end", metavar="WHEN",
                        help="shift/day: the last gaming day (default: --from); range: the end, excluded")
    parser.add_argument("--shift", metavar="N", type=whole_number(1),
                        help="shift: only shift N of each day (1 is the first)")
    parser.add_argument("--table", metavar="ID", help="only the rounds of table ID (round ids ID-NNNNNN)")
    parser.add_argument("--card", metavar="NUMBER", help="players: only the sessions of this player card")
    parser.add_argument("--whole-cards", action="store_true",
                        help="players --json/--csv: the card numbers whole, for the casino's management system "
                             "(default: masked to their last four, as everywhere outside the journal)")
    # the defaults are the config's [reports] section when the journal is the config's, else these
    parser.add_argument("--tz", metavar="ZONE", help="the casino's time zone (default: the config's, else UTC)")
    parser.add_argument("--day-start", metavar="HH:MM", help="the gaming day's start (default: the config's, "
                                                             "else 06:00)")
    parser.add_argument("--shifts", metavar="HH:MM,...",
                        help="the shifts' start times (default: the config's, else three of 8 hours from the "
                             "day's start)")
    parser.add_argument("--sigmas", type=float, metavar="K",
                        help="flag when actual and theoretical win differ by more than K standard deviations "
                             "(default: the config's, else 3)")
    parser.add_argument("--par-sheet", action="store_true",
                        help="take the standard deviation from the optimal strategy's par sheet (a few seconds "
                             "more) rather than from the hands dealt")
    parser.add_argument("--profile", metavar="FILE",
                        help="the profile file, for rounds settled under a profile that is not shipped")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="one JSON object per period per line")
    out.add_argument("--csv", action="store_true", help="one CSV row per period")
    out.add_argument("--pdf", metavar="FILE", help="the figures and charts for filing and signing to FILE "
                                                   "(matplotlib, the plot extra); text to stdout")
    parser.add_argument("--printed-by", metavar="NAME",
                        help="the name the PDF says printed it (default: the user running the command)")


# -- options --------------------------------------------------------------------------------------

def with_config_defaults(args: argparse.Namespace) -> tuple[argparse.Namespace, Path]:
    """The journal's path, and the calendar options not given taken from the config's ``[reports]``
    when the journal is the config's (no ``--journal``), else from :class:`ReportsConfig`'s defaults."""
    if args.journal:
        path, own = Path(args.journal), ReportsConfig()
    else:
        cfg = load_config(find_config(args.config))
        path, own = cfg.journal.path, cfg.reports
    filled = argparse.Namespace(**vars(args))
    filled.tz = args.tz if args.tz is not None else own.time_zone
    filled.day_start = args.day_start if args.day_start is not None else own.day_start
    filled.shifts = args.shifts if args.shifts is not None else (",".join(own.shifts) or None)
    filled.sigmas = args.sigmas if args.sigmas is not None else own.flag_sigmas
    return filled, path


def calendar(args: argparse.Namespace) -> Calendar:
    try:
        zone = ZoneInfo(args.tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise UserError(f"--tz {args.tz!r}: no such time zone (a name like Australia/Sydney or UTC)") from None
    try:
        day_start = parse_clock(args.day_start, "--day-start")
        shifts = () if args.shifts is None else tuple(parse_clock(t.strip(), "--shifts")
                                                      for t in args.shifts.split(","))
        return Calendar.of(zone, day_start, shifts)
    except CalendarError as exc:
        raise UserError(str(exc)) from None


def _date(text: str, option: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise UserError(f"{option} {text!r}: not a gaming day (YYYY-MM-DD)") from None


def _moment_us(text: str, option: str, cal: Calendar) -> int:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise UserError(f"{option} {text!r}: not a date and time (YYYY-MM-DDTHH:MM, in --tz)") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=cal.zone)
    return (when.astimezone(UTC) - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)


def periods(args: argparse.Namespace, cal: Calendar, last_us: int | None) -> list[Period]:
    if args.shift is not None and args.period != "shift":
        raise UserError("--shift N goes with `tabled report shift`")
    if args.sigmas <= 0:
        raise UserError(f"--sigmas {args.sigmas:g}: a number of standard deviations above 0")
    if args.period == "range":
        if not args.start or not args.end:
            raise UserError("`tabled report range` needs --from and --to")
        try:
            return [range_period(_moment_us(args.start, "--from", cal), _moment_us(args.end, "--to", cal),
                                 f"{args.start} to {args.end}")]
        except CalendarError as exc:
            raise UserError(f"--from {args.start} --to {args.end}: {exc}") from None
    if args.start is None:
        if args.end is not None:
            raise UserError("--to goes with --from")
        if last_us is None:
            return []
        if args.period == "day":
            return [cal.day(cal.gaming_day(last_us))]
        return [cal.shift(cal.gaming_day(last_us), args.shift) if args.shift else cal.shift_of(last_us)]
    first = _date(args.start, "--from")
    last = _date(args.end, "--to") if args.end else first
    try:
        days = cal.days(first, last)
        if args.period == "day":
            return [cal.day(d) for d in days]
        return [cal.shift(d, args.shift) for d in days] if args.shift else [s for d in days for s in cal.shifts(d)]
    except CalendarError as exc:
        raise UserError(str(exc)) from None


# -- the journal -----------------------------------------------------------------------------------

def _first_at_or_after(journal: Journal, head: int, time_us: int) -> int:
    """The number of the first record written at ``time_us`` or later (records are in time order)."""
    low, high = 1, head + 1
    while low < high:
        mid = (low + high) // 2
        record = journal.record(mid)
        if record is not None and record.time_us >= time_us:
            high = mid
        else:
            low = mid + 1
    return low


def _free_of_faults_before(journal: Journal, seq: int, earliest_us: int) -> int:
    """The number of the last ``round.started`` before record ``seq`` with the progressive online: a
    round starts only when no fault stands or an inspector has approved play with the progressive
    offline (14.13), so no fault stood then, and reading from there finds every fault standing at
    ``seq``. Looked for back to ``earliest_us``; the first record from then when there is none."""
    while seq > 1:
        chunk = journal.records_between(max(1, seq - 1000), seq - 1)
        for r in reversed(chunk):
            if r.time_us < earliest_us:
                return r.seq + 1
            if r.kind == "round.started" and r.payload.get("progressive_offline") is False:
                return r.seq
        seq = chunk[0].seq if chunk else 1
    return 1


def _records(journal: Journal, start_us: int, end_us: int) -> Iterator[Record]:
    head = journal.head[0]
    seq = _free_of_faults_before(journal, _first_at_or_after(journal, head, start_us), start_us - LEAD_US)
    while seq <= head:
        chunk = journal.records_between(seq, min(seq + CHUNK - 1, head), REPORT_KINDS)
        for r in chunk:
            if r.time_us >= end_us + TAIL_US:
                return
            yield r
        seq += CHUNK


def read_reports(args: argparse.Namespace, path: Path, *, with_shifts: bool = False
                 ) -> tuple[Calendar, list[Report], list[list[Report]]]:
    """The reports of the periods asked for and, ``with_shifts``, each gaming day's shifts."""
    cal = calendar(args)
    profile_of = _profiles(args.profile)
    par = _par_sheet_std_dev if args.par_sheet else None
    try:
        with Journal.open(path, readonly=True, verify=False) as journal:
            head = journal.head[0]
            last = journal.record(head) if head else None
            wanted = periods(args, cal, last.time_us if last else None)
            if not wanted:
                return cal, [], []
            start, end = min(p.start_us for p in wanted), max(p.end_us for p in wanted)
            gathered = gather(_records(journal, start, end))
    except sqlite3.Error as exc:
        raise storage_error(path, exc) from None
    except JournalError as exc:
        problem = str(exc)
        raise UserError(problem if problem.startswith(str(path)) else f"{path}: {problem}") from None
    if args.table is not None and gathered.rounds:
        tables = sorted({rid.rsplit("-", 1)[0] for rid in gathered.rounds})
        if args.table not in tables:
            raise UserError(f"--table {args.table}: the journal {path} holds rounds of table "
                            f"{', '.join(tables)} in that time")
    def of(p: Period) -> Report:
        return report(p, gathered, profile_of, table=args.table, sigmas=args.sigmas, par_sheet_std_dev=par)

    days = [cal.shifts(p.day) if with_shifts and p.day is not None and p.shift is None else [] for p in wanted]
    return cal, [of(p) for p in wanted], [[of(s) for s in shifts] for shifts in days]


def _profiles(own: str | None):
    @cache
    def profile_of(name: str) -> Profile:
        if own is not None:
            profile = load_profile(own)
            if profile.name == name:
                return profile
        try:
            return load_profile(name)
        except ValueError:
            raise UserError(f"rounds were settled under profile {name!r}, which is not shipped: "
                            "name its file with --profile FILE") from None
    return profile_of


def _par_sheet_std_dev(profile: Profile) -> float:
    """The optimal strategy's standard deviation per hand, in antes, for the profile's paytable."""
    return _optimal_std_dev(Paytable.from_profile(profile))


@cache
def _optimal_std_dev(paytable: Paytable) -> float:
    from tabled.math.analysis import par_sheet

    return par_sheet(paytable, "optimal").std_dev


# -- the command -----------------------------------------------------------------------------------

def _check_pdf_path(pdf: str) -> None:
    """A PDF that could not be written is refused before any work, not after the report."""
    folder = Path(pdf).resolve().parent
    if not folder.is_dir():
        raise UserError(f"--pdf {pdf}: no folder {folder} to write it in")
    if Path(pdf).is_dir():
        raise UserError(f"--pdf {pdf}: is a folder; name the PDF file to write")


def run(args: argparse.Namespace) -> int:
    if args.period == "shuffles":
        return _shuffles(args)
    if args.period == "protection":
        return _protection(args)
    if args.period == "players":
        return _players(args)
    if args.card is not None:
        raise UserError("--card goes with `tabled report players`")
    if args.whole_cards:
        raise UserError("--whole-cards goes with `tabled report players --json` or `--csv`")
    args, path = with_config_defaults(args)
    if args.printed_by is not None and not args.pdf:
        raise UserError("--printed-by names who printed the PDF: it goes with --pdf FILE")
    if args.pdf:
        _check_pdf_path(args.pdf)
    try:
        cal, reports, shifts = read_reports(args, path, with_shifts=bool(args.pdf))
    except CalendarError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        for r in reports:
            print(json.dumps(data(r), ensure_ascii=False))
        return 0
    if args.csv:
        print(csv_text(reports), end="")
        return 0
    if not reports:
        print(f"journal {path}: no records yet")
        return 0
    print("\n\n".join(text(r, cal.zone) for r in reports), flush=True)
    if args.pdf:  # the text is out before the PDF is drawn
        from tabled.reports.chart import Printed, write_pdf

        printed = Printed(by=args.printed_by or getpass.getuser(), at=datetime.now(UTC))
        pages = write_pdf(reports, cal.zone, args.pdf, printed, shifts)
        print(f"\nfor filing: {args.pdf} ({pages} pages)")
    return 0


def shuffle_span(args: argparse.Namespace, cal: Calendar) -> tuple[int | None, int | None, str]:
    """The span ``tabled report shuffles`` judges: the whole journal; gaming days --from [--to]
    (YYYY-MM-DD); or --from --to as date-times (YYYY-MM-DDTHH:MM, the end excluded)."""
    if args.start is None:
        if args.end is not None:
            raise UserError("--to goes with --from")
        return None, None, "the whole journal"
    if "T" in args.start:
        if not args.end:
            raise UserError("shuffles --from a date-time needs --to (or give gaming days: --from YYYY-MM-DD)")
        start, end = _moment_us(args.start, "--from", cal), _moment_us(args.end, "--to", cal)
        if end <= start:
            raise UserError(f"--from {args.start} --to {args.end}: the end is not after the start")
        return start, end, f"{args.start} to {args.end}"
    first = _date(args.start, "--from")
    last = _date(args.end, "--to") if args.end else first
    try:
        days = cal.days(first, last)
    except CalendarError as exc:
        raise UserError(str(exc)) from None
    name = f"gaming day {first}" + ("" if last == first else f" to {last}")
    return cal.day(days[0]).start_us, cal.day(days[-1]).end_us, name


def _shuffles(args: argparse.Namespace) -> int:
    """``tabled report shuffles``: each deck's shuffles judged again, and the table's alarms."""
    from tabled.reports.shuffles import shuffles, shuffles_data, shuffles_text
    for option, given in (("--shift", args.shift is not None), ("--table", args.table is not None),
                          ("--shifts", args.shifts is not None), ("--sigmas", args.sigmas is not None),
                          ("--par-sheet", args.par_sheet), ("--profile", args.profile is not None),
                          ("--csv", args.csv), ("--pdf", args.pdf is not None)):
        if given:
            raise UserError(f"{option} does not go with `tabled report shuffles` (its options: --from, --to, "
                            "--tz, --day-start, --json)")
    args, path = with_config_defaults(args)
    start, end, name = shuffle_span(args, calendar(args))
    try:
        with Journal.open(path, readonly=True, verify=False) as journal:
            decks = shuffles(journal.records_after(0), start, end)
    except sqlite3.Error as exc:
        raise storage_error(path, exc) from None
    except JournalError as exc:
        raise UserError(f"{path}: {exc}") from None
    if args.json:
        print(json.dumps([{"span": name, "start_us": start, "end_us": end, **d} for d in shuffles_data(decks)]))
    else:
        print(f"shuffles: {name}\n{shuffles_text(decks)}")
    return 0


def _protection(args: argparse.Namespace) -> int:
    """``tabled report protection``: every spot's evidence, the alerts with their surveillance
    packs, and the power the test had (tabled/reports/protection.py)."""
    from tabled.reports import protection
    for option, given in (("--shift", args.shift is not None), ("--shifts", args.shifts is not None),
                          ("--sigmas", args.sigmas is not None), ("--par-sheet", args.par_sheet),
                          ("--csv", args.csv), ("--pdf", args.pdf is not None)):
        if given:
            raise UserError(f"{option} does not go with `tabled report protection` (its options: --from, --to, "
                            "--tz, --day-start, --table, --profile, --json)")
    args, path = with_config_defaults(args)
    start, end, name = shuffle_span(args, calendar(args))
    try:
        with Journal.open(path, readonly=True, verify=False) as journal:
            decided, problems = protection.decisions_of(journal.records_after(0), start, end)
    except sqlite3.Error as exc:
        raise storage_error(path, exc) from None
    except JournalError as exc:
        raise UserError(str(exc)) from None
    if args.table:
        decided = [d for d in decided if d.round_id.startswith(f"{args.table}-")]
    profile_of = _profiles(args.profile)
    paytable = Paytable.from_profile(profile_of("nsw")) if not decided else None
    if decided:
        with Journal.open(path, readonly=True, verify=False) as journal:
            settled = journal.last_of_kind("round.settled")
        paytable = Paytable.from_profile(profile_of(str(settled.payload.get("profile", "nsw")) if settled else "nsw"))
    assert paytable is not None
    spots = protection.weigh(decided, paytable)
    if args.json:
        print(json.dumps({"span": name, "start_us": start, "end_us": end, "problems": problems,
                          "spots": [{**protection.summary(se), "pack": protection.pack(se) if se.alert else []}
                                    for se in spots.values()]}))
    else:
        print(protection.text(spots, name, problems))
    return 0


def _players(args: argparse.Namespace) -> int:
    """``tabled report players``: each player session that ended in the span, and each still open at
    its end with its running figures then (marked open), with its exact theoretical loss
    (tabled/reports/ratings.py)."""
    from tabled.reports.ratings import RATING_KINDS, FIELDS, rate, rating_data, rating_line
    for option, given in (("--shift", args.shift is not None), ("--shifts", args.shifts is not None),
                          ("--sigmas", args.sigmas is not None), ("--par-sheet", args.par_sheet),
                          ("--pdf", args.pdf is not None)):
        if given:
            raise UserError(f"{option} does not go with `tabled report players` (its options: --from, --to, --table, "
                            "--card, --tz, --day-start, --profile, --json, --csv, --whole-cards)")
    if args.whole_cards and not (args.json or args.csv):
        raise UserError("--whole-cards goes with --json or --csv: the text report shows card numbers masked")
    args, path = with_config_defaults(args)
    cal = calendar(args)
    start, end, name = shuffle_span(args, cal)
    try:
        with Journal.open(path, readonly=True, verify=False) as journal:
            head = journal.head[0]
            records = [r for seq in range(1, head + 1, CHUNK)
                       for r in journal.records_between(seq, min(seq + CHUNK - 1, head), RATING_KINDS)]
    except sqlite3.Error as exc:
        raise storage_error(path, exc) from None
    except JournalError as exc:
        raise UserError(f"{path}: {exc}") from None
    # the sessions that ended in the span, and those still open at its end as they stood then
    ratings = [r for r in rate(records, _profiles(args.profile), None if end is None else (end - 1) // 1000)
               if (start is None or r.open or start <= r.end_ms * 1000)
               and (args.table is None or r.table == args.table) and (args.card is None or r.card == args.card)]
    if args.json:
        for r in ratings:
            print(json.dumps(rating_data(r, cards=args.whole_cards)))
        return 0
    if args.csv:
        import csv
        import sys

        writer = csv.DictWriter(sys.stdout, FIELDS, lineterminator="\n")
        writer.writeheader()
        for r in ratings:
            row = rating_data(r, cards=args.whole_cards)
            writer.writerow({**row, "spots": " ".join(str(s) for s in row["spots"])})
        return 0
    when = lambda ms: datetime.fromtimestamp(ms / 1000, cal.zone).strftime("%m-%d %H:%M")  # noqa: E731
    still = sum(1 for r in ratings if r.open)
    print(f"players: {name}, {len(ratings)} sessions, {still} open at its end with their figures then (theo loss: "
          "the house's exact expected win of the decisions made; decisions: what they cost over the better ones)")
    for r in ratings:
        print(rating_line(r, when))
    return 0
