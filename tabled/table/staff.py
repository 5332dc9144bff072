"""Who is signed in at the panel, judged from journaled inputs (pure: the time comes with the input).

The key switch says which role acts; with a staff list the table also knows who. The daemon journals
the list it starts with (``staff.roster``: badge, name and roles of each person, the lockout
settings; never a PIN or its hash) and each sign-in at the panel as the shell found it
(``staff.sign_in``: badge, role, pin_ok; the shell checked the PIN against its salted hash,
tabled/daemon/staff.py). This module decides what they mean:

* a listed badge holding the role, with the right PIN, signs in: a dealer replaces the dealer before
  (the next dealer takes over the table); a supervisor or an inspector signs in only when no one
  else holds that role at the panel (one at a time: the one before signs out first);
* a wrong PIN is journaled and counted; ``attempts`` wrong PINs in a row lock the badge for
  ``lockout_minutes`` from that input's time (``staff.locked``), and every sign-in of that badge
  is refused until then, saying until when;
* an unknown badge, or a role the person does not hold, is refused;
* a sign-in the shell did not check (``checked: false``: the panel sent more sign-ins a second
  than a person keys) is refused and journaled, and counts as no wrong PIN;
* ``staff.sign_out`` (badge, role): the person leaves that role (the key turned to it is the
  authority: no PIN).
* a PIN past its maximum age (``pin_expired`` with ``age_days`` and ``max_days``, judged by the shell
  from the staff file's ``pin_set``) signs in once more (``staff.pin_expired``), and must then be
  changed at the panel (Nevada's table games systems checklist: at least quarterly); a later
  sign-in with it is refused. The change, on the keypad as it is: with the key still at the role
  signed in to, key the badge and the new PIN and press SIGN IN, then the same again; the shell
  checks the two agree and keeps the new PIN's hash (``staff.pin_change``: badge, role, step first |
  differ | not_kept | changed; never the PIN nor its hash), and the table notes ``staff.pin_changed``.

Without a roster there is no staff list and the table acts on the key alone.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from tabled.game.checks import is_whole_number
from tabled.game.keys import Key
from tabled.table.effects import Effect, Note, Say

#: the roles a staff list gives; the panel's key switch has the first three. ``pool_admin`` is the
#: operator's authority over the progressive pool's settings (``tabled pool propose``): neither a
#: floor role nor the regulator's inspector; ``accounting`` approves such a change as the second
#: person, of another department (N.J.A.C. 13:69D-1.52)
PANEL_ROLES = (Key.DEALER.value, Key.SUPERVISOR.value, Key.INSPECTOR.value)
ROLES = (*PANEL_ROLES, "pool_admin", "accounting")
MINUTE_MS = 60_000
MAX_ATTEMPTS = 20
MAX_LOCKOUT_MINUTES = 24 * 60
#: the steps of a PIN's change at the panel (``staff.pin_change``)
PIN_CHANGE_STEPS = ("first", "differ", "not_kept", "changed")


def _clock(t_ms: int) -> str:
    return datetime.fromtimestamp(t_ms / 1000, UTC).strftime("%H:%M:%S UTC")


def _badge(value: Any) -> int:
    if not is_whole_number(value) or value <= 0:
        raise ValueError(f"badge={value!r}: a badge number is a whole number above 0")
    return value


def _role(value: Any, roles: tuple[str, ...] = PANEL_ROLES) -> str:
    if value not in roles:
        raise ValueError(f"role={value!r}: one of {', '.join(roles)}")
    return str(value)


class Staff:
    def __init__(self) -> None:
        self.people: dict[int, dict[str, Any]] | None = None  # badge -> {name, roles}; None: no list
        self.attempts = 5
        self.lockout_ms = 15 * MINUTE_MS
        self.on: dict[str, int] = {}            # role -> the badge signed in to it
        self.wrong: dict[int, int] = {}         # badge -> wrong PINs in a row
        self.locked_until: dict[int, int] = {}  # badge -> ms
        self.must_change: dict[int, int] = {}   # badge -> when its expired PIN signed in once more (ms)

    @property
    def listed(self) -> bool:
        """A staff list is in force: privileged actions need a person signed in."""
        return self.people is not None

    def name(self, badge: int | None) -> str | None:
        if badge is None or self.people is None or badge not in self.people:
            return None
        return str(self.people[badge]["name"])

    def who(self, role: str) -> dict[str, Any]:
        """The person signed in to ``role``, as a note's fields (none without a staff list)."""
        badge = self.on.get(role)
        return {"person": badge, "name": self.name(badge)} if badge is not None else {}

    def called(self, badge: int) -> str:
        name = self.name(badge)
        return f"{name} (badge {badge})" if name else f"badge {badge}"

    # -- inputs ------------------------------------------------------------------------------------

    def roster(self, p: dict[str, Any], now: int, round_id: str | None) -> list[Effect]:
        """The staff list a start runs with; an empty one ends the list (the key alone again)."""
        people, attempts, minutes = p["people"], p.get("attempts", 5), p.get("lockout_minutes", 15)
        if not isinstance(people, list):
            raise ValueError(f"people={people!r}: a list")
        if not is_whole_number(attempts) or not 1 <= attempts <= MAX_ATTEMPTS:
            raise ValueError(f"attempts={attempts!r}: 1 to {MAX_ATTEMPTS}")
        if not is_whole_number(minutes) or not 1 <= minutes <= MAX_LOCKOUT_MINUTES:
            raise ValueError(f"lockout_minutes={minutes!r}: 1 to {MAX_LOCKOUT_MINUTES}")
        listed: dict[int, dict[str, Any]] = {}
        for entry in people:
            badge, name, roles = _badge(entry["badge"]), entry["name"], entry["roles"]
            if not isinstance(name, str) or not isinstance(roles, list):
                raise ValueError(f"badge {badge}: a name and a list of roles")
            listed[badge] = {"name": name, "roles": [_role(r, ROLES) for r in roles]}
        self.people = listed or None
        self.attempts, self.lockout_ms = attempts, minutes * MINUTE_MS
        effects: list[Effect] = []
        for role, badge in sorted(self.on.items()):
            if badge not in listed or role not in listed[badge]["roles"]:
                del self.on[role]
                effects.append(Note("staff.signed_out", {"badge": badge, "role": role,
                                                         "reason": "not on the staff list in that role"}, round_id))
        if self.people is not None and Key.DEALER.value not in self.on:
            effects.append(Say("dealer: sign in at the panel (badge and PIN); no round starts until a dealer has"))
        return effects

    def sign_in(self, p: dict[str, Any], now: int, round_id: str | None) -> list[Effect]:
        badge, role, checked = _badge(p["badge"]), _role(p["role"]), p.get("checked", True)
        if not isinstance(checked, bool):
            raise ValueError(f"checked={checked!r}: true or false")
        pin_ok = p["pin_ok"] if checked else False
        if not isinstance(pin_ok, bool):
            raise ValueError(f"pin_ok={pin_ok!r}: true or false")
        if self.people is None:
            return [Say("sign-in: this table keeps no staff list; the key switch alone says who acts",
                        level="refused")]

        def refused(reason: str, told: str, **more: Any) -> list[Effect]:
            return [Say(f"{role} sign-in refused: {told}", level="refused"),
                    Note("staff.refused", {"badge": badge, "role": role, "reason": reason, **more}, round_id)]

        if not checked:  # the panel sent more sign-ins a second than a person keys: not a wrong PIN
            return refused("unchecked", "too many sign-ins from the panel at once: key the badge and PIN again")
        until = self.locked_until.get(badge)
        if until is not None and now < until:
            return refused("locked", f"{self.called(badge)} is locked until {_clock(until)} after "
                           f"{self.attempts} wrong PINs; a supervisor can help", until_ms=until)
        person = self.people.get(badge)
        if person is None:
            return refused("unknown badge", f"badge {badge} is not on the staff list")
        if not pin_ok:
            count = self.wrong.get(badge, 0) + 1
            if count < self.attempts:
                self.wrong[badge] = count
                return refused("wrong PIN", f"wrong PIN for {self.called(badge)} ({count} of {self.attempts} "
                               "before the badge is locked)", wrong_pins=count)
            self.wrong.pop(badge, None)
            self.locked_until[badge] = now + self.lockout_ms
            minutes = self.lockout_ms // MINUTE_MS
            return [*refused("wrong PIN", f"wrong PIN for {self.called(badge)}: {count} in a row, the badge is "
                             f"locked for {minutes} minutes, until {_clock(now + self.lockout_ms)}",
                             wrong_pins=count),
                    Note("staff.locked", {"badge": badge, "name": person["name"], "wrong_pins": count,
                                          "since_ms": now, "until_ms": now + self.lockout_ms}, round_id)]
        self.wrong.pop(badge, None)
        self.locked_until.pop(badge, None)
        if role not in person["roles"]:
            article = "an" if role[0] in "aeiou" else "a"
            return refused("role not held", f"{self.called(badge)} is not {article} {role} on the staff list")
        before = self.on.get(role)
        if before == badge:
            return [Say(f"{role} {self.called(badge)} is already signed in")]
        if before is not None and role != Key.DEALER.value:
            return refused("role taken", f"{self.called(before)} is signed in as {role}: they sign out first "
                           "(one at a time)", signed_in=before)
        expired: list[Effect] = []
        if p.get("pin_expired") is True:
            if badge in self.must_change:
                return refused("PIN expired", f"the PIN of {self.called(badge)} is past its maximum age and signed "
                               "in once more already: a new PIN from the staff list's keeper")
            self.must_change[badge] = now
            age, most = p.get("age_days"), p.get("max_days")
            expired = [Say(f"the PIN of {self.called(badge)} is {age} days old, more than {most}: signed in this "
                           "once; change it now: key your badge and a new PIN, SIGN IN, and the same again",
                           level="flag"),
                       Note("staff.pin_expired", {"badge": badge, "name": person["name"], "role": role,
                                                  "age_days": age, "max_days": most}, round_id)]
        self.on[role] = badge
        replaced = {"replaces": before, "replaces_name": self.name(before)} if before is not None else {}
        return [Say(f"{role} {self.called(badge)} signed in"
                    + (f", taking over from {self.called(before)}" if before is not None else "")),
                Note("staff.signed_in", {"badge": badge, "name": person["name"], "role": role, **replaced},
                     round_id), *expired]

    def pin_change(self, p: dict[str, Any], now: int, round_id: str | None) -> list[Effect]:
        """A step of changing an expired PIN at the panel, as the shell found it."""
        badge, role, step = _badge(p["badge"]), _role(p["role"]), p.get("step")
        if step not in PIN_CHANGE_STEPS:
            raise ValueError(f"step={step!r}: one of {', '.join(PIN_CHANGE_STEPS)}")
        if badge not in self.must_change or self.on.get(role) != badge:
            return [Say(f"PIN change: {self.called(badge)} has no PIN to change signed in as {role}", level="refused")]
        if step == "first":
            return [Say(f"{self.called(badge)}: new PIN keyed once: key the badge and the same PIN again, SIGN IN")]
        if step == "differ":
            return [Say(f"{self.called(badge)}: the two new PINs differ: key the new PIN twice again", level="refused")]
        if step == "not_kept":
            return [Say(f"{self.called(badge)}: the new PIN could not be kept (the technician sees why in the log): "
                        "the old PIN stays until it is", level="refused")]
        del self.must_change[badge]
        return [Say(f"{self.called(badge)}: PIN changed"),
                Note("staff.pin_changed", {"badge": badge, "name": self.name(badge), "role": role}, round_id)]

    def sign_out(self, p: dict[str, Any], now: int, round_id: str | None) -> list[Effect]:
        badge, role = _badge(p["badge"]), _role(p["role"])
        if self.on.get(role) != badge:
            return [Say(f"{role} sign-out: {self.called(badge)} is not signed in as {role}", level="refused")]
        del self.on[role]
        effects: list[Effect] = [Say(f"{role} {self.called(badge)} signed out"),
                                 Note("staff.signed_out", {"badge": badge, "name": self.name(badge), "role": role},
                                      round_id)]
        if role == Key.DEALER.value:
            effects.append(Say("no dealer signed in: no new round starts until one signs in"))
        return effects

    # -- checkpoint -----------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        return {"people": None if self.people is None else {str(b): v for b, v in self.people.items()},
                "attempts": self.attempts, "lockout_ms": self.lockout_ms, "on": self.on,
                "wrong": {str(b): n for b, n in self.wrong.items()},
                "locked_until": {str(b): t for b, t in self.locked_until.items()},
                **({"must_change": {str(b): t for b, t in self.must_change.items()}} if self.must_change else {})}

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any] | None) -> Staff:
        staff = cls()
        if snap:
            people = snap["people"]
            staff.people = None if people is None else {int(b): v for b, v in people.items()}
            staff.attempts, staff.lockout_ms = snap["attempts"], snap["lockout_ms"]
            staff.on = dict(snap["on"])
            staff.wrong = {int(b): n for b, n in snap["wrong"].items()}
            staff.locked_until = {int(b): t for b, t in snap["locked_until"].items()}
            staff.must_change = {int(b): t for b, t in (snap.get("must_change") or {}).items()}
        return staff

    def __bool__(self) -> bool:
        """Anything to keep: a journal without staff checkpoints the same table state as before."""
        return self.people is not None or bool(self.on or self.wrong or self.locked_until or self.must_change)


__all__ = ["Staff", "ROLES", "PANEL_ROLES", "PIN_CHANGE_STEPS"]
