"""One simulator runner (drivers/sim/runner.py) behind ``tabled sim`` and the simulated table: it
starts a device on a pty, prints its port, serves the device's control socket, and goes when the
process that started it goes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

from tabled.sim.table import SimProcess

RUNNER = [sys.executable, "-m", "tabled_drivers.sim"]


def ask(path: str, **request) -> dict:
    """One request on a control socket, its answer."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(path)
        s.sendall(json.dumps(request).encode() + b"\n")
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = s.recv(4096)
            assert chunk, "the control socket closed without an answer"
            answer += chunk
    return json.loads(answer)


def test_the_runner_prints_the_port_serves_the_control_socket_and_goes_with_its_parent(tmp_path):
    link, control = str(tmp_path / "meter"), str(tmp_path / "meter.ctl")
    proc = subprocess.Popen([*RUNNER, "meter", "--link", link, "--control", control, "--seed", "4",
                             "--exit-with-parent"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout.readline().strip() == link   # the one line on stdout: the port
        assert os.path.realpath(link).startswith("/dev/pts/")
        showing = ask(control, op="showing")
        assert showing["ok"] and set(showing["result"]) == {"message", "amounts"}
        refused = ask(control, op="jam")                 # a bad request is answered, the device serves on
        assert not refused["ok"] and "jam" in refused["error"]
        assert ask(control, op="silent", on=True) == {"ok": True, "result": None}
        proc.stdin.close()                               # the parent is gone
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not os.path.exists(link)                      # unplugged: the port's name is gone


def test_a_usb_simulator_has_no_control_socket_and_says_so(tmp_path):
    done = subprocess.run([*RUNNER, "shoe", "--control", str(tmp_path / "shoe.ctl")], capture_output=True,
                          text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and done.stdout == ""
    assert "no control socket" in done.stderr


async def test_the_simulated_table_runs_its_devices_with_the_runner_and_keeps_the_chips_over_a_replug(tmp_path):
    board = SimProcess("betspots", tmp_path, seed=1)
    await board.start()
    try:
        assert "tabled_drivers.sim" in open(f"/proc/{board.proc.pid}/cmdline").read().split("\0")
        await board.control.call("place", spot=2, ante=500)
        await board.kill()                                # the cable pulled ...
        assert not board.running
        await board.control.call("place", spot=3, ante=1000)  # ... chips still go on the felt
        await board.start()                               # the replug: a new board over the same chips
        amounts = (await board.control.call("reading"))["amounts"]
    finally:
        await board.stop()
    assert amounts[1][:1] == [500] and amounts[2][:1] == [1000], amounts
