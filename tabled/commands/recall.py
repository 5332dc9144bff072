"""``tabled recall``: the last 10 rounds (or any round by id) in full, from the journal (rule 16.11).

Everything the journal holds for a round is shown in order -- inputs, cards, wagers, decisions,
settlement, progressive awards and the pool before and after -- whatever the record kinds, so a
new kind of record is recalled without changing this command. For people, amounts (``cents`` and
``*_cents``) are shown in dollars, card indexes (``card``, ``cards``, ``hand``...) as card text,
and the settlement as the table ``tabled settle`` prints, recomputed from its facts to show that
it agrees. ``--json`` gives the records exactly as journalled, one round per line;
``--round-json`` gives one round's facts as a round file for ``tabled settle -``.

Records are read by number from the journal's table itself, never through the round index (an
index damaged on disk could put a record in the wrong round), and the hash chain of every record
shown, and of its neighbours, is checked: a broken chain is a warning and exit status 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sqlite3
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tabled.commands._arguments import UserError, whole_number
from tabled.commands.audit import add_journal_arguments, journal_path
from tabled.commands.settle import render
from tabled.daemon.config_record import differences
from tabled.game.cards import card_text
from tabled.profiles import load_profile
from tabled.table.players import masked_fields, masked_setting
from tabled.game.round_facts import RoundError, round_as_json
from tabled.game.settlement import (Settlement, money, settle, settlement_as_dict, settlement_facts,
                                    settlement_from_dict)
from tabled.journal.store import (
    GENESIS_HASH,
    Journal,
    JournalError,
    Record,
    canonical_payload,
    record_hash,
    storage_error,
)

NAME = "recall"
HELP = "show the last rounds (default 10), or one round by id, in full from the journal"

CARD_KEYS = {"card", "cards", "hand", "player_cards", "dealer_cards", "dealer_hand", "up_card", "exposed"}
SETTLED = "round.settled"
CONFIG_STARTED = "config.started"  # tabled/daemon/config_record.py
CLOCK_OFFSET = "clock.offset"  # tabled/table/clock.py
INSTALL = "software.install"  # tabled/table/selfcheck.py: an install or upgrade (25 CFR 547.12)
WIDTH = 200  # a longer record is shown one field a line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_journal_arguments(parser)
    parser.add_argument("--round", metavar="ID", action="append", help="a round id (may be repeated)")
    parser.add_argument("--last", metavar="N", type=whole_number(1), default=10, help="the last N rounds (default 10)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="one JSON object per round per line")
    out.add_argument("--round-json", action="store_true",
                     help="the facts of one settled round (--round ID) as a round file for `tabled settle -`")


# -- values for people -------------------------------------------------------------------------------

def _is_card(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 52


def _is_money(key: str, value: Any) -> bool:
    return (key == "cents" or key.endswith("_cents")) and isinstance(value, int) and not isinstance(value, bool)


def show_value(key: str, value: Any) -> str:
    """A payload value for people: cents as dollars, card indexes as cards, the rest as JSON."""
    if _is_money(key, value):
        return money(value)
    if key in CARD_KEYS:
        if _is_card(value):
            return card_text(value)
        if isinstance(value, list) and value and all(_is_card(v) for v in value):
            return " ".join(card_text(v) for v in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={show_value(k, v)}" for k, v in value.items()) + "}"
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return "[" + "; ".join(show_value(key, v) for v in value) + "]"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _field_lines(key: str, value: Any, indent: int) -> list[str]:
    """A long field over several lines: one line per nested field, one per item of a list of objects."""
    pad = " " * indent
    if isinstance(value, dict) and len(f"{key}={show_value(key, value)}") > WIDTH - indent:
        return [f"{pad}{key}:"] + [line for k, v in value.items() for line in _field_lines(k, v, indent + 2)]
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [f"{pad}{key}:"] + [f"{pad}  - {show_value(key, v)[1:-1]}" for v in value]
    return [f"{pad}{key}={show_value(key, value)}"]


def show_record(record: Record, fields: str | None = None) -> str:
    when = record.time.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    head = f"  #{record.seq:<8} {when}  {record.kind:<24}"
    if fields is None:
        payload = masked_fields(record.kind, record.payload)  # a player's card: --json has it whole
        fields = "  ".join(f"{k}={show_value(k, v)}" for k, v in payload.items())
        if len(head) + len(fields) > WIDTH:
            return "\n".join([head.rstrip()] + [line for k, v in payload.items()
                                                for line in _field_lines(k, v, 14)])
    return f"{head} {fields}".rstrip()


# -- reading: by record number, from the table ---------------------------------------------------------

def select_rounds(journal: Journal, wanted: list[str] | None, last: int) -> dict[str, list[int]]:
    """Round id -> its record numbers (ascending), in the order to show: the rounds asked for, or
    the last ``last`` rounds (by their newest record) oldest first. A round's records follow each
    other in the journal, so the scan back stops at the first record of an older round."""
    found: dict[str, list[int]] = {}
    for seq, rid in journal.round_of_every_record(wanted):
        if rid is None:
            continue
        rid = str(rid)
        if wanted is None:
            if rid not in found and len(found) == last:
                break
        elif rid not in wanted:
            continue
        found.setdefault(rid, []).append(seq)
    order = wanted if wanted is not None else list(reversed(found))
    return {rid: sorted(found.get(rid, [])) for rid in order}


def chain_break(records: list[Record]) -> tuple[int, str] | None:
    """The first record of ``records`` (consecutive by number) whose hash or link is wrong."""
    prev: Record | None = None
    for r in records:
        if prev is not None:
            if r.seq != prev.seq + 1:
                return prev.seq + 1, f"record {prev.seq + 1} is missing (next is {r.seq})"
            if r.prev_hash != prev.hash:
                return r.seq, "prev_hash does not match the hash of the record before it"
        try:
            digest = record_hash(r.seq, r.time_us, r.round_id, r.kind, canonical_payload(r.payload), r.prev_hash)
        except (JournalError, TypeError, ValueError) as exc:
            return r.seq, f"cannot be hashed ({exc})"
        if digest != r.hash:
            return r.seq, "contents do not match its hash (record altered)"
        prev = r
    return None


@dataclass(frozen=True)
class Recalled:
    rounds: dict[str, list[Record]]       # round id -> its records, in the order to show
    warnings: dict[str, str | None]       # round id -> what is wrong with its chain, or None
    configs: dict[str, Record | None]     # round id -> the start's configuration it was played under
    clocks: dict[str, Record | None] = dataclasses.field(default_factory=dict)  # round id -> the last clock offset
    installs: dict[str, Record | None] = dataclasses.field(default_factory=dict)  # round id -> the install before it

    @property
    def warning(self) -> str | None:
        return next((w for w in self.warnings.values() if w), None)


def _chain_warning(journal: Journal, first: int, last: int) -> tuple[list[Record], str | None]:
    """Records ``first`` - 1 to ``last`` + 1 (the neighbours seal the ends) and what is wrong with
    their chain, or None."""
    start = max(first - 1, 1)
    around = journal.records_between(start, last + 1)
    if not around or around[0].seq != start:
        broken: tuple[int, str] | None = (start, f"record {start} is missing")
    elif start == 1 and around[0].prev_hash != GENESIS_HASH:
        broken = (1, "the first record does not follow the genesis hash")
    else:
        broken = chain_break(around)
    if broken is None:
        return around, None
    return around, (f"WARNING: the hash chain is broken at record {broken[0]}: {broken[1]}; what is shown "
                    "may have been altered: run `tabled audit verify`")


def read(path: Path, wanted: list[str] | None, last: int) -> Recalled:
    """The rounds' records, and the check of their hash chain."""
    rounds: dict[str, list[Record]] = {}
    warnings: dict[str, str | None] = {}
    configs: dict[str, Record | None] = {}
    clocks: dict[str, Record | None] = {}
    installed: dict[str, Record | None] = {}
    try:
        with Journal.open(path, readonly=True, verify=False) as journal:
            selected = select_rounds(journal, wanted, last)
            for rid, seqs in selected.items():
                rounds[rid], warnings[rid], configs[rid] = [], None, None
                if not seqs:
                    continue
                around, warnings[rid] = _chain_warning(journal, seqs[0], seqs[-1])
                by_seq = {r.seq: r for r in around}
                rounds[rid] = [by_seq[s] for s in seqs if s in by_seq]
            # the configuration each round was played under: the last start before its first record,
            # looked for in journal order so each stretch of the journal is searched once
            config, searched_to = None, 0
            for rid, seqs in sorted(((r, s) for r, s in selected.items() if s), key=lambda item: item[1][0]):
                config = journal.last_of_kind(CONFIG_STARTED, before=seqs[0], after=searched_to - 1) or config
                configs[rid], searched_to = config, seqs[0]
                clocks[rid] = journal.last_of_kind(CLOCK_OFFSET, before=seqs[-1] + 1)
                installed[rid] = journal.last_of_kind(INSTALL, before=seqs[-1] + 1)
    except sqlite3.Error as exc:
        raise storage_error(path, exc) from None
    except JournalError as exc:
        problem = str(exc)
        raise UserError(problem if problem.startswith(str(path)) else f"{path}: {problem}") from None
    return Recalled(rounds, warnings, configs, clocks, installed)


# -- the settlement ----------------------------------------------------------------------------------

def settled_record(records: list[Record]) -> Record | None:
    found = [r for r in records if r.kind == SETTLED]
    return found[-1] if found else None


def _first_difference(a: Any, b: Any, where: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{where}.{key}" if where else str(key))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{where}[{i}]")
    return f"{where or 'the settlement'}: journaled {json.dumps(a)[:80]}, recomputed {json.dumps(b)[:80]}"


def recomputed(st: Settlement, journaled: dict[str, Any]) -> str:
    """One line: whether the settlement recomputed from the journaled facts is the journaled one."""
    try:
        again = settlement_as_dict(settle(settlement_facts(st), load_profile(st.profile)))
    except (ValueError, TypeError, OSError) as exc:  # RoundError, ProfileError: no profile of that name
        return f"not recomputed: {exc}"
    if again == journaled:
        return f"recomputed from its facts with profile {st.profile}: the same"
    if _by_spot(again) == _by_spot(journaled):
        return (f"recomputed from its facts with profile {st.profile}: the same amounts; the progressive awards "
                f"are paid today in the order of spots {_spots(again)} (12.2, 12.4), journaled as {_spots(journaled)}")
    return f"RECOMPUTED DIFFERENTLY with profile {st.profile}: {_first_difference(journaled, again)}"


def _spots(settlement: Mapping[str, Any]) -> str:
    return ", ".join(str(a["spot"]) for a in settlement["progressive"]["awards"])


def _by_spot(settlement: Mapping[str, Any]) -> dict[str, Any]:
    """The settlement with its progressive awards in spot order: the same money, whatever the
    order of payment."""
    awards = sorted(settlement["progressive"]["awards"], key=lambda a: a["spot"])
    return {**settlement, "progressive": {**settlement["progressive"], "awards": awards}}


def config_lines(config: Record | None, before: Record | None) -> list[str]:
    """The configuration a round was played under; what changed from the round shown before it."""
    if config is None:
        return ["  configuration: not in the journal (a journal from before starts recorded it)"]
    settings = config.payload.get("settings", {})
    line = f"  configuration {str(config.payload.get('sha256', '?'))[:16]} (start, record #{config.seq})"
    if before is None or before.seq == config.seq:
        return [line]
    changes = differences(before.payload.get("settings", {}), settings)
    if not changes:
        return [line + ": the same settings as the round before"]
    shown = "; ".join(f"{c['key']} {show_value(c['key'], masked_setting(c['key'], c['before']))} -> "
                      f"{show_value(c['key'], masked_setting(c['key'], c['after']))}" for c in changes)
    return [line + f": CHANGED since the round before: {shown}"]


def clock_lines(clock: Record | None) -> list[str]:
    """The clock's offset last measured by the round's end (Mississippi 8-4.5); none before it: nothing
    (a journal from before the clock was measured)."""
    if clock is None:
        return []
    p = clock.payload
    against = "the central database's clock" if p.get("against") == "central" else "NTP time"
    return [f"  clock: {p.get('offset_ms', 0):+d} ms off {against} at {clock.time:%Y-%m-%d %H:%M:%S} UTC "
            f"(record #{clock.seq}; bound {p.get('bound_ms')} ms{'' if p.get('ok') else ': BEYOND IT'})"]


def install_lines(install: Record | None) -> list[str]:
    """The install or upgrade last journaled by the round's end (25 CFR 547.12); none: nothing."""
    if install is None:
        return []
    p = install.payload
    return [f"  software: tabled {p.get('version')} ({p.get('what')} {p.get('result')} by {p.get('by')}, ended "
            f"{p.get('ended')}; record #{install.seq})"]


def people_lines(records: list[Record]) -> list[str]:
    """Who dealt the round and who acted in it with a privileged key, by name, from the round's own
    records (a table with a staff list journals the names with them: docs/staff.md)."""
    out: list[str] = []
    started = next((r for r in records if r.kind == "round.started"), None)
    if started is not None and "dealt_by" in started.payload:
        badge, name = started.payload["dealt_by"], started.payload.get("dealt_by_name")
        out.append(f"  dealt by {name} (badge {badge})" if badge is not None else "  dealt by: no dealer signed in")
    acted: dict[tuple[str, Any, Any], list[str]] = {}
    for r in records:
        if r.kind in ("panel.approved", "panel.refused") and "person" in r.payload:
            who = (str(r.payload.get("key")), r.payload["person"], r.payload.get("name"))
            action = str(r.payload.get("action"))
            acted.setdefault(who, []).append(action if r.kind == "panel.approved" else f"{action} (refused)")
    for (key, badge, name), actions in acted.items():
        out.append(f"  {key} {name} (badge {badge}): {', '.join(actions)}")
    return out


def show_round(rid: str, records: list[Record], config: Record | None = None,
               config_before: Record | None = None, clock: Record | None = None,
               install: Record | None = None) -> list[str]:
    first, last = records[0], records[-1]
    out = [f"round {rid}: {len(records)} records (#{first.seq} to #{last.seq}), "
           f"{first.time:%Y-%m-%d %H:%M:%S} to {last.time:%H:%M:%S} UTC, last: {last.kind}"]
    out += config_lines(config, config_before)
    out += install_lines(install)
    out += clock_lines(clock)
    out += people_lines(records)
    tables = []
    for record in records:
        if record.kind == SETTLED:
            try:
                st = settlement_from_dict(record.payload)
            except RoundError as exc:
                out.append(show_record(record) + f"  ({exc})")
                continue
            out.append(show_record(record, "the settlement, below"))
            tables.append((record.seq, st, record.payload))
            continue
        out.append(show_record(record))
    for seq, st, payload in tables:
        out.append(f"  settlement (record #{seq}):")
        out += ["    " + line for line in render(st).splitlines()]
        out.append("    " + recomputed(st, payload))
    return out


# -- the command -------------------------------------------------------------------------------------

def run(args: argparse.Namespace) -> int:
    if args.round_json and (not args.round or len(args.round) != 1):
        raise UserError("--round-json needs exactly one --round ID")
    path = journal_path(args)
    recalled = read(path, args.round, args.last)
    rounds, warning = recalled.rounds, recalled.warning
    missing = [rid for rid, records in rounds.items() if not records]
    if missing and args.round:
        raise UserError(f"no round {missing[0]!r} in {path}")
    if warning:
        print(f"tabled recall: {warning}", file=sys.stderr)
    status = 1 if warning else 0
    if args.round_json:
        (rid, records), = rounds.items()
        record = settled_record(records)
        if record is None:
            raise UserError(f"round {rid!r} has no settlement in {path} yet (last record: {records[-1].kind})")
        try:
            st = settlement_from_dict(record.payload)
        except RoundError as exc:
            raise UserError(f"round {rid!r}, record {record.seq}: {exc}") from None
        print(json.dumps(round_as_json(settlement_facts(st), st.profile, rid), indent=2))
        return status
    if args.json:
        for rid, records in rounds.items():
            config, clock = recalled.configs[rid], recalled.clocks.get(rid)
            print(json.dumps({"round_id": rid, "records": [r.as_dict() for r in records],
                              "chain_intact": recalled.warnings[rid] is None,
                              "config_sha256": config.payload.get("sha256") if config else None,
                              "config_record": config.seq if config else None,
                              "clock_offset": clock.payload if clock is not None else None},
                             ensure_ascii=False))
        return status
    if not rounds:
        print(f"journal {path}: no rounds yet")
        return status
    if warning:
        print(warning)
    config_before: Record | None = None
    for rid, records in rounds.items():
        print("\n".join(show_round(rid, records, recalled.configs[rid], config_before, recalled.clocks.get(rid),
                                   recalled.installs.get(rid))))
        print()
        config_before = recalled.configs[rid]
    print(warning or "hash chain intact over every record shown and the records on either side "
                     "(`tabled audit verify` checks the whole journal)")
    return status
