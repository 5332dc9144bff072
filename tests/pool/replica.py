"""A primary and a streaming standby of the tests' own (for the failover tests and
benchmarks/bench_floor.py): two servers in one temporary directory, each on a free port of
127.0.0.1, the standby made with ``pg_basebackup`` and following with ``primary_conninfo``.
``failover()`` kills the primary (``-m immediate``: no goodbye), promotes the standby, and brings
the old primary back as the new primary's standby (a fresh base backup: docs/operations.md).
Everything is stopped and removed afterwards, also when starting fails.

``synchronous``: the primary waits for the standby to confirm each commit
(``synchronous_standby_names = '*'``): a commit a client saw confirmed survives a promotion.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import psycopg

from .pgserver import ThrowawayPostgres, free_port, server_bindir


class Node:
    def __init__(self, name: str, root: Path) -> None:
        self.name, self.data, self.port = name, root / name, free_port()
        self.log = root / f"{name}.log"


class ReplicatedPostgres:
    """``with ReplicatedPostgres() as pair: ... pair.dsn`` (both hosts, the administrator's)."""

    def __init__(self, *, synchronous: bool = True, count_statements: bool = False) -> None:
        base = ThrowawayPostgres()  # its folder, password and the system user to run as
        self._base = base
        self.bindir = server_bindir() or base.bindir
        self.root, self.password, self.as_user = base.root, base.password, base.as_user
        self.synchronous = synchronous
        self.count_statements = count_statements  # pg_stat_statements loaded (benchmarks/bench_floor.py)
        self.nodes = [Node("a", self.root), Node("b", self.root)]
        self.primary, self.standby = self.nodes
        self.failovers = 0

    @property
    def dsn(self) -> str:
        """The administrator's connection string naming both servers."""
        ports = ",".join(str(n.port) for n in self.nodes)
        return f"host=127.0.0.1,127.0.0.1 port={ports} user=postgres password={self.password} dbname=postgres"

    def dsn_of(self, node: Node, dbname: str = "postgres") -> str:
        return f"host=127.0.0.1 port={node.port} user=postgres password={self.password} dbname={dbname}"

    def _run(self, *args: str, env: dict[str, str] | None = None) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, timeout=300,
                       env={**os.environ, **(env or {})})

    def _options(self, node: Node) -> str:
        sync = "-c synchronous_standby_names='*' " if self.synchronous else ""
        if self.count_statements:
            sync += "-c shared_preload_libraries=pg_stat_statements "
        return (f"-p {node.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=500 "
                f"-c wal_level=replica -c max_wal_senders=5 -c hot_standby=on -c wal_keep_size=256MB "
                f"-c fsync=off -c full_page_writes=off -c cluster_name={node.name} {sync}")

    def _start(self, node: Node) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(node.data), "-l", str(node.log), "-o",
                  self._options(node), "-w", "-t", "120", "start")

    def _follow(self, standby: Node, primary: Node) -> None:
        """``standby`` made a base backup of ``primary``, following it."""
        shutil.rmtree(standby.data, ignore_errors=True)
        if self.as_user:
            self._run("mkdir", "-m", "700", str(standby.data))
        self._run(str(self.bindir / "pg_basebackup"), "-D", str(standby.data), "-h", "127.0.0.1",
                  "-p", str(primary.port), "-U", "postgres", "-X", "stream", "--no-sync", "--checkpoint=fast",
                  env={"PGPASSWORD": self.password})
        conninfo = (f"host=127.0.0.1 port={primary.port} user=postgres password={self.password} "
                    f"application_name={standby.name}")
        with open(standby.data / "postgresql.auto.conf", "a") as conf:
            conf.write(f"primary_conninfo = '{conninfo}'\n")
        (standby.data / "standby.signal").touch()
        if self.as_user:  # written here as root: the server's own user must own them
            subprocess.run(["chown", "-R", "postgres:postgres", str(standby.data)], check=True)
        self._start(standby)

    def start(self) -> ReplicatedPostgres:
        try:
            base, a = self._base, self.primary
            base.started = True  # its stop() removes the folder whatever happened
            self._run(str(self.bindir / "initdb"), "-D", str(a.data), "--auth=scram-sha-256",
                      f"--pwfile={self.root / 'pwfile'}", "-U", "postgres", "-E", "UTF8", "--no-sync")
            self._start(a)
            self._follow(self.standby, a)
            self.wait_streaming()
        except BaseException:
            self.stop()
            raise
        return self

    def wait_streaming(self, within_s: float = 120) -> None:
        """Until the primary sees its standby streaming (a synchronous commit can then be confirmed)."""
        give_up = time.monotonic() + within_s
        with psycopg.connect(self.dsn_of(self.primary), autocommit=True, connect_timeout=10) as conn:
            while conn.execute("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"
                               ).fetchone()[0] == 0:
                if time.monotonic() > give_up:
                    raise RuntimeError(f"the standby {self.standby.name} is not streaming")
                time.sleep(0.1)

    def kill_primary(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.primary.data), "-m", "immediate", "-w", "stop")

    def promote(self) -> None:
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.standby.data), "-w", "-t", "120", "promote")
        self.primary, self.standby = self.standby, self.primary

    def failover(self) -> float:
        """Kill the primary, promote the standby; the seconds until the new primary takes writes.
        The old primary then comes back as its standby (not counted)."""
        t0 = time.monotonic()
        self.kill_primary()
        self.promote()
        took = time.monotonic() - t0
        self.failovers += 1
        self.rejoin()
        return took

    def rejoin(self) -> None:
        """The old primary back, as the new primary's streaming standby."""
        self._follow(self.standby, self.primary)
        self.wait_streaming()

    def cpu_s(self, node: Node) -> float:
        """CPU seconds the server ``node`` has used: its postmaster, the backends it reaped and
        those running (Linux /proc)."""
        try:
            pid = int((node.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return 0.0
        tick = os.sysconf("SC_CLK_TCK")

        def fields(p: int) -> list[str]:
            return Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        try:
            own = fields(pid)
        except OSError:
            return 0.0
        total = sum(int(v) for v in own[11:15])  # utime stime cutime cstime
        for task in Path("/proc").iterdir():
            if task.name.isdigit():
                try:
                    f = fields(int(task.name))
                except OSError:
                    continue
                if int(f[1]) == pid:            # a backend of this server: its own time
                    total += int(f[11]) + int(f[12])
        return total / tick

    def stop(self) -> None:
        try:
            for node in self.nodes:
                if (node.data / "postmaster.pid").exists():
                    try:
                        self._run(str(self.bindir / "pg_ctl"), "-D", str(node.data), "-m", "immediate", "-w",
                                  "stop")
                    except subprocess.SubprocessError:
                        pass
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> ReplicatedPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def replicated_database(pair: ReplicatedPostgres, name: str = "casino") -> str:
    """A database made on the primary (replicated to the standby); its two-host connection string."""
    with psycopg.connect(pair.dsn_of(pair.primary), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return pair.dsn.replace("dbname=postgres", f"dbname={name}")


__all__ = ["ReplicatedPostgres", "replicated_database"]
