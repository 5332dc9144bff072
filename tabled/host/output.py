"""Output that never holds up the table: stdout and stderr through a bounded queue and a thread.

The daemon's lines (the dealer's lines in a terminal, the JSON records journald keeps) are the
only thing it writes to stdout and stderr, and nothing the reader of those does may stop a round
or a signal: a pipe nobody reads, a reader that went away (``tabled run | head -1``), a full disk
under a redirected log, a terminal stopped with Ctrl-S. So a write only puts whole lines on a
queue and returns; one thread per stream writes them to the file descriptor. When the queue is
full the new lines are dropped and counted, and once the stream takes lines again a notice says
how many were lost; when the reader has gone (EPIPE) every line from then on is dropped and
counted, and the table plays on. The journal, not this output, is the record of what happened.

    out, err = install()        # sys.stdout / sys.stderr replaced; print() and structlog use them
    ...
    drain(1.0)                  # at exit: whatever the streams will take within a second
"""

from __future__ import annotations

import atexit
import collections
import errno
import io
import os
import sys
import threading
import time
from collections.abc import Callable

MAX_QUEUED_BYTES = 1 << 20   # about ten thousand log lines: seconds of play behind a slow reader
EXIT_DRAIN_S = 1.0           # at exit, the streams get this long (together) to take what is queued


def dropped_notice(lines: int) -> str:
    return f"[tabled: {lines} lines of output dropped: the output was not read in time]\n"


class Output(io.TextIOBase):
    """A text stream on ``fd`` whose writes never block (see the module's docstring).

    ``dropped``: lines thrown away so far; ``gone``: the reader closed its end. ``notice(n)``
    makes the line written once the stream takes lines again after ``n`` were dropped."""

    def __init__(self, fd: int, *, tty: bool = False, name: str = "<output>",
                 max_bytes: int = MAX_QUEUED_BYTES, notice: Callable[[int], str] = dropped_notice) -> None:
        super().__init__()
        self._fd = fd
        self._tty = tty
        self._name = name
        self.max_bytes = max_bytes
        self.notice = notice
        self.dropped = 0
        self.gone = False
        self._unreported = 0          # dropped since the last notice
        self._queue: collections.deque[str] = collections.deque()
        self._queued_bytes = 0
        self._partial: list[str] = []  # text not yet ended by a newline
        self._writing = False
        self._closing = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._drain_forever, name=f"output-{name}", daemon=True)
        self._thread.start()

    # -- the stream's face ---------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._name

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    @property
    def errors(self) -> str:  # type: ignore[override]
        return "backslashreplace"

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return self._tty

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if not text:
            return 0
        with self._cond:
            self._partial.append(text)
            if "\n" in text:
                data = "".join(self._partial)
                lines, _, rest = data.rpartition("\n")
                self._partial = [rest] if rest else []
                self._put(lines + "\n")
        return len(text)

    def flush(self) -> None:
        """Queue a line not yet ended (a prompt); never waits for the reader."""
        with self._cond:
            if self._partial:
                self._put("".join(self._partial))
                self._partial = []

    def close(self) -> None:
        self.drain(EXIT_DRAIN_S)
        super().close()

    # -- the queue -----------------------------------------------------------------------------------

    def _put(self, chunk: str) -> None:
        """With the lock held: queue ``chunk``, or drop it when the queue is full or the reader gone."""
        if self.gone or self._closing or self._queued_bytes + len(chunk) > self.max_bytes:
            self._drop(chunk)
            return
        self._queue.append(chunk)
        self._queued_bytes += len(chunk)
        self._cond.notify_all()

    def _drop(self, chunk: str) -> None:
        lines = max(1, chunk.count("\n"))
        self.dropped += lines
        self._unreported += lines

    def drain(self, timeout: float) -> bool:
        """Wait at most ``timeout`` s for the queue to be written; True when it was (or the reader
        is gone, so there is nothing left to wait for)."""
        self.flush()
        deadline = time.monotonic() + timeout
        with self._cond:
            while (self._queue or self._writing) and not self.gone:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def _drain_forever(self) -> None:
        while True:
            with self._cond:
                while not self._queue:
                    self._cond.wait()
                chunk = self._queue.popleft()
                self._queued_bytes -= len(chunk)
                told, self._unreported = self._unreported, 0
                self._writing = True
            try:
                self._write_all(chunk, told)
            finally:
                with self._cond:
                    self._writing = False
                    self._cond.notify_all()

    def _write_all(self, chunk: str, told: int) -> None:
        """Write ``chunk``, after the notice of ``told`` lines dropped when there were some."""
        notice = self.notice(told) if told else ""
        data = memoryview((notice + chunk).encode("utf-8", "backslashreplace"))
        while data:
            try:
                data = data[os.write(self._fd, data):]
            except BlockingIOError:  # someone made the descriptor non-blocking: wait for room
                time.sleep(0.01)
            except OSError as exc:
                with self._cond:
                    self._unreported += told  # the notice did not go either: it is told next time
                    if exc.errno in (errno.EPIPE, errno.EBADF, errno.ECONNRESET):
                        # the reader has gone: this and every later line is dropped
                        self.gone = True
                        self._drop(chunk)
                        while self._queue:
                            self._drop(self._queue.popleft())
                        self._queued_bytes = 0
                    else:  # a full disk, an I/O error: this chunk is lost, later ones are tried
                        self._drop(chunk)
                return


_installed: list[Output] = []


def install(*, notice: Callable[[int], str] = dropped_notice) -> tuple[Output, Output]:
    """Replace ``sys.stdout`` and ``sys.stderr`` by non-blocking :class:`Output` streams on the same
    descriptors (once per process); at exit they get :data:`EXIT_DRAIN_S` to write what is queued."""
    if not _installed:
        for attr in ("stdout", "stderr"):
            old = getattr(sys, attr)
            try:
                old.flush()
            except (AttributeError, OSError, ValueError):
                pass  # a reader gone already: the Output finds that out too
            try:
                fd = old.fileno()
            except (AttributeError, OSError, ValueError):  # closed before we started
                fd = -1
            _installed.append(Output(fd, tty=os.isatty(fd), name=f"<{attr}>", notice=notice))
        sys.stdout, sys.stderr = _installed
        atexit.register(drain, EXIT_DRAIN_S)
    for out in _installed:
        out.notice = notice
    return _installed[0], _installed[1]


def drain(timeout: float) -> bool:
    """Give every installed stream, together, at most ``timeout`` s to write what it holds."""
    deadline = time.monotonic() + timeout
    return all([out.drain(max(0.0, deadline - time.monotonic())) for out in _installed])


__all__ = ["Output", "install", "drain", "dropped_notice", "MAX_QUEUED_BYTES"]
