"""Player ratings in the central PostgreSQL: the views a casino management system reads, and a
player's sessions across every table with their exact theoretical loss.

``player_ratings_v1`` is a view over the shipped journals (``journal_records``): one row per
``player.rating`` record (tabled/table/players.py), its figures as columns (docs/ratings.md).
``player_ratings_v2`` is the same rows with the exact theoretical loss beside them: the floor
rates each rating shipped (:func:`rate_pending`: the rounds it played, as ``tabled report players``
rates them) into ``player_theoretical``, one row per rating record, written once. The views are
read with the role ``tabled_ratings`` (granted to the management system's login), which sees them
and nothing else. A later version is a new view beside the others: each keeps its columns.
``migrate`` is run by the administrator, after the journal's and the floor's own schemas.

:func:`lookup` reads a player's sessions and the rounds they played from every table's shipped
journal and rates them as ``tabled report players`` does (tabled/reports/ratings.py): each that
ended, and each open as far as its table's journal has been shipped (seated, with its rounds and
wagers so far from the fold's ``player.round`` notes), its time seated counted to the table's
newest shipped record.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

from tabled.floor.central import FLOOR_ROLE
from tabled.game.profiles import Profile
from tabled.journal.central import AUDITOR
from tabled.reports.ratings import ROUND_KINDS, Rating, rate, rate_one
from tabled.reports.rounds import gather

#: the role a casino management system reads the ratings with (or a login role granted it)
RATINGS_ROLE = "tabled_ratings"

RATINGS_SCHEMA = f"""
CREATE OR REPLACE VIEW player_ratings_v1 AS
SELECT r.table_id,
       r.seq,
       to_timestamp(r.time_us / 1000000.0)                     AS rated_at,
       p ->> 'session'                                          AS session,
       p ->> 'card'                                             AS card,
       coalesce((p ->> 'anonymous')::boolean, p ->> 'card' IS NULL) AS anonymous,
       coalesce((p ->> 'interim')::boolean, false)              AS interim,
       p ->> 'reason'                                           AS reason,
       to_timestamp((p ->> 'start_ms')::bigint / 1000.0)        AS start_at,
       to_timestamp((p ->> 'end_ms')::bigint / 1000.0)          AS end_at,
       (SELECT string_agg(s, ' ') FROM jsonb_array_elements_text(p -> 'spots') AS s) AS spots,
       (p ->> 'rounds_played')::bigint                          AS rounds_played,
       (p ->> 'rounds_sat_out')::bigint                         AS rounds_sat_out,
       (p ->> 'rounds_void')::bigint                            AS rounds_void,
       (p ->> 'ante_cents')::bigint                             AS ante_cents,
       (p ->> 'average_ante_cents')::bigint                     AS average_ante_cents,
       (p ->> 'bet_cents')::bigint                              AS bet_cents,
       (p ->> 'progressive_cents')::bigint                      AS progressive_cents,
       (p ->> 'result_cents')::bigint                           AS result_cents
FROM journal_records r, LATERAL (SELECT r.payload::jsonb AS p) AS payload
WHERE r.kind = 'player.rating';

-- the ratings and the rounds they played, and the sessions open, found without reading every journal through
CREATE INDEX IF NOT EXISTS journal_records_ratings ON journal_records (table_id, seq) WHERE kind = 'player.rating';
CREATE INDEX IF NOT EXISTS journal_records_seated ON journal_records (table_id, seq) WHERE kind = 'player.seated';
CREATE INDEX IF NOT EXISTS journal_records_player_rounds ON journal_records (table_id, seq)
    WHERE kind = 'player.round';
CREATE INDEX IF NOT EXISTS journal_records_rounds ON journal_records (table_id, round_id) WHERE round_id IS NOT NULL;

-- the exact theoretical loss of each rating record, written once by the floor (rate_pending)
CREATE TABLE IF NOT EXISTS player_theoretical (
    table_id                  text        NOT NULL,
    seq                       bigint      NOT NULL,
    theoretical_cents         bigint      NOT NULL,
    optimal_theoretical_cents bigint      NOT NULL,
    unrated_hands             integer     NOT NULL CHECK (unrated_hands >= 0),
    rated_at                  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, seq)
);

CREATE OR REPLACE VIEW player_ratings_v2 AS
SELECT v.*, t.theoretical_cents, t.optimal_theoretical_cents, t.unrated_hands
FROM player_ratings_v1 v LEFT JOIN player_theoretical t ON t.table_id = v.table_id AND t.seq = v.seq;

DO $$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{RATINGS_ROLE}') THEN
        CREATE ROLE {RATINGS_ROLE} NOLOGIN;
    END IF;
END $$;
REVOKE ALL ON player_ratings_v1, player_ratings_v2, player_theoretical FROM PUBLIC;
GRANT SELECT ON player_ratings_v1, player_ratings_v2 TO {RATINGS_ROLE};
GRANT SELECT ON player_ratings_v1, player_ratings_v2, player_theoretical TO {AUDITOR};
GRANT SELECT, INSERT ON player_theoretical TO {FLOOR_ROLE};
"""


class CentralRecord(NamedTuple):
    seq: int
    time_us: int
    round_id: str | None
    kind: str
    payload: dict[str, Any]


def migrate(admin: Any) -> None:
    """Create or bring up to date the ratings view (the administrator's connection, autocommit)."""
    admin.execute(RATINGS_SCHEMA)


def _rounds_of(conn: Any, table_id: str, payload: dict[str, Any]) -> list[CentralRecord]:
    """The records of the rounds a rating lists, from its table's shipped journal."""
    rounds = sorted({rid for rid, _ in payload.get("rounds", [])})
    rows = conn.execute(
        "SELECT seq, time_us, round_id, kind, payload FROM journal_records WHERE table_id = %s "
        "AND round_id = ANY(%s) AND kind = ANY(%s) ORDER BY seq",
        (table_id, rounds, sorted(ROUND_KINDS))).fetchall()
    return [CentralRecord(s, t, r, k, json.loads(text)) for s, t, r, k, text in rows]


def _of_card(conn: Any, kind: str, card: str) -> list[tuple[str, CentralRecord]]:
    """The ``kind`` notes of ``card`` at every table (a ``player.seated`` or ``player.rating``)."""
    rows = conn.execute("SELECT table_id, seq, time_us, round_id, kind, payload FROM journal_records "
                        "WHERE kind = %s AND payload::jsonb ->> 'card' = %s ORDER BY table_id, seq",
                        (kind, card)).fetchall()
    return [(table_id, CentralRecord(seq, time_us, round_id, kind, json.loads(payload)))
            for table_id, seq, time_us, round_id, kind, payload in rows]


def _so_far(conn: Any, table_id: str, session: str, after: int) -> list[CentralRecord]:
    """An open session's ``player.round`` notes after record ``after``, each holding only its own
    figures (another player's are not this look-up's)."""
    rows = conn.execute(
        "SELECT seq, time_us, round_id, kind, payload FROM journal_records WHERE table_id = %s "
        "AND kind = 'player.round' AND seq > %s AND payload::jsonb -> 'sessions' @> %s::jsonb ORDER BY seq",
        (table_id, after, json.dumps([{"session": session}]))).fetchall()
    out = []
    for seq, time_us, round_id, kind, payload in rows:
        p = json.loads(payload)
        mine = [s for s in p.get("sessions", []) if s.get("session") == session]
        out.append(CentralRecord(seq, time_us, round_id, kind, {**p, "sessions": mine}))
    return out


def _shipped_until_ms(conn: Any, table_id: str) -> int:
    """The time of the newest record of ``table_id`` the central copy holds."""
    row = conn.execute("SELECT time_us FROM journal_records WHERE table_id = %s ORDER BY seq DESC LIMIT 1",
                       (table_id,)).fetchone()
    return int(row[0]) // 1000


def lookup(conn: Any, card: str, profile_of: Callable[[str], Profile]) -> list[Rating]:
    """Every session of ``card`` at every table, each with its exact theoretical loss (a
    connection with the auditor's rights: it reads the journals' rounds): each that ended, and
    each still open as its table's shipped journal stands, with the rounds and wagers so far and
    its end the table's newest shipped record (so its time seated is so far)."""
    rated = _of_card(conn, "player.rating", card)
    ended = {(table_id, r.payload.get("session")) for table_id, r in rated if not r.payload.get("interim")}
    records: dict[tuple[str, int], CentralRecord] = {}   # by table and record: a round read twice counts once
    open_at: dict[str, tuple[str, int]] = {}              # an open session: its table and first seating
    for table_id, r in _of_card(conn, "player.seated", card):
        session = r.payload.get("session")
        if isinstance(session, str) and (table_id, session) not in ended:
            open_at.setdefault(session, (table_id, r.seq))
            records[table_id, r.seq] = r
    for table_id, r in rated:
        records.update(((table_id, x.seq), x) for x in [*_rounds_of(conn, table_id, r.payload), r])
    for session, (table_id, seated) in open_at.items():
        so_far = _so_far(conn, table_id, session, seated)
        played = [[n.round_id, s["spot"]] for n in so_far for s in n.payload["sessions"] if s.get("round") == "played"]
        records.update(((table_id, x.seq), x) for x in [*so_far, *_rounds_of(conn, table_id, {"rounds": played})])
    shipped = {table_id: _shipped_until_ms(conn, table_id) for table_id, _ in open_at.values()}
    ratings = rate((records[key] for key in sorted(records)), profile_of)
    return [replace(r, end_ms=max(r.end_ms, shipped[open_at[r.session][0]])) if r.open and r.session in open_at
            else r for r in ratings if r.card == card]


def rate_pending(conn: Any, profile_of: Callable[[str], Profile], limit: int = 500) -> int:
    """Rate up to ``limit`` shipped rating records not rated yet, each on its own (an interim one
    too), into ``player_theoretical`` (the floor's connection). Returns how many it rated."""
    pending = conn.execute(
        "SELECT r.table_id, r.seq, r.payload FROM journal_records r LEFT JOIN player_theoretical t "
        "ON t.table_id = r.table_id AND t.seq = r.seq WHERE r.kind = 'player.rating' AND t.seq IS NULL "
        "ORDER BY r.table_id, r.seq LIMIT %s", (limit,)).fetchall()
    for table_id, seq, payload in pending:
        p = json.loads(payload)
        rating = rate_one(p, gather(_rounds_of(conn, table_id, p)), profile_of)
        conn.execute("INSERT INTO player_theoretical (table_id, seq, theoretical_cents, optimal_theoretical_cents, "
                     "unrated_hands) VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                     (table_id, seq, rating.theoretical_cents, round(rating.optimal), rating.unrated_hands))
    conn.commit()
    return len(pending)


__all__ = ["RATINGS_ROLE", "RATINGS_SCHEMA", "lookup", "migrate", "rate_pending"]
