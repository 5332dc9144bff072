"""A casino of simulated tables shipping their sealed journals to a central PostgreSQL the test
started: the central schema migrated by the administrator, a role of its own and an Ed25519 key
for each table, and each table a ``tabled run`` process (config/sim.toml with its own id, journal,
pool, key and ``ship_to``; its password handed over as systemd's credential)."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import tempfile
import time
import tomllib
import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import psycopg
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tabled.daemon import shipping
from tabled.journal.store import Journal
from tabled.journal.seals import SigningKey
from tabled.floor import central as floor_central
from tabled.floor.config import parse_floor_config
from tabled.floor.service import PASSWORD_CREDENTIAL, Floor, floor_connector
from tests.integration.test_restart_sim import ROOT, child_env, tabled_argv

PEM = serialization.Encoding.PEM


def key_files(folder: Path, name: str) -> tuple[Path, Path]:
    key = Ed25519PrivateKey.generate()
    private, public = folder / f"{name}.key", folder / f"{name}.pub"
    private.write_bytes(key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    private.chmod(0o600)
    public.write_bytes(key.public_key().public_bytes(PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


def user_dsn(admin_dsn: str, role: str) -> str:
    """The server and database of ``admin_dsn``, as ``role``, without a password."""
    return f"postgresql://{role}@{admin_dsn.split('@', 1)[1]}"


@dataclass
class SimTable:
    table_id: str
    folder: Path
    role: str
    password: str
    private_key: Path
    public_key: Path
    dsn: str          # the table's own role, no password (systemd's credential gives it)
    scratch: Path     # the process's TMPDIR: its simulators' sockets, short enough for AF_UNIX (107 bytes)

    @property
    def journal(self) -> Path:
        return self.folder / "journal.db"

    def open_journal(self) -> Journal:
        """The table's journal, every commit sealed with the table's key (as the daemon writes it)."""
        key = SigningKey.from_pem(self.private_key.read_bytes(), str(self.private_key))
        return Journal.open(self.journal, seal_with=key)

    @property
    def credentials(self) -> Path:
        return self.folder / "credentials"

    def config(self, seed: int) -> Path:
        text = (ROOT / "config" / "sim.toml").read_text().replace('"../var/', f'"{self.folder}/')
        text = text.replace('id = "SIM01"', f'id = "{self.table_id}"').replace("seed = 1", f"seed = {seed}")
        text = text.replace('[journal]\n', f'[journal]\nsigning_key = "{self.private_key}"\nship_to = "{self.dsn}"\n')
        text = text.replace('listen = "127.0.0.1:8750"', "enabled = false")
        text = text.replace('"sim-staff.toml"', f'"{ROOT}/config/sim-staff.toml"')
        path = self.folder / "tabled.toml"
        path.write_text(text)
        return path

    def env(self) -> dict[str, str]:
        env = child_env()
        env["TMPDIR"] = str(self.scratch)
        env["CREDENTIALS_DIRECTORY"] = str(self.credentials)
        return env

    def start(self, rounds: int, seed: int) -> subprocess.Popen:
        """``tabled run`` for ``rounds`` rounds at full speed (its JSON log to a file)."""
        log = open(self.folder / "run.log", "ab")  # the child writes it; closed with the child
        try:
            return subprocess.Popen(tabled_argv("run", "--config", str(self.config(seed)), "--rounds", str(rounds),
                                                "--pace-ms", "0", "--quiet"),
                                    stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env=self.env())
        finally:
            log.close()

    def shipper(self, **kw) -> shipping.Shipper:
        return shipping.Shipper(self.journal, self.table_id,
                                shipping.connector(self.dsn, {"CREDENTIALS_DIRECTORY": str(self.credentials)}), **kw)


class Casino:
    """The central database (``admin``: the administrator's DSN) and its tables."""

    def __init__(self, admin: str, root: Path, count: int) -> None:
        self.admin, self.root = admin, root
        suffix = admin.rsplit("_", 1)[-1][:8]  # roles are per server: a database's own names
        self.tables: list[SimTable] = []
        # the tables' temporary folders: under the system's, as pytest's folders are too deep for the
        # simulators' AF_UNIX sockets; removed with the casino
        self.scratch = Path(tempfile.mkdtemp(prefix="casino-"))
        weakref.finalize(self, shutil.rmtree, self.scratch, True)
        with psycopg.connect(admin, autocommit=True) as conn:
            shipping.migrate(conn)
            floor_central.migrate(conn)
            for n in range(1, count + 1):
                table_id = f"T{n:02d}"
                folder = root / table_id
                (folder / "credentials").mkdir(parents=True)
                (self.scratch / table_id).mkdir()
                role, password = f"tabled_{table_id.lower()}_{suffix}", f"pw-{table_id}-{suffix}"
                shipping.register_table(conn, table_id, role, password)
                (folder / "credentials" / shipping.PASSWORD_CREDENTIAL).write_text(password + "\n")
                private, public = key_files(folder, table_id)
                self.tables.append(SimTable(table_id, folder, role, password, private, public, user_dsn(admin, role),
                                            self.scratch / table_id))
            self.floor_role, self.floor_password = f"floor_{suffix}", f"floor-pw-{suffix}"
            conn.execute(f"DROP ROLE IF EXISTS {self.floor_role}")
            conn.execute(f"CREATE ROLE {self.floor_role} LOGIN PASSWORD '{self.floor_password}' "
                         f"IN ROLE {floor_central.FLOOR_ROLE}")
        self.floor_credentials = root / "floor-credentials"
        self.floor_credentials.mkdir()
        (self.floor_credentials / PASSWORD_CREDENTIAL).write_text(self.floor_password + "\n")

    @property
    def floor_dsn(self) -> str:
        return user_dsn(self.admin, self.floor_role)

    def floor_toml(self, **floor: object) -> str:
        lines = ["[floor]", 'listen = "127.0.0.1:0"', f'central = "{self.floor_dsn}"']
        lines += [f"{k} = {v!r}" if isinstance(v, str) else f"{k} = {v}" for k, v in floor.items()]
        lines.append("[floor.keys]")
        lines += [f'{t.table_id} = "{t.public_key}"' for t in self.tables]
        return "\n".join(lines) + "\n"

    def floor(self, folder: Path, central: str | None = None, clock: Callable[[], float] = time.time,
              pits: dict[str, list[str]] | None = None, **settings: object) -> Floor:
        """The floor service over this casino's central copy (or ``central``, a way to it), with
        the ``[floor]`` settings given and ``pits`` as ``[floor.pits]``."""
        toml = self.floor_toml(**settings)
        if pits:
            toml += "[floor.pits]\n" + "".join(f"{pit} = {json.dumps(tables)}\n" for pit, tables in pits.items())
        cfg = parse_floor_config(tomllib.loads(toml), "floor.toml", folder)
        if central is not None:
            cfg = replace(cfg, central=central)
        connect = floor_connector(cfg.central, {"CREDENTIALS_DIRECTORY": str(self.floor_credentials)})
        return Floor(cfg, connect, clock=clock)

    def play(self, rounds: int, tables: list[SimTable] | None = None, timeout: float = 120) -> None:
        """Every table (or those named) plays ``rounds`` rounds at once, as processes."""
        tables = tables or self.tables
        procs = [t.start(rounds, seed=i + 1) for i, t in enumerate(tables)]
        for t, p in zip(tables, procs):
            try:
                code = p.wait(timeout)
                assert code == 0, f"{t.table_id}: tabled run exited with {code}: " \
                                  f"{(t.folder / 'run.log').read_text()[-1500:]}"
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()

    async def catch_up(self, tables: list[SimTable] | None = None) -> None:
        """A shipper started again for each table ships what the daemon's stop left behind."""
        async def one(t: SimTable) -> None:
            shipper = t.shipper(retry_s=0.05)
            task = asyncio.create_task(shipper.run())
            try:
                await shipper.caught_up()
            finally:
                task.cancel()
        async with asyncio.timeout(60):
            await asyncio.gather(*(one(t) for t in tables or self.tables))

    def central_rows(self, table_id: str) -> list[tuple[int, str]]:
        with psycopg.connect(self.admin) as conn:
            return conn.execute("SELECT seq, hash FROM journal_records WHERE table_id = %s ORDER BY seq",
                                (table_id,)).fetchall()


def rewrite_central(admin: str, table_id: str, seq: int, change) -> None:
    """Someone with more rights than any table's role changes record ``seq`` of a table's central
    copy and hashes every record after it again, so the copy's hash chain is intact."""
    import json

    from tabled.journal.store import canonical_payload, record_hash
    with psycopg.connect(admin, autocommit=True) as conn:
        rows = conn.execute("SELECT seq, time_us, round_id, kind, payload, prev_hash FROM journal_records "
                            "WHERE table_id = %s AND seq >= %s ORDER BY seq", (table_id, seq)).fetchall()
        conn.execute("ALTER TABLE journal_records DISABLE TRIGGER journal_no_change")
        try:
            prev = None
            for number, time_us, round_id, kind, text, prev_hash in rows:
                if number == seq:
                    text = canonical_payload(change(json.loads(text)))
                prev_hash = prev if prev is not None else prev_hash
                digest = record_hash(number, time_us, round_id, kind, text, prev_hash)
                conn.execute("UPDATE journal_records SET payload = %s, prev_hash = %s, hash = %s "
                             "WHERE table_id = %s AND seq = %s", (text, prev_hash, digest, table_id, number))
                prev = digest
        finally:
            conn.execute("ALTER TABLE journal_records ENABLE TRIGGER journal_no_change")
