"""The pool database schema, created and migrated by tabled itself (a ``schema_version`` table).

Both backends share one schema; only column types and the append-only triggers differ by dialect.
Migrations are a list: migration N brings the schema from version N-1 to N. Never edit a shipped
migration; add the next one.

Tables:
  pools           one row per pool: the meter (balance) and the counters that serialise changes
  pool_settings   every settings version, with who proposed it and why (insert-only)
  ledger          every change of a pool's balance, in order, with the balance after it (append-only)
  contributions   one row per (pool, table, round, spot): 11.6 split, applied once (append-only)
  reversals       one row per reversed contribution, same key (append-only)
  award_rounds    one row per (pool, table, round): the recorded result of that round's awards
  hits            one row per award, numbered in the order the pool paid them (append-only)
  table_journals  which journal each table's rounds come from: one row per (pool, table) (insert-only)

Version 2 gives every contribution, reversal and award round its round key: the hash of the
journal record that opened the round. A round id alone is not unique: a journal restored from a
backup, two tables configured with one id, or a rewound round counter play the same ids again,
and a repeat must never be answered with another round's result. Rows written before version 2
have no key (NULL) and are answered as before.

Version 3 (PostgreSQL) gives each table a role of its own that may only add its own rows (below).
The schema of a linked pool is made by the administrator (``tabled pool migrate``), never by a
table: a table's role may not change it.

A local pool's file also holds ``pool_chain`` and ``pool_seals``, the chain and seals of every row
it adds (tabled/pool/chain.py), made by tabled/pool/local.py when missing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import PoolError

APPEND_ONLY = ("pool_settings", "ledger", "contributions", "reversals", "award_rounds", "hits")

_V1_TABLES = """
CREATE TABLE pools (
    name              TEXT PRIMARY KEY,
    balance_cents     BIGINT NOT NULL CHECK (balance_cents >= 0),
    epoch             INTEGER NOT NULL,     -- how many times the jackpot was won and the pool reset
    settings_version  INTEGER NOT NULL,     -- the active version
    ledger_seq        BIGINT NOT NULL,      -- last ledger row of this pool
    hit_seq           BIGINT NOT NULL,      -- last hit paid from this pool
    created_at        TEXT NOT NULL
);
CREATE TABLE pool_settings (
    pool              TEXT NOT NULL REFERENCES pools(name),
    version           INTEGER NOT NULL,
    contribution_bp   INTEGER NOT NULL,
    reset_cents       BIGINT NOT NULL,
    limit_cents       BIGINT,
    overflow_to       TEXT,
    reset_from        TEXT,
    schedule          TEXT,
    who               TEXT NOT NULL,
    why               TEXT NOT NULL,
    proposed_at       TEXT NOT NULL,
    PRIMARY KEY (pool, version)
);
CREATE TABLE ledger (
    pool              TEXT NOT NULL REFERENCES pools(name),
    seq               BIGINT NOT NULL,
    kind              TEXT NOT NULL,        -- open contribution overflow_in reversal award reset fund_reset correction settings
    delta_cents       BIGINT NOT NULL,
    balance_after_cents BIGINT NOT NULL,
    epoch             INTEGER NOT NULL,
    table_id          TEXT,
    round_id          TEXT,
    spot              INTEGER,
    reason            TEXT NOT NULL,
    who               TEXT,
    at                TEXT NOT NULL,
    PRIMARY KEY (pool, seq)
);
CREATE TABLE contributions (
    pool              TEXT NOT NULL REFERENCES pools(name),
    table_id          TEXT NOT NULL,
    round_id          TEXT NOT NULL,
    spot              INTEGER NOT NULL,
    wager_cents       BIGINT NOT NULL,
    pool_cents        BIGINT NOT NULL,
    retained_cents    BIGINT NOT NULL,
    overflow_cents    BIGINT NOT NULL,
    ledger_seq        BIGINT NOT NULL,
    at                TEXT NOT NULL,
    PRIMARY KEY (pool, table_id, round_id, spot)
);
CREATE TABLE reversals (
    pool              TEXT NOT NULL REFERENCES pools(name),
    table_id          TEXT NOT NULL,
    round_id          TEXT NOT NULL,
    spot              INTEGER NOT NULL,
    cents             BIGINT NOT NULL,
    reason            TEXT NOT NULL,
    ledger_seq        BIGINT NOT NULL,
    at                TEXT NOT NULL,
    PRIMARY KEY (pool, table_id, round_id, spot)
);
CREATE TABLE award_rounds (
    pool              TEXT NOT NULL REFERENCES pools(name),
    table_id          TEXT NOT NULL,
    round_id          TEXT NOT NULL,
    result            TEXT NOT NULL,        -- the ProgressiveResult as JSON: a repeat returns it
    held_since        TEXT,                 -- 14.13: the hit was held while the pool was unreachable
    at                TEXT NOT NULL,        -- when the pool recorded and paid it
    PRIMARY KEY (pool, table_id, round_id)
);
CREATE TABLE hits (
    pool              TEXT NOT NULL REFERENCES pools(name),
    hit_seq           BIGINT NOT NULL,
    table_id          TEXT NOT NULL,
    round_id          TEXT NOT NULL,
    spot              INTEGER NOT NULL,
    category          TEXT NOT NULL,
    hand              TEXT,
    amount_cents      BIGINT NOT NULL,
    from_pool_cents   BIGINT NOT NULL,
    topup_cents       BIGINT NOT NULL,
    pool_before_cents BIGINT NOT NULL,
    pool_after_cents  BIGINT NOT NULL,
    rule              TEXT NOT NULL,
    held_since        TEXT,
    at                TEXT NOT NULL,
    PRIMARY KEY (pool, hit_seq)
);
CREATE INDEX contributions_by_table ON contributions (table_id, round_id);
"""  # noqa: E501 (the SQL as the databases hold it)

_PG_APPEND_ONLY_FN = """CREATE FUNCTION tabled_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'tabled: the % table is append-only', TG_TABLE_NAME;
END $$"""


def _tables() -> list[str]:
    return [s.strip() for s in _V1_TABLES.split(";\n") if s.strip()]


def _pg_triggers(tables: tuple[str, ...], *, function: bool = False) -> list[str]:
    out = [_PG_APPEND_ONLY_FN] if function else []
    for t in tables:
        out.append(f"CREATE TRIGGER {t}_append_only BEFORE UPDATE OR DELETE ON {t} "
                   f"FOR EACH ROW EXECUTE FUNCTION tabled_append_only()")
        out.append(f"CREATE TRIGGER {t}_no_truncate BEFORE TRUNCATE ON {t} "
                   f"FOR EACH STATEMENT EXECUTE FUNCTION tabled_append_only()")
    return out


def _sqlite_triggers(tables: tuple[str, ...]) -> list[str]:
    out = []
    for t in tables:
        for op in ("UPDATE", "DELETE"):
            out.append(f"CREATE TRIGGER {t}_no_{op.lower()} BEFORE {op} ON {t} "
                       f"BEGIN SELECT RAISE(ABORT, 'tabled: the {t} table is append-only'); END")
    return out


_V2_TABLES = """
ALTER TABLE contributions ADD COLUMN round_key TEXT;
ALTER TABLE reversals ADD COLUMN round_key TEXT;
ALTER TABLE award_rounds ADD COLUMN round_key TEXT;
CREATE TABLE table_journals (
    pool              TEXT NOT NULL REFERENCES pools(name),
    table_id          TEXT NOT NULL,
    journal_id        TEXT NOT NULL,        -- the hash of the journal's first record
    at                TEXT NOT NULL,        -- when the table first reached the pool with it
    PRIMARY KEY (pool, table_id)
);
CREATE INDEX contributions_by_table_seq ON contributions (pool, table_id, ledger_seq)
"""
V2_APPEND_ONLY = ("table_journals",)


def _v2() -> list[str]:
    return [s.strip() for s in _V2_TABLES.split(";\n") if s.strip()]


#: the group role every table's login role is a member of (``tabled pool register-table``)
TABLE_ROLE = "tabled_table"
#: the group role of people who read everything and change nothing
AUDITOR_ROLE = "tabled_auditor"
#: what a table writes: its own rows only (the trigger below checks the table id)
TABLE_WRITES = ("ledger", "contributions", "reversals", "award_rounds", "hits", "table_journals")
#: ledger rows a table makes: contributions, reversals and a round's awards with their reset
TABLE_LEDGER_KINDS = ("contribution", "overflow_in", "reversal", "award", "reset", "fund_reset", "settings")
_READ = ("schema_version", "pools", "pool_settings", *TABLE_WRITES, "table_roles")

# Version 3 (PostgreSQL only): least privilege. A table logs in with a role of its own, a member of
# tabled_table, which may read the pool and insert its own rows, and nothing else: no UPDATE or
# DELETE anywhere (the pool's row is locked and written through the two SECURITY DEFINER functions
# below, which take the meter from the ledger, never from the caller), no pool or settings (the
# administrator's), no other table's rows, no ledger row that does not follow the one before it.
_V3_PG = f"""
CREATE TABLE table_roles (
    role              NAME PRIMARY KEY,     -- a table's login role
    table_id          TEXT UNIQUE NOT NULL  -- the only table whose rows it may write
);

CREATE FUNCTION tabled_pool_lock(pool_name TEXT)
RETURNS TABLE (name TEXT, balance_cents BIGINT, epoch INTEGER, settings_version INTEGER, ledger_seq BIGINT,
               hit_seq BIGINT)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    SELECT p.name, p.balance_cents, p.epoch, p.settings_version, p.ledger_seq, p.hit_seq
    FROM pools p WHERE p.name = pool_name FOR UPDATE
$$;

CREATE FUNCTION tabled_pool_save(new_balance BIGINT, new_epoch INTEGER, new_version INTEGER, new_seq BIGINT,
                                 new_hit_seq BIGINT, pool_name TEXT) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    old   pools%ROWTYPE;
    head  ledger%ROWTYPE;
    hit   BIGINT;
    top   INTEGER;
BEGIN
    SELECT * INTO old FROM pools WHERE name = pool_name FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'tabled: there is no pool named %', pool_name USING ERRCODE = 'no_data_found';
    END IF;
    SELECT * INTO head FROM ledger WHERE pool = pool_name ORDER BY seq DESC LIMIT 1;
    SELECT COALESCE(MAX(hit_seq), 0) INTO hit FROM hits WHERE pool = pool_name;
    SELECT COALESCE(MAX(version), 0) INTO top FROM pool_settings WHERE pool = pool_name;
    IF head.seq IS DISTINCT FROM new_seq OR head.balance_after_cents <> new_balance OR head.epoch <> new_epoch
       OR hit <> new_hit_seq OR new_version < old.settings_version OR new_version > top THEN
        RAISE EXCEPTION 'tabled: pool %: the meter must be the ledger''s last row (%, % cents, epoch %) and the'
            ' last hit (%)', pool_name, head.seq, head.balance_after_cents, head.epoch, hit
            USING ERRCODE = 'check_violation';
    END IF;
    UPDATE pools SET balance_cents = new_balance, epoch = new_epoch, settings_version = new_version,
        ledger_seq = new_seq, hit_seq = new_hit_seq WHERE name = pool_name;
END $$;

CREATE FUNCTION tabled_own_rows() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
    mine  TEXT;
    last  ledger%ROWTYPE;
BEGIN
    SELECT r.table_id INTO mine FROM table_roles r WHERE r.role = session_user;
    IF mine IS NULL THEN
        RETURN NEW;  -- not a table's role: the administrator (privileges decide the rest)
    END IF;
    IF NEW.table_id IS DISTINCT FROM mine THEN
        RAISE EXCEPTION 'tabled: role % writes the rows of table %, not of table %', session_user, mine,
            COALESCE(NEW.table_id, '(none)') USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_TABLE_NAME = 'ledger' THEN
        IF NOT NEW.kind = ANY (ARRAY{list(TABLE_LEDGER_KINDS)!r}) THEN
            RAISE EXCEPTION 'tabled: role % may not write a % ledger row (the administrator''s)', session_user,
                NEW.kind USING ERRCODE = 'insufficient_privilege';
        END IF;
        SELECT * INTO last FROM ledger WHERE pool = NEW.pool ORDER BY seq DESC LIMIT 1;
        IF last.seq IS NULL OR NEW.seq <> last.seq + 1 OR NEW.epoch < last.epoch
           OR NEW.balance_after_cents <> last.balance_after_cents + NEW.delta_cents THEN
            RAISE EXCEPTION 'tabled: pool %: ledger row % does not follow row % (balance % cents)', NEW.pool,
                NEW.seq, last.seq, last.balance_after_cents USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END $$;

DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{TABLE_ROLE}') THEN
        CREATE ROLE {TABLE_ROLE} NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{AUDITOR_ROLE}') THEN
        CREATE ROLE {AUDITOR_ROLE} NOLOGIN;
    END IF;
END $$;

REVOKE ALL ON {", ".join(_READ)} FROM PUBLIC;

REVOKE ALL ON FUNCTION tabled_pool_lock(TEXT), tabled_pool_save(BIGINT, INTEGER, INTEGER, BIGINT, BIGINT, TEXT)
    FROM PUBLIC;

GRANT SELECT ON {", ".join(_READ)} TO {TABLE_ROLE}, {AUDITOR_ROLE};

GRANT INSERT ON {", ".join(TABLE_WRITES)} TO {TABLE_ROLE};

GRANT EXECUTE ON FUNCTION tabled_pool_lock(TEXT), tabled_pool_save(BIGINT, INTEGER, INTEGER, BIGINT, BIGINT, TEXT)
    TO {TABLE_ROLE}
"""


def _v3_pg() -> list[str]:
    out = [s.strip() for s in _V3_PG.split("\n\n") if s.strip()]  # a blank line between statements
    for t in TABLE_WRITES:
        out.append(f"CREATE TRIGGER {t}_own_rows BEFORE INSERT ON {t} FOR EACH ROW EXECUTE FUNCTION tabled_own_rows()")
    return out


#: MIGRATIONS[dialect][n] is the list of statements taking the schema from version n to n + 1
MIGRATIONS: dict[str, list[list[str]]] = {
    "postgresql": [_tables() + _pg_triggers(APPEND_ONLY, function=True), _v2() + _pg_triggers(V2_APPEND_ONLY),
                   _v3_pg()],
    # an embedded pool has one user, the table's daemon: version 3 has nothing for it
    "sqlite": [_tables() + _sqlite_triggers(APPEND_ONLY), _v2() + _sqlite_triggers(V2_APPEND_ONLY), []],
}

LATEST = len(MIGRATIONS["sqlite"])
assert LATEST == len(MIGRATIONS["postgresql"])


def bring_up_to_date(execute: Callable[..., Any], dialect: str) -> int:
    """Create the schema or take it to :data:`LATEST`, inside the caller's transaction, through
    ``execute(sql[, params])`` of either backend's connection (``dialect``: a key of
    :data:`MIGRATIONS`). Returns the version it was at (0: none)."""
    mark = "?" if dialect == "sqlite" else "%s"
    execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = execute("SELECT version FROM schema_version").fetchone()
    version = int(row[0]) if row else 0
    if version > LATEST:
        raise PoolError(f"the pool database is at schema version {version}; this tabled knows up to {LATEST}")
    for statements in MIGRATIONS[dialect][version:]:
        for statement in statements:
            execute(statement)
    if row is None:
        execute(f"INSERT INTO schema_version (version) VALUES ({mark})", (LATEST,))
    elif version != LATEST:
        execute(f"UPDATE schema_version SET version = {mark}", (LATEST,))
    return version
