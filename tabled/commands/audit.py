"""``tabled audit verify``: check the journal's whole hash chain and name the first broken record.

The daemon checks only from the last checkpoint when it starts (restart stays fast); this command
checks every record from the first, so an auditor can prove that nothing was altered, inserted or
deleted. It also runs SQLite's own check of the file (a damaged page or index is not a broken
chain, but it is damage), and names any round settled more than once (two controllers that played
the same round write an intact chain); a round voided while it settled is settled once more, as
void, and is not named. Each finding is one line.
Exit status 0: intact; 1: broken or damaged (each finding named); 2: the journal cannot be read.
The head hash it prints lets an auditor later prove that nothing was cut off the end either.

With the table's public key (``--public-key``) it checks the seals too: the table seals every commit
with its records (tabled/journal/store.py), so a journal with no seal by the key, a record no seal
covers (between two seals or after the last) and a seal by another key fail, the first named.
Without one it says plainly that the seals were not checked.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from typing import Any
from pathlib import Path

from tabled.commands._arguments import UserError
from tabled.game.settlement import supersedes
from tabled.daemon.config import find_config, load_config
from tabled.journal.store import Journal, JournalError, storage_error
from tabled.journal.seals import (SealChecker, SealError, SealReport, SigningKey, find_signing_key, local_key_files,
                                 local_public_key, public_keys, read_key)
from tabled.table.kinds import SEAL

SETTLED = "round.settled"  # one per round, and a void one after it when voided while it settled

NAME = "audit"
HELP = ("audit the journal: `tabled audit verify` checks the whole hash chain; `accept-loss` records lost records; "
        "`restore` takes them back from the central copy")


def add_journal_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--journal", metavar="PATH", help="the journal file (default: the config's journal.path)")
    where.add_argument("--config", metavar="FILE",
                       help="the daemon's config (default: $TABLED_CONFIG, else /etc/tabled/tabled.toml)")


def journal_path(args: argparse.Namespace) -> Path:
    """--journal, else the journal named by the config the daemon would read."""
    if args.journal:
        return Path(args.journal)
    return load_config(find_config(args.config)).journal.path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    verify = sub.add_parser("verify", help="check every record's hash and link; name the first broken one")
    add_journal_arguments(verify)
    verify.add_argument("--public-key", metavar="FILE", action="append", default=[],
                        help="a public key the journal is sealed with (PEM; may be repeated for rotated keys): "
                             "every seal is checked and a rewritten record named")
    verify.add_argument("--json", action="store_true", help="machine-readable output")
    accept = sub.add_parser("accept-loss", help="an inspector records that the journal lost records it had"
                                                " committed (the start refused it): who, why, which records")
    add_journal_arguments(accept)
    accept.add_argument("--who", required=True, help="the inspector (recorded)")
    accept.add_argument("--why", required=True, help="why play may go on without the lost records (recorded)")
    accept.add_argument("--signing-key", metavar="FILE",
                        help="the table's signing key, to seal the record of the loss as the table seals every "
                             "commit (default: the key made beside a simulated table's journal, else the config's)")
    restore = sub.add_parser("restore", help="an inspector takes back from the journal's central copy the records "
                                             "the journal lost (the start refused it), each hash checked")
    add_journal_arguments(restore)
    restore.add_argument("--central", metavar="DSN", required=True,
                         help="the central database (an auditor's role reads every table)")
    restore.add_argument("--table", metavar="ID", help="the table id (default: the config's)")
    compare = sub.add_parser("compare", help="compare the journal with its copy on the central PostgreSQL; "
                                             "name the first record where they part")
    add_journal_arguments(compare)
    compare.add_argument("--central", metavar="DSN", required=True,
                         help="the central database (an auditor's role reads every table)")
    compare.add_argument("--table", metavar="ID", help="the table id (default: the config's)")


def _seal_checker(files: list[str]) -> SealChecker | None:
    if not files:
        return None
    try:
        return SealChecker(public_keys((name, read_key(Path(name), "the public key")) for name in files))
    except SealError as exc:
        raise UserError(str(exc)) from None


def seals_hold(report: SealReport) -> bool:
    """Every record sealed, in its own commit, by a key given: nothing else is the table's."""
    return (report.ok and report.seals > 0 and report.first_unsealed is None
            and all(s.checked for s in report.stretches))


def seal_lines(path: Path, report: SealReport, last_seq: int) -> list[str]:
    """What the seals say, one finding a line."""
    if report.seals == 0:
        return [f"journal {path}: NOT SEALED: no record is signed with the table's key (the table seals every "
                f"commit: records 1 to {last_seq} are not the table's sealed record)"]
    lines = []
    for s in report.stretches:
        state = "seals checked" if s.checked else "NO PUBLIC KEY GIVEN for it: not checked"
        lines.append(f"journal {path}: records {s.first} to {s.last} sealed by key {s.key} ({state})")
    for seq in report.forged:
        lines.append(f"journal {path}: FORGED SEAL at record {seq}: not signed by the key it names")
    for seq in report.rewritten:
        lines.append(f"journal {path}: record {seq} REWRITTEN: it is not the record that was sealed")
    if report.skipped:
        shown = ", ".join(map(str, report.skipped[:10])) + (" ..." if len(report.skipped) > 10 else "")
        lines.append(f"journal {path}: record {report.skipped[0]} is NOT SEALED: the seal after it does not cover "
                     f"it (the table seals every commit with its records; unsealed: {shown})")
    if report.unsealed_from is not None:
        lines.append(f"journal {path}: records from {report.unsealed_from} to {last_seq} are NOT SEALED: the table "
                     "seals every commit with its records, a crash included, so they are not the table's")
    return lines


def unchecked_line(path: Path) -> str:
    """What ``audit verify`` without a public key says of the seals, and where the key may be."""
    beside = local_public_key(path)
    where = (f"; the public key made beside this journal is {beside} (--public-key {beside})"
             if beside is not None else "")
    return (f"journal {path}: seals NOT CHECKED: no --public-key given (the chain alone does not show a "
            f"record forged by whoever can write the file){where}")


def _settled_twice(journal: Journal) -> dict[str, list[int]]:
    """The rounds settled more than once, their records' numbers: a round voided while it settled
    is settled once more, as void (tabled.game.settlement.supersedes), and that is not a fault."""
    found: dict[str, list[int]] = {}
    for round_id, seqs in journal.repeated(SETTLED).items():
        payloads = [r.payload if (r := journal.record(seq)) is not None else {} for seq in seqs]
        if len(payloads) != 2 or not supersedes(payloads[1], payloads[0]):
            found[round_id] = seqs
    return found


def run(args: argparse.Namespace) -> int:
    if args.action == "compare":
        return _compare(args)
    if args.action == "accept-loss":
        return _accept_loss(args)
    if args.action == "restore":
        return _restore(args)
    path = journal_path(args)
    checker = _seal_checker(args.public_key)
    try:
        with Journal.open(path, readonly=True, verify=False) as journal:
            file_problems = journal.file_problems()
            progress = None
            tqdm = _progress_bar() if not args.json and sys.stderr.isatty() else None
            if tqdm is not None:
                bar = tqdm(total=journal.head[0], unit="records", file=sys.stderr, leave=False)
                progress = lambda done: bar.update(done - bar.n)  # noqa: E731
            result = journal.verify(from_seq=0, progress=progress,
                                    on_record=checker.feed if checker is not None else None)
            if progress is not None:
                bar.close()
            settled_twice = _settled_twice(journal)
            last_seq = journal.head[0]
    except sqlite3.Error as exc:  # a page SQLite cannot read, or a disk that fails, met while checking
        raise storage_error(path, exc) from None
    seals = checker.finish() if checker is not None else None
    sealed_ok = seals is None or seals_hold(seals)
    ok = result.ok and not file_problems and not settled_twice and sealed_ok
    if args.json:
        print(json.dumps({"journal": str(path), "ok": ok, "chain_ok": result.ok, "records_checked": result.count,
                          "first_broken_seq": result.first_broken_seq, "reason": result.reason,
                          "head_seq": result.head_seq, "head_hash": result.head_hash, "last_seq": last_seq,
                          "file_problems": file_problems, "settled_twice": settled_twice,
                          "seals_checked": seals is not None,
                          "seals": None if seals is None else {
                              "count": seals.seals, "rewritten": seals.rewritten, "forged": seals.forged,
                              "skipped": seals.skipped, "unsealed_from": seals.unsealed_from,
                              "first_unsealed": seals.first_unsealed,
                              "stretches": [vars(s) for s in seals.stretches]}}))
        return 0 if ok else 1
    for problem in file_problems:
        print(f"journal {path}: DAMAGED FILE (SQLite's integrity check): {problem}")
    if result.ok:
        print(f"journal {path}: {result.count} records, chain intact from record 1 to {result.head_seq}")
        print(f"head hash {result.head_hash}")
    else:
        print(f"journal {path}: BROKEN at record {result.first_broken_seq}: {result.reason}")
        print(f"records 1 to {result.head_seq} are intact ({result.count} checked); "
              f"the journal ends at record {last_seq}")
    print("\n".join(seal_lines(path, seals, last_seq)) if seals is not None else unchecked_line(path))
    for round_id, seqs in settled_twice.items():
        print(f"journal {path}: round {round_id} SETTLED {len(seqs)} TIMES (records "
              f"{', '.join(map(str, seqs))}): a round is settled once")
    return 0 if ok else 1


def _accept_loss(args: argparse.Namespace) -> int:
    """The inspector's answer to a start refused for lost records (tabled/daemon/heads.py)."""
    from tabled.daemon.heads import accept_loss
    who, why = args.who.strip(), args.why.strip()
    if not who or not why:
        raise UserError("accept-loss needs --who (the inspector) and --why (the reason): both are recorded")
    path = journal_path(args)
    if not path.is_file():
        raise UserError(f"{path}: no journal there")
    key = _sealing_key(args, path)
    try:
        with Journal.open(path, exclusive=True, seal_with=key) as journal:  # not while the daemon runs (JournalInUse)
            accepted = accept_loss(journal, path, who, why)
    except sqlite3.DatabaseError as exc:
        raise storage_error(path, exc) from None
    except OSError as exc:
        raise UserError(f"{exc.filename}: the journal's head cannot be written ({exc.strerror})") from None
    if accepted is None:
        print(f"journal {path}: it holds the head kept beside it: nothing was lost, nothing recorded")
        return 0
    print(f"journal {path}: the loss is recorded by {who} (records {accepted['journal_ended_at'] + 1} to"
          f" {accepted['head_recorded']} lost); the table may start")
    return 0


def _sealing_key(args: argparse.Namespace, path: Path) -> SigningKey | None:
    """The key a record written by an audit command is sealed with: a sealed journal takes no
    unsealed record (the next start would refuse it as not the table's)."""
    named = args.signing_key
    if named is None:
        beside = local_key_files(path)[0]
        if beside.exists():
            named = beside
        elif not args.journal or args.config:
            named = load_config(find_config(args.config)).journal.signing_key
    try:
        key = find_signing_key(Path(named) if named is not None else None)
    except SealError as exc:
        raise UserError(str(exc)) from None
    if key is None:
        try:
            with Journal.open(path, readonly=True, verify=False) as journal:
                sealed = journal.last_of_kind(SEAL) is not None
        except sqlite3.Error as exc:
            raise storage_error(path, exc) from None
        if sealed:
            raise UserError(f"{path}: the journal is sealed with the table's key: give it (--signing-key FILE) so "
                            "that the record written is sealed too (an unsealed record stops the next start)")
    return key


def _restore(args: argparse.Namespace) -> int:
    """The records the journal lost, taken back from its central copy, each hash checked: the
    start then finds its head again (tabled/daemon/heads.py, tabled/daemon/shipping.py)."""
    import psycopg

    from tabled.daemon.heads import write_head
    from tabled.daemon.shipping import central_records_after, central_tables
    from tabled.host.dsn import server_said, unreadable_dsn
    path = journal_path(args)
    if not path.is_file():
        raise UserError(f"{path}: no journal there")
    table = args.table or load_config(find_config(args.config)).table.id
    problem = unreadable_dsn(args.central)
    if problem is not None:
        raise UserError(f"--central: {problem}")
    central = _central(args.central)
    try:
        with central, Journal.open(path, exclusive=True) as journal:  # not while the daemon runs
            held = central_tables(central)
            if table not in held:
                raise UserError(f"table {table} is not on the central copy (it holds "
                                f"{', '.join(held) if held else 'no table'}): check --table or the config's table.id")
            seq, digest = journal.head
            rows = central_records_after(central, table, seq - 1 if seq else 0)
            if seq and (not rows or rows[0][0] != seq or rows[0][6] != digest):
                raise UserError(f"journal {path} and the central copy of table {table} PART at record {seq}: "
                                f"nothing restored (tabled audit compare --journal {path} --central DSN names "
                                "where)")
            rows = rows[1:] if seq else rows
            if not rows:
                print(f"journal {path}: the central copy of table {table} holds no record after {seq}: "
                      "nothing to restore")
                return 0
            try:
                restored = journal.restore(rows)
            except JournalError as exc:
                raise UserError(str(exc)) from None
            write_head(path, *journal.head)
    except sqlite3.Error as exc:
        raise storage_error(path, exc) from None
    except psycopg.Error as exc:
        raise UserError(f"the central database: {server_said(exc)}") from None
    except OSError as exc:
        raise UserError(f"{exc.filename}: the journal's head cannot be written ({exc.strerror})") from None
    print(f"journal {path}: records {seq + 1} to {seq + restored} restored from the central copy of table {table},"
          " each hash checked; the table may start")
    return 0


def _central(dsn: str) -> Any:
    """The central database's primary (a standby may not yet hold what the tables shipped)."""
    import psycopg

    from tabled.host.dsn import server_said
    from tabled.host.primary import StandbyOnly, for_the_primary, standby_only
    try:
        return psycopg.connect(for_the_primary(dsn), connect_timeout=10)
    except StandbyOnly as exc:
        raise UserError(f"--central: {exc}") from None
    except psycopg.Error as exc:
        said = standby_only(exc, dsn)
        raise UserError(f"--central: {said}" if said else
                        f"the central database cannot be reached: {server_said(exc)}") from None


def _compare(args: argparse.Namespace) -> int:
    """The journal against its central copy: 0 the same (the copy may lag), 1 they part."""
    import psycopg

    from tabled.daemon.shipping import central_tables, compare
    from tabled.host.dsn import server_said, unreadable_dsn
    path = journal_path(args)
    table = args.table or load_config(find_config(args.config)).table.id
    problem = unreadable_dsn(args.central)
    if problem is not None:
        raise UserError(f"--central: {problem}")
    central = _central(args.central)
    try:
        with central, Journal.open(path, readonly=True, verify=False) as journal:
            held = central_tables(central)
            if table not in held:
                raise UserError(f"table {table} is not on the central copy (it holds "
                                f"{', '.join(held) if held else 'no table'}): check --table or the config's table.id")
            divergence, local_head, central_head = compare(journal, central, table)
    except sqlite3.Error as exc:
        raise storage_error(path, exc) from None
    except psycopg.Error as exc:
        raise UserError(f"the central database: {server_said(exc)}") from None
    if divergence is not None:
        print(f"journal {path} and the central copy of table {table} PART at record {divergence.seq}: "
              f"{divergence.reason}")
        return 1
    if central_head == 0:
        print(f"journal {path}: the central copy holds no record of table {table} yet (this journal has "
              f"{local_head})")
        return 0
    lag = f"; the central copy is {local_head - central_head} records behind" if local_head > central_head else ""
    print(f"journal {path} and the central copy of table {table} agree on records 1 to {central_head}{lag}")
    return 0


def _progress_bar():
    """tqdm when installed (an extra: only for people watching a long check), else None."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm
