"""``tabled install-record``: the record of one install or upgrade, for the journal
(tabled/daemon/installs.py): when it started and ended, the release installed and every
component's version, the release manifest's digest, whether it succeeded, and who ran it. The
daemon journals it at its next start. packaging/install.sh calls it last.
"""

from __future__ import annotations

import argparse
import os
import pwd
import socket
from datetime import UTC, datetime
from pathlib import Path

from tabled.commands._arguments import UserError

NAME = "install-record"
HELP = "record an install or upgrade (start, end, versions, manifest digest, who) for the journal's next start"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--spool", metavar="DIR", required=True,
                        help="the install spool: the folder 'installs' beside the journal (/var/lib/tabled/installs)")
    parser.add_argument("--started", metavar="TIME", required=True, help="when the install started (ISO 8601, UTC)")
    parser.add_argument("--result", choices=["installed", "failed"], default="installed")
    parser.add_argument("--manifest", metavar="FILE", help="the release manifest installed (its SHA-256 is recorded)")
    parser.add_argument("--by", metavar="NAME", help="who ran it (default: the user who ran sudo, else this user)")
    parser.add_argument("--what", default="install", choices=["install", "upgrade"])


def _who() -> str:
    return os.environ.get("SUDO_USER") or pwd.getpwuid(os.getuid()).pw_name


def run(args: argparse.Namespace) -> int:
    from importlib import metadata

    from tabled.daemon import installs
    from tabled.host.software import OWN_DISTRIBUTION, dependency_closure
    try:
        started = datetime.fromisoformat(args.started.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        raise UserError(f"--started {args.started!r}: an ISO 8601 time, e.g. 2026-12-03T07:00:00Z") from None
    components = {d.metadata["Name"]: d.version for d in dependency_closure()}
    record = {"what": args.what, "result": args.result, "started": started.strftime("%Y-%m-%dT%H:%M:%SZ"),
              "ended": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "version": metadata.version(OWN_DISTRIBUTION), "components": components,
              "manifest_sha256": installs.digest_of(Path(args.manifest) if args.manifest else None),
              "by": (args.by or _who()).strip(), "host": socket.gethostname()}
    try:
        path = installs.write(Path(args.spool), record)
    except OSError as exc:
        raise UserError(f"{args.spool}: the install record cannot be written: {exc.strerror}") from None
    print(f"install record {path}: tabled {record['version']} {args.result} by {record['by']}; "
          "journaled at the daemon's next start")
    return 0
