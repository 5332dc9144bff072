"""The daemon's stdout and stderr never hold up the table (tabled/host/output.py): a pipe nobody reads,
a reader gone, a full disk. Writes return at once; lines that cannot go are dropped and counted,
and a notice says how many once the stream takes lines again."""

from __future__ import annotations

import fcntl
import os
import re
import time

import pytest

from tabled.host.output import Output

F_SETPIPE_SZ = 1031
LINE = "x" * 99 + "\n"  # 100 bytes
NOTICE = re.compile(r"\[tabled: (\d+) lines of output dropped: the output was not read in time\]")


@pytest.fixture
def pipe():
    r, w = os.pipe()
    fcntl.fcntl(w, F_SETPIPE_SZ, 4096)  # the smallest pipe the kernel gives: full after 40 lines
    yield r, w
    for fd in (r, w):
        try:
            os.close(fd)
        except OSError:
            pass


def read_all(fd: int) -> str:
    os.set_blocking(fd, False)
    data = b""
    try:
        while chunk := os.read(fd, 65536):
            data += chunk
    except BlockingIOError:
        pass
    return data.decode()


def test_a_pipe_nobody_reads_never_blocks_a_write(pipe):
    r, w = pipe
    out = Output(w, max_bytes=20_000)
    slowest = 0.0
    for _ in range(5_000):  # 500 kB into a 4 kB pipe and a 20 kB queue
        t0 = time.perf_counter()
        out.write(LINE)
        out.flush()
        slowest = max(slowest, time.perf_counter() - t0)
    # a write that waited for this reader would wait for ever: the bound tells that from a busy machine
    assert slowest < 2.0, f"a write waited {slowest:.3f} s for the reader"
    assert 4_000 < out.dropped < 5_000          # what neither the pipe nor the queue could hold
    assert not out.drain(0.1)                   # the reader still reads nothing: the queue stays
    # the reader comes back: what was kept arrives whole, then a notice of what was lost
    text = read_all(r)
    while not out.drain(0.05):
        text += read_all(r)
    out.write("after\n")
    deadline = time.monotonic() + 5
    while "after" not in text and time.monotonic() < deadline:
        text += read_all(r)
    lines = text.splitlines()
    notices = [int(m[1]) for ln in lines if (m := NOTICE.fullmatch(ln))]
    assert lines[-1] == "after" and notices, text[-300:]  # a drop is told before the next line written
    assert sum(notices) == out.dropped                          # every line lost is counted once
    assert set(lines[:-1]) - {ln for ln in lines if NOTICE.fullmatch(ln)} == {LINE.strip()}  # the rest whole
    assert len(lines) - 1 - len(notices) + out.dropped == 5_000


def test_a_reader_that_has_gone_is_not_an_error(pipe):
    r, w = pipe
    os.close(r)  # `tabled run | head -1`: head has exited
    out = Output(w)
    for i in range(100):
        print(f"line {i}", file=out, flush=True)  # no BrokenPipeError, ever
    assert out.drain(2.0)
    assert out.gone and out.dropped == 100


def test_a_full_disk_loses_lines_not_the_table():
    with open("/dev/full", "w") as full:  # every write: ENOSPC
        out = Output(full.fileno())
        for _ in range(10):
            out.write(LINE)
        assert out.drain(2.0)
        assert out.dropped == 10 and not out.gone  # each line tried; later ones may find room


def test_lines_are_written_whole_and_in_order(pipe):
    r, w = pipe
    out = Output(w)
    out.write("one ")
    out.write("line\ntwo")
    out.write(" lines\n")
    out.write("a prompt: ")
    out.flush()
    assert out.drain(2.0)
    assert read_all(r) == "one line\ntwo lines\na prompt: "
    assert out.dropped == 0


def test_a_stream_looks_like_the_terminal_it_writes_to(pipe):
    _, w = pipe
    out = Output(w, tty=True)
    assert out.isatty() and out.fileno() == w and out.writable() and out.encoding == "utf-8"
