"""Player ratings in the central PostgreSQL: the versioned views a management system reads (and
nothing else of the journals), v2 with each rating's exact theoretical loss as the floor rates it,
and a player's sessions looked up across tables with their exact theoretical loss, as ``tabled
report players`` rates them at each table."""

from __future__ import annotations

import asyncio
import json

import psycopg
import pytest

from tabled.cli import main
from tabled.floor import ratings
from tabled.profiles import load_profile
from tabled.reports.ratings import rate
from tests.commands.test_report_players import LATE_CARD, START_MS, write_journal
from tabled.journal.store import Journal
from tests.floor.casino import Casino, user_dsn

pytestmark = pytest.mark.postgres


def casino_with_players(pg_dsn, tmp_path, stay: bool = False) -> Casino:
    """Two tables' journals shipped (``stay``: the carded players still seated, and a third seated
    with no round yet: tests/commands/test_report_players.py:write_journal)."""
    casino = Casino(pg_dsn, tmp_path / "casino", 2)
    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        ratings.migrate(admin)
        ratings.migrate(admin)  # again: a migration brings an existing schema up to date
    for seed, t in enumerate(casino.tables, start=5):
        write_journal(t.journal, seed=seed, table=t.table_id, stay=stay)
    asyncio.run(casino.catch_up())
    return casino


def local_ratings(casino: Casino, card: str):
    out = []
    for t in casino.tables:
        with Journal.open(t.journal, readonly=True, verify=False) as journal:
            out += [r for r in rate(list(journal.records_after(0)), load_profile) if r.card == card]
    return out


def ratings_reader(admin: str, name: str) -> str:
    """A DSN logging in as a new role ``name`` (made unique to the database) in the ratings role, as
    the casino's player-tracking system does."""
    role = f"{name}_{admin.rsplit('_', 1)[-1][:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP ROLE IF EXISTS {role}")
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'cms-pw' IN ROLE {ratings.RATINGS_ROLE}")
    return user_dsn(admin, role).replace(f"{role}@", f"{role}:cms-pw@")


def test_the_view_shows_each_rating_to_the_ratings_role_and_nothing_else(tmp_path, pg_dsn):
    casino = casino_with_players(pg_dsn, tmp_path)
    cms = ratings_reader(pg_dsn, "cms")
    with psycopg.connect(cms) as conn:
        rows = conn.execute("SELECT table_id, card, interim, rounds_played, ante_cents, result_cents, spots "
                            "FROM player_ratings_v1 ORDER BY table_id, session").fetchall()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT count(*) FROM journal_records")
    expected = sorted((r.table, r.card, r.open, r.rounds_played, r.ante_cents, r.result_cents,
                       " ".join(map(str, r.spots)))
                      for card in ("11112222", "33334444") for r in local_ratings(casino, card))
    assert sorted(rows) == expected and len(rows) == 4


def test_a_player_is_looked_up_across_tables_with_the_exact_theoretical_loss(tmp_path, pg_dsn, capsys, monkeypatch):
    casino = casino_with_players(pg_dsn, tmp_path)
    with psycopg.connect(pg_dsn) as conn:
        found = ratings.lookup(conn, "11112222", load_profile)
    mine = local_ratings(casino, "11112222")
    assert [(r.table, r.theoretical, r.result_cents) for r in found] == \
        [(r.table, r.theoretical, r.result_cents) for r in mine]
    assert {r.table for r in found} == {"T01", "T02"}
    config = tmp_path / "floor.toml"
    config.write_text(casino.floor_toml())
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(casino.floor_credentials))
    assert main(["floor", "--config", str(config), "--card", "11112222", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["table"], r["theoretical_cents"]) for r in rows] == [(r.table, round(r.theoretical)) for r in mine]
    assert main(["floor", "--config", str(config), "--card", "11112222"]) == 0
    text = capsys.readouterr().out
    assert "2 sessions at 2 tables (T01, T02)" in text and "11112222" not in text


def test_a_players_open_sessions_are_looked_up_with_their_figures_so_far(tmp_path, pg_dsn, capsys, monkeypatch):
    """A player seated now: the rounds, wagers and exact theoretical loss so far, as the table's
    report rates the session open at its journal's end, and seated until the table's newest
    shipped record; one seated with no round finished yet: open, nothing so far."""
    casino = casino_with_players(pg_dsn, tmp_path, stay=True)
    with psycopg.connect(pg_dsn) as conn:
        found = ratings.lookup(conn, "11112222", load_profile)
        late = ratings.lookup(conn, LATE_CARD, load_profile)
        newest = dict(conn.execute("SELECT table_id, max(time_us) / 1000 FROM journal_records GROUP BY table_id"))
    mine = local_ratings(casino, "11112222")
    assert [r.open for r in mine] == [True, True]
    assert [(r.table, r.open, r.rounds_played, r.ante_cents, r.bet_cents, r.result_cents, r.theoretical)
            for r in found] == \
        [(r.table, True, 3, r.ante_cents, r.bet_cents, r.result_cents, r.theoretical) for r in mine]
    assert all(r.theoretical != 0 and r.unrated_hands == 0 for r in found)
    # seated from the card's reading at 08:00 to the last record shipped, the late card's at 08:04
    assert [(r.start_ms, r.end_ms) for r in found] == [(START_MS, newest[r.table]) for r in found]
    assert all(newest[r.table] == START_MS + 4 * 60_000 for r in found)
    assert [(r.table, r.open, r.reason, r.rounds_played, r.spots, r.start_ms, r.ante_cents) for r in late] == \
        [(t, True, "open", 0, (4,), START_MS + 4 * 60_000, 0) for t in ("T01", "T02")]
    config = tmp_path / "floor.toml"
    config.write_text(casino.floor_toml())
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(casino.floor_credentials))
    assert main(["floor", "--config", str(config), "--card", "11112222", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["table"], r["open"], r["rounds_played"], r["seated_ms"], r["ante_cents"]) for r in rows] == \
        [(r.table, True, 3, 4 * 60_000, r.ante_cents) for r in mine]
    assert main(["floor", "--config", str(config), "--card", "11112222"]) == 0
    text = capsys.readouterr().out
    assert "2 sessions at 2 tables (T01, T02), 2 open now" in text and "11112222" not in text
    lines = text.splitlines()[1:]
    assert len(lines) == 2 and all("08:00-01-15 08:04  0h04m open " in line for line in lines)
    assert main(["floor", "--config", str(config), "--card", LATE_CARD]) == 0
    text = capsys.readouterr().out
    assert "2 sessions at 2 tables (T01, T02), 2 open now" in text
    assert all(" open " in line and "rounds   0 played" in line for line in text.splitlines()[1:])


def test_v2_adds_each_ratings_exact_theoretical_loss_as_the_floor_rates_it(tmp_path, pg_dsn, capsys, monkeypatch):
    casino = casino_with_players(pg_dsn, tmp_path)
    cms = ratings_reader(pg_dsn, "cms2")
    query = ("SELECT table_id, card, rounds_played, result_cents, theoretical_cents, optimal_theoretical_cents, "
             "unrated_hands FROM player_ratings_v2 WHERE card IS NOT NULL ORDER BY table_id, session")
    with psycopg.connect(cms) as conn:
        before = conn.execute(query).fetchall()
    assert len(before) == 4 and {row[4] for row in before} == {None}        # not rated yet: NULL, not a guess
    config = tmp_path / "floor.toml"
    config.write_text(casino.floor_toml())
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(casino.floor_credentials))
    assert main(["floor", "--config", str(config), "--rate"]) == 0
    assert "player ratings: 4 rated into player_ratings_v2" in capsys.readouterr().out
    assert main(["floor", "--config", str(config), "--rate"]) == 0           # each rating rated once
    assert "player ratings: 0 rated" in capsys.readouterr().out
    with psycopg.connect(cms) as conn:
        rows = conn.execute(query).fetchall()
        v1 = conn.execute("SELECT table_id, card, rounds_played, result_cents FROM player_ratings_v1 "
                          "WHERE card IS NOT NULL ORDER BY table_id, session").fetchall()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT count(*) FROM player_theoretical")
    expected = sorted((r.table, r.card, r.rounds_played, r.result_cents, round(r.theoretical), round(r.optimal), 0)
                      for card in ("11112222", "33334444") for r in local_ratings(casino, card))
    assert sorted(rows) == expected and all(row[4] != 0 for row in rows)
    assert [row[:4] for row in rows] == v1                                    # v1 keeps its columns and rows
    with psycopg.connect(casino.floor_dsn.replace("@", f":{casino.floor_password}@", 1)) as floor:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):   # written once: the floor cannot rewrite it
            floor.execute("UPDATE player_theoretical SET theoretical_cents = 0")
