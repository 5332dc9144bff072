"""The table's staff list: who may sign in at the panel, in which roles, and their PINs as salted
hashes (docs/staff.md).

The list is a TOML file named by the daemon config's ``[staff] file``::

    [[person]]
    badge = 1001                  # the badge number keyed on the panel
    name = "Alex Morgan"
    roles = ["dealer"]            # dealer, supervisor, inspector, pool_admin (one or more)
    pin = "scrypt$n=16384,r=8,p=1$<salt>$<hash>"   # tabled staff hash-pin
    pin_set = 2026-09-01          # the day the PIN was set (its age: [staff] max_pin_age_days)

One person has one active badge: a name listed under two badges is refused. A PIN past its
maximum age signs in once more and must then be changed at the panel (tabled/table/staff.py); a
PIN changed there is kept, hashed, with the day it was set, in the changed-PINs file beside the
journal (``staff-pins.json``, written by the daemon: the staff file itself is the operator's), which
overrides the staff file's PIN for that badge unless the staff file's is newer.

A PIN is kept only as ``hashlib.scrypt`` of its digits with a random salt of its own, the
parameters written in the string, so a stronger setting later still checks the old hashes. The
PIN itself is checked here, in the shell, and never journaled or logged: the table's fold hears
only whether it was right (``staff.sign_in``: badge, role, pin_ok).
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import hashlib
import hmac
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tabled.game.checks import Section
from tabled.host.documents import parse_toml, read_text
from tabled.table.staff import ROLES

#: scrypt's cost: about 50 ms on a table PC, so a guessed PIN costs that much at the very least
SCRYPT_N, SCRYPT_R, SCRYPT_P = 16384, 8, 1
SALT_BYTES = 16
HASH_BYTES = 32
MIN_PIN_DIGITS, MAX_PIN_DIGITS = 4, 8
MAX_BADGE = 999_999
#: a PIN older than this many days must be changed (Nevada's checklist: at least quarterly)
MAX_PIN_AGE_DAYS = 90
#: the changed-PINs file, beside the journal
CHANGED_PINS = "staff-pins.json"
_HASH = re.compile(r"scrypt\$n=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)\Z")


class StaffError(ValueError):
    """A staff file, a PIN or a PIN's hash that cannot be used: the message says which and why."""


def check_pin_digits(pin: str) -> str:
    if not pin.isascii() or not pin.isdigit() or not MIN_PIN_DIGITS <= len(pin) <= MAX_PIN_DIGITS:
        raise StaffError(f"a PIN is {MIN_PIN_DIGITS} to {MAX_PIN_DIGITS} digits (the panel's keypad), "
                         f"got {len(pin)} characters{'' if pin.isdigit() else ' that are not all digits'}")
    return pin


def _scrypt(pin: str, salt: bytes, n: int, r: int, p: int, length: int = HASH_BYTES) -> bytes:
    return hashlib.scrypt(pin.encode(), salt=salt, n=n, r=r, p=p, maxmem=256 * n * r + (1 << 20), dklen=length)


def hash_pin(pin: str, *, salt: bytes | None = None) -> str:
    """The string the staff file keeps for ``pin``: ``scrypt$n=..,r=..,p=..$<salt>$<hash>`` (base64)."""
    check_pin_digits(pin)
    salt = os.urandom(SALT_BYTES) if salt is None else salt
    digest = _scrypt(pin, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    b64 = lambda b: base64.b64encode(b).decode()  # noqa: E731
    return f"scrypt$n={SCRYPT_N},r={SCRYPT_R},p={SCRYPT_P}${b64(salt)}${b64(digest)}"


def parse_pin_hash(text: str) -> tuple[int, int, int, bytes, bytes]:
    m = _HASH.match(text)
    if m is None:
        raise StaffError("pin: not a PIN hash of `tabled staff hash-pin` (scrypt$n=..,r=..,p=..$salt$hash)")
    n, r, p = (int(m.group(i)) for i in (1, 2, 3))
    if n < 2 or n & (n - 1) or n > 1 << 20 or not 1 <= r <= 32 or not 1 <= p <= 16:
        raise StaffError(f"pin: scrypt parameters n={n}, r={r}, p={p} out of range (n a power of 2 up to 2^20)")
    salt, digest = base64.b64decode(m.group(4)), base64.b64decode(m.group(5))
    if len(salt) < 8 or not 16 <= len(digest) <= 64:
        raise StaffError("pin: the salt or the hash has the wrong length")
    return n, r, p, salt, digest


def pin_matches(pin: str, stored: str) -> bool:
    """Whether ``pin`` is the PIN ``stored`` was made from (compared in constant time)."""
    n, r, p, salt, digest = parse_pin_hash(stored)
    return hmac.compare_digest(_scrypt(pin, salt, n, r, p, len(digest)), digest)


@dataclass(frozen=True)
class Person:
    badge: int
    name: str
    roles: tuple[str, ...]
    # never journaled (tabled/daemon/config_record.py leaves it out) nor shown
    pin_hash: str = field(default="", repr=False)
    pin_set: dt.date | None = None    # None: the staff file does not say (its age cannot be shown)


@dataclass(frozen=True)
class StaffConfig:
    """``[staff]``: the list's file and the people in it; ``attempts`` wrong PINs in a row lock a
    badge for ``lockout_minutes``."""

    file: Path
    people: tuple[Person, ...]
    attempts: int = 5
    lockout_minutes: int = 15
    max_pin_age_days: int = MAX_PIN_AGE_DAYS
    changed_pins: Path | None = None  # the changed-PINs file (None: a PIN cannot be changed at the panel)

    def person(self, badge: int) -> Person | None:
        return next((p for p in self.people if p.badge == badge), None)

    def pin_age_days(self, badge: int, today: dt.date) -> int | None:
        person = self.person(badge)
        return None if person is None or person.pin_set is None else (today - person.pin_set).days

    def expired(self, badge: int, today: dt.date) -> bool:
        """Whether the PIN of ``badge`` is past its maximum age (a PIN of no known date is not)."""
        age = self.pin_age_days(badge, today)
        return age is not None and age > self.max_pin_age_days

    def with_pin(self, badge: int, pin_hash: str, on: dt.date) -> StaffConfig:
        """The list with ``badge``'s PIN changed, kept in the changed-PINs file first (written whole,
        then renamed over the old one: a crash leaves the one or the other)."""
        if self.changed_pins is None:
            raise StaffError("no changed-PINs file: a PIN cannot be changed at the panel")
        kept = read_changed_pins(self.changed_pins)
        kept[str(badge)] = {"pin": pin_hash, "pin_set": on.isoformat()}
        partial = self.changed_pins.with_name(self.changed_pins.name + ".new")
        with open(partial, "w", encoding="utf-8") as f:
            json.dump(kept, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(partial, 0o600)
        os.replace(partial, self.changed_pins)
        people = tuple(dataclasses.replace(p, pin_hash=pin_hash, pin_set=on) if p.badge == badge else p
                       for p in self.people)
        return dataclasses.replace(self, people=people)

    def check(self, badge: int, pin: str) -> bool:
        """Whether ``pin`` is the PIN of ``badge`` (an unknown badge has none)."""
        person = self.person(badge)
        return person is not None and pin_matches(pin, person.pin_hash)

    def roster(self) -> dict[str, Any]:
        """The ``staff.roster`` input: who may sign in, in which roles (no PIN hash), and the lockout."""
        return {"people": [{"badge": p.badge, "name": p.name, "roles": list(p.roles)} for p in self.people],
                "attempts": self.attempts, "lockout_minutes": self.lockout_minutes}


def roster_input(staff: StaffConfig | None, listed: bool) -> dict[str, Any] | None:
    """The ``staff.roster`` input a start journals: the list in force, or an empty one when the
    config no longer has one but the journal's table still does (``listed``); None: no staff list
    before or now, nothing to say."""
    if staff is not None:
        return staff.roster()
    return {"people": []} if listed else None


def read_changed_pins(path: Path) -> dict[str, dict[str, str]]:
    """The changed-PINs file: badge -> {pin: its hash, pin_set: ISO date}; none yet: empty."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise StaffError(f"{path}: the changed-PINs file cannot be read: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) and isinstance(v.get("pin"), str)
                                             and isinstance(v.get("pin_set"), str) for v in data.values()):
        raise StaffError(f"{path}: the changed-PINs file is not badge -> {{pin, pin_set}}")
    return data


def _changed(people: list[Person], path: Path) -> list[Person]:
    """Each PIN changed at the panel in place of the staff file's, unless the staff file's is newer."""
    changed = read_changed_pins(path)
    out = []
    for person in people:
        kept = changed.get(str(person.badge))
        if kept is not None:
            try:
                parse_pin_hash(kept["pin"])
                on = dt.date.fromisoformat(kept["pin_set"])
            except (StaffError, ValueError) as exc:
                raise StaffError(f"{path}: badge {person.badge}: {exc}") from None
            if person.pin_set is None or on >= person.pin_set:
                person = dataclasses.replace(person, pin_hash=kept["pin"], pin_set=on)
        out.append(person)
    return out


def read_staff(path: Path, attempts: int, lockout_minutes: int, max_pin_age_days: int = MAX_PIN_AGE_DAYS,
               changed_pins: Path | None = None) -> StaffConfig:
    """Read and check a staff file (and the PINs changed at the panel since); every problem is a
    :class:`StaffError` naming the file and the key."""
    problem = lambda text: StaffError(f"{path}: {text}")  # noqa: E731
    data = parse_toml(read_text(path, problem, missing="no such staff file"), problem)
    top = Section(data, lambda key, text: StaffError(f"{path}: {key}: {text}"))
    raw = top.get("person", [])
    if not isinstance(raw, list) or not raw:
        raise top.fail("person", "the file lists no one: one [[person]] table per member of staff")
    people: list[Person] = []
    for i, item in enumerate(raw):
        sec = top.entry(item, f"person[{i}]")
        badge = sec.integer("badge", 1, MAX_BADGE)
        name = sec.text("name").strip()
        if not name or len(name) > 64 or not name.isprintable():
            raise sec.fail("name", f"must be 1-64 printable characters, got {name!r}")
        roles = sec.get("roles")
        if not isinstance(roles, list) or not roles or any(r not in ROLES for r in roles) \
                or len(set(roles)) != len(roles):
            raise sec.fail("roles", f"must be a list of distinct roles from {', '.join(ROLES)}, got {roles!r}")
        pin = sec.text("pin")
        try:
            parse_pin_hash(pin)
        except StaffError as exc:
            raise sec.fail("pin", str(exc).removeprefix("pin: ")) from None
        pin_set = sec.get("pin_set", None)
        if pin_set is not None and (not isinstance(pin_set, dt.date) or isinstance(pin_set, dt.datetime)):
            raise sec.fail("pin_set", f"must be the day the PIN was set, a TOML date like 2026-09-01, got {pin_set!r}")
        sec.finish()
        if any(p.badge == badge for p in people):
            raise sec.fail("badge", f"{badge} is listed twice")
        same = next((p for p in people if p.name.casefold() == name.casefold()), None)
        if same is not None:
            raise sec.fail("badge", f"{name!r} already has badge {same.badge}: one active badge per person "
                                    "(Nevada's checklist); remove the old one")
        people.append(Person(badge, name, tuple(roles), pin, pin_set))
    top.finish()
    if changed_pins is not None:
        people = _changed(people, changed_pins)
    return StaffConfig(path, tuple(people), attempts, lockout_minutes, max_pin_age_days, changed_pins)


__all__ = ["StaffError", "StaffConfig", "Person", "read_changed_pins", "MAX_PIN_AGE_DAYS", "CHANGED_PINS",
           "hash_pin", "pin_matches", "parse_pin_hash", "read_staff",
           "check_pin_digits", "roster_input", "MIN_PIN_DIGITS", "MAX_PIN_DIGITS"]
