"""A throwaway PostgreSQL 15 cluster in a temporary folder, for the store's tests and benchmark.

It listens on a unix socket in that folder only (no TCP port to collide on). initdb refuses to
run as root: as root the cluster is made and run by the `postgres` user (`runuser`)."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

BIN_CANDIDATES = ("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin")
SUPERUSER = "postgres"
PORT = 5432  # (only names the socket file: nothing listens on TCP)
# The store tests' roles (tests/store/conftest.py makes them) and their passwords.
ROLES = {"alice": "alice-s3cret-pw", "bob": "bob-s3cret-pw", "carol": "carol-s3cret-pw"}


def server_bin() -> Path | None:
    """The folder of initdb and pg_ctl ($PI_SESSIONS_PG_BIN first), None when there are none."""
    for folder in (os.environ.get("PI_SESSIONS_PG_BIN"), *BIN_CANDIDATES):
        if folder and (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


class Cluster:
    """A running cluster; `dsn(...)` says how to reach it as a role."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        # Not under pytest's tmp_path: that is root's, mode 700, and the server runs as postgres.
        self.folder = Path(tempfile.mkdtemp(prefix="pi-pg-", dir="/tmp"))
        self.data = self.folder / "data"
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.folder, user.pw_uid, user.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.folder.chmod(0o755)

    def _run(self, args: Sequence[str]) -> None:
        done = subprocess.run(
            [*self.as_user, *args], cwd=self.folder, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr or done.stdout}")

    def start(self) -> None:
        self._run(
            [str(self.bin / "initdb"), "-D", str(self.data), "-U", SUPERUSER, "-E", "UTF8", "--no-sync"]
        )
        # The superuser comes in without a password; every other role needs its password.
        (self.data / "pg_hba.conf").write_text(f"local all {SUPERUSER} trust\nlocal all all scram-sha-256\n")
        options = f"-k {self.folder} -c listen_addresses='' -p {PORT} -c fsync=off -c full_page_writes=off"
        self._run(
            [
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.data),
                "-o",
                options,
                "-l",
                str(self.folder / "log"),
                "-w",
                "start",
            ]
        )

    def stop(self) -> None:
        try:
            self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def dsn(self, dbname: str = "postgres", user: str = SUPERUSER, password: str | None = None) -> str:
        dsn = f"host={self.folder} port={PORT} dbname={dbname} user={user}"
        return f"{dsn} password={password}" if password is not None else dsn

    def sql(self, statement: str, dbname: str = "postgres") -> list[tuple[object, ...]]:
        """One statement as the superuser (autocommit): its rows."""
        import psycopg

        with psycopg.connect(self.dsn(dbname), autocommit=True) as connection:
            cursor = connection.execute(statement)
            return cursor.fetchall() if cursor.description else []

    def new_database(self) -> str:
        name = f"t_{uuid.uuid4().hex[:12]}"
        self.sql(f"CREATE DATABASE {name}")
        return name

    def new_role(self, name: str, password: str) -> None:
        self.sql(f"CREATE ROLE {name} LOGIN PASSWORD '{password}'")


@dataclass(frozen=True)
class Store:
    """A fresh database with the store initialised by the superuser; `dsn(role)` to reach it."""

    cluster: Cluster
    dbname: str

    def dsn(self, role: str | None = None, password: str | None = None) -> str:
        if role is None:
            return self.cluster.dsn(self.dbname)
        return self.cluster.dsn(self.dbname, role, ROLES[role] if password is None else password)

    def sql(self, statement: str) -> list[tuple[object, ...]]:
        return self.cluster.sql(statement, self.dbname)
