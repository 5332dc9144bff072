"""A PostgreSQL server of the tests' own: started with initdb/pg_ctl in a temporary directory (as
the ``postgres`` system user when run as root, because initdb refuses root), on a free port of
127.0.0.1, with a password made up for this server only; stopped and its directory removed
afterwards, also when starting it fails. No test uses a server it did not start.

``DEFAULT_DSN`` is only the benchmark's default for a server a person names (benchmarks/bench_pool.py)."""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import psycopg

DEFAULT_DSN = "postgresql://postgres@127.0.0.1:5432/postgres"


def reachable(dsn: str) -> bool:
    try:
        psycopg.connect(dsn, connect_timeout=2).close()
        return True
    except psycopg.Error:
        return False


def server_bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ThrowawayPostgres:
    """``with ThrowawayPostgres() as server: ... server.dsn``, or ``start()`` / ``stop()``."""

    def __init__(self) -> None:
        bindir = server_bindir()
        if bindir is None:
            raise RuntimeError("no PostgreSQL server binaries (initdb) found: run .ci/ensure-postgres.sh")
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="tabled-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.password = secrets.token_hex(16)
        self.as_user: list[str] = []
        self.started = False
        pwfile = self.root / "pwfile"
        pwfile.write_text(self.password + "\n")
        if os.geteuid() == 0:  # initdb and postgres refuse to run as root
            user = pwd.getpwnam("postgres")
            for path in (self.root, pwfile):
                os.chown(path, user.pw_uid, user.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        pwfile.chmod(0o600)
        self.dsn = f"postgresql://postgres:{self.password}@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> ThrowawayPostgres:
        """Start the server; on any failure nothing is left behind (no process, no directory)."""
        try:
            self._run(str(self.bindir / "initdb"), "-D", str(self.data), "--auth=scram-sha-256",
                      f"--pwfile={self.root / 'pwfile'}", "-U", "postgres", "-E", "UTF8", "--no-sync")
            opts = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=200"
            self.started = True
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "log"),
                      "-o", opts, "-w", "-t", "60", "start")
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        try:
            if self.started and (self.data / "postmaster.pid").exists():
                self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            self.started = False
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> ThrowawayPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def create_database(admin_dsn: str) -> str:
    name = "tabled_test_" + uuid.uuid4().hex[:12]
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return name


def drop_database(admin_dsn: str, name: str) -> None:
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def dsn_for(admin_dsn: str, name: str) -> str:
    return admin_dsn.rsplit("/", 1)[0] + "/" + name


def migrate_pool(admin_dsn: str) -> None:
    """What ``tabled pool migrate`` does to the pool schema, as the administrator."""
    from tabled.pool.postgresql import migrate
    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        migrate(conn)
