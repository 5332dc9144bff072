"""Typed link errors: what a driver's command methods raise instead of hanging or crashing."""

from __future__ import annotations


class LinkError(Exception):
    """Base of every error the link layer raises."""


class LinkDownError(LinkError):
    """The device cannot be reached now (port missing, unplugged, link failed). Commands raise
    this at once rather than wait; the link keeps reconnecting in the background."""


class NoAnswerError(LinkDownError):
    """A command went unanswered through every retry: the link is declared failed."""


class PortBusyError(LinkDownError, OSError):
    """The serial port is held open exclusively by another program (most likely another tabled
    on the same devices): this one may not use it."""

    def __init__(self, port: str) -> None:
        self.port = port
        super().__init__(f"serial port {port} is in use by another program (each port is opened "
                         f"exclusively): is another tabled running on these devices?")


class WrongDeviceError(LinkError):
    """The port answers HELLO as a different kind of device or protocol version."""


class CommandRejected(LinkError):
    """The device answered the command with a status other than OK."""

    def __init__(self, device: str, command: str, status: int, detail: str = "") -> None:
        from tabled_drivers.link.messages import Status

        try:
            status_name = Status(status).name
        except ValueError:
            status_name = f"status {status}"
        self.device, self.command, self.status = device, command, status
        super().__init__(f"{device} refused {command}: {status_name}" + (f" ({detail})" if detail else ""))
