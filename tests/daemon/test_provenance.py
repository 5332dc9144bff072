"""What a daemon starts with is journaled before play: the software check and the configuration
(its hash, every setting, what changed since the last start); an unverified install is refused."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tabled.daemon import config_record, provenance
from tabled.daemon.config import ConfigError, SoftwareConfig, load_config
from tabled.journal.store import Journal
from tabled.host import software

from .configs import MINIMAL_TABLE


def config_file(tmp_path: Path, extra: str = "", table: str = MINIMAL_TABLE) -> Path:
    path = tmp_path / "tabled.toml"
    path.write_text(table + '\n[journal]\npath = "journal.db"\n' + extra)
    return path


def test_a_development_start_is_journaled_with_every_setting_and_nothing_changed(tmp_path):
    cfg = load_config(config_file(tmp_path, "[software]\ndevelopment = true\n"))
    with Journal.open(tmp_path / "j.db") as journal:
        checked = provenance.record_start(journal, cfg)
        assert checked["result"] == "development"
        software_record, config_record_ = journal.records_after(0)
    assert software_record.kind == "software.checked" and config_record_.kind == "config.started"
    started = config_record_.payload
    assert started["first"] is True and started["changes"] == []
    assert started["settings"]["table.minimum_cents"] == 500
    assert started["settings"]["table.profile.bet_odds.royal_flush"] == 250  # the paytable is a setting
    assert started["sha256"] == config_record.settings_hash(started["settings"])


def test_a_limit_or_a_paytable_changed_between_two_starts_is_named(tmp_path):
    path = config_file(tmp_path, "[software]\ndevelopment = true\n")
    with Journal.open(tmp_path / "j.db") as journal:
        provenance.record_start(journal, load_config(path))
        path.write_text(path.read_text().replace("minimum_cents = 500", "minimum_cents = 1000")
                        .replace('profile = "nsw"', 'profile = "us-standard"'))
        provenance.record_start(journal, load_config(path))
        last = journal.last_of_kind("config.started").payload
    changes = {c["key"]: (c["before"], c["after"]) for c in last["changes"]}
    assert changes["table.minimum_cents"] == (500, 1000)
    assert changes["table.profile.name"] == ("nsw", "us-standard")
    assert changes["table.profile.bet_odds.royal_flush"] == (250, 100)  # NSW 250 to 1, US 100 to 1
    assert last["first"] is False


def test_the_same_config_twice_changes_nothing_and_hashes_the_same(tmp_path):
    cfg = load_config(config_file(tmp_path, "[software]\ndevelopment = true\n"))
    with Journal.open(tmp_path / "j.db") as journal:
        provenance.record_start(journal, cfg)
        provenance.record_start(journal, cfg)
        first, second = [r.payload for r in journal.records_after(0) if r.kind == "config.started"]
    assert first["sha256"] == second["sha256"] and second["changes"] == []


def test_a_pool_password_never_reaches_the_journal():
    cfg = load_config(None)
    pool = replace(cfg.pools[0], backend="postgresql", path=None, dsn="postgresql://tabled:s3cret@db/tabled")
    flat = config_record.settings(replace(cfg, pools=(pool,)))
    assert "s3cret" not in json.dumps(flat) and flat["pools.0.dsn"] == "postgresql://tabled:***@db/tabled"


def test_without_a_manifest_a_start_is_refused_unless_marked_development(tmp_path):
    cfg = load_config(config_file(tmp_path))
    with Journal.open(tmp_path / "j.db") as journal:
        with pytest.raises(provenance.StartRefused, match="cannot be verified: no release manifest"):
            provenance.record_start(journal, cfg)
        assert journal.last_of_kind("software.checked").payload["result"] == "untrusted"  # journaled all the same


def signed_manifest(tmp_path: Path, alter: str | None = None) -> SoftwareConfig:
    key = Ed25519PrivateKey.generate()
    public = tmp_path / "release.pub"
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    document = software.manifest_document("3.1.0", software.installed_files())
    if alter:  # the release as approved had other bytes in this file
        body = json.loads(document)
        name = next(n for n in body["files"] if n.startswith(alter))
        body["files"][name] = "0" * 64
        document = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    manifest = tmp_path / "manifest.json"
    manifest.write_bytes(document)
    (tmp_path / "manifest.json.sig").write_bytes(software.sign_manifest(document, private))
    return SoftwareConfig(manifest, tmp_path / "manifest.json.sig", public)


def test_a_verified_install_starts_and_says_which_release(tmp_path):
    checked = provenance.check_software(signed_manifest(tmp_path))
    assert checked["result"] == "verified" and checked["release"] == "3.1.0" and checked["problems"] == []
    assert provenance.refusal(checked, development=False) is None


@pytest.mark.parametrize("alter", ["tabled/tabled/profiles/nsw.toml", "structlog-", "tabled/tabled/table/core.py"])
def test_a_changed_file_refuses_the_start_naming_the_file(tmp_path, alter):
    checked = provenance.check_software(signed_manifest(tmp_path, alter))
    assert checked["result"] == "mismatch" and checked["problem_count"] == 1
    why = provenance.refusal(checked, development=False)
    assert why is not None and why.startswith("the installed software is not release 3.1.0: changed: ")
    assert alter in why
    assert provenance.refusal(checked, development=True) is None  # a development install is journaled, not refused


def test_the_software_section_is_checked(tmp_path):
    with pytest.raises(ConfigError, match="software.release_key: is missing"):
        load_config(config_file(tmp_path, '[software]\nmanifest = "m.json"\n'))
    with pytest.raises(ConfigError, match="software.develop: unknown key"):
        load_config(config_file(tmp_path, "[software]\ndevelop = true\n"))
    cfg = load_config(config_file(tmp_path, '[software]\nmanifest = "m.json"\nrelease_key = "/etc/k.pub"\n'))
    assert cfg.software.manifest == tmp_path / "m.json" and cfg.software.signature == tmp_path / "m.json.sig"
    assert cfg.software.release_key == Path("/etc/k.pub") and cfg.software.development is False


def test_recall_shows_a_limit_changed_between_two_rounds(tmp_path, capsys):
    from tabled.cli import main
    path = config_file(tmp_path, "[software]\ndevelopment = true\n")
    with Journal.open(tmp_path / "j.db") as journal:
        provenance.record_start(journal, load_config(path))
        journal.append("round.started", {"round_no": 1}, round_id="R1")
        journal.append("round.finished", {"round_no": 1}, round_id="R1")
        path.write_text(path.read_text().replace("minimum_cents = 500", "minimum_cents = 1000"))
        provenance.record_start(journal, load_config(path))
        journal.append("round.started", {"round_no": 2}, round_id="R2")
        journal.append("round.finished", {"round_no": 2}, round_id="R2")
    assert main(["recall", "--journal", str(tmp_path / "j.db")]) == 0
    out = capsys.readouterr().out
    first, second = out.split("round R2:")
    assert "configuration " in first and "CHANGED" not in first
    assert "CHANGED since the round before: table.minimum_cents $5.00 -> $10.00" in second
    assert main(["recall", "--journal", str(tmp_path / "j.db"), "--json"]) == 0
    rounds = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rounds[0]["config_sha256"] != rounds[1]["config_sha256"]
