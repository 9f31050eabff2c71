"""The store's tests share one PostgreSQL cluster per test process; each test gets its own database."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.helpers.postgres import Cluster, server_bin

ROLES = {"alice": "alice-s3cret-pw", "bob": "bob-s3cret-pw", "carol": "carol-s3cret-pw"}


@pytest.fixture(scope="session")
def cluster() -> Iterator[Cluster]:
    bin_dir = server_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL's initdb and pg_ctl are not installed (apt-get install postgresql-15)")
    running = Cluster(bin_dir)
    running.start()
    try:
        for name, password in ROLES.items():
            running.new_role(name, password)
        running.sql("CREATE ROLE team NOLOGIN")
        running.sql("GRANT team TO carol")
        yield running
    finally:
        running.stop()


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


@pytest.fixture
def empty_db(cluster: Cluster) -> Store:
    return Store(cluster, cluster.new_database())


@pytest.fixture
def store(empty_db: Store) -> Store:
    from tests.helpers.cli import cli

    result = cli("store", "init", empty_db.dsn())
    assert result.code == 0, result.stderr
    return empty_db
