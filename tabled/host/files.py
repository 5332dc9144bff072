"""The table's own files (journal, lock, local pool) are its owner's alone, whatever the umask.

Under systemd the unit's ``UMask=0077`` already gives that; a daemon or a command started from a
shell (umask 0022 by default) must not leave money records world-readable. SQLite gives a
database's ``-wal`` and ``-shm`` files the database file's own mode, so creating the database file
with :data:`FILE_MODE` covers them too.
"""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600  # a file created here: read and written by its owner only
DIR_MODE = 0o700   # a state directory created here (docs/operations.md, StateDirectoryMode)


def create_private(path: Path) -> None:
    """Create ``path`` empty with :data:`FILE_MODE` if it is not there (its directory with
    :data:`DIR_MODE` if that is not there either). An existing file keeps the mode it has."""
    if not path.parent.is_dir():
        path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, FILE_MODE)  # exact, whatever the umask took away
    finally:
        os.close(fd)
