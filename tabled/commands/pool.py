"""``tabled pool status|history|ledger|verify|reconcile|propose``: the progressive pool; and the
administrator's ``migrate|register-table|register-auditor|create`` on a linked pool's database.

The pool is the one the daemon's config names (``--config``, else $TABLED_CONFIG, else
/etc/tabled/tabled.toml), or one given directly with ``--path`` (local)
or ``--dsn`` (linked) and ``--name``. Only ``propose`` writes: a new settings version, recorded with
who and why, that takes effect after the current jackpot is won. With a staff list (the config's
``[staff]``, or ``--staff FILE``) ``--who`` is a badge number: the person must hold the
``pool_admin`` role and type their PIN (stdin, never argv), and the version records their name and
badge (docs/staff.md). ``--json`` prints one JSON
document. Exit status: 0 fine; 1 ``verify`` or ``reconcile`` found a difference (named); 2 bad
input or the pool cannot be reached (rule 14.13).

The administrator's actions take ``--dsn`` without a password: libpq takes it from PGPASSWORD or
~/.pgpass, or systemd's credential ``pool-admin-password`` gives it. ``migrate`` installs every
central schema of ``SCHEMAS`` (a table never changes a schema); ``register-table`` gives a table
its own role in each (``REGISTRARS``), both in ``tabled/commands/_pool_admin.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tabled.commands._arguments import UserError, whole_number
from tabled.daemon.config import find_config, load_config
from tabled.game.settlement import money
from tabled.pool import LedgerPool, PoolError, open_pool
from tabled.pool.local import LocalPool
from tabled.pool.settings import BASIS_POINTS

NAME = "pool"
HELP = "the progressive pool: status, last hits, ledger, verify the ledger, reconcile with the journal"

ACTIONS = {
    "status": "the meter, reset value, settings version and counters of each pool",
    "history": "the last hits paid (table, spot, hand, amount, pool before and after)",
    "ledger": "the last ledger rows (every change of the pool, with the balance after it)",
    "verify": "prove pool = reset value + contributions - reversals - awards +/- corrections since the reset; a local"
              " pool: every row is the row chained and sealed (--public-key)",
    "reconcile": "compare this table's journal (pool.contributed / pool.reversed, what it still owes) with the"
                 " pool's ledger",
    "propose": "record new settings (--contribution-bp ... --who --approved-by --why); they apply after the jackpot "
               "is won",
    "reset": "reset the meter to its reset value by hand (--who --approved-by --why)",
}
ADMIN_ACTIONS = {
    "migrate": "the administrator (--dsn): create or bring up to date the pool's and the central journal's"
               " schemas, with the table and auditor group roles",
    "register-table": "the administrator (--dsn --table T01 --role tabled_t01 [--password-file FILE]): the table's"
                      " own login role, which may add its own rows and nothing else",
    "register-auditor": "the administrator (--dsn --role NAME [--password-file FILE]): a login role that reads"
                        " everything and changes nothing",
    "create": "the administrator (--dsn --name --contribution-bp --reset-cents --who --why): a new linked pool at"
              " its reset value",
}
ACTIONS.update(ADMIN_ACTIONS)
SETTING_FLAGS = ("contribution_bp", "reset_cents", "limit_cents", "overflow_to", "reset_from")
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=ACTIONS, help="; ".join(f"{k}: {v}" for k, v in ACTIONS.items()))
    parser.add_argument("--config", metavar="FILE", help="the daemon's config; its [[pools]] are used "
                        "(default: $TABLED_CONFIG, else /etc/tabled/tabled.toml)")
    parser.add_argument("--name", help="only this pool (with --path/--dsn: the pool's name, default main)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--path", metavar="FILE", help="a local pool database (SQLite)")
    where.add_argument("--dsn", help="a linked pool's PostgreSQL connection string")
    parser.add_argument("--table", metavar="ID", help="this table's id (default: the config's table.id)")
    parser.add_argument("--journal", metavar="FILE", help="reconcile: the journal (default: the config's)")
    parser.add_argument("--last", metavar="N", type=whole_number(1), default=25,
                        help="history/ledger: the last N rows (default 25)")
    parser.add_argument("--limit", dest="last", type=whole_number(1), help=argparse.SUPPRESS)  # an older name
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--public-key", metavar="FILE", action="append", default=[],
                        help="verify: a public key of the table's journal (PEM; may be repeated): the local pool's"
                             " seals are checked against it")
    new = parser.add_argument_group("propose", "settings not named stay as in the latest version")
    new.add_argument("--contribution-bp", type=whole_number(0, BASIS_POINTS), metavar="BP",
                     help="11.6: basis points of each wager to the pool")
    new.add_argument("--reset-cents", type=whole_number(0), metavar="CENTS", help="the value the pool resets to")
    new.add_argument("--limit-cents", type=whole_number(0), metavar="CENTS",
                     help="the pool grows no further (0: no limit)")
    new.add_argument("--overflow-to", metavar="POOL", help="the pool that takes what is above the limit ('' none)")
    new.add_argument("--reset-from", metavar="POOL", help="the reserve that funds the reset ('' none)")
    admin = parser.add_argument_group("the administrator", "migrate, register-table, register-auditor, create")
    admin.add_argument("--role", help="register-table / register-auditor: the login role (made if missing)")
    admin.add_argument("--password-file", metavar="FILE",
                       help="register-table / register-auditor: a file holding the role's new password (never "
                            "on the command line; without it the role logs in by certificate or pg_hba)")
    new.add_argument("--who", help="the person making the change (recorded); with a staff list their badge "
                     "number (role pool_admin; the PIN is read from stdin)")
    new.add_argument("--approved-by", metavar="WHO", help="the second person, of another department, approving the "
                     "change (recorded); with a staff list their badge number (role accounting; the PIN is read "
                     "from stdin after the proposer's)")
    new.add_argument("--staff", metavar="FILE", help="the staff list --who is checked against (default: the "
                     "config's [staff], when the pool comes from the config)")
    new.add_argument("--why", help="the reason (recorded)")


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_main(args))


def _targets(args: argparse.Namespace) -> tuple[list[Any], str, Path | None]:
    """The [[pools]] entries to open, this table's id, and its journal."""
    if args.path or args.dsn:
        if args.path and not Path(args.path).is_file():
            raise UserError(f"{args.path}: no pool database there")
        entry = SimpleNamespace(name=args.name or "main", backend="local" if args.path else "postgresql",
                                path=args.path and Path(args.path), dsn=args.dsn)
        return [entry], args.table or "cli", args.journal and Path(args.journal)
    config = _config(args)
    entries = [p for p in config.pools if args.name in (None, p.name)]
    if not entries:
        raise UserError(f"the config has no pool named {args.name!r} (it has: "
                        f"{', '.join(p.name for p in config.pools)})")
    for e in entries:
        if e.backend == "local" and not Path(e.path).is_file():
            raise UserError(f"pool {e.name}: {e.path}: no pool database there (has the daemon run?)")
    return entries, args.table or config.table.id, Path(args.journal) if args.journal else config.journal.path


def _public_keys(files: list[str]) -> dict[str, Any] | None:
    """Key id -> public key, from the --public-key files (the journal's keys: the pool is sealed with them)."""
    from tabled.journal.seals import SealError, public_keys
    if not files:
        return None
    try:
        return public_keys((name, Path(name).read_bytes()) for name in files)
    except OSError as exc:
        raise UserError(f"--public-key: {exc.filename}: {exc.strerror}") from None
    except SealError as exc:
        raise UserError(str(exc)) from None


def _config(args: argparse.Namespace) -> Any:
    """The daemon's config, found the one documented way (tabled.daemon.config.find_config)."""
    return load_config(find_config(args.config))


async def _main(args: argparse.Namespace) -> int:
    if args.action in ADMIN_ACTIONS:  # psycopg and the central schemas, loaded only for these
        from tabled.commands._pool_admin import administer
        return await administer(args)
    entries, table_id, journal = _targets(args)
    if args.action in TWO_PEOPLE:
        args.who = _two_people(args)  # once, whatever the number of pools
    status, out = 0, []
    for entry in entries:
        try:
            pool = await open_pool(entry, table_id, create=False)
        except PoolError as exc:
            raise UserError(str(exc)) from None
        try:
            code, doc, text = await _act(args, pool, table_id, journal)
        except PoolError as exc:
            raise UserError(str(exc)) from None
        finally:
            await pool.close()
        status = max(status, code)
        out.append(doc)
        if not args.json:
            print(text)
    if args.json:
        print(json.dumps(out[0] if len(out) == 1 else out, indent=2))
    return status


async def _act(args: argparse.Namespace, pool: LedgerPool, table_id: str,
               journal: Path | None) -> tuple[int, dict, str]:
    if args.action == "status":
        s = await pool.status()
        pending = (f"; version {s.pending_settings_version} recorded, takes effect after the jackpot is won"
                   if s.pending_settings_version else "")
        return 0, dataclasses.asdict(s), "\n".join([
            f"pool {s.name}: {money(s.balance_cents)} on the meter",
            f"  reset value {money(s.reset_cents)}; jackpot won {s.epoch} {'time' if s.epoch == 1 else 'times'}; "
            f"{s.contributions_since_reset} contributions since the last reset; {s.hits} hits paid",
            f"  settings version {s.settings_version}{pending}",
            f"  last change {s.last_change_at}: {s.last_change_reason}"])
    if args.action == "history":
        hits = await pool.history(args.last)
        lines = [f"pool {pool.name}: last {len(hits)} {'hit' if len(hits) == 1 else 'hits'}, newest first"]
        lines += [f"  #{h.hit_seq} {h.at} table {h.table_id} round {h.round_id} spot {h.spot}: "
                  f"{h.category.replace('_', ' ').lower()}{' ' + h.hand if h.hand else ''} paid {money(h.amount_cents)}"
                  f" ({money(h.from_pool_cents)} from the pool, {money(h.topup_cents)} by the operator; rule {h.rule});"
                  f" pool {money(h.pool_before_cents)} -> {money(h.pool_after_cents)}"
                  + (f"; held since {h.held_since}" if h.held_since else "") for h in hits]
        return 0, {"pool": pool.name, "hits": [dataclasses.asdict(h) for h in hits]}, "\n".join(lines)
    if args.action == "ledger":
        rows = await pool.ledger(args.last)
        lines = [f"pool {pool.name}: last {len(rows)} ledger {'row' if len(rows) == 1 else 'rows'}"]
        lines += [f"  {r.seq:>6} {r.at} {r.kind:<12} {money(r.delta_cents):>14} -> {money(r.balance_after_cents):>14}"
                  f"  {r.reason}" + (f" [table {r.table_id} round {r.round_id} spot {r.spot}]" if r.table_id else "")
                  + (f" by {r.who}" if r.who else "") for r in rows]
        return 0, {"pool": pool.name, "ledger": [dataclasses.asdict(r) for r in rows]}, "\n".join(lines)
    if args.action == "propose":
        return await _propose(args, pool)
    if args.action == "reset":
        return await _reset(args, pool)
    if args.action == "verify":
        v = await (pool.verify(_public_keys(args.public_key)) if isinstance(pool, LocalPool) else pool.verify())
        chained = "; every row is the row chained" if isinstance(pool, LocalPool) else ""
        if v.ok:
            head = f"pool {pool.name}: the ledger proves the meter: {money(v.balance_cents)}{chained}"
        elif v.balance_cents != v.expected_cents:
            head = (f"pool {pool.name}: LEDGER DOES NOT PROVE THE METER ({money(v.balance_cents)} shown,"
                    f" {money(v.expected_cents)} from the ledger since the last reset)")
        else:
            head = (f"pool {pool.name}: THE LEDGER IS NOT AS IT WAS WRITTEN (the meter shows"
                    f" {money(v.balance_cents)}, as the ledger's rows now add up)")
        return (0 if v.ok else 1), {"pool": pool.name, **dataclasses.asdict(v)}, "\n".join(
            [head] + [f"  {p}" for p in v.problems] + [f"  ({n})" for n in v.notes])
    return await _reconcile(args, pool, table_id, journal)


async def _reconcile(args: argparse.Namespace, pool: LedgerPool, table_id: str,
                     journal: Path | None) -> tuple[int, dict, str]:
    seen = _read_journal(journal, pool.name, table_id, args, primary=_is_primary(args, pool.name))
    r = await pool.reconcile(seen.contributed, reversed_keys=seen.reversed_keys, table_id=table_id,
                             round_keys=seen.round_keys, owed=seen.owed, owed_reversals=seen.owed_reversals,
                             answers=seen.answers)
    compared = f"{r.compared} journal {'contribution' if r.compared == 1 else 'contributions'}"
    others = f"{len(seen.answers)} other {'answer' if len(seen.answers) == 1 else 'answers'}"
    lines = [f"pool {pool.name}: table {r.table_id}: {compared} and {others} of the pool compared, to the cent: "
             + ("the journal and the pool agree" if r.ok else "DIFFERENCES"
                if r.missing_in_pool or r.missing_in_journal or r.differences else "STILL OWED TO THE POOL")]
    if r.owed:
        owed = f"{len(r.owed)} {'contribution' if len(r.owed) == 1 else 'contributions'}"
        lines.append(f"  owed: {owed} on {money(sum(w for _, _, w in r.owed))} of progressive"
                     " wagers, taken at the lock and not yet in the pool: the daemon delivers them when the pool"
                     " answers, at the latest at its next start")
        lines += [f"    round {rid} spot {spot}: wager {money(w)}" for rid, spot, w in r.owed]
    lines += [f"  owed: the reversal of round {k[0]} spot {k[1]}: the daemon sends it when the pool answers"
              for k in r.owed_reversals]
    lines += [f"  in the pool, its answer not yet in the journal (the daemon stopped first): round {k[0]} spot {k[1]}:"
              " the next start records it, without a second contribution" for k in r.in_flight]
    lines += [f"  in the journal, not in the pool (deliver it): round {k[0]} spot {k[1]}" for k in r.missing_in_pool]
    lines += [f"  in the pool, not in the journal: round {k[0]} spot {k[1]}" for k in r.missing_in_journal]
    lines += [f"  {d}" for d in r.differences]
    lines += [f"  {n}" for n in seen.notes]
    return (0 if r.ok else 1), {"pool": pool.name, **r.as_dict()}, "\n".join(lines)


#: the staff role that may change the pool's settings: the operator's authority over its own
#: progressive (contribution, reset value, limits), neither a floor supervisor's nor the
#: regulator's inspector's (tabled/table/staff.py)
POOL_AUTHORITY = "pool_admin"
#: the role of the second person, of another department, who approves the change (N.J.A.C.
#: 13:69D-1.52: two keys held by different departments; Pennsylvania 605a.7: a reset is keyed)
APPROVER = "accounting"
#: the actions that need the two of them
TWO_PEOPLE = ("propose", "reset")


def _two_people(args: argparse.Namespace) -> str:
    """Who changes the pool, as its ledger records them: the proposer and the approver, two people.
    With a staff list, the proposer is a badge holding ``pool_admin`` and the approver another
    person's badge holding ``accounting``, each with their PIN typed (stdin, in that order);
    without one, --who and --approved-by as given, two different names."""
    from tabled.daemon.staff import StaffConfig, StaffError, read_staff

    if not (args.who and args.who.strip() and args.why and args.why.strip()):
        raise UserError(f"{args.action} needs --who (the person) and --why (the reason): both are recorded")
    if not (args.approved_by and args.approved_by.strip()):
        raise UserError(f"{args.action} needs --approved-by: a second person, of another department ({APPROVER}), "
                        "approves a change of the pool (N.J.A.C. 13:69D-1.52); nothing recorded")
    who, approver = args.who.strip(), args.approved_by.strip()
    staff: StaffConfig | None
    try:
        if args.staff:
            staff = read_staff(Path(args.staff), 5, 15)
        else:
            staff = None if (args.path or args.dsn) else _config(args).staff
    except StaffError as exc:
        raise UserError(str(exc)) from None
    if staff is None:
        if who.casefold() == approver.casefold():
            raise UserError(f"--approved-by {approver!r}: the same person as --who: two people change the pool; "
                            "nothing recorded")
        return f"{who}; approved by {approver}"
    proposer = _signed(staff, "--who", who, POOL_AUTHORITY, None)
    second = _signed(staff, "--approved-by", approver, APPROVER, proposer)
    return (f"{proposer.name} (badge {proposer.badge}, {POOL_AUTHORITY}); approved by {second.name} "
            f"(badge {second.badge}, {APPROVER})")


def _signed(staff: Any, flag: str, badge_text: str, role: str, other: Any) -> Any:
    """The person of ``badge_text`` holding ``role``, who typed their PIN; not ``other``, and, as the
    approver, not of the proposer's role alone."""
    from tabled.commands.staff import read_pin
    if not badge_text.isdigit():
        raise UserError(f"{flag} {badge_text!r}: with a staff list, {flag} is the badge number of a {role}")
    person = staff.person(int(badge_text))
    if person is None:
        raise UserError(f"{flag} {badge_text}: no badge {badge_text} on the staff list ({staff.file}): "
                        "nothing recorded")
    if other is not None and person.badge == other.badge:
        raise UserError(f"{flag} {badge_text}: {person.name} proposed the change: a second person approves it; "
                        "nothing recorded")
    if role not in person.roles:
        same = other is not None and POOL_AUTHORITY in person.roles
        raise UserError(f"{flag} {badge_text}: {person.name} (badge {badge_text}) is not a {role} on the staff list "
                        f"(roles: {', '.join(person.roles)})"
                        + (f": a second {POOL_AUTHORITY} is the same department, not another" if same else
                           f": only a {role} {'approves' if other is not None else 'proposes'} a change of the pool")
                        + "; nothing recorded")
    if not staff.check(person.badge, read_pin(prompt=f"PIN of {person.name}: ")):
        raise UserError(f"{flag} {badge_text}: wrong PIN for {person.name} (badge {badge_text}): nothing recorded")
    return person


async def _propose(args: argparse.Namespace, pool: LedgerPool) -> tuple[int, dict, str]:
    changes = {k: getattr(args, k) for k in SETTING_FLAGS if getattr(args, k) is not None}
    if not changes:
        raise UserError("propose needs at least one of --contribution-bp --reset-cents --limit-cents"
                        " --overflow-to --reset-from")
    if changes.get("limit_cents") == 0:
        changes["limit_cents"] = None
    for key in ("overflow_to", "reset_from"):
        if changes.get(key) == "":
            changes[key] = None
    latest = (await pool.settings_history())[-1]
    settings = dataclasses.replace(latest.settings, **changes)  # validated by PoolSettings itself
    version = await pool.propose_settings(settings, args.who, args.why)
    if version == latest.version:
        text, notice = f"pool {pool.name}: these are already the settings of version {version}; nothing recorded", None
    else:
        text = (f"pool {pool.name}: settings version {version} recorded by {args.who.strip()}; it takes effect"
                f" after the current jackpot is won")
        before, after = latest.settings.as_dict(), settings.as_dict()
        changed = "; ".join(f"{k} {before.get(k)} -> {after.get(k)}" for k in after if before.get(k) != after.get(k))
        notice = (f"ACCOUNTING NOTICE: pool {pool.name} settings version {latest.version} -> {version}: {changed}; "
                  f"by {args.who.strip()}; why: {args.why.strip()}; takes effect after the current jackpot is won")
        text += "\n" + notice
    return 0, {"pool": pool.name, "version": version, "recorded": version != latest.version,
               "settings": settings.as_dict(), "notice": notice}, text


async def _reset(args: argparse.Namespace, pool: LedgerPool) -> tuple[int, dict, str]:
    """The meter brought back to its reset value by hand: a correction signed by the two."""
    status = await pool.status()
    delta = status.reset_cents - status.balance_cents
    if delta == 0:
        return 0, {"pool": pool.name, "balance_cents": status.balance_cents, "recorded": False}, (
            f"pool {pool.name}: the meter is at its reset value {money(status.reset_cents)} already; nothing recorded")
    balance = await pool.correct(delta, f"manual reset of the meter: {args.why.strip()}", args.who)
    notice = (f"ACCOUNTING NOTICE: pool {pool.name} meter reset by hand from {money(status.balance_cents)} to "
              f"{money(balance)} ({money(delta)}); by {args.who}; why: {args.why.strip()}")
    return 0, {"pool": pool.name, "balance_cents": balance, "delta_cents": delta, "recorded": True,
               "notice": notice}, notice


@dataclasses.dataclass
class _JournalView:
    """What a table's journal says about one pool."""

    contributed: list[dict]                    # the answers it journaled (pool.contributed)
    reversed_keys: list[tuple[str, int]]       # (round, spot) reversed there (pool.reversed)
    round_keys: dict[str, list[str]]           # each round id's round keys, oldest first
    owed: list[tuple[str, int, int]]           # contributions taken, not yet answered by this pool
    owed_reversals: list[tuple[str, int]]      # reversals taken, not yet answered by this pool
    notes: list[str]
    answers: list[tuple[str, dict]] = dataclasses.field(default_factory=list)  # balances the pool reported


def _is_primary(args: argparse.Namespace, pool_name: str) -> bool:
    """The pool whose meter readings (``pool.meter``, which name no pool) the journal holds: the one
    pool given with --path/--dsn, else the config's primary pool."""
    if args.path or args.dsn:
        return True
    return bool(_config(args).primary_pool.name == pool_name)


def _read_journal(path: Path | None, pool_name: str, table_id: str, args: argparse.Namespace, *,
                  primary: bool = True) -> _JournalView:
    """The contributions the table's journal records as made to this pool (``pool.contributed``),
    the keys it records as reversed there (``pool.reversed``), the round keys of its rounds, and
    what the table still owes the pool: the pool operations its state holds unanswered, derived
    by folding the journal as the daemon does at start. A table may feed several pools (11.5);
    records without a pool name predate that and belong to the one pool there was."""
    from tabled.journal.store import Journal, JournalError
    from tabled.pool.rounds import pool_answers, round_keys
    if path is None:
        raise UserError("reconcile needs the table's journal (--journal FILE or --config)")
    try:
        journal = Journal.open(path, readonly=True, verify=False)
    except JournalError as exc:
        raise UserError(str(exc)) from None
    try:
        contributed, reversed_keys, opened, answers = [], [], [], []
        for rec in journal.records_after(0):
            if rec.kind == "round.started":
                opened.append(rec)
            answers += pool_answers([rec], pool_name, primary=primary)
            if rec.payload.get("pool", pool_name) != pool_name:
                continue
            if rec.kind == "pool.contributed":
                contributed.append({"round_id": rec.payload.get("round_id"), "spot": rec.payload.get("spot"),
                                    "wager_cents": rec.payload.get("wager_cents")})
            elif rec.kind == "pool.reversed":
                # a record without them matches no contribution of the pool
                reversed_keys.append((rec.payload.get("round_id", ""), rec.payload.get("spot", 0)))
        view = _JournalView(contributed, reversed_keys, round_keys(opened), [], [], [], answers)
        _owed(journal, pool_name, table_id, args, view)
        return view
    finally:
        journal.close()


def _owed(journal: Any, pool_name: str, table_id: str, args: argparse.Namespace, view: _JournalView) -> None:
    """Fill in what the journal's state still owes this pool (tabled/table/poolbook.py: the operations owed)."""
    from tabled.daemon.assemble import make_core
    from tabled.daemon.controller import Table
    try:
        config = _config(args)
        config = dataclasses.replace(config, table=dataclasses.replace(config.table, id=table_id))
        core, _, _ = Table.replay(journal, lambda snap: make_core(config, snap))
    except Exception as exc:  # a report, not the daemon: say what could not be derived
        view.notes.append(f"what the table still owes could not be derived from the journal: {exc}")
        return
    for op, done in core.pool.pending():
        if pool_name in done or "" in done or op.spot is None:  # a contribution or reversal names its spot
            continue
        if op.op == "contribute":
            view.owed.append((op.round_id, op.spot, op.cents))
        elif op.op == "reverse":
            view.owed_reversals.append((op.round_id, op.spot))
