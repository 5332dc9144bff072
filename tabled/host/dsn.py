"""The rules for a connection string to a PostgreSQL server of the casino (the linked pool, the
central journal): the password is never in the config (systemd's credential gives it, or libpq's
PGPASSWORD / ~/.pgpass for a person at a shell), and a server off this machine is reached only with
its TLS certificate verified."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from tabled.host.primary import primary_problem

LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1", ""})
VERIFIED = ("verify-full", "verify-ca")


def dsn_problem(dsn: object, credential: str) -> str | None:
    """What is wrong with ``dsn`` for a table, or None. ``credential``: the name of the systemd
    credential its password comes from (said in the message)."""
    if not isinstance(dsn, str) or not dsn.strip():
        return "must be a PostgreSQL connection string (text)"
    try:
        from psycopg.conninfo import conninfo_to_dict
    except ImportError:
        return "needs the psycopg package (the 'linked' extra), which is not installed"
    if (problem := unreadable_dsn(dsn)) is not None:
        return problem
    parts = conninfo_to_dict(dsn)
    if parts.get("password"):
        return (f"holds a password: the password comes from systemd's credential {credential} "
                "(LoadCredential=), never from the config")
    if (problem := primary_problem(dsn)) is not None:
        return problem
    hosts = str(parts.get("host") or "").split(",")
    remote = [h for h in hosts if h not in LOOPBACK and not h.startswith("/")]
    if remote and parts.get("sslmode") not in VERIFIED:
        return (f"reaches {remote[0]} without verifying its TLS certificate: add sslmode=verify-full "
                "(and sslrootcert)")
    return None


def unreadable_dsn(dsn: str) -> str | None:
    """libpq's complaint about a connection string it cannot read, on one line, quoting nothing of
    the string but option names (a quoted fragment could be part of the password); None when libpq
    reads it."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict
    try:
        conninfo_to_dict(dsn)
    except psycopg.Error as exc:
        from tabled.host.log import scrub_secrets  # structlog: loaded only when there is an error to tell
        options = {o.keyword.decode() for o in psycopg.pq.Conninfo.get_defaults()} | {"="}
        detail = re.sub(r'"([^"]*)"', lambda m: m.group(0) if m.group(1) in options else '"..."', first_line(exc))
        return f"not a connection string libpq can read: {scrub_secrets(detail)}"
    return None


def server_said(exc: BaseException, *secrets: str) -> str:
    """What a PostgreSQL server or libpq said, on one line, with every password hidden (the
    connection string's, and each of ``secrets``): these words go to the log and the screen."""
    from tabled.host.log import scrub_secrets
    return scrub_secrets(first_line(exc), *secrets)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class NoPassword(ValueError):
    """A connection's password is nowhere: not in systemd's credential, nor where libpq looks."""


def required_password(credential: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The password of systemd's ``credential``; None when a person at a shell gives it as libpq
    reads it (``PGPASSWORD``, or the password file ``PGPASSFILE`` or ``~/.pgpass``). Raises
    :class:`NoPassword` naming what is missing: a credential absent, unreadable or empty, or, with
    no credentials at all, no password for libpq either."""
    environ = os.environ if environ is None else environ
    folder = environ.get("CREDENTIALS_DIRECTORY")
    if folder:
        path = Path(folder) / credential
        try:
            password = path.read_text().strip()
        except FileNotFoundError:
            raise NoPassword(f"systemd's credential {credential} is missing ({path}): add "
                             f"LoadCredential={credential}:<file> to the service") from None
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not text"
            raise NoPassword(f"systemd's credential {credential} cannot be read ({path}: {reason})") from None
        if not password:
            raise NoPassword(f"systemd's credential {credential} is empty ({path})")
        return password
    passfile = environ.get("PGPASSFILE") or str(Path(environ.get("HOME") or Path.home()) / ".pgpass")
    if environ.get("PGPASSWORD") or Path(passfile).is_file():
        return None
    raise NoPassword(f"no password: systemd's credential {credential} is not given (LoadCredential=), nor "
                     "PGPASSWORD or a password file (~/.pgpass)")


def credential_password(credential: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The password systemd handed over as ``credential`` ($CREDENTIALS_DIRECTORY), or None."""
    environ = os.environ if environ is None else environ
    folder = environ.get("CREDENTIALS_DIRECTORY")
    if not folder:
        return None
    path = Path(folder) / credential
    try:
        return path.read_text().strip() or None
    except OSError:
        return None


__all__ = ["LOOPBACK", "VERIFIED", "dsn_problem", "credential_password", "required_password", "NoPassword",
           "unreadable_dsn", "server_said", "first_line"]
