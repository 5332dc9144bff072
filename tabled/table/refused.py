"""An input the rules do not allow now."""

from __future__ import annotations


class Refused(Exception):
    """Told to the dealer with the rule that refuses it, logged, and otherwise ignored."""

    def __init__(self, rule: str | None, message: str, spot: int | None = None):
        super().__init__(message)
        self.rule = rule
        self.spot = spot


__all__ = ["Refused"]
