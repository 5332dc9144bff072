"""The floor's own part of the central PostgreSQL: the acknowledgements of its alerts.

The floor reads the tables' journals with the auditor's rights (tabled/journal/central.py) and
writes only ``floor_acks``: who acknowledged which alert, and when (the server's clock); one row
per alert (a unique index refuses a second). The table is append-only (a trigger refuses UPDATE,
DELETE and TRUNCATE), so an acknowledgement, once made, stays on record. ``migrate`` is run by
the administrator, after the journal's own schema.
"""

from __future__ import annotations

from typing import Any

from tabled.journal.central import AUDITOR

#: the role the floor service logs in as (or a login role granted it)
FLOOR_ROLE = "tabled_floor"
MAX_NAME = 80

FLOOR_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS floor_acks (
    id        bigserial PRIMARY KEY,
    alert     text        NOT NULL CHECK (length(alert) BETWEEN 1 AND 200),
    table_id  text        NOT NULL,
    who       text        NOT NULL CHECK (length(btrim(who)) BETWEEN 1 AND {MAX_NAME}),
    viewer    text        NOT NULL,
    acked_at  timestamptz NOT NULL DEFAULT now()
);

-- one acknowledgement per alert: a second, from any floor service, is refused
CREATE UNIQUE INDEX IF NOT EXISTS floor_acks_one_per_alert ON floor_acks (alert);

CREATE OR REPLACE FUNCTION floor_acks_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the floor''s acknowledgements are append-only: never changed or deleted'
        USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE OR REPLACE FUNCTION floor_acks_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.acked_at := now();  -- the server's clock, whatever the client says
    RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS floor_acks_stamp ON floor_acks;
CREATE TRIGGER floor_acks_stamp BEFORE INSERT ON floor_acks FOR EACH ROW EXECUTE FUNCTION floor_acks_stamp();
DROP TRIGGER IF EXISTS floor_acks_no_change ON floor_acks;
CREATE TRIGGER floor_acks_no_change BEFORE UPDATE OR DELETE ON floor_acks
    FOR EACH ROW EXECUTE FUNCTION floor_acks_refuse_change();
DROP TRIGGER IF EXISTS floor_acks_no_truncate ON floor_acks;
CREATE TRIGGER floor_acks_no_truncate BEFORE TRUNCATE ON floor_acks
    FOR EACH STATEMENT EXECUTE FUNCTION floor_acks_refuse_change();

DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{FLOOR_ROLE}') THEN
        CREATE ROLE {FLOOR_ROLE} NOLOGIN;
    END IF;
END $$;
GRANT {AUDITOR} TO {FLOOR_ROLE};
REVOKE ALL ON floor_acks FROM PUBLIC;
GRANT SELECT, INSERT ON floor_acks TO {FLOOR_ROLE};
GRANT USAGE ON SEQUENCE floor_acks_id_seq TO {FLOOR_ROLE};
GRANT SELECT ON floor_acks TO {AUDITOR};
"""


def migrate(admin: Any) -> None:
    """Create or bring up to date the floor's tables (the administrator's connection, autocommit;
    the journal's schema, ``tabled.daemon.shipping.migrate``, first: the floor reads it)."""
    admin.execute(FLOOR_SCHEMA)


__all__ = ["FLOOR_ROLE", "FLOOR_SCHEMA", "MAX_NAME", "migrate"]
