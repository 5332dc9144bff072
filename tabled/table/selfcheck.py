"""The table system's own integrity: its installed software and its journal, checked again and again
while the table runs (tabled/daemon/watchdog.py), each check a journaled input.

A check that finds a file changed, missing or added, or a journal record broken, is a fault that
stops new rounds; the round in play may finish, as under an equipment fault (14.13). Unlike an
equipment fault, an inspector's approval does not let play go on around it: the inspector's
APPROVE clears it only once the next check has found the files (or the journal) sound again, so
the table never plays on software that is not the approved release (AGCO 12.2.1, Mississippi
13 Miss. Code R. 8-2.9).

Inputs: ``software.checked`` (result verified | mismatch | untrusted | development; a continual
check names what it compared against in ``against``: a start's check does not, and keeps deciding
the start as tabled/daemon/provenance.py says) and ``journal.checked`` (result intact | broken);
``software.answered``, an inspector's answer asked on the pit page, is evidence only.

The table's life around the software is noted here too: ``software.installed`` (an install or
upgrade, tabled/daemon/installs.py: start, end, versions, the manifest's digest, who) as the note
``software.install``; ``table.restarted`` (a start after no clean stop: a power loss or a crash,
tabled/daemon/restart.py) as ``power.restored``; ``table.stopped``, the clean stop's mark, needs no
note.
"""

from __future__ import annotations

from typing import Any

from tabled.table.effects import Effect, Note, Say

#: the journal inputs judged here (tabled/table/kinds.py)
INPUTS = ("software.checked", "journal.checked", "software.answered", "software.installed", "table.stopped",
          "table.restarted")
#: what an install record's note keeps (tabled/daemon/installs.py)
INSTALL_FIELDS = ("id", "what", "result", "started", "ended", "version", "components", "manifest_sha256", "by",
                  "host", "detail")
#: what each check is called on the screen and the pit
NAMES = {"software": "installed software", "journal": "journal"}
#: the rule the table applies: a fault of the table's equipment stops new rounds (14.13)
RULE = "14.13"


class Integrity:
    """The standing integrity faults (what -> why) and whether each check has since come back sound."""

    def __init__(self) -> None:
        self.faults: dict[str, str] = {}
        self.sound_again: dict[str, bool] = {}

    def __bool__(self) -> bool:
        return bool(self.faults)

    @property
    def blocks_new_rounds(self) -> bool:
        return bool(self.faults)

    def take(self, kind: str, p: dict[str, Any], round_id: str | None) -> list[Effect]:
        if kind in ("software.answered", "table.stopped"):
            return []  # an inspector's answer, asked on the pit page: evidence for people; a clean stop's mark
        if kind == "software.installed":
            fields = {k: p[k] for k in INSTALL_FIELDS if k in p}
            return [Note("software.install", fields, round_id),
                    Say(f"software {fields.get('what', 'install')} {fields.get('result', '?')}: tabled "
                        f"{fields.get('version', '?')} by {fields.get('by', '?')}, ended {fields.get('ended', '?')}")]
        if kind == "table.restarted":
            down = p.get("down_s")
            return [Note("power.restored", dict(p), round_id),
                    Say(f"the table restarts after an unclean stop (power lost or a crash): its last record "
                        f"#{p.get('last_seq')} ({p.get('last_kind')}), down {down} s", level="flag")]
        what = "software" if kind == "software.checked" else "journal"
        if what == "software" and "against" not in p:
            return []  # the start's own check: the start was refused or allowed by it already
        sound = p.get("result") in ("verified", "intact")
        if sound:
            if what in self.faults and not self.sound_again.get(what):
                self.sound_again[what] = True
                return [Say(f"{NAMES[what]} verifies again: an inspector's APPROVE clears the fault", rule=RULE)]
            return []
        reason = why(p)
        if what in self.faults:
            self.sound_again[what] = False
            return []
        self.faults[what], self.sound_again[what] = reason, False
        return [Say(f"{NAMES[what]} failed verification: {reason}: notify an inspector; the round in play may "
                    "finish, no new round until the inspector clears it", rule=RULE, level="flag"),
                Note("fault.raised", {"equipment": what, "reason": reason, "rule": RULE}, round_id)]

    def approve(self, person: str | None, round_id: str | None) -> list[Effect]:
        """The inspector's APPROVE: clears each fault whose check has since come back sound."""
        waiting = [w for w in self.faults if not self.sound_again.get(w)]
        effects: list[Effect] = []
        for what in [w for w in self.faults if self.sound_again.get(w)]:
            del self.faults[what]
            self.sound_again.pop(what, None)
            effects += [Say(f"{NAMES[what]} verified: fault cleared by the inspector", rule=RULE),
                        Note("fault.cleared", {"equipment": what, "by": person}, round_id)]
        if waiting:
            effects.append(Say(f"{', '.join(NAMES[w] for w in waiting)} does not verify yet: the fault stands "
                               "until the next check finds it sound", rule=RULE, level="refused"))
        return effects

    def snapshot(self) -> dict[str, Any]:
        return {"faults": dict(self.faults), "sound_again": dict(self.sound_again)}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any] | None) -> Integrity:
        made = cls()
        if snap:
            made.faults = dict(snap.get("faults") or {})
            made.sound_again = {str(k): bool(v) for k, v in (snap.get("sound_again") or {}).items()}
        return made


def why(p: dict[str, Any]) -> str:
    """A check's finding in one line: the first problems it names, or its detail."""
    problems = [str(x) for x in p.get("problems") or ()]
    if problems:
        more = int(p.get("problem_count", len(problems))) - min(2, len(problems))
        return "; ".join(problems[:2]) + (f" (and {more} more)" if more > 0 else "")
    return str(p.get("detail") or p.get("result") or "failed")


__all__ = ["Integrity", "INPUTS", "NAMES", "why"]
