"""``tabled pool migrate|register-table|register-auditor|create``: the administrator's actions on the
casino's central PostgreSQL (docs/linked-pools.md, "Least privilege"). Loaded only for them: the
table's own commands need neither psycopg nor the central schemas."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tabled import floor
from tabled.commands._arguments import UserError
from tabled.daemon import shipping
from tabled.floor import ratings
from tabled.game.settlement import money
from tabled.host.dsn import credential_password, dsn_problem
from tabled.host.primary import for_the_primary, standby_only
from tabled.pool import PoolError, PoolSettings
from tabled.pool import postgresql as linked
from tabled.pool.schema import AUDITOR_ROLE, LATEST, TABLE_ROLE

#: the systemd credential with the administrator's password, when the command runs as a service
ADMIN_CREDENTIAL = "pool-admin-password"


def _pool_schema(admin: Any) -> str:
    was = linked.migrate(admin)
    return f"version {LATEST}" + (" (already)" if was == LATEST else f" (was {was})")


#: every central schema `tabled pool migrate` installs, in order: (name, installer(admin connection))
SCHEMAS: list[tuple[str, Callable[[Any], object]]] = [
    ("pool", _pool_schema),
    ("central journal", shipping.migrate),
    ("floor", floor.migrate),
    ("player ratings", ratings.migrate),
]
#: what `tabled pool register-table` does in each schema: (name, registrar(admin, table, role, password))
REGISTRARS: list[tuple[str, Callable[[Any, str, str, str | None], None]]] = [
    ("pool", linked.register_table),
    ("central journal", shipping.register_table),
]


def _admin_connection(args: argparse.Namespace) -> Any:
    """The administrator's connection (autocommit): --dsn, its password never on the command line."""
    import psycopg

    from tabled.host.log import scrub_secrets
    if not args.dsn:
        raise UserError(f"{args.action} needs --dsn: the pool database, as its administrator")
    problem = dsn_problem(args.dsn, ADMIN_CREDENTIAL)
    if problem is not None:
        if "holds a password" in problem:
            problem = (f"holds a password: give it in PGPASSWORD or ~/.pgpass (or systemd's credential"
                       f" {ADMIN_CREDENTIAL}), never on the command line")
        raise UserError(f"--dsn: {problem}")
    password = credential_password(ADMIN_CREDENTIAL)
    extra: dict[str, Any] = {"password": password} if password else {}
    try:
        return psycopg.connect(for_the_primary(args.dsn), autocommit=True, connect_timeout=10, **extra)
    except psycopg.Error as exc:
        if (said := standby_only(exc, args.dsn)) is not None:
            raise UserError(f"--dsn: {said}") from None
        raise UserError(f"the pool database cannot be reached: {scrub_secrets(str(exc).strip().splitlines()[0])}"
                        ) from None


def _role_password(args: argparse.Namespace) -> str | None:
    if not args.password_file:
        return None
    try:
        text = Path(args.password_file).read_text().strip()
    except OSError as exc:
        raise UserError(f"{args.password_file}: {exc.strerror}") from None
    if not text:
        raise UserError(f"{args.password_file}: empty; a password file holds the password")
    return text


async def administer(args: argparse.Namespace) -> int:
    if args.action == "create":
        return await _create(args)
    import psycopg
    if args.action != "migrate" and not args.role:
        raise UserError(f"{args.action} needs --role: the login role")
    if args.action == "register-table" and not args.table:
        raise UserError("register-table needs --table: the table's id (its [table] id)")
    password = _role_password(args)
    with _admin_connection(args) as admin:
        try:
            if args.action == "migrate":
                for name, install in SCHEMAS:
                    said = install(admin)
                    print(f"{name} schema: {said if isinstance(said, str) else 'up to date'}")
                print(f"roles: {TABLE_ROLE} (each table's role is one; it may add its own rows only),"
                      f" {AUDITOR_ROLE} (reads everything)")
            elif args.action == "register-table":
                for _, register in REGISTRARS:
                    register(admin, args.table, args.role, password)
                print(f"table {args.table}: role {args.role} may read the pool and add its own contributions,"
                      f" reversals, awards and journal records ({', '.join(n for n, _ in REGISTRARS)}); nothing else")
            else:
                linked.register_auditor(admin, args.role, password)
                print(f"role {args.role} reads every pool and table's records ({AUDITOR_ROLE}); it changes nothing")
        except (PoolError, shipping.ShippingError) as exc:
            raise UserError(str(exc)) from None
        except psycopg.Error as exc:
            raise UserError(f"the pool database refused it: {str(exc).strip().splitlines()[0]}"
                            f" (run as the database's administrator; run `tabled pool migrate` first)") from None
    return 0


async def _create(args: argparse.Namespace) -> int:
    """A new linked pool at its reset value: only the administrator may (a table's role may not)."""
    if not (args.name and args.contribution_bp is not None and args.reset_cents is not None):
        raise UserError("create needs --name, --contribution-bp and --reset-cents")
    if not (args.who and args.who.strip() and args.why and args.why.strip()):
        raise UserError("create needs --who (the person) and --why (the reason): both are recorded")
    import psycopg
    with _admin_connection(args) as admin:  # the same checks of --dsn, and the server answers
        try:
            exists = admin.execute("SELECT 1 FROM pools WHERE name = %s", (args.name,)).fetchone()
        except psycopg.Error:
            raise UserError("the pool database has no pool schema: run `tabled pool migrate` first") from None
    if exists:
        raise UserError(f"pool {args.name} exists already: its settings change with `tabled pool propose`")
    try:
        settings = PoolSettings(args.contribution_bp, args.reset_cents,
                                None if not args.limit_cents else args.limit_cents,
                                args.overflow_to or None, args.reset_from or None)
        pool = await linked.PostgresPool.open(args.dsn, args.name, args.table or "admin", settings,
                                              who=args.who.strip())
        try:
            status = await pool.status()
        finally:
            await pool.close()
    except PoolError as exc:
        raise UserError(str(exc)) from None
    print(f"pool {status.name}: {money(status.balance_cents)} on the meter (settings version"
          f" {status.settings_version}, recorded by {args.who.strip()})")
    return 0
