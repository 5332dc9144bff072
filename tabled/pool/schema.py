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
"""

from __future__ import annotations

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


#: MIGRATIONS[dialect][n] is the list of statements taking the schema from version n to n + 1
MIGRATIONS: dict[str, list[list[str]]] = {
    "postgresql": [_tables() + _pg_triggers(APPEND_ONLY, function=True), _v2() + _pg_triggers(V2_APPEND_ONLY)],
    "sqlite": [_tables() + _sqlite_triggers(APPEND_ONLY), _v2() + _sqlite_triggers(V2_APPEND_ONLY)],
}

LATEST = len(MIGRATIONS["sqlite"])
assert LATEST == len(MIGRATIONS["postgresql"])
