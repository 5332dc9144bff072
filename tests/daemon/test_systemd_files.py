"""The shipped systemd unit, logging under systemd, and the udev/sysusers files agree with each other."""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path

import pytest

from tabled.host.log import configure_logging, get_logger, log_context

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"
INSTALL = SYSTEMD.parent / "packaging" / "install.sh"
SYSTEMD_ANALYZE = Path("/usr/bin/systemd-analyze")  # the `systemd` package; make test: .ci/ensure-systemd.sh
MOST_EXPOSED = 2.0


def unit() -> dict[str, list[str]]:
    """The [Service] section, each key with all its values (keys may repeat)."""
    values: dict[str, list[str]] = {}
    section = None
    for line in (SYSTEMD / "tabled.service").read_text().splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values.setdefault(key, []).append(value)
    return values


def test_unit_is_notify_with_watchdog_and_a_dedicated_user():
    u = unit()
    assert u["Type"] == ["notify"] and int(u["WatchdogSec"][0]) > 0
    assert u["ExecStart"] == ["/opt/tabled/.venv/bin/tabled run --config /etc/tabled/tabled.toml"]
    assert u["User"] == ["tabled"] and u["DynamicUser"] == ["no"] and u["StateDirectory"] == ["tabled"]
    assert u["DevicePolicy"] == ["closed"] and u["ProtectSystem"] == ["strict"]
    assert u["CapabilityBoundingSet"] == [""] and u["NoNewPrivileges"] == ["yes"]


def drop_ins() -> dict[str, str]:
    """The unit's drop-ins as packaging/install.sh writes them (each credential's file in place):
    file name -> contents."""
    text = INSTALL.read_text()
    written = re.findall(r"printf '(\[Service\][^']*)'\s*\\?\s*>\s*\"\$root/etc/systemd/system/tabled\.service\.d/"
                         r"([\w.-]+\.conf)\"", text)
    found = {name: body.replace("\\n", "\n") for body, name in written}
    # the loop over the database roles' passwords: one drop-in each, named after its credential
    (names,) = re.findall(r"^for credential in ([\w -]+); do$", text, flags=re.MULTILINE)
    for credential in names.split():
        found[f"{credential}.conf"] = f"[Service]\nLoadCredential={credential}:/etc/tabled/{credential}\n"
    return found


def exposure(root: Path, name: str = "tabled.service") -> float:
    """systemd-analyze's overall exposure of the unit ``name`` installed under ``root``, with its drop-ins."""
    assert SYSTEMD_ANALYZE.exists(), (f"{SYSTEMD_ANALYZE} is missing: install the 'systemd' package "
                                      "(make test runs .ci/ensure-systemd.sh)")
    done = subprocess.run([str(SYSTEMD_ANALYZE), "security", "--offline=true", f"--root={root}", "--no-pager",
                           name], capture_output=True, text=True, timeout=60)
    found = re.search(rf"Overall exposure level for {re.escape(name)}: (\d+\.\d+)", done.stdout)
    assert found, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return float(found.group(1))


def install_unit(root: Path, extra: dict[str, str]) -> None:
    units = root / "etc" / "systemd" / "system"
    (units / "tabled.service.d").mkdir(parents=True, exist_ok=True)
    (units / "tabled.service").write_text((SYSTEMD / "tabled.service").read_text())
    for name, text in extra.items():
        (units / "tabled.service.d" / name).write_text(text)


def test_the_installed_unit_with_its_credentials_keeps_its_hardening(tmp_path):
    written = drop_ins()
    credentials = {line.split("=", 1)[1].split(":", 1)[0] for text in written.values()
                   for line in text.splitlines() if line.startswith("LoadCredential=")}
    assert credentials == {"journal-signing-key", "journal-central-password", "pool-password"}
    install_unit(tmp_path / "installed", written)
    score = exposure(tmp_path / "installed")
    print(f"Overall exposure level for tabled.service with {', '.join(sorted(written))}: {score}")
    assert score <= MOST_EXPOSED
    # the drop-ins are part of what was measured: one that loosens the unit shows in the score
    install_unit(tmp_path / "loosened", {**written, "zz-loosened.conf": "[Service]\nNoNewPrivileges=no\n"
                                         "ProtectSystem=no\nCapabilityBoundingSet=CAP_SYS_ADMIN\n"})
    assert exposure(tmp_path / "loosened") > score


def test_the_floors_unit_with_its_credential_keeps_the_same_hardening(tmp_path):
    units = tmp_path / "etc" / "systemd" / "system"
    units.mkdir(parents=True)
    text = (SYSTEMD / "tabled-floor.service").read_text()
    (units / "tabled-floor.service").write_text(text)
    assert "LoadCredential=floor-central-password:/etc/tabled/floor-central-password" in text
    assert "DynamicUser=yes" in text and "PrivateDevices=yes" in text  # no state, no devices
    score = exposure(tmp_path, "tabled-floor.service")
    print(f"Overall exposure level for tabled-floor.service: {score}")
    assert score <= MOST_EXPOSED


def test_a_bad_config_is_checked_before_the_start_and_never_restarted_in_a_loop():
    u = unit()
    # the effective config (or its one-line error) is written first; its failure is left to the
    # daemon, whose exit status 2 systemd does not restart (RestartPreventExitStatus applies to
    # the main process only, never to ExecStartPre=)
    assert u["ExecStartPre"] == ["-/opt/tabled/.venv/bin/tabled config check /etc/tabled/tabled.toml"]
    assert u["RestartPreventExitStatus"] == ["2"] and u["Restart"] == ["always"]
    assert "--config /etc/tabled/tabled.toml" in u["ExecStart"][0]


def test_udev_names_match_the_hardware_config_and_the_group_matches_sysusers():
    rules = (SYSTEMD / "99-tabled.rules").read_text()
    hardware = (SYSTEMD.parent / "config" / "hardware.toml").read_text()
    for name in ("shuffler", "betspots", "meter"):
        assert f'SYMLINK+="tabled-{name}"' in rules and f'port = "/dev/tabled-{name}"' in hardware
    assert 'GROUP="tabled"' in rules
    assert "u tabled -:tabled" in (SYSTEMD / "tabled.sysusers.conf").read_text()


def test_json_lines_under_systemd_carry_round_spot_and_rule(monkeypatch):
    monkeypatch.setenv("INVOCATION_ID", "0123456789abcdef")
    out = io.StringIO()
    assert configure_logging("auto", "info", stream=out, clock=lambda: 1_700_000_000.0) == "json"
    log = get_logger()
    log.info("table.opened", table="T01")
    with log_context(round_id="T01-000042"), log_context(spot=3, rule="14.9"):
        log.warning("bet.not_twice_ante", bet_cents=900, ante_cents=500)
    log.debug("not shown at info")
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["round_id"] is None and first["event"] == "table.opened"
    assert first["timestamp"] == "2023-11-14T22:13:20+00:00"
    assert {k: second[k] for k in ("round_id", "spot", "rule", "level", "bet_cents")} == {
        "round_id": "T01-000042", "spot": 3, "rule": "14.9", "level": "warning", "bet_cents": 900}


def test_console_in_a_terminal(monkeypatch):
    monkeypatch.delenv("INVOCATION_ID", raising=False)
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    assert configure_logging("auto", "debug", stream=out) == "console"
    with log_context(round_id="R7", spot=2):
        get_logger().info("card.dealt", card="As")
    line = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())  # colours off for the check
    assert "card.dealt" in line and "round_id=R7" in line and "spot=2" in line


def test_bad_log_settings_are_clear_errors():
    with pytest.raises(ValueError, match="log level must be one of"):
        configure_logging("json", "loud")
    with pytest.raises(ValueError, match="log format must be one of"):
        configure_logging("xml", "info")


def test_the_shipped_files_describe_themselves_not_a_history():
    """Comments say what the file does, never which issue asked for it."""
    shipped = [*SYSTEMD.iterdir(), *(SYSTEMD.parent / "config").iterdir(), *(SYSTEMD.parent / "packaging").iterdir()]
    named = [f"{p.name}:{n}" for p in shipped if p.is_file()
             for n, line in enumerate(p.read_text().splitlines(), 1) if re.search(r"\bissues? #?\d", line, re.I)]
    assert named == []


@pytest.mark.skipif(not Path("/usr/bin/systemd-sysusers").exists(), reason="systemd-sysusers is not installed")
def test_the_documented_sysusers_check_creates_the_user(tmp_path):
    """docs/operations.md's lines, as written, from the checkout (systemd 252 reads a relative
    file inside --root)."""
    text = (SYSTEMD.parent / "docs" / "operations.md").read_text()
    lines = [line.split("  #", 1)[0] for line in text.splitlines()
             if "systemd-sysusers --root=\"$root\"" in line or line.startswith('cat "$root/etc/passwd"')]
    assert len(lines) == 2, lines
    done = subprocess.run(["bash", "-euc", "\n".join(lines)], cwd=SYSTEMD.parent, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "TMPDIR": str(tmp_path)}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^tabled:x:\d+:\d+:[^:]*:/var/lib/tabled:/usr/sbin/nologin$", done.stdout, re.M), done.stdout
