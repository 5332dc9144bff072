"""The terminal's keys as the simulated dealer button panel: a person can be the dealer.

One key per panel button, the key switch on three capitals, and digits for the spot or the number
a button needs (typed first, as on the panel's spot-select buttons and keypad)::

    plain buttons                     with a spot (digit first; 0 = the dealer's hand)
      n  no more bets    d  deal        c  concede          b  absent
      r  reveal          s  settle done e  exposed card     x  no-ante hand
      m  misdeal         h  confirm shuffle                 f  play first
      u  confirm cut     a  approve     p  void player      k  dead hand
      v  verify deck     z  call supervisor                 g  forfeit
      w  new cards       t  switch to shoe
      o  void round (the digits typed first are the spots forfeited, none for a plain void)
    with a number (digits first)      key switch
      q  verify count (cards)           D  dealer   S  supervisor   I  inspector
      l  announce closure (minutes)
      i  announce minimum (cents)     digits  0-9 build the entry; Backspace deletes; Esc clears
      y  enter card (rank x 4 + suit) ?  this map
    signing in (docs/staff.md): the badge then j, the PIN (shown as *) then j: sign in to the
      key's role; the badge then J: sign out of it

:class:`PanelKeys` turns one key into a panel action and says what it did; :class:`ShoeKeys` does
the same for the card shoe (``tabled sim shoe``: Space deals the next card, ``u`` an unreadable
one, ``o`` lifts the shoe off its base or puts it back, ``L`` loads a new shuffled deck).
:class:`TerminalKeys` reads either from a terminal in cbreak mode (each key at once, no echo, ^C
still a signal) and puts the terminal back as it found it. Nothing is read when the input is not
a terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sys
import termios
import tty
from typing import Any, TextIO

from tabled_drivers.cards import card_text
from tabled_drivers.panel import (MAX_BADGE, MAX_SPOT, NUMBER_BUTTONS, SPOT_BUTTONS, SPOTS_BUTTONS, Button,
                                  KeyPosition, pin_digits)
from tabled_drivers.shoe import ShoeState

KEYMAP: dict[str, Button] = {
    "n": Button.NO_MORE_BETS, "d": Button.DEAL, "r": Button.REVEAL, "s": Button.SETTLE_DONE,
    "m": Button.MISDEAL, "o": Button.VOID_ROUND, "h": Button.CONFIRM_SHUFFLE, "u": Button.CONFIRM_CUT,
    "a": Button.APPROVE, "v": Button.VERIFY_DECK, "z": Button.CALL_SUPERVISOR,
    "c": Button.CONCEDE, "b": Button.ABSENT, "e": Button.EXPOSED_CARD, "x": Button.NO_ANTE_HAND,
    "f": Button.PLAY_FIRST, "p": Button.VOID_PLAYER, "k": Button.DEAD_HAND, "g": Button.FORFEIT,
    "w": Button.NEW_CARDS, "t": Button.SWITCH_TO_SHOE,
    "q": Button.VERIFY_COUNT, "l": Button.ANNOUNCE_CLOSURE, "i": Button.ANNOUNCE_MINIMUM, "y": Button.ENTER_CARD,
}
KEY_SWITCH: dict[str, KeyPosition] = {"D": KeyPosition.DEALER, "S": KeyPosition.SUPERVISOR,
                                      "I": KeyPosition.INSPECTOR}
SIGN_IN, SIGN_OUT = "j", "J"  # badge, j, PIN, j; badge, J
BACKSPACE = ("\x7f", "\x08")
ESCAPE = "\x1b"
MAX_ENTRY = 9  # digits: the largest number a button takes fits (cents of a minimum, u32)


def _name(member: Any) -> str:
    return member.name.lower().replace("_", " ")


def key_map_text() -> str:
    """The map as a person reads it at the start (and on ``?``)."""
    buttons = ", ".join(f"{k} {_name(b)}" for k, b in KEYMAP.items())
    switch = ", ".join(f"{k} {_name(p)}" for k, p in KEY_SWITCH.items())
    return (f"panel keys: {buttons}; key switch: {switch}; type the spot (0 = dealer's hand) or the "
            f"number first, Backspace deletes, Esc clears, ? shows this; sign in: badge {SIGN_IN} PIN "
            f"{SIGN_IN}, sign out: badge {SIGN_OUT}")


class PanelKeys:
    """Keys to panel actions on a :class:`tabled_drivers.sim.panel.PanelSimulator` (anything with its
    ``press(button, spot=, value=, spots=)`` and ``turn_key(position)``)."""

    def __init__(self, panel: Any) -> None:
        self.panel = panel
        self.entry = ""
        self.badge: int | None = None  # a sign-in's badge, keyed: the entry is its PIN (never shown)

    @staticmethod
    def help() -> str:
        return key_map_text()

    def feed(self, key: str) -> str | None:
        """Act on one key; the line to show the person, or None for a key that does nothing."""
        if key.isdigit() and key.isascii():
            if len(self.entry) >= MAX_ENTRY:
                return f"entry {self.entry}: at most {MAX_ENTRY} digits"
            self.entry += key
            return self._entry()
        if key in BACKSPACE:
            self.entry = self.entry[:-1]
            return self._entry()
        if key == ESCAPE:
            self.entry, self.badge = "", None
            return "entry cleared"
        if key in (SIGN_IN, SIGN_OUT):
            return self._staff(key)
        if key == "?":
            return key_map_text()
        if key in KEY_SWITCH:
            position = KEY_SWITCH[key]
            self.panel.turn_key(position)
            return f"key switch: {_name(position)}"
        button = KEYMAP.get(key)
        if button is not None and self.badge is not None:  # the entry is a PIN: never a spot or a number
            return f"badge {self.badge} is signing in: type the PIN then {SIGN_IN}, or Esc"
        if button is None:
            return None if key.isspace() else f"key {key!r} is not a panel button (? shows the keys)"
        return self._press(button)

    def _entry(self) -> str:
        if self.badge is not None:
            return f"PIN for badge {self.badge}: {'*' * len(self.entry) or '(empty)'}"
        return f"entry {self.entry or '(empty)'}"

    def _staff(self, key: str) -> str:
        entry, self.entry = self.entry, ""
        if self.badge is not None:  # the PIN keyed: sign in
            badge, self.badge = self.badge, None
            try:
                pin_digits(entry)
            except ValueError as exc:
                return f"sign in: {exc}; type the badge again"
            self.panel.sign_in(badge, entry)
            return f"badge {badge}: sign in sent"
        if not entry or not 1 <= int(entry) <= MAX_BADGE:
            return f"type the badge number (1-{MAX_BADGE}) first"
        if key == SIGN_OUT:
            self.panel.sign_out(int(entry))
            return f"badge {int(entry)}: sign out sent"
        self.badge = int(entry)
        return f"badge {self.badge}: type the PIN, then {SIGN_IN}"

    def _press(self, button: Button) -> str:
        entry, name = self.entry, _name(button)
        if button in SPOT_BUTTONS:
            if not entry or int(entry) > MAX_SPOT:
                return f"{name} needs a spot: type 1-{MAX_SPOT} (0: the dealer's hand) first"
            self.panel.press(button, spot=int(entry))
            done = f"{name} on {'the dealer' if int(entry) == 0 else 'spot ' + str(int(entry))}"
        elif button in NUMBER_BUTTONS:
            if not entry:
                return f"{name} needs a number: type it first"
            self.panel.press(button, value=int(entry))
            done = f"{name} {int(entry)}"
        elif button in SPOTS_BUTTONS:
            spots = sorted({int(d) for d in entry})
            if any(not 1 <= s <= MAX_SPOT for s in spots):
                return f"{name}: spots are 1-{MAX_SPOT}, one digit each"
            self.panel.press(button, spots=spots)
            done = f"{name}" + (f", forfeiting spots {', '.join(map(str, spots))}" if spots else "")
        else:
            if entry:
                return f"{name} takes no number: Esc clears the entry {entry}"
            self.panel.press(button)
            done = name
        self.entry = ""
        return f"pressed {done}"


class ShoeKeys:
    """Keys to the dealer's hands on a :class:`tabled_drivers.sim.shoe.ShoeSimulator`."""

    def __init__(self, shoe: Any, seed: int | None = None) -> None:
        self.shoe = shoe
        self.rng = random.Random(seed)

    @staticmethod
    def help() -> str:
        return "shoe keys: Space deal the next card, u deal an unreadable card, o lift the shoe / put it back, " \
               "L load a new shuffled deck, ? shows this"

    def load_deck(self) -> str:
        deck = list(range(52))
        self.rng.shuffle(deck)
        self.shoe.load([card_text(c) for c in deck])
        return "a shuffled deck of 52 cards loaded"

    def feed(self, key: str) -> str | None:
        if key == " ":
            reader = self.shoe.draw()
            return f"card {reader} dealt"
        if key == "u":
            return f"card {self.shoe.draw_unreadable()} dealt, face unreadable"
        if key == "o":
            lifted = self.shoe.state is ShoeState.REMOVED
            (self.shoe.replace if lifted else self.shoe.remove)()
            return "shoe back on its base" if lifted else "shoe lifted off its base"
        if key == "L":
            return self.load_deck()
        if key == "?":
            return self.help()
        return None if key.isspace() else f"key {key!r} is not a shoe key (? shows the keys)"


class TerminalKeys:
    """Reads :class:`PanelKeys` or :class:`ShoeKeys` from a terminal's file descriptor in cbreak
    mode, in the event loop."""

    def __init__(self, keys: PanelKeys | ShoeKeys, fd: int | None = None, out: TextIO | None = None) -> None:
        self.keys = keys
        self.fd = sys.stdin.fileno() if fd is None else fd
        self.out = out or sys.stdout
        self.name = "shoe" if isinstance(keys, ShoeKeys) else "panel"
        self._saved: list | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> bool:
        """Take the keys: False (and nothing changed) when the input is not a terminal."""
        if not os.isatty(self.fd):
            return False
        self._saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)  # each key at once, not echoed; ^C and ^Z stay signals
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self.fd, self._ready)
        self._say(self.keys.help())
        return True

    def stop(self) -> None:
        """Give the terminal back as it was."""
        if self._loop is not None:
            self._loop.remove_reader(self.fd)
            self._loop = None
        if self._saved is not None:
            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            self._saved = None

    def _ready(self) -> None:
        try:
            data = os.read(self.fd, 64)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the terminal went away
            if self._loop is not None:
                self._loop.remove_reader(self.fd)
                self._loop = None
            return
        for key in data.decode("utf-8", "replace"):
            try:
                line = self.keys.feed(key)
            except Exception as exc:  # a panel that is unplugged, say: tell the person, keep reading
                line = f"{key!r}: {exc}"
            if line:
                self._say(line)

    def _say(self, line: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            print(f"[{self.name}] {line}", file=self.out, flush=True)

    def __enter__(self) -> TerminalKeys:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
