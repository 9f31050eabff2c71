"""A DSN as shown in messages: never its password, whatever form it was written in."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pi_sessions.core.store_pg.dsn import scrub, shown_dsn


@pytest.mark.parametrize(
    ("dsn", "secret"),
    [
        ("postgresql://alice:hunter2x@db.example:5432/pi", "hunter2x"),
        ("postgres://alice:p%40ss%3Aword@db.example/pi", "p@ss:word"),
        ("postgresql://alice@db.example/pi?password=hunter2x&sslmode=require", "hunter2x"),
        ("host=db.example dbname=pi user=alice password=hunter2x", "hunter2x"),
        ("host=db.example password = 'two words' user=alice", "two words"),
        ("host=db.example password='it\\'s mine' user=alice", "it's mine"),
    ],
)
def test_a_password_never_shows(dsn: str, secret: str) -> None:
    shown = shown_dsn(dsn)
    assert secret not in shown and "***" in shown
    assert "alice" in shown and "db.example" in shown
    message = f'connection to "{dsn}" failed: password for {secret} rejected\nretry'
    scrubbed = scrub(message, dsn, env={})
    assert secret not in scrubbed and "\n" not in scrubbed


def test_the_pgpassword_variable_is_scrubbed_too() -> None:
    assert "sekrit42" not in scrub("it was sekrit42", "host=db", env={"PGPASSWORD": "sekrit42"})


def test_a_dsn_without_password_is_shown_as_it_is() -> None:
    assert shown_dsn("host=/tmp/x dbname=pi user=bob") == "host=/tmp/x dbname=pi user=bob"
    assert shown_dsn("postgresql://bob@db/pi?sslmode=require") == "postgresql://bob@db/pi?sslmode=require"


def test_core_imports_without_psycopg() -> None:
    """The store's wing imports psycopg only inside functions: core loads where it is missing."""
    code = (
        "import sys, pkgutil, importlib\n"
        "sys.modules['psycopg'] = None\n"  # (an import of it now fails)
        "import pi_sessions.core as core\n"
        "for m in pkgutil.walk_packages(core.__path__, 'pi_sessions.core.'):\n"
        "    importlib.import_module(m.name)\n"
        "from pi_sessions.core.store_pg.connect import connect\n"
        "from pi_sessions.core.common.problems import SessionError\n"
        "try:\n"
        "    with connect('host=nowhere'): pass\n"
        "except SessionError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "needs psycopg" in out.stdout
