"""The journal sealed with the table's key, every commit in its own transaction: a record rewritten
and every hash after it recomputed is named by number; a seal not made by the key is found; a record
no seal covers (forged after the last seal, slipped between two, or the seals stripped) stops the
start and fails the audit, named; each stretch names the key that sealed it; a key file others can
write, or one without end, is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.rsa import generate_private_key
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabled.cli import main
from structlog.testing import capture_logs

from tabled.journal.store import Journal, JournalError, JournalUnsealed, canonical_payload
from tabled.journal.seals import (
    MAX_KEY_BYTES,
    SealChecker,
    SealError,
    SigningKey,
    find_signing_key,
    public_keys,
    read_key,
)
from tests.daemon.tamper import rehash, rewrite, rows, truncate, write_rows

PEM = serialization.Encoding.PEM


def new_key(tmp_path: Path, name: str) -> tuple[SigningKey, Path]:
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    public = tmp_path / f"{name}.pub"
    public.write_bytes(key.public_key().public_bytes(PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return SigningKey.from_pem(private, name), public


def play(journal: Journal, rounds: int) -> None:
    """Rounds of wagers, each input its own commit (sealed with it when the journal has a key)."""
    for n in range(rounds):
        rid = f"R{n}"
        journal.append("round.started", {"round_no": n}, rid)
        journal.append_many([("wager", {"spot": spot, "area": "bet", "cents": 5000}, rid) for spot in range(1, 4)])
        journal.append("round.finished", {"round_no": n}, rid)


def played(path: Path, key: SigningKey, rounds: int) -> None:
    with Journal.open(path, seal_with=key) as journal:
        play(journal, rounds)


def check(path: Path, *publics: Path):
    with Journal.open(path, readonly=True, verify=False) as journal:
        checker = SealChecker(public_keys((str(p), p.read_bytes()) for p in publics))
        chain = journal.verify(on_record=checker.feed)
    return chain, checker.finish()


def audit(path: Path, *publics: Path) -> int:
    return main(["audit", "verify", "--journal", str(path), *(a for p in publics for a in ("--public-key", str(p)))])


def test_every_commit_is_sealed_in_its_own_transaction(tmp_path):
    key, public = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    with Journal.open(path, seal_with=key) as journal:
        written = journal.append_many([("wager", {"spot": spot, "area": "bet", "cents": 500}, "R1")
                                       for spot in (1, 2, 3)])
        assert [r.seq for r in written] == [1, 2, 3]  # the caller's records; the seal is the journal's
        seal = journal.last_seal
        assert seal is not None and seal.seq == 4 and journal.head == (4, seal.hash)
        assert (seal.payload["first"], seal.payload["through"]) == (1, 3) and seal.time_us == written[0].time_us
        journal.checkpoint({"rounds_finished": 1})
        assert journal.head[0] == 6 and journal.record(6).kind == "journal.seal"
    chain, seals = check(path, public)
    assert chain.ok and seals.ok and seals.seals == 2 and seals.first_unsealed is None
    assert [(s.key, s.first, s.last, s.checked) for s in seals.stretches] == [(key.id, 1, 6, True)]
    assert audit(path, public) == 0


def test_a_bet_changed_from_50_to_90_and_rehashed_is_named_by_number(tmp_path, capsys):
    key, public = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    played(path, key, 3)
    rewrite(path, 12, lambda p: {**p, "cents": 9000})  # round R1's second wager
    chain, seals = check(path, public)
    assert chain.ok  # the chain alone says nothing
    assert seals.rewritten == [12] and not seals.forged
    assert audit(path, public) == 1
    out = capsys.readouterr().out
    assert "chain intact" in out and "record 12 REWRITTEN" in out


def test_records_cut_and_renumbered_are_named(tmp_path):
    key, public = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    played(path, key, 2)
    rewrite(path, 3, lambda p: {**p, "cents": 0})
    _, seals = check(path, public)
    assert seals.rewritten == [3]


def test_a_seal_signed_by_another_key_is_not_the_tables(tmp_path, capsys):
    key, public = new_key(tmp_path, "table")
    intruder, _ = new_key(tmp_path, "intruder")
    path = tmp_path / "j.db"
    played(path, key, 1)
    with Journal.open(path, seal_with=intruder) as journal:  # a tail added and sealed with another key
        journal.append("wager", {"spot": 1, "area": "bet", "cents": 9000}, "R9")
    chain, seals = check(path, public)
    assert chain.ok and [s.checked for s in seals.stretches] == [True, False]
    assert audit(path, public) == 1
    assert f"sealed by key {intruder.id} (NO PUBLIC KEY GIVEN" in capsys.readouterr().out


def test_a_seal_whose_signature_was_altered_is_forged(tmp_path):
    key, public = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    played(path, key, 2)
    seal_seq = 6
    rewrite(path, seal_seq, lambda p: {**p, "through": 4})
    _, seals = check(path, public)
    assert seals.forged == [seal_seq]


def test_a_new_key_is_a_journaled_event_and_each_stretch_names_its_key(tmp_path, capsys):
    first, first_public = new_key(tmp_path, "first")
    second, second_public = new_key(tmp_path, "second")
    path = tmp_path / "j.db"
    played(path, first, 2)
    with Journal.open(path, seal_with=first) as journal:  # the same key: nothing to say
        assert journal.head[0] == 16 and journal.last_of_kind("journal.key") is None
    with Journal.open(path, seal_with=second) as journal:
        change = journal.last_of_kind("journal.key")
        play(journal, 1)
    assert change is not None and change.seq == 17 and change.payload == {"key": second.id, "previous": first.id}
    _, seals = check(path, first_public, second_public)
    assert seals.ok and [(s.key, s.checked) for s in seals.stretches] == [(first.id, True), (second.id, True)]
    assert seals.stretches[1].first == seals.stretches[0].last + 1 == 17
    assert audit(path, first_public, second_public) == 0
    out = capsys.readouterr().out
    assert f"sealed by key {first.id} (seals checked)" in out and f"sealed by key {second.id} (seals checked)" in out


def forge_sign_in(path: Path) -> int:
    """What anyone who can write the file does without the key: an inspector's sign-in with the
    right PIN appended after the last record, its hash computed as the journal computes it."""
    records = rows(path)
    head = records[-1]
    records.append({**head, "seq": head["seq"] + 1, "round_id": None, "kind": "staff.sign_in",
                    "payload_text": canonical_payload({"badge": "I-0001", "role": "inspector", "pin_ok": True})})
    write_rows(path, rehash(records, len(records) - 1))
    return head["seq"] + 1


def test_a_forged_record_after_the_last_seal_stops_the_start_and_is_never_sealed(tmp_path, capsys):
    key, public = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    played(path, key, 1)
    forged = forge_sign_in(path)
    assert forged == 9
    with pytest.raises(JournalUnsealed, match=r"record 9 \(staff\.sign_in\) is not sealed"):
        Journal.open(path, seal_with=key)
    with Journal.open(path, verify=False) as journal:
        assert journal.head[0] == 9  # nothing sealed it
    assert audit(path, public) == 1
    assert "records from 9 to 9 are NOT SEALED" in capsys.readouterr().out


def test_a_record_put_in_while_the_table_runs_is_refused_and_not_sealed(tmp_path):
    key, public = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    with Journal.open(path, seal_with=key) as journal:
        play(journal, 1)
        forged = forge_sign_in(path)  # beside the daemon, through SQLite
        with pytest.raises(JournalUnsealed, match=rf"record {forged} \(staff\.sign_in\) was written to the journal "
                                                  "by something else than this tabled"):
            journal.append("round.started", {"round_no": 1}, "R1")
        assert journal.head[0] == forged  # the table wrote nothing after it, and sealed nothing
    _, seals = check(path, public)
    assert seals.unsealed_from == forged


@pytest.mark.parametrize("change, named", [
    (lambda path: truncate(path, 14), "records after 14 were taken out of the journal"),
    (lambda path: rewrite(path, 16, lambda p: {**p, "through": 14}), "record 16 was changed in the journal"),
])
def test_the_head_moved_under_a_running_table_is_refused(tmp_path, change, named):
    key, _ = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    with Journal.open(path, seal_with=key) as journal:
        play(journal, 2)
        assert journal.head[0] == 16
        change(path)
        with pytest.raises(JournalUnsealed, match=named):
            journal.append("round.started", {"round_no": 2}, "R2")


def test_a_seal_taken_out_leaves_the_records_it_sealed_named_unsealed(tmp_path, capsys):
    key, public = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    played(path, key, 1)
    records = rows(path)
    assert records[1]["kind"] == "journal.seal"
    del records[1]  # the first commit's seal: its record is now followed by the next commit's
    write_rows(path, rehash(records, 1))
    _, seals = check(path, public)
    assert seals.skipped[:1] == [1] and seals.first_unsealed == 1
    assert audit(path, public) == 1
    assert "record 1 is NOT SEALED: the seal after it does not cover it" in capsys.readouterr().out


def test_the_start_refuses_a_rewritten_record_and_a_forged_last_seal(tmp_path):
    """The start verifies only the last seal's signature (it signs the chain's hash before it, so it
    vouches for every record before), and checks every seal against its records."""
    key, _ = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    played(path, key, 2)
    clean = rows(path)
    rewrite(path, 12, lambda p: {**p, "cents": 9000})
    with pytest.raises(JournalUnsealed, match="record 12 is not the record its seal signed"):
        Journal.open(path, seal_with=key)
    write_rows(path, clean)
    rewrite(path, 16, lambda p: {**p, "signature": p["signature"][::-1]})  # the last seal
    with pytest.raises(JournalUnsealed, match=f"the seal at record 16 is not signed by the table's key {key.id}"):
        Journal.open(path, seal_with=key)
    write_rows(path, clean)
    with Journal.open(path, seal_with=key) as journal:
        assert journal.head[0] == 16


def test_a_journal_stripped_of_its_seals_and_rewritten_fails_the_audit_and_the_start(tmp_path, capsys):
    key, public = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    with Journal.open(path, seal_with=key) as journal:
        journal.append("round.started", {"round_no": 1}, "R1")
        journal.append("round.settled", {"house_pays_cents": 12_500, "house_collects_cents": 1_000}, "R1")
        journal.append("round.finished", {"round_no": 1}, "R1")
    records = [r for r in rows(path) if r["kind"] not in ("journal.seal", "journal.key")]
    settled = next(r for r in records if r["kind"] == "round.settled")
    settled["payload_text"] = canonical_payload({"house_pays_cents": 112_500, "house_collects_cents": 1_000})
    write_rows(path, rehash(records))
    assert audit(path, public) == 1
    out = capsys.readouterr().out
    assert "chain intact" in out and "NOT SEALED: no record is signed with the table's key" in out
    assert "records 1 to 3" in out
    with pytest.raises(JournalUnsealed, match=r"record 1 \(round\.started\) is not sealed"):
        Journal.open(path, seal_with=key)  # the key will not vouch for it


def test_without_a_public_key_the_audit_says_the_seals_were_not_checked(tmp_path, capsys):
    key, _ = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    played(path, key, 1)
    assert audit(path) == 0
    assert "seals NOT CHECKED: no --public-key given" in capsys.readouterr().out


def test_an_unsealed_journal_is_not_verified_when_a_key_is_expected(tmp_path, capsys):
    _, public = new_key(tmp_path, "table")
    with Journal.open(tmp_path / "j.db") as journal:
        journal.append("tick", {})
    assert audit(tmp_path / "j.db", public) == 1
    assert "NOT SEALED" in capsys.readouterr().out


def test_only_the_journal_writes_seals_and_key_changes(tmp_path):
    with Journal.open(tmp_path / "j.db") as journal:
        for kind, by in (("journal.seal", "the journal's commits"), ("journal.key", "the journal's start"),
                         ("checkpoint", r"Journal\.checkpoint\(\)")):
            with pytest.raises(JournalError, match=f"written by {by}"):
                journal.append(kind, {})


def write_key(path: Path, mode: int) -> Path:
    key = Ed25519PrivateKey.generate()
    path.write_bytes(key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    path.chmod(mode)
    return path


def test_the_signing_key_comes_from_systemd_or_the_config_and_must_be_ed25519(tmp_path):
    write_key(tmp_path / "journal-signing-key", 0o600)
    found = find_signing_key(None, {"CREDENTIALS_DIRECTORY": str(tmp_path)})
    assert found is not None and found.id == SigningKey.from_pem(
        (tmp_path / "journal-signing-key").read_bytes(), "k").id
    assert find_signing_key(None, {}) is None
    rsa = generate_private_key(public_exponent=65537, key_size=2048)
    (tmp_path / "rsa.key").write_bytes(rsa.private_bytes(PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    (tmp_path / "rsa.key").chmod(0o600)
    with pytest.raises(SealError, match="must be an Ed25519 key"):
        find_signing_key(tmp_path / "rsa.key")
    with pytest.raises(SealError, match="cannot be read"):
        find_signing_key(tmp_path / "nope.key")


@pytest.mark.parametrize("mode", [0o666, 0o620, 0o602])
def test_a_signing_key_others_can_write_is_refused(tmp_path, mode):
    path = write_key(tmp_path / "table.key", mode)
    with pytest.raises(SealError, match=rf"table\.key: the journal's signing key may be written by others "
                                        rf"\(mode 0{mode:o}\): refused"):
        find_signing_key(path)


def test_a_signing_key_others_can_read_is_used_with_a_warning(tmp_path):
    path = write_key(tmp_path / "table.key", 0o644)
    with capture_logs() as logs:
        assert find_signing_key(path) is not None
    assert [(e["event"], e["log_level"], e["mode"]) for e in logs] == [
        ("journal.signing_key_readable_by_others", "warning", "0644")]
    write_key(path, 0o600)
    with capture_logs() as logs:
        assert find_signing_key(path) is not None
    assert logs == []


def test_a_key_without_end_is_refused_in_one_line(tmp_path, capsys):
    """/dev/zero as any key: the signing key (refused by its mode, and by its length when it is not
    world-writable), a public key to audit with, the floor's key: one line each, no hang."""
    with pytest.raises(SealError, match="may be written by others"):
        find_signing_key(Path("/dev/zero"))
    with pytest.raises(SealError, match=rf"larger than {MAX_KEY_BYTES} bytes"):
        read_key(Path("/dev/zero"), "the journal's signing key")
    big = write_key(tmp_path / "big.key", 0o600)
    big.write_bytes(b"-" * (MAX_KEY_BYTES + 1))
    with pytest.raises(SealError, match=rf"big\.key: the journal's signing key is larger than {MAX_KEY_BYTES}"):
        find_signing_key(big)
    with Journal.open(tmp_path / "j.db") as journal:
        journal.append("tick", {})
    assert audit(tmp_path / "j.db", Path("/dev/zero")) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "/dev/zero: the public key is larger than" in err[0]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(victim=st.integers(1, 24), cents=st.integers(0, 10**6))
def test_any_sealed_record_rewritten_is_named(tmp_path_factory, victim, cents):
    tmp = tmp_path_factory.mktemp("j")
    key, public = new_key(tmp, "table")
    path = tmp / "j.db"
    played(path, key, 3)
    with Journal.open(path, readonly=True) as journal:
        kind = journal.record(victim).kind
    if kind == "journal.seal":
        return  # a seal altered is a forged seal (tested above)
    rewrite(path, victim, lambda p: {**p, "altered": cents})
    chain, seals = check(path, public)
    assert chain.ok and seals.rewritten == [victim]
