"""A simulator's serial port: the master end of a pseudo-terminal, with a stable name.

The driver opens the slave end (``/dev/pts/N``) exactly as it opens a real serial port. Because a
new pty gets a new number, the simulator can also publish a stable symlink (as udev does for real
devices, e.g. ``/dev/tabled/shuffler``); a driver pointed at the symlink reopens it after a
replug. When the simulator process dies the kernel closes the master and the driver's next read
fails: a real unplug.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import tty

MAX_UNSENT = 64 * 1024  # nobody reading for this long: the oldest bytes are lost, as on a wire


class PtyMasterTransport(asyncio.Transport):
    """Non-blocking reads and writes on a pty master fd, for any asyncio protocol."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int, protocol: asyncio.Protocol) -> None:
        super().__init__()
        self._loop, self._fd, self._protocol = loop, fd, protocol
        self._unsent = bytearray()
        self._closing = False
        os.set_blocking(fd, False)
        loop.add_reader(fd, self._read_ready)
        loop.call_soon(protocol.connection_made, self)

    def _read_ready(self) -> None:
        try:
            data = os.read(self._fd, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            if exc.errno == errno.EIO:  # no slave open just now: nothing to read
                return
            raise
        if data:
            self._protocol.data_received(data)

    def write(self, data) -> None:
        if self._closing:
            return
        if self._unsent:
            self._unsent += data
        else:
            try:
                n = os.write(self._fd, data)
            except (BlockingIOError, InterruptedError):
                n = 0
            if n < len(data):
                self._unsent += bytes(data)[n:]
                self._loop.add_writer(self._fd, self._write_ready)
        if len(self._unsent) > MAX_UNSENT:
            del self._unsent[: len(self._unsent) - MAX_UNSENT]

    def _write_ready(self) -> None:
        try:
            n = os.write(self._fd, self._unsent)
        except (BlockingIOError, InterruptedError):
            return
        del self._unsent[:n]
        if not self._unsent:
            self._loop.remove_writer(self._fd)

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        self._loop.remove_reader(self._fd)
        self._loop.remove_writer(self._fd)
        self._loop.call_soon(self._protocol.connection_lost, None)

    def get_write_buffer_size(self) -> int:
        return len(self._unsent)


PTY_DIR = "/dev/pts/"  # where the kernel names a pty's slave end (os.ttyname)


class PtyPort:
    """A pty pair serving one device protocol; ``path`` is what a driver opens."""

    def __init__(self, protocol: asyncio.Protocol, link: str | None = None) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo, no line discipline: bytes pass through untouched
        self.slave_path = os.ttyname(self.slave)
        self.link = link
        if link:
            publish_symlink(self.slave_path, link)
        self.transport = PtyMasterTransport(asyncio.get_running_loop(), self.master, protocol)

    @property
    def path(self) -> str:
        return self.link or self.slave_path

    def close(self) -> None:
        """Unplug: the driver's next read fails."""
        self.transport.close()
        if self.link:
            with contextlib.suppress(FileNotFoundError):
                if os.readlink(self.link) == self.slave_path:
                    os.unlink(self.link)
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


def check_link(link: str) -> None:
    """``link`` may be published: nothing is there, or a symlink to a pty (a simulator's port,
    replaced by the next one). Anything else (a file, a device such as /dev/zero, a folder) is
    refused with :class:`ValueError`, one line: it is never replaced or removed."""
    if not os.path.lexists(link):
        return
    if not os.path.islink(link):
        raise ValueError(f"--link {link}: is already there and is not a simulator's port (a symlink to a pty): "
                         "refusing to replace it; name a new path")
    target = os.readlink(link)
    if not target.startswith(PTY_DIR):
        raise ValueError(f"--link {link}: is a symlink to {target}, not to a pty: refusing to replace it; "
                         "name a new path")


def publish_symlink(target: str, link: str) -> None:
    """Point ``link`` at ``target`` atomically (rename over any old link; :func:`check_link` first)."""
    check_link(link)
    os.makedirs(os.path.dirname(os.path.abspath(link)), exist_ok=True)
    tmp = f"{link}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    os.symlink(target, tmp)
    os.replace(tmp, link)
