"""The store's tests share one PostgreSQL cluster per test process; each test gets its own database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.helpers.postgres import ROLES, Cluster, Store, server_bin


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


@pytest.fixture
def empty_db(cluster: Cluster) -> Store:
    return Store(cluster, cluster.new_database())


@pytest.fixture
def store(empty_db: Store) -> Store:
    from tests.helpers.cli import cli

    result = cli("store", "init", empty_db.dsn())
    assert result.code == 0, result.stderr
    return empty_db
