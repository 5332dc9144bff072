"""Connecting to whichever server of a replicated PostgreSQL is the primary.

A casino's central server is a primary with a standby that is promoted when the primary dies. A
connection string names them all (libpq's ``host=a,b port=5432,5432``) and every writer (a table's
pool and shipper, the floor, the administrator's commands) connects with
``target_session_attrs=read-write``: libpq tries the hosts in turn and keeps only the one that takes
writes, so nothing is ever written to a standby, and after a promotion the next connection finds the
new primary. A string asking for a standby (``read-only``, ``standby``, ``prefer-standby``) is
refused for a writer, and a string whose servers are all standbys is refused with one clear line.
"""

from __future__ import annotations

from typing import Any

#: the libpq settings under which a session may write
WRITABLE = ("read-write", "primary")
#: what libpq says of a server that does not take writes, when a writable session was asked for
_READ_ONLY_SIGNS = ("session is read-only", "server is in hot standby mode", "is in recovery")


class StandbyOnly(ValueError):
    """A connection string that reaches no server taking writes."""


def primary_problem(dsn: str) -> str | None:
    """Why ``dsn`` cannot be a writer's connection string, or None (libpq must be able to read it)."""
    from psycopg.conninfo import conninfo_to_dict
    attrs = conninfo_to_dict(dsn).get("target_session_attrs")
    if attrs not in (None, "any", *WRITABLE):
        return (f"target_session_attrs={attrs} asks for a server that does not take writes: a writer connects "
                "only to the primary (leave it out, or target_session_attrs=read-write)")
    return None


def for_the_primary(dsn: str) -> str:
    """``dsn`` with ``target_session_attrs=read-write``: only the primary among its hosts is taken."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo
    problem = primary_problem(dsn)
    if problem is not None:
        raise StandbyOnly(problem)
    if conninfo_to_dict(dsn).get("target_session_attrs") in WRITABLE:
        return dsn
    return make_conninfo(dsn, target_session_attrs="read-write")


def hosts_of(dsn: str) -> list[str]:
    """The servers ``dsn`` names, as ``host:port`` (libpq's defaults where it names none)."""
    from psycopg.conninfo import conninfo_to_dict
    parts: dict[str, Any] = conninfo_to_dict(dsn)
    hosts = str(parts.get("host") or parts.get("hostaddr") or "localhost").split(",")
    ports = str(parts.get("port") or "5432").split(",")
    ports = ports * len(hosts) if len(ports) == 1 else ports
    return [f"{h}:{p}" for h, p in zip(hosts, ports, strict=False)]


def standby_only(exc: BaseException, dsn: str) -> str | None:
    """One line saying every server ``dsn`` names is a standby, when ``exc`` (a failed connection)
    says so and no server refused for another reason; None otherwise."""
    text = str(exc)
    if not any(sign in text for sign in _READ_ONLY_SIGNS):
        return None
    if any(other in text for other in ("Connection refused", "timeout expired", "password authentication",
                                         "does not exist", "could not translate")):
        return None  # a server down or refusing the login besides: not only standbys
    named = ", ".join(hosts_of(dsn))
    return (f"every server the connection string names ({named}) is a standby, which takes no writes: name the "
            "primary (with its standbys: host=a,b and port=p,q; libpq finds whichever is primary)")


__all__ = ["WRITABLE", "StandbyOnly", "primary_problem", "for_the_primary", "hosts_of", "standby_only"]
