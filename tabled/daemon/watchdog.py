"""Continuous verification: the installed software and the journal checked again and again while
the table plays, in a worker process that never holds the table's event loop.

* **The software** (AGCO 12.2.1, Mississippi 13 Miss. Code R. 8-2.9): every installed file
  (tabled/host/software.py: the package, its profiles, every library it runs on) is hashed again
  once the table is up (within :data:`FIRST_CHECK_S`; the start's own check came before play),
  every ``[software] verify_every_s`` and after each significant event (:meth:`Watchdog.wake`:
  a door closed, a configuration change). With a release manifest it is checked against the
  manifest; a development install, which has none, is checked against the files as they were
  when the table started (:class:`AtStart`): the table's own files are read before play, and any
  other file written after that is named changed (the worker's first reading of it may come after
  play began, on a busy machine many rounds after). A file changed, missing or not in the release
  (one added) is named. The
  configuration files are hashed beside them and each change among them named in the record.
  Every file is listed and stamped at each check (its inode, size, modification and change
  times, which every write changes); its contents are read again when its stamp changed, and in
  any case once every :data:`SLICES` checks (a rotating slice of the files each time, all of them
  at start), so even a change made beneath the file system is found within that many intervals.
* **The journal**: the start checks it from its last checkpoint (tabled/journal/store.py); here
  the whole chain and its seals are checked once after each start's first check and then every
  :data:`JOURNAL_EVERY_S`, so a record broken before the last checkpoint is found within minutes,
  not at the next audit.

Each result is a journaled input (``software.checked``: files, digest, result, duration, why it
ran; ``journal.checked``), judged by the fold (tabled/table/selfcheck.py): a failed check stops new
rounds until the inspector clears it after a sound check.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import hashlib
import multiprocessing
import os
import shutil
import signal
import subprocess
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import structlog

from tabled.daemon.config import SoftwareConfig
from tabled.host import software
from tabled.table.effects import Effect, Note

log = structlog.get_logger("tabled.daemon.watchdog")

#: the first continual check this long after the table is up at the latest (sooner on a wake or a
#: shorter interval): the start's own check came just before
FIRST_CHECK_S = 60
#: the whole journal's chain and seals, checked again after this long (daily)
JOURNAL_EVERY_S = 86_400
#: the table's notes after which the files are checked again at once, and why
SIGNIFICANT = {"enclosure.closed": "an enclosure door closed"}
#: problems listed in a record; the count is always there
LISTED = 50


@dataclass(frozen=True)
class Scope:
    """What one check reads: the software's config, the files checked (None: the installed ones;
    a folder: every file under it, for a tree checked on its own), the configuration files."""

    software: SoftwareConfig
    tree: Path | None = None
    configs: tuple[Path, ...] = ()


def tree_files(root: Path) -> list[software.InstalledFile]:
    """Every file under ``root`` (compiled caches aside), named by its path below it."""
    return sorted((software.InstalledFile(p.relative_to(root).as_posix(), p) for p in root.rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts), key=lambda f: f.name)


#: the kernel stamps a file's change time from a clock that may lag the one read here by a tick:
#: a file whose change time is this close before the start counts as written after it
CLOCK_TICK_NS = 50_000_000
#: the digest of a file written after the start whose contents at start are not known: no file has it
UNKNOWN = "unknown: written after the table started"


@dataclass(frozen=True)
class AtStart:
    """The files as the table started with them, where there is no release manifest: when it started
    (the kernel's clock, in ns), the digests of the table's own files, read before play, and what
    their names begin with (a file of its own not among them was added after the start)."""

    since_ns: int
    digests: dict[str, str]
    own: str


def at_start(scope: Scope) -> AtStart:
    """Read before play (the checked folder, or the ``tabled`` distribution's packages: a few
    hundred small files): the start's moment first, so a file written while they are read counts
    as written after it."""
    since_ns = time.time_ns() - CLOCK_TICK_NS
    if scope.tree is not None:
        return AtStart(since_ns, digests(tree_files(scope.tree))[0], "")
    return AtStart(since_ns, digests(software.installed_files(dependencies=()))[0], software.OWN_DISTRIBUTION + "/")


#: a file is stamped by what the kernel changes on every write: its inode, size, modification and
#: change times (the change time cannot be set back by a user)
Stamp = tuple[int, int, int, int]
#: each check reads again, whatever their stamps, one slice of this many of the files: every file's
#: contents are read at least every SLICES checks (and all of them at start)
SLICES = 8
#: a file changed this close to the check is read again next time: a write within the file system's
#: clock tick may leave its stamp as it was
RACY_NS = 2_000_000_000


def stamp_of(path: Path) -> Stamp:
    st = path.stat()
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def digests(files: Sequence[software.InstalledFile], known: Mapping[str, tuple[Stamp, str]] | None = None,
            turn: int = 0) -> tuple[dict[str, str], dict[str, tuple[Stamp, str]], int]:
    """Each file's SHA-256: read again when its stamp changed, when it falls in this turn's slice, or
    when nothing is known of it; else the digest its unchanged stamp vouches for. Also what the
    next check may take as known, and how many files were read."""
    found: dict[str, str] = {}
    kept: dict[str, tuple[Stamp, str]] = {}
    read = 0
    now_ns = time.time_ns()
    for f in files:
        try:
            stamp = stamp_of(f.path)
            before = (known or {}).get(f.name)
            if before is not None and before[0] == stamp and zlib.crc32(f.name.encode()) % SLICES != turn % SLICES:
                digest = before[1]
            else:
                digest = software.file_digest(f.path)
                read += 1
                if stamp_of(f.path) != stamp:
                    continue  # written while read: unknown until the next check, which reads it again
        except OSError:
            continue  # gone since it was listed: reported missing
        found[f.name] = digest
        if now_ns - stamp[3] > RACY_NS:
            kept[f.name] = (stamp, digest)
    return found, kept, read


def overall(found: Mapping[str, str]) -> str:
    """One digest of them all: SHA-256 over each name, a zero byte and its file's SHA-256, in order."""
    h = hashlib.sha256()
    for name in sorted(found):
        h.update(name.encode() + b"\0" + found[name].encode() + b"\n")
    return h.hexdigest()


Known = dict[str, tuple[Stamp, str]]


def check_software(scope: Scope, baseline: Mapping[str, str] | None, config_baseline: Mapping[str, str] | None,
                   known: Known | None = None, turn: int = 0,
                   start: AtStart | None = None) -> tuple[dict[str, Any], dict[str, str], dict[str, str], Known]:
    """One check (run in the worker): the ``software.checked`` payload, the files' digests to check
    the next against (the manifest's files as found; without a manifest, the files at start), the
    configuration files' digests (the next check's baseline) and what the next may take as known
    (:func:`digests`). Without a manifest or a ``baseline``, the files at start are ``start``'s and,
    for the others, those found now unless written after ``start.since_ns``; with neither, the
    files as found now."""
    began = time.monotonic()
    cfg = scope.software
    files = tree_files(scope.tree) if scope.tree is not None else software.installed_files()
    found, kept, read = digests(files, known, turn)
    configs = digests([software.InstalledFile(str(p), p) for p in scope.configs])[0]
    payload: dict[str, Any] = {"files": len(found), "read": read, "digest": overall(found)}
    try:
        if cfg.manifest is not None and cfg.signature is not None and cfg.release_key is not None:
            release, expected = software.read_manifest(cfg.manifest.read_bytes(), cfg.signature.read_bytes(),
                                                       cfg.release_key.read_bytes())
            payload.update(against="manifest", release=release)
        else:
            expected = dict(found if baseline is None else baseline)
            if baseline is None and start is not None:
                for f in files:
                    if f.name in found and f.name not in start.digests and _written_since(f.path, start.since_ns):
                        if f.name.startswith(start.own):
                            del expected[f.name]  # added after the start: not in the release
                        else:
                            expected[f.name] = UNKNOWN  # its contents at start were not read
                expected.update(start.digests)
            payload["against"] = "the files at start"
    except (software.SoftwareError, OSError) as exc:
        payload.update(result="untrusted", against="manifest", detail=str(exc), problems=[], problem_count=0)
    else:
        problems = ([f"changed: {n}" for n in sorted(expected) if n in found and found[n] != expected[n]]
                    + [f"missing: {n}" for n in sorted(expected) if n not in found]
                    + [f"not in the release: {n}" for n in sorted(set(found) - set(expected))])
        payload.update(result="mismatch" if problems else "verified", problem_count=len(problems),
                       problems=problems[:LISTED])
    if config_baseline is not None:
        payload["configs_changed"] = sorted(n for n in set(configs) | set(config_baseline)
                                            if configs.get(n) != config_baseline.get(n))
    payload["duration_ms"] = round((time.monotonic() - began) * 1000)
    return payload, expected if payload.get("against") == "the files at start" else found, configs, kept


def _written_since(path: Path, since_ns: int) -> bool:
    try:
        return stamp_of(path)[3] >= since_ns
    except OSError:
        return False  # gone: reported missing


def check_journal(path: Path, public_raw: bytes | None) -> dict[str, Any]:
    """The whole chain and, with the table's public key, its seals (run in the worker)."""
    from tabled.journal.store import Journal, JournalError
    from tabled.journal.seals import SealChecker, key_id
    began = time.monotonic()
    checker = None
    if public_raw is not None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
        checker = SealChecker({key_id(public_raw): Ed25519PublicKey.from_public_bytes(public_raw)})
    try:
        with Journal.open(path, readonly=True, verify=False) as journal:
            result = journal.verify(from_seq=0, on_record=checker.feed if checker is not None else None)
    except (JournalError, OSError) as exc:
        return {"result": "broken", "detail": f"the journal cannot be read: {exc}",
                "duration_ms": round((time.monotonic() - began) * 1000)}
    payload: dict[str, Any] = {"records": result.count, "head_seq": result.head_seq}
    problems = [] if result.ok else [f"record {result.first_broken_seq}: {result.reason}"]
    if checker is not None and result.ok:
        report = checker.finish()
        payload["seals"] = report.seals
        problems += [f"record {s} rewritten: it is not the record that was sealed" for s in report.rewritten]
        problems += [f"seal at record {s} forged" for s in report.forged]
        problems += [f"record {s} not sealed" for s in report.skipped[:1]]
    payload.update(result="broken" if problems else "intact", problems=problems[:LISTED],
                   problem_count=len(problems), duration_ms=round((time.monotonic() - began) * 1000))
    if problems:
        payload["detail"] = problems[0]
    return payload


def _background() -> None:
    """The worker yields the processor and the disk to the table: the lowest scheduling priority,
    and the idle I/O class where util-linux's ionice is there (the journal's commits go first).
    Ctrl-C at a terminal reaches the whole process group: the table ends its worker itself
    (:meth:`Worker.close`), so the worker ignores it rather than die printing a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ionice = shutil.which("ionice")
    if ionice is not None:
        try:  # before its own priority falls: on a busy machine it would wait for the processor
            subprocess.run([ionice, "-c", "3", "-p", str(os.getpid())], check=False, capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            pass  # the normal I/O class: the checks still run, at the lowest processor priority
    os.nice(19)


class Runner(Protocol):
    """Where the checks run: ``await runner.run(function, *args)``; ``close()`` ends it."""

    async def run(self, function: Callable[..., Any], *args: Any) -> Any: ...

    def close(self) -> None: ...


class Worker:
    """One process of its own, at the lowest priority: hashing thousands of files never holds the
    table's interpreter nor takes a processor the table wants; ended with the table, a check in
    progress with it."""

    def __init__(self) -> None:
        self.pool: Any = multiprocessing.get_context("spawn").Pool(1, initializer=_background)

    async def run(self, function: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()

        def settle(how: Callable[[Any], None], value: Any) -> None:
            if not answer.done():
                how(value)

        self.pool.apply_async(function, args,
                              callback=lambda v: loop.call_soon_threadsafe(settle, answer.set_result, v),
                              error_callback=lambda e: loop.call_soon_threadsafe(settle, answer.set_exception, e))
        return await answer

    def close(self) -> None:
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.terminate()
            pool.join()
            del pool
            gc.collect()  # its locks released now (a daemon may end with os._exit): none left behind


class InThread:
    """The checks in a thread of this process (tests: no process to start)."""

    async def run(self, function: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.to_thread(function, *args)

    def close(self) -> None:
        pass


class Watchdog:
    """Runs the checks beside the table and submits each result as a journal input.

    ``submit(kind, payload)``: the table's intake. ``every_s``: the software's interval.
    ``journal``: the journal's path and the table's public key (raw), or None (not checked here).
    ``runner``: where the checks run (default: a :class:`Worker` process of their own, ended with
    :meth:`run`)."""

    def __init__(self, scope: Scope, submit: Callable[[str, dict[str, Any]], None], every_s: float, *,
                 journal: tuple[Path, bytes | None] | None = None, runner: Runner | None = None,
                 journal_every_s: float = JOURNAL_EVERY_S):
        self.scope = scope
        self.submit = submit
        self.every_s = every_s
        self.journal = journal
        self.journal_every_s = journal_every_s
        self.runner = runner
        self.baseline: dict[str, str] | None = None
        self.config_baseline: dict[str, str] | None = None
        self.known: Known | None = None  # each file's stamp and digest as the last check found them
        self.start: AtStart | None = None  # the files at start, where no release manifest is the baseline
        self._reasons: list[str] = []
        self._woken = asyncio.Event()
        self.checks = 0  # software checks carried out (the benchmark counts them)

    async def begin(self) -> None:
        """Before play: without a release manifest, the files as the table starts with them
        (:func:`at_start`, in a thread: the table is not playing yet)."""
        cfg = self.scope.software
        if cfg.manifest is None or cfg.signature is None or cfg.release_key is None:
            self.start = await asyncio.to_thread(at_start, self.scope)

    def wake(self, reason: str) -> None:
        """A significant event (a door closed, a configuration change): check again now."""
        self._reasons.append(reason)
        self._woken.set()

    def after(self, effects: list[Effect]) -> None:
        """The table's listener: a significant event it journaled wakes a check."""
        for e in effects:
            if isinstance(e, Note) and e.kind in SIGNIFICANT:
                self.wake(SIGNIFICANT[e.kind])

    async def check_software(self, reason: str) -> dict[str, Any]:
        assert self.runner is not None
        payload, found, configs, self.known = await self.runner.run(
            check_software, self.scope, self.baseline, self.config_baseline, self.known, self.checks, self.start)
        if self.baseline is None and payload.get("against") == "the files at start":
            self.baseline = found
        if self.config_baseline is None:
            self.config_baseline = configs
        payload["reason"] = reason
        self.checks += 1
        self.submit("software.checked", payload)
        if payload["result"] != "verified":
            log.warning("software.not_verified", result=payload["result"], problems=payload.get("problems", [])[:3])
        return payload

    async def check_journal(self, reason: str) -> dict[str, Any] | None:
        if self.journal is None:
            return None
        assert self.runner is not None
        payload = await self.runner.run(check_journal, *self.journal)
        payload["reason"] = reason
        self.submit("journal.checked", payload)
        if payload["result"] != "intact":
            log.warning("journal.broken", detail=payload.get("detail"))
        return payload

    async def _woken_or(self, seconds: float) -> None:
        """Until a wake, or ``seconds`` at most (asyncio.timeout: a cancellation is never lost)."""
        try:
            async with asyncio.timeout(seconds):
                await self._woken.wait()
        except TimeoutError:
            pass

    async def run(self) -> None:
        """The first check once the table is up (the start's own check, tabled/daemon/provenance.py,
        came before play), then on the interval and on each wake; the whole journal after the first
        check and daily. The worker is started for the first check: a table stopped before it
        never starts one."""
        owned = self.runner is None
        try:
            await self._woken_or(min(self.every_s, FIRST_CHECK_S))
            self._woken.clear()
            reasons, self._reasons = self._reasons, []
            if owned:
                self.runner = Worker()
            await self.check_software(", ".join(dict.fromkeys(reasons)) or "start")
            await self.check_journal("start")
            loop = asyncio.get_running_loop()
            journal_due = loop.time() + self.journal_every_s
            started, took = loop.time(), collections.deque([0.0], maxlen=4)
            while True:
                # the next check ends within the interval of the last one's start (a change made as the
                # last one passed its file is found in time): it starts twice the longest of the last
                # checks early, as a check on a busy machine may take longer than the one before
                wait = max(0.0, started + self.every_s - 2 * max(took) - loop.time())
                await self._woken_or(wait)
                self._woken.clear()
                reasons, self._reasons = self._reasons, []
                started = loop.time()
                await self.check_software(", ".join(dict.fromkeys(reasons)) or "interval")
                took.append(loop.time() - started)
                if loop.time() >= journal_due:
                    journal_due = loop.time() + self.journal_every_s
                    await self.check_journal("daily")
        finally:
            if owned and self.runner is not None:
                self.runner.close()
                self.runner = None


__all__ = ["Watchdog", "Scope", "AtStart", "at_start", "UNKNOWN", "CLOCK_TICK_NS",
           "stamp_of", "SLICES", "RACY_NS", "Known", "Stamp", "check_software",
           "check_journal", "tree_files", "digests", "overall", "Worker", "InThread", "Runner", "JOURNAL_EVERY_S",
           "FIRST_CHECK_S"]
