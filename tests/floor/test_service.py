"""The floor service against a PostgreSQL the test started: an acknowledgement needs JSON, a known
alert and a person's name, is taken once and journaled centrally in an append-only table; the
floor's role reads the journals and writes nothing else; a central server that cannot be reached
is shown, not fatal; a config that cannot be used is refused with the key named."""

from __future__ import annotations

import asyncio
import re

import aiohttp
import psycopg
import pytest

from tabled.cli import main
from tabled.floor.config import FloorConfigError, parse_floor_config
from tabled.floor.service import AckRefused, Floor, floor_connector
from tests.floor.casino import Casino, rewrite_central

pytestmark = pytest.mark.postgres


def test_an_acknowledgement_is_taken_once_from_a_named_person_and_stays(tmp_path, pg_dsn):
    casino = Casino(pg_dsn, tmp_path / "casino", 1)
    table = casino.tables[0]
    with table.open_journal() as j:
        j.append("fault.raised", {"equipment": "betspots", "reason": "link lost", "rule": "14.13"})
    answers: list = []

    async def go() -> None:
        await casino.catch_up()
        floor = casino.floor(tmp_path)
        await floor.start()
        try:
            await floor.poll()
            (alert,) = floor.alerts
            async with aiohttp.ClientSession() as http:
                page = await http.get(floor.url)
                answers.append(("page", page.status, page.headers["Content-Security-Policy"]))
                ack = floor.url + "/ack"
                for body, kind in [("alert=x", "application/x-www-form-urlencoded"),
                                   ('{"alert": "T01:fault:99", "who": "Sam"}', "application/json"),
                                   (f'{{"alert": "{alert}", "who": "  "}}', "application/json"),
                                   (f'{{"alert": "{alert}", "who": "Sam Okafor"}}', "application/json"),
                                   (f'{{"alert": "{alert}", "who": "Someone Else"}}', "application/json")]:
                    r = await http.post(ack, data=body, headers={"Content-Type": kind})
                    answers.append((r.status, await r.json()))
                view = await (await http.get(floor.url.replace("/floor", "/floor.json"))).json()
                answers.append(view["alerts"][0]["ack"]["who"])
        finally:
            await floor.stop()

    asyncio.run(go())
    assert answers[0][:2] == ("page", 200) and "default-src 'none'" in answers[0][2]
    assert [a[0] for a in answers[1:6]] == [415, 404, 400, 200, 409]
    assert answers[3][1]["error"].startswith("who acknowledges must be a person's name")
    assert answers[5][1]["error"] == "already acknowledged by Sam Okafor"
    assert answers[6] == "Sam Okafor"
    with psycopg.connect(pg_dsn) as conn:
        assert conn.execute("SELECT alert, table_id, who FROM floor_acks").fetchall() == [
            ("T01:fault:1", "T01", "Sam Okafor")]


@pytest.mark.parametrize("attempt", [
    "UPDATE floor_acks SET who = 'x'",
    "DELETE FROM floor_acks",
    "TRUNCATE floor_acks",
    "UPDATE journal_records SET payload = '{}'",
    "DELETE FROM journal_records",
    "INSERT INTO journal_tables VALUES ('T99', 'nobody')",
    "CREATE TABLE mine (x int)",
])
def test_the_floors_role_reads_the_journals_and_changes_nothing_but_adds_acknowledgements(tmp_path, pg_dsn,
                                                                                          attempt):
    casino = Casino(pg_dsn, tmp_path / "casino", 1)
    with psycopg.connect(casino.floor_dsn, password=casino.floor_password, autocommit=True) as conn:
        conn.execute("INSERT INTO floor_acks (alert, table_id, who, viewer) VALUES ('T01:x:1', 'T01', 'A', 'local')")
        with pytest.raises(psycopg.Error):
            conn.execute(attempt)
        assert conn.execute("SELECT count(*) FROM floor_acks").fetchone()[0] == 1


def test_a_central_server_that_cannot_be_reached_is_shown_and_tried_again(tmp_path):
    cfg = parse_floor_config({"floor": {"central": "postgresql://floor@127.0.0.1:1/casino"}}, "floor.toml", tmp_path)
    floor = Floor(cfg, floor_connector(cfg.central, {}))

    async def go() -> dict:
        await floor.poll()
        await floor.poll()
        return floor.view()

    view = asyncio.run(go())
    assert view["central"] and "127.0.0.1" in view["central"] and view["polls"] == 2 and view["tables"] == []


@pytest.mark.parametrize("floor, problem", [
    ({"central": "postgresql://floor:secret@127.0.0.1/casino"},
     "floor.central: holds a password: the password comes from systemd's credential floor-central-password"),
    ({"central": "postgresql://floor@db.casino.lan/casino"}, "floor.central: reaches db.casino.lan without "
                                                              "verifying its TLS certificate"),
    ({"central": "postgresql://f@127.0.0.1/c", "listen": "0.0.0.0:8760"}, "floor.listen: 0.0.0.0 is reachable "
                                                                           "from other machines"),
    ({"central": "postgresql://f@127.0.0.1/c", "viewers": [{"name": "pit", "token": "short"}]},
     "floor.viewers[0].token: must be at least 24"),
    ({"central": "postgresql://f@127.0.0.1/c", "keys": {"T01": 5}}, "floor.keys.T01: must be a public key file"),
    ({"central": "postgresql://f@127.0.0.1/c", "poll_ms": 0}, "floor.poll_ms: must be an integer from 50"),
    ({"central": "postgresql://f@127.0.0.1/c", "colour": "red"}, "floor.colour: unknown key"),
    ({"central": "postgresql://f@127.0.0.1/c", "pits": {"A": ["T01"], "B": ["T02", "T01"]}},
     "floor.pits.B: table T01 is already in pit A: a table is in one pit"),
    ({"central": "postgresql://f@127.0.0.1/c", "pits": {"A": "T01"}}, "floor.pits.A: must be a list of table ids"),
    ({"central": "host=a,b port=5432,5433 dbname=c target_session_attrs=standby"},
     "floor.central: target_session_attrs=standby asks for a server that does not take writes"),
])
def test_a_config_that_cannot_be_used_is_refused_naming_the_key(tmp_path, floor, problem):
    with pytest.raises(FloorConfigError, match=re.escape(problem)):
        parse_floor_config({"floor": floor}, "floor.toml", tmp_path)


def test_pits_name_their_tables_and_a_two_host_central_is_taken(tmp_path):
    cfg = parse_floor_config({"floor": {"central": "host=db-a,db-b port=5432,5432 dbname=casino user=tabled_floor "
                                                   "sslmode=verify-full",
                                        "pits": {"A": ["T01", "T02"], "B": ["T03"]}}}, "floor.toml", tmp_path)
    assert cfg.pits == {"A": ("T01", "T02"), "B": ("T03",)}
    assert (cfg.pit_of("T02"), cfg.pit_of("T03"), cfg.pit_of("T09")) == ("A", "B", None)


def test_tabled_floor_names_a_missing_config_or_key_file(tmp_path, capsys):
    assert main(["floor", "--config", str(tmp_path / "nope.toml")]) == 2
    assert "no such config file" in capsys.readouterr().err
    config = tmp_path / "floor.toml"
    config.write_text('[floor]\ncentral = "postgresql://f@127.0.0.1/c"\n[floor.keys]\nT01 = "T01.pub"\n')
    assert main(["floor", "--config", str(config)]) == 2
    assert "T01.pub" in capsys.readouterr().err


def test_tabled_floor_given_a_key_without_end_says_so_in_one_line(tmp_path, capsys):
    config = tmp_path / "floor.toml"
    config.write_text('[floor]\ncentral = "postgresql://f@127.0.0.1/c"\n[floor.keys]\nT01 = "/dev/zero"\n')
    assert main(["floor", "--config", str(config)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "/dev/zero: the table's public key is larger than 16384 bytes" in err[0], err


def test_records_behind_are_what_the_tables_shipper_reported_past_the_central_copy(tmp_path, pg_dsn):
    casino = Casino(pg_dsn, tmp_path / "casino", 2)
    first, second = casino.tables
    for t in casino.tables:
        with t.open_journal() as j:
            j.append_many([("round.started", {}, f"{t.table_id}-000001"), ("round.dealt", {}, f"{t.table_id}-000001")])

    async def go() -> list:
        await casino.catch_up()
        # the table's role reports its own head only: the function finds the table by the role
        with psycopg.connect(first.dsn, password=first.password, autocommit=True) as conn:
            conn.execute("SELECT journal_report_head(9)")
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute("UPDATE journal_heads SET local_head = 1")
        floor = casino.floor(tmp_path)
        await floor.poll()
        await floor.stop()
        return [(t["table"], t["head"], t["behind"]) for t in floor.view()["tables"]]

    assert asyncio.run(go()) == [("T01", 3, 6), ("T02", 3, 0)]  # two records and their seal


def test_tabled_floor_prints_its_address_and_serves_the_floor(tmp_path, pg_dsn):
    import json
    import signal
    import subprocess
    import urllib.request

    from tests.integration.test_restart_sim import ROOT, child_env, tabled_argv
    casino = Casino(pg_dsn, tmp_path / "casino", 2)
    config = tmp_path / "floor.toml"
    config.write_text(casino.floor_toml(poll_ms=100))
    env = {**child_env(tmp_path), "CREDENTIALS_DIRECTORY": str(casino.floor_credentials)}
    proc = subprocess.Popen(tabled_argv("floor", "--config", str(config)), stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env=env)
    try:
        line = proc.stdout.readline()
        assert line.startswith("the floor: http://127.0.0.1:") and line.rstrip().endswith("/floor")
        url = line.split(": ", 1)[1].strip()
        with urllib.request.urlopen(url.replace("/floor", "/floor.json"), timeout=10) as answer:
            view = json.load(answer)
        assert [t["table"] for t in view["tables"]] == ["T01", "T02"] and view["central"] is None
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(10) == 130
        proc.stdout.close()


def test_a_table_that_ships_nothing_for_too_long_raises_one_alert_until_it_ships_again(tmp_path, pg_dsn):
    import time
    casino = Casino(pg_dsn, tmp_path / "casino", 1)
    table = casino.tables[0]
    with table.open_journal() as j:
        j.append("round.started", {}, "T01-000001")
    later = [0.0]
    floor = casino.floor(tmp_path, clock=lambda: time.time() + later[0], silent_after_s=120)

    async def go() -> list[list[str]]:
        seen = []
        await casino.catch_up()
        for shift in (0, 121, 300):
            later[0] = shift
            await floor.poll()
            seen.append(sorted(floor.alerts))
        with table.open_journal() as j:
            j.append("round.dealt", {}, "T01-000001")
        await casino.catch_up()
        later[0] = 121 + 300  # silent again, after record 4 (records 1 and 3 each sealed by the next)
        await floor.poll()
        seen.append(sorted(floor.alerts))
        await floor.stop()
        return seen

    assert asyncio.run(go()) == [[], ["T01:silent:2"], ["T01:silent:2"], ["T01:silent:2", "T01:silent:4"]]


def test_a_central_copy_changed_after_the_floor_checked_it_is_found(tmp_path, pg_dsn):
    """Re-hashed to the end: the next poll sees the last record checked is not the one there. Not
    re-hashed: the periodic check from the first record finds the record that does not hash."""
    casino = Casino(pg_dsn, tmp_path / "casino", 2)
    for t in casino.tables:
        with t.open_journal() as j:
            j.append_many([("round.started", {"n": 1}, f"{t.table_id}-000001"),
                           ("round.settled", settled_payload(), f"{t.table_id}-000001")])

    async def go() -> tuple[list[str], list[str], list[str]]:
        await casino.catch_up()
        floor = casino.floor(tmp_path)
        await floor.poll()
        before = sorted(floor.alerts)
        rewrite_central(pg_dsn, "T01", 1, lambda p: {**p, "n": 2})
        with psycopg.connect(pg_dsn, autocommit=True) as admin:
            admin.execute("ALTER TABLE journal_records DISABLE TRIGGER journal_no_change")
            admin.execute("""UPDATE journal_records SET payload = '{"n":3}' WHERE table_id = 'T02' AND seq = 1""")
            admin.execute("ALTER TABLE journal_records ENABLE TRIGGER journal_no_change")
        await floor.poll()
        polled = sorted(floor.alerts)
        await floor.recheck()
        await floor.stop()
        return before, polled, sorted(floor.alerts), [t["verify"]["text"] for t in floor.view()["tables"]]

    before, polled, rechecked, verdicts = asyncio.run(go())
    assert before == [] and polled == ["T01:changed:3"]  # record 3: the commit's seal
    # checked again from record 1, the copy re-hashed to the end is named by its seal
    assert rechecked == ["T01:changed:3", "T01:seal:1", "T02:chain:1"]
    assert verdicts == ["chain broken: record 3 was changed on the central copy after the floor checked it",
                        "chain broken: record 1 does not hash to the hash it carries"]


def settled_payload() -> dict:
    return {"house_collects_cents": 500, "house_pays_cents": 0}


def test_twenty_acknowledgements_at_once_of_one_alert_write_one_row(tmp_path, pg_dsn):
    casino = Casino(pg_dsn, tmp_path / "casino", 1)
    with casino.tables[0].open_journal() as j:
        j.append("fault.raised", {"equipment": "betspots", "reason": "link lost", "rule": "14.13"})

    async def go() -> list[int]:
        await casino.catch_up()
        floor, other = casino.floor(tmp_path), casino.floor(tmp_path)   # two floor services
        await floor.start()
        try:
            await floor.poll()
            await other.poll()
            (alert,) = floor.alerts
            async with aiohttp.ClientSession() as http:
                async def ack(n: int) -> int:
                    async with http.post(floor.url + "/ack", json={"alert": alert, "who": f"Person {n}"}) as r:
                        return r.status
                statuses = await asyncio.gather(*(ack(n) for n in range(20)))
            # the other service has not seen it taken: the database refuses its row
            with pytest.raises(AckRefused, match="already acknowledged by Person ") as refused:
                await other.acknowledge(alert, "Someone Else", "local")
            assert refused.value.status == 409
            return sorted(statuses)
        finally:
            await floor.stop()
            await other.stop()

    assert asyncio.run(go()) == [200] + [409] * 19
    with psycopg.connect(pg_dsn) as conn:
        assert conn.execute("SELECT count(*) FROM floor_acks").fetchone()[0] == 1
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute("INSERT INTO floor_acks (alert, table_id, who, viewer) VALUES ('T01:fault:1', 'T01', 'B', "
                         "'local')")


def test_a_central_server_out_of_reach_is_logged_once_then_counted_not_at_every_poll(tmp_path):
    from structlog.testing import capture_logs

    cfg = parse_floor_config({"floor": {"central": "postgresql://floor@127.0.0.1:1/casino"}}, "floor.toml", tmp_path)
    now = [1_000.0]
    floor = Floor(cfg, floor_connector(cfg.central, {}), clock=lambda: now[0])

    async def go() -> None:
        for _ in range(40):  # a poll a second
            await floor.poll()
            now[0] += 1.0

    with capture_logs() as logs:
        asyncio.run(go())
    unreachable = [r for r in logs if r["event"].startswith("floor.central_unreachable")]
    assert [(r["event"], r.get("failures")) for r in unreachable] == [
        ("floor.central_unreachable", None), ("floor.central_unreachable.continuing", 31)]
    assert all("\n" not in r["error"] for r in unreachable)
