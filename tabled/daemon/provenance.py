"""What a daemon starts with, put in the journal before the first input is played: the installed
software checked against the release manifest, and the configuration in force (its hash and what
changed since the last start). A mismatch stops the start, unless the config marks a development
install (docs/verification.md); either way the result is journaled first, so a refused start is
evidence too.
"""

from __future__ import annotations

from typing import Any

from tabled.daemon import config_record
from tabled.daemon.config import Config, SoftwareConfig
from tabled.journal.store import Journal
from tabled.host import software

#: the journal input that records the software check (tabled/table/kinds.py)
SOFTWARE_KIND = "software.checked"
#: problems listed in the journal record; the count is always there
LISTED_PROBLEMS = 50


class StartRefused(Exception):
    """The installed software is not the release: one line naming the first files that differ."""


def check_software(cfg: SoftwareConfig) -> dict[str, Any]:
    """The ``software.checked`` payload: result is verified | mismatch | untrusted | development."""
    if cfg.manifest is None or cfg.signature is None or cfg.release_key is None:
        return {"result": "development" if cfg.development else "untrusted",
                "detail": "no release manifest in the config's [software] section"}
    try:
        verdict = software.verify(cfg.manifest, cfg.signature, cfg.release_key)
        key = software.key_fingerprint(cfg.release_key.read_bytes())
    except (software.SoftwareError, OSError) as exc:
        return {"result": "untrusted", "detail": str(exc), "manifest": str(cfg.manifest)}
    problems = verdict.problems()
    return {"result": "verified" if verdict.verified else "mismatch", "release": verdict.release,
            "files": verdict.files, "key": key, "manifest": str(cfg.manifest),
            "problem_count": len(problems), "problems": problems[:LISTED_PROBLEMS]}


def refusal(checked: dict[str, Any], development: bool) -> str | None:
    """Why the start is refused, or None: only a verified install starts, unless marked development."""
    if checked["result"] == "verified" or development:
        return None
    if checked["result"] == "mismatch":
        shown = "; ".join(checked["problems"][:3])
        more = checked["problem_count"] - min(3, checked["problem_count"])
        return (f"the installed software is not release {checked['release']}: {shown}"
                + (f" (and {more} more: tabled verify software)" if more else ""))
    return (f"the installed software cannot be verified: {checked['detail']} "
            "(set [software] manifest and release_key, or development = true for a development install)")


def record_start(journal: Journal, cfg: Config) -> dict[str, Any]:
    """Journal the software check and the configuration; raises :class:`StartRefused` after
    journaling a check that does not allow the start. Returns the software check's payload."""
    checked = check_software(cfg.software)
    previous = journal.last_of_kind(config_record.KIND)
    configuration = config_record.record(cfg, previous.payload.get("settings") if previous else None)
    journal.append_many([(SOFTWARE_KIND, checked, None), (config_record.KIND, configuration, None)])
    why = refusal(checked, cfg.software.development)
    if why is not None:
        raise StartRefused(why)
    return checked


__all__ = ["StartRefused", "check_software", "refusal", "record_start", "SOFTWARE_KIND"]
