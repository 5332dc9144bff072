"""The journal sealed with the table's key: a record rewritten and every hash after it recomputed is
named by number; a seal not made by the key is found; each stretch names the key that sealed it."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.rsa import generate_private_key
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tabled.cli import main
from tabled.daemon.journal import Journal, JournalError
from tabled.daemon.seals import SealChecker, SealError, SigningKey, find_signing_key, public_keys
from tests.daemon.tamper import rewrite

PEM = serialization.Encoding.PEM


def new_key(tmp_path: Path, name: str) -> tuple[SigningKey, Path]:
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    public = tmp_path / f"{name}.pub"
    public.write_bytes(key.public_key().public_bytes(PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return SigningKey.from_pem(private, name), public


def play(journal: Journal, key: SigningKey, rounds: int) -> None:
    """Rounds of wagers, each sealed at its end as the daemon seals them."""
    for n in range(rounds):
        rid = f"R{n}"
        journal.append("round.started", {"round_no": n}, rid)
        for spot in range(1, 4):
            journal.append("wager", {"spot": spot, "area": "bet", "cents": 5000}, rid)
        journal.append("round.finished", {"round_no": n}, rid)
        journal.seal(key)


def check(path: Path, *publics: Path):
    with Journal.open(path, readonly=True, verify=False) as journal:
        checker = SealChecker(public_keys((str(p), p.read_bytes()) for p in publics))
        chain = journal.verify(on_record=checker.feed)
    return chain, checker.finish()


def test_a_sealed_journal_checks_out_with_the_public_key(tmp_path):
    key, public = new_key(tmp_path, "table")
    with Journal.open(tmp_path / "j.db") as journal:
        play(journal, key, 3)
    chain, seals = check(tmp_path / "j.db", public)
    assert chain.ok and seals.ok and seals.seals == 3 and seals.unsealed_from is None
    assert [(s.key, s.first, s.last, s.checked) for s in seals.stretches] == [(key.id, 1, chain.head_seq, True)]


def test_a_bet_changed_from_50_to_90_and_rehashed_is_named_by_number(tmp_path, capsys):
    key, public = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    with Journal.open(path) as journal:
        play(journal, key, 3)
    rewrite(path, 9, lambda p: {**p, "cents": 9000})  # round R1's second wager
    chain, seals = check(path, public)
    assert chain.ok  # the chain alone says nothing
    assert seals.rewritten == [9] and not seals.forged
    assert main(["audit", "verify", "--journal", str(path), "--public-key", str(public)]) == 1
    out = capsys.readouterr().out
    assert "chain intact" in out and "record 9 REWRITTEN" in out


def test_records_cut_and_renumbered_are_named(tmp_path):
    key, public = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    with Journal.open(path) as journal:
        play(journal, key, 2)
    rewrite(path, 3, lambda p: {**p, "cents": 0})
    _, seals = check(path, public)
    assert seals.rewritten == [3]


def test_a_seal_signed_by_another_key_is_not_the_tables(tmp_path, capsys):
    key, public = new_key(tmp_path, "table")
    intruder, _ = new_key(tmp_path, "intruder")
    path = tmp_path / "j.db"
    with Journal.open(path) as journal:
        play(journal, key, 1)
        journal.append("wager", {"spot": 1, "area": "bet", "cents": 9000}, "R9")
        journal.seal(intruder)  # a tail added and sealed by whoever holds another key
    chain, seals = check(path, public)
    assert chain.ok and [s.checked for s in seals.stretches] == [True, False]
    assert main(["audit", "verify", "--journal", str(path), "--public-key", str(public)]) == 1
    assert f"sealed by key {intruder.id} (NO PUBLIC KEY GIVEN" in capsys.readouterr().out


def test_a_seal_whose_signature_was_altered_is_forged(tmp_path):
    key, public = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    with Journal.open(path) as journal:
        play(journal, key, 2)
    seal_seq = 6
    rewrite(path, seal_seq, lambda p: {**p, "through": 4})
    _, seals = check(path, public)
    assert seals.forged == [seal_seq]


def test_a_new_key_is_a_journaled_event_and_each_stretch_names_its_key(tmp_path, capsys):
    first, first_public = new_key(tmp_path, "first")
    second, second_public = new_key(tmp_path, "second")
    path = tmp_path / "j.db"
    with Journal.open(path) as journal:
        play(journal, first, 2)
        assert journal.use_key(first) is None  # the same key: nothing to say
        journal.use_key(second)
        play(journal, second, 1)
        change = journal.last_of_kind("journal.key")
    assert change.payload == {"key": second.id, "previous": first.id}
    _, seals = check(path, first_public, second_public)
    assert seals.ok and [(s.key, s.checked) for s in seals.stretches] == [(first.id, True), (second.id, True)]
    assert seals.stretches[1].first == seals.stretches[0].last + 1
    assert main(["audit", "verify", "--journal", str(path), "--public-key", str(first_public),
                 "--public-key", str(second_public)]) == 0
    out = capsys.readouterr().out
    assert f"sealed by key {first.id} (seals checked)" in out and f"sealed by key {second.id} (seals checked)" in out


def test_records_after_the_last_seal_are_reported_unsealed(tmp_path):
    key, public = new_key(tmp_path, "table")
    path = tmp_path / "j.db"
    with Journal.open(path) as journal:
        play(journal, key, 1)
        journal.append("wager", {"spot": 2, "area": "ante", "cents": 500}, "R1")
    _, seals = check(path, public)
    assert seals.ok and seals.unsealed_from == 7


def test_an_unsealed_journal_is_not_verified_when_a_key_is_expected(tmp_path, capsys):
    _, public = new_key(tmp_path, "table")
    with Journal.open(tmp_path / "j.db") as journal:
        journal.append("tick", {})
    assert main(["audit", "verify", "--journal", str(tmp_path / "j.db"), "--public-key", str(public)]) == 1
    assert "NOT SEALED" in capsys.readouterr().out


def test_only_the_journal_writes_seals_and_key_changes(tmp_path):
    with Journal.open(tmp_path / "j.db") as journal:
        for kind in ("journal.seal", "journal.key", "checkpoint"):
            with pytest.raises(JournalError, match=r"written by Journal\.[a-z_]+\(\) only"):
                journal.append(kind, {})


def test_the_signing_key_comes_from_systemd_or_the_config_and_must_be_ed25519(tmp_path):
    key = Ed25519PrivateKey.generate()
    (tmp_path / "journal-signing-key").write_bytes(
        key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    found = find_signing_key(None, {"CREDENTIALS_DIRECTORY": str(tmp_path)})
    assert found is not None and found.id == SigningKey.from_pem(
        (tmp_path / "journal-signing-key").read_bytes(), "k").id
    assert find_signing_key(None, {}) is None
    rsa = generate_private_key(public_exponent=65537, key_size=2048)
    (tmp_path / "rsa.key").write_bytes(rsa.private_bytes(PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    with pytest.raises(SealError, match="must be an Ed25519 key"):
        find_signing_key(tmp_path / "rsa.key")
    with pytest.raises(SealError, match="cannot be read"):
        find_signing_key(tmp_path / "nope.key")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(victim=st.integers(1, 17), cents=st.integers(0, 10**6))
def test_any_sealed_record_rewritten_is_named(tmp_path_factory, victim, cents):
    tmp = tmp_path_factory.mktemp("j")
    key, public = new_key(tmp, "table")
    path = tmp / "j.db"
    with Journal.open(path) as journal:
        play(journal, key, 3)
        kind = journal.record(victim).kind
    if kind == "journal.seal":
        return  # a seal altered is a forged seal (tested above)
    rewrite(path, victim, lambda p: {**p, "altered": cents})
    chain, seals = check(path, public)
    assert chain.ok and seals.rewritten == [victim]
