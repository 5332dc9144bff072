"""What a regulator's laboratory or inspector checks on a table's controller, each requirement run
as a check on this table PC with its source, the evidence found and PASS or FAIL (``tabled
compliance``; docs/compliance.md maps each to its code and test).

Every check reads: the config, the installed files, the journal (its chain and seals, and the
records the table wrote: the continual checks of tabled/daemon/watchdog.py), the staff file, the
installed systemd unit. A requirement the table cannot show from these (a lock, who holds which
key) is listed as physical or procedural, and fails until its evidence exists here.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, UTC
from pathlib import Path
from typing import Any

from tabled.daemon.config import Config
from tabled.journal.store import Journal, JournalError
from tabled.daemon.provenance import check_software
from tabled.journal.seals import SealChecker, SealError, local_public_key, public_keys, read_key
from tabled.host import software

#: the installed unit's systemd-analyze exposure at most this (docs/operations.md)
EXPOSURE_LIMIT = 2.0
UNIT = Path("/etc/systemd/system/tabled.service")
TABLE_PUBLIC_KEY = Path("/etc/tabled/journal-signing.pub")
DAY_US = 86_400 * 1_000_000


@dataclass(frozen=True)
class Finding:
    requirement: str
    source: str
    nature: str        # technical | physical | procedural
    passed: bool
    evidence: str

    def as_dict(self) -> dict[str, Any]:
        return {"requirement": self.requirement, "source": self.source, "nature": self.nature,
                "result": "PASS" if self.passed else "FAIL", "evidence": self.evidence}


def _when(us: int) -> str:
    return datetime.fromtimestamp(us / 1e6, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _last(journal: Journal, kind: str, where: Callable[[dict[str, Any]], bool] = lambda p: True) -> Any:
    before = None
    for _ in range(200):
        record = journal.last_of_kind(kind, before=before)
        if record is None or where(record.payload):
            return record
        before = record.seq
    return None


def software_against_manifest(cfg: Config) -> Finding:
    checked = check_software(cfg.software)
    result = checked["result"]
    if result == "verified":
        evidence = (f"{checked['files']} files are release {checked['release']} (manifest signed by release key "
                    f"{checked['key']})")
    elif result == "mismatch":
        evidence = f"{checked['problem_count']} files differ: " + "; ".join(checked["problems"][:3])
    else:
        evidence = f"{result}: {checked['detail']}"
    return Finding("installed software verified against the signed release manifest",
                   "AGCO 12.2.1; 13 Miss. Code R. 8-2.9", "technical", result == "verified", evidence)


def continual_verification(cfg: Config, journal: Journal) -> Finding:
    every = cfg.software.verify_every_s
    last = _last(journal, "software.checked", lambda p: "against" in p)
    if last is None:
        return Finding("software verified again on an interval and after significant events, each result logged",
                       "AGCO 12.2.1; 13 Miss. Code R. 8-2.9", "technical", False,
                       f"interval {every} s; no continual check in the journal")
    newest = journal.record(journal.head[0])
    gap_s = ((newest.time_us if newest is not None else last.time_us) - last.time_us) / 1e6
    ok = last.payload.get("result") == "verified" and gap_s <= 2 * every
    return Finding("software verified again on an interval and after significant events, each result logged",
                   "AGCO 12.2.1; 13 Miss. Code R. 8-2.9", "technical", ok,
                   f"interval {every} s; last check record {last.seq} at {_when(last.time_us)} "
                   f"({last.payload.get('reason')}"
                   f"): {last.payload.get('result')}, {last.payload.get('files')} files, "
                   f"{last.payload.get('duration_ms')} ms, {gap_s:.0f} s before the journal's last record"
                   )


def field_tool_answers(files: int) -> Finding:
    return Finding("the inspector's field-tool answers: SHA-1 (no seed) and HMAC-SHA1 (seeded), and HMAC-SHA256",
                   "GSA GAT", "technical", files > 0,
                   f"tabled verify software --method {'|'.join(software.METHODS)} over {files} files")


def chain_and_seals(journal: Journal, path: Path, keys: list[Path]) -> Finding:
    pems = [(str(k), read_key(k, "the public key")) for k in keys]
    checker = SealChecker(public_keys(pems)) if pems else None
    result = journal.verify(from_seq=0, on_record=checker.feed if checker is not None else None)
    if not result.ok:
        return Finding("the journal's whole hash chain and its seals intact", "13 Miss. Code R. 8-2.9; 25 CFR 547",
                       "technical", False, f"BROKEN at record {result.first_broken_seq}: {result.reason}")
    if checker is None:
        return Finding("the journal's whole hash chain and its seals intact", "13 Miss. Code R. 8-2.9; 25 CFR 547",
                       "technical", False, f"chain intact, {result.count} records; seals NOT CHECKED: no public key "
                       f"({TABLE_PUBLIC_KEY} or beside the journal)")
    seals = checker.finish()
    ok = seals.ok and seals.seals > 0 and seals.first_unsealed is None and all(s.checked for s in seals.stretches)
    keys_used = ", ".join(sorted({s.key for s in seals.stretches})) or "none"
    return Finding("the journal's whole hash chain and its seals intact", "13 Miss. Code R. 8-2.9; 25 CFR 547",
                   "technical", ok, f"{result.count} records, chain intact to record {result.head_seq}; "
                   f"{seals.seals} seals by key {keys_used}" + ("" if ok else f"; first unsealed or broken: "
                   f"{(seals.rewritten + seals.forged + seals.skipped + [seals.first_unsealed])[0]}"))


def background_journal_check(journal: Journal) -> Finding:
    last = _last(journal, "journal.checked")
    if last is None:
        return Finding("the whole journal checked in the background after each start and daily",
                       "13 Miss. Code R. 8-2.9", "technical", False, "no background check in the journal")
    return Finding("the whole journal checked in the background after each start and daily", "13 Miss. Code R. 8-2.9",
                   "technical", last.payload.get("result") == "intact",
                   f"last: record {last.seq} at {_when(last.time_us)}: {last.payload.get('result')}, "
                   f"{last.payload.get('records')} records")


def doors(journal: Journal) -> Finding:
    """The enclosure's door switch proved by a journaled opening, closing and acknowledgement, and no
    door standing open or unacknowledged now."""
    requirement = "the controller's enclosure door: opened and closed reported at once, journaled with the person"
    source = "13 Miss. Code R. 8-2.8; Michigan R 432.1841"
    opened, closed = _last(journal, "enclosure.opened"), _last(journal, "enclosure.closed")
    acknowledged = _last(journal, "enclosure.acknowledged")
    if opened is None:
        return Finding(requirement, source, "physical", False, "no enclosure door opening journaled: open the table "
                       "PC's enclosure once to prove its switch (docs/protocols-usb.md, enclosure_door)")
    standing = (closed is None or closed.seq < opened.seq) or acknowledged is None or acknowledged.seq < closed.seq
    evidence = (f"last opened record {opened.seq} at {_when(opened.time_us)} ({opened.payload.get('door')}, "
                f"signed in: {opened.payload.get('signed_in') or 'nobody'})")
    if standing or closed is None or acknowledged is None:
        return Finding(requirement, source, "physical", False, evidence + "; it stands open or unacknowledged")
    by = acknowledged.payload.get("by") or "the inspector"
    return Finding(requirement, source, "physical", True,
                   evidence + f"; closed record {closed.seq}, acknowledged by {by}")


def clock(cfg: Config, journal: Journal) -> Finding:
    """The clock's offset measured (tabled/daemon/clock.py), within its bound, the last measurement
    within 24 hours of the journal's last record, and no clock error condition standing."""
    requirement = "every clock synchronised at least every 24 hours; its offset measured and journaled"
    source = "13 Miss. Code R. 8-4.5"
    last = _last(journal, "clock.offset")
    if last is None:
        return Finding(requirement, source, "technical", False,
                       f"no clock offset measured in the journal (measured every {cfg.clock.check_every_s} s "
                       "against the central database, or NTP where the kernel is synchronised)")
    newest = journal.record(journal.head[0])
    gap_s = ((newest.time_us if newest is not None else last.time_us) - last.time_us) / 1e6
    fault = _last(journal, "clock.fault")
    standing = fault is not None and bool(fault.payload.get("standing"))
    p = last.payload
    ok = bool(p.get("ok")) and gap_s <= 86_400 and not standing
    return Finding(requirement, source, "technical", ok,
                   f"last: record {last.seq} at {_when(last.time_us)}: {p.get('offset_ms', 0):+d} ms against "
                   f"{p.get('against')} (bound {p.get('bound_ms')} ms), {gap_s:.0f} s before the journal's last record"
                   + (f"; error condition standing: {fault.payload.get('reason')}" if standing and fault else ""))


def config_differs(entry: Any, latest: Any) -> str:
    """What a ``[[pools]]`` entry sets (rate, reset value) that the pool's latest version does not hold."""
    return "; ".join(f"{what} {getattr(entry, what)} (version {latest.version}: {getattr(latest.settings, what)})"
                     for what in ("contribution_bp", "reset_cents")
                     if getattr(entry, what) != getattr(latest.settings, what))


def pool_settings(cfg: Config) -> Finding:
    """Every change of each pool's settings recorded with a second person's approval (``tabled pool
    propose --approved-by``: "...; approved by ..." in the version's who); the first version, the
    pool's opening from the config at install, is not a change. A config asking for other settings
    than the pool's latest is told: the pool does not take it."""
    requirement = "a change of the pool's settings approved by two people of different departments; a reset keyed"
    source = "N.J.A.C. 13:69D-1.52; Pennsylvania 605a.7"
    from concurrent.futures import ThreadPoolExecutor

    from tabled.pool import PoolError, open_pool

    async def versions(entry: Any) -> Any:
        pool = await open_pool(entry, cfg.table.id, create=False)
        try:
            return await pool.settings_history()
        finally:
            await pool.close()
    said, ok = [], True
    for entry in cfg.pools:
        if entry.backend == "local" and (entry.path is None or not Path(entry.path).is_file()):
            said.append(f"pool {entry.name}: no pool database at {entry.path}")
            ok = False
            continue
        try:  # in a thread of its own: the caller may be running an event loop already
            with ThreadPoolExecutor(1) as one:
                history = one.submit(asyncio.run, versions(entry)).result(timeout=60)
        except (PoolError, OSError, TimeoutError) as exc:
            said.append(f"pool {entry.name}: cannot be read: {exc}")
            ok = False
            continue
        for v in history:
            opened = v.version == 1 and v.why == "pool opened"  # the install's settings, not a change
            approved = "; approved by " in v.who
            if (opened or approved) and not (v.active or v.pending):
                continue  # the settings of an earlier jackpot, rightly recorded
            ok = ok and (approved or opened)
            state = "in force" if v.active else "pending" if v.pending else "earlier"
            said.append(f"pool {entry.name} version {v.version} ({state}) recorded by {v.who}"
                        + (" when the pool opened" if opened else "" if approved else ": no second person's approval"))
        if history and (differs := config_differs(entry, history[-1])):
            said.append(f"pool {entry.name}: the config asks for {differs}, not applied: a change is "
                        "proposed and approved by two people (tabled pool propose)")
    return Finding(requirement, source, "procedural", ok, "; ".join(said) or "no pool configured")


def installs_logged(journal: Journal) -> Finding:
    """The last install or upgrade journaled (packaging/install.sh's record, tabled/daemon/installs.py)."""
    requirement = "installs and upgrades logged: start, end, components, versions, verification, who"
    last = _last(journal, "software.install")
    if last is None:
        return Finding(requirement, "25 CFR 547.12", "procedural", False,
                       "no install journaled: packaging/install.sh leaves its record in the install spool, which the "
                       "daemon journals at its next start (a table run from a checkout was never installed)")
    p = last.payload
    return Finding(requirement, "25 CFR 547.12", "procedural", p.get("result") == "installed",
                   f"last: record {last.seq}: {p.get('what')} of tabled {p.get('version')} {p.get('result')} by "
                   f"{p.get('by')}, {p.get('started')} to {p.get('ended')}, {len(p.get('components') or {})} "
                   f"components, manifest {str(p.get('manifest_sha256') or 'none')[:16]}")


def restarts_logged(journal: Journal) -> Finding:
    """Power loss and restart journaled as such: the clean stop's mark and the restarts after none."""
    requirement = "power loss and restart journaled as such (a start after an unclean stop says so)"
    source = "13 Miss. Code R. 8-2.9 (power-up a significant event)"
    stopped, restarted = _last(journal, "table.stopped"), _last(journal, "power.restored")
    if stopped is None and restarted is None:
        return Finding(requirement, source, "technical", False, "no stop or restart journaled yet")
    evidence = (f"last clean stop: record {stopped.seq} at {_when(stopped.time_us)}" if stopped else
                "no clean stop journaled")
    if restarted is not None:
        evidence += (f"; last restart after an unclean stop: record {restarted.seq} at {_when(restarted.time_us)}, "
                     f"down {restarted.payload.get('down_s')} s")
    return Finding(requirement, source, "technical", True, evidence)


def staff_badges(cfg: Config, today: date | None = None) -> list[Finding]:
    people = cfg.staff.people if cfg.staff is not None else ()
    names: dict[str, list[int]] = {}
    for person in people:
        names.setdefault(person.name.casefold(), []).append(person.badge)
    twice = {n: b for n, b in names.items() if len(b) > 1}
    one_badge = Finding("one active user id (badge) per person", "Nevada table games systems checklist", "technical",
                        bool(people) and not twice,
                        (f"{len(people)} people, each with one badge (a second is refused when the staff file "
                         "is read)" if people and not twice else
                         "no staff list: the key alone acts" if not people else
                         "more than one badge: " + "; ".join(f"{n}: {b}" for n, b in sorted(twice.items()))))
    return [one_badge, pin_ages(cfg, today or datetime.now(UTC).date())]


def pin_ages(cfg: Config, today: date) -> Finding:
    """Every PIN dated (the staff file's pin_set, or its change at the panel) and none past the
    maximum age (one past it signs in once more and must be changed at the panel: tabled/table/staff.py)."""
    requirement = "PINs changed at least quarterly: a PIN past its maximum age must be changed at the panel"
    source = "Nevada table games systems checklist"
    staff = cfg.staff
    if staff is None or not staff.people:
        return Finding(requirement, source, "technical", False, "no staff list: the key alone acts, no PIN ages")
    undated = [p.badge for p in staff.people if p.pin_set is None]
    expired = [p.badge for p in staff.people if staff.expired(p.badge, today)]
    oldest = max((a for p in staff.people if (a := staff.pin_age_days(p.badge, today)) is not None), default=None)
    evidence = (f"{len(staff.people)} PINs, at most {staff.max_pin_age_days} days"
                + (f"; the oldest {oldest} days" if oldest is not None else "")
                + (f"; no pin_set for badges {undated}: their age cannot be shown" if undated else "")
                + (f"; past it (changed at the next sign-in): badges {expired}" if expired else ""))
    return Finding(requirement, source, "technical", not undated and not expired, evidence)


def pages(cfg: Config) -> Finding:
    """The pages off the loopback address only over TLS (tabled/web/tls.py; a config serving them
    in plain HTTP off it is refused at start), a viewer's token exchanged for a cookie at once."""
    screen = cfg.screen
    local = not screen.enabled or (screen.loopback and not screen.viewers)
    if local:
        evidence = "the pages are served on the loopback address only: nothing leaves the table PC"
    elif screen.tls is not None:
        evidence = (f"the pages are served on {screen.host} over TLS; a viewer's token is exchanged for an HttpOnly, "
                    "Secure cookie on the first request and never put in a URL after it")
    else:
        evidence = f"the pages are served on {screen.host} over plain HTTP"
    return Finding("what leaves the table PC travels encrypted; no credential in a URL", "AGCO 6.1.7, 12.1.3",
                   "technical", local or screen.tls is not None, evidence)


def hardening(unit: Path = UNIT) -> Finding:
    analyze = shutil.which("systemd-analyze")
    if not unit.is_file():
        return Finding("the unit's hardening (systemd-analyze security exposure)", "docs/operations.md",
                       "technical", False, f"{unit}: not installed as a service here (no exposure to measure)")
    if analyze is None:
        return Finding("the unit's hardening (systemd-analyze security exposure)", "docs/operations.md",
                       "technical", False, "systemd-analyze is missing: the exposure cannot be measured")
    done = subprocess.run([analyze, "security", "--offline=true", "--no-pager", str(unit)], capture_output=True,
                          text=True, timeout=120)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout)
    if not found:
        return Finding("the unit's hardening (systemd-analyze security exposure)", "docs/operations.md", "technical",
                       False, f"systemd-analyze gave no exposure (exit {done.returncode})")
    level = float(found.group(1))
    return Finding("the unit's hardening (systemd-analyze security exposure)", "docs/operations.md", "technical",
                   level <= EXPOSURE_LIMIT, f"exposure {level:.1f} (limit {EXPOSURE_LIMIT})")


def retention(journal: Journal) -> Finding:
    first, head = journal.record(1), journal.record(journal.head[0])
    losses = _last(journal, "journal.loss_accepted")
    if first is None or head is None:
        return Finding("the journal retained from the table's first record", "25 CFR 547; 13 Miss. Code R. 8-2.9",
                       "technical", False, "the journal holds no record")
    days = (head.time_us - first.time_us) / DAY_US
    return Finding("the journal retained from the table's first record", "25 CFR 547; 13 Miss. Code R. 8-2.9",
                   "technical", losses is None,
                   f"records 1 to {head.seq}, {_when(first.time_us)} to {_when(head.time_us)} ({days:.1f} days)"
                   + ("; no loss recorded" if losses is None else f"; a loss recorded at record {losses.seq}"))


def check(cfg: Config, journal_path: Path, *, public_keys_given: list[Path] | None = None,
          unit: Path = UNIT) -> list[Finding]:
    """Every requirement, in the order docs/compliance.md lists them."""
    findings = [software_against_manifest(cfg)]
    keys = list(public_keys_given or [])
    if not keys:
        keys = [k for k in (TABLE_PUBLIC_KEY, local_public_key(journal_path)) if k is not None and k.is_file()]
    try:
        with Journal.open(journal_path, readonly=True, verify=False) as journal:
            findings += [continual_verification(cfg, journal),
                         field_tool_answers(len(software.installed_files())),
                         chain_and_seals(journal, journal_path, keys),
                         background_journal_check(journal),
                         retention(journal),
                         doors(journal),
                         clock(cfg, journal),
                         installs_logged(journal),
                         restarts_logged(journal)]
    except (JournalError, OSError, SealError) as exc:
        findings.append(Finding("the journal readable and intact", "13 Miss. Code R. 8-2.9", "technical", False,
                                str(exc)))
    findings += [
        pool_settings(cfg),
        *staff_badges(cfg),
        pages(cfg),
        hardening(unit),
    ]
    return findings


__all__ = ["Finding", "check", "EXPOSURE_LIMIT"]
