"""Endless inputs to ``tabled sim`` and ``tabled simulate`` end at once, each with a one-line error:
a count that would not end in a working day, a script past its bound (/dev/zero never ends), and a ``--link``
path that is not a simulator's own port (a file or a device there is never replaced)."""

from __future__ import annotations

import os

import pytest

from tabled.cli import EX_USER, main
from tabled.math import simulator
from tabled.profiles import load_profile


def one_line_error(capsys, argv: list[str]) -> str:
    assert main(argv) == EX_USER
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and err.count("\n") == 1, err
    return err


def test_simulate_refuses_a_count_of_rounds_that_would_not_end(capsys):
    err = one_line_error(capsys, ["simulate", "--profile", "nsw", "--rounds", "99999999999999"])
    assert "--rounds: must be an integer from 1 to 1000000000, got 99999999999999" in err
    with pytest.raises(ValueError, match="rounds must be a whole number from 1 to 1,000,000,000"):
        simulator.simulate(load_profile("nsw"), simulator.MAX_ROUNDS + 1, 7, 0)


def test_sim_reads_a_script_bounded(tmp_path, capsys):
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * (1 << 20) + b"\n")  # one byte past the bound: read no further than it
    err = one_line_error(capsys, ["sim", "shuffler", "--script", str(big)])
    assert f"script {big}: larger than 1048576 bytes: too large to be a script" in err


@pytest.mark.parametrize("what", ["a file", "a symlink elsewhere", "a fifo"])
def test_sim_never_replaces_what_is_not_its_own_port(tmp_path, capsys, what):
    path = tmp_path / "garbage"
    if what == "a file":
        path.write_text("kept\n")
    elif what == "a symlink elsewhere":
        (tmp_path / "kept").write_text("kept\n")
        path.symlink_to(tmp_path / "kept")
    else:
        os.mkfifo(path)  # like a device (/dev/zero): not a file, never to be replaced
    err = one_line_error(capsys, ["sim", "shuffler", "--link", str(path)])
    assert f"--link {path}: is " in err and "refusing to replace it" in err
    if what == "a fifo":
        assert path.is_fifo()
    else:
        assert path.read_text() == "kept\n"
