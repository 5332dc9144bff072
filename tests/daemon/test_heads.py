"""A journal that lost records it had committed is found at start, against its head kept in a
second place (tabled/daemon/heads.py), and the table does not start until an inspector acts."""

from __future__ import annotations

import asyncio
import json

import pytest

from tabled.cli import main
from tabled.daemon.assemble import CannotStart, open_table
from tabled.daemon.config import load_config
from tabled.daemon.heads import ACCEPTED, HeadMark, head_path, lost_records, write_head
from tabled.journal.store import Journal
from tabled.table.effects import Note
from tests.integration.test_restart_sim import sim_config


def _journal(path, n: int) -> None:
    with Journal.open(path) as j:
        for i in range(n):
            j.append("tick", {"i": i})


def _start(tmp_path):
    cfg = load_config(sim_config(tmp_path))

    async def run():
        opened = await open_table(cfg, tmp_path / "journal.db", clock=lambda: 1_700_000_000.0, pool_retry=1.0)
        await opened.close()
    asyncio.run(run())


def test_each_commit_marks_the_head_and_a_round_end_marks_it_durably(tmp_path):
    path = tmp_path / "journal.db"
    with Journal.open(path) as j:
        mark = HeadMark(j, path)
        j.append("tick", {})
        mark([])
        assert json.loads(head_path(path).read_text()) == {"seq": 1, "hash": j.head[1]}
        j.append("tick", {})
        mark([Note("round.finished", {"round_id": "R1"}, "R1")])
        assert json.loads(head_path(path).read_text()) == {"seq": 2, "hash": j.head[1]}


def test_a_journal_that_lost_committed_records_does_not_start_until_an_inspector_acts(tmp_path, capsys):
    path = tmp_path / "journal.db"
    _journal(path, 10)
    with Journal.open(path) as j:
        _, digest = j.head
    write_head(path, 15, "0" * 64)  # records 11 to 15 were committed, then lost with the log's frames
    with pytest.raises(CannotStart) as refused:
        _start(tmp_path)
    assert f"the journal {path} lost records it had committed: it ends at record 10, but held record 15" \
        in str(refused.value) and "records 11 to 15 are gone" in str(refused.value)
    assert "tabled audit accept-loss" in str(refused.value)
    with Journal.open(path, readonly=True) as j:
        assert j.count() == 10  # the refused start wrote nothing
    # the inspector records the loss: who, why and which records; then the table starts
    assert main(["audit", "accept-loss", "--journal", str(path), "--who", "inspector Ray",
                 "--why", "WAL damaged after a power fault; figures checked against the pool"]) == 0
    assert "the loss is recorded by inspector Ray (records 11 to 15 lost)" in capsys.readouterr().out
    with Journal.open(path, readonly=True) as j:
        accepted = j.last_of_kind(ACCEPTED)
        assert accepted is not None and accepted.payload["head_recorded"] == 15
        assert accepted.payload["journal_ended_at"] == 10 and accepted.payload["who"] == "inspector Ray"
        assert lost_records(j, path) == (None, None)
    _start(tmp_path)


def test_a_journal_with_another_record_where_the_head_was_is_refused(tmp_path):
    path = tmp_path / "journal.db"
    _journal(path, 5)
    write_head(path, 3, "f" * 64)
    with Journal.open(path, readonly=True) as j:
        problem, _ = lost_records(j, path)
    assert problem is not None and "record 3 has hash" in problem and "the head recorded ffffffffffff" in problem


def test_a_damaged_head_file_is_said_and_the_journal_is_not_judged_by_it(tmp_path):
    path = tmp_path / "journal.db"
    _journal(path, 3)
    head_path(path).write_text("{not json")
    with Journal.open(path, readonly=True) as j:
        assert lost_records(j, path) == (None, f"{head_path(path)}: not a journal head (damaged?)")
    _start(tmp_path)  # goes on, and writes a new head
    assert json.loads(head_path(path).read_text())["seq"] > 3


def test_accept_loss_on_a_whole_journal_records_nothing(tmp_path, capsys):
    path = tmp_path / "journal.db"
    _journal(path, 3)
    with Journal.open(path) as j:
        write_head(path, *j.head)
    assert main(["audit", "accept-loss", "--journal", str(path), "--who", "x", "--why", "y"]) == 0
    assert "nothing was lost, nothing recorded" in capsys.readouterr().out
    with Journal.open(path, readonly=True) as j:
        assert j.count() == 3


def test_accept_loss_without_a_journal_is_one_line(tmp_path, capsys):
    assert main(["audit", "accept-loss", "--journal", str(tmp_path / "none.db"), "--who", "x", "--why", "y"]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'none.db'}: no journal there" in err and err.count("\n") == 1
    assert not (tmp_path / "none.db").exists()


def test_the_loss_recorded_on_a_sealed_journal_is_sealed_so_the_table_starts_on_it(tmp_path, capsys):
    from tabled.journal.seals import find_signing_key, local_key_files, make_local_key
    path = tmp_path / "journal.db"
    key_file = make_local_key(path)  # the simulated table's own key beside its journal
    key = find_signing_key(key_file)
    with Journal.open(path, seal_with=key) as j:
        for i in range(6):
            j.append("tick", {"i": i})
    write_head(path, 40, "0" * 64)
    # without the key an unsealed record would stop the next start: refused, saying so
    other = tmp_path / "elsewhere"
    other.mkdir()
    moved = other / "journal.db"
    for suffix in ("", ".head"):
        (tmp_path / f"journal.db{suffix}").rename(other / f"journal.db{suffix}")
    assert main(["audit", "accept-loss", "--journal", str(moved), "--who", "Ray", "--why", "WAL damaged"]) == 2
    assert "the journal is sealed with the table's key: give it (--signing-key FILE)" in capsys.readouterr().err
    for suffix in ("", ".head"):
        (other / f"journal.db{suffix}").rename(tmp_path / f"journal.db{suffix}")
    # beside the key it was made with (or given --signing-key) the record of the loss is sealed
    assert main(["audit", "accept-loss", "--journal", str(path), "--who", "Ray", "--why", "WAL damaged"]) == 0
    with Journal.open(path, seal_with=key) as j:  # a record no seal covers would be refused here
        assert j.last_of_kind(ACCEPTED) is not None
    assert main(["audit", "verify", "--journal", str(path), "--public-key", str(local_key_files(path)[1])]) == 0
