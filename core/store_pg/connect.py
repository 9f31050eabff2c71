"""Opening a connection to the store (psycopg, imported here only): every failure one line, no password."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..common.problems import SessionError
from .dsn import scrub, shown_dsn

if TYPE_CHECKING:
    import psycopg

    Connection = psycopg.Connection[tuple[Any, ...]]


class StoreError(SessionError):
    """The store cannot be reached or used: one clear line (exit status 2), never a password."""


def _driver() -> Any:
    try:
        import psycopg
    except ImportError:
        raise StoreError(
            "the store needs psycopg 3 (pip install 'psycopg[binary]'), which is not installed"
        ) from None
    return psycopg


def describe_failure(error: BaseException, dsn: str) -> str:
    """A psycopg error as one line: libpq's reason without its `connection to server ...
    failed:` preamble (kept only when there is nothing else), the DSN shown without its password."""
    text = " ".join(str(error).split())
    if "FATAL:" in text:
        text = text.rpartition("FATAL:")[2].strip()
    elif text.startswith("connection failed: "):
        text = text[len("connection failed: ") :]
    return scrub(text, dsn) or type(error).__name__


@contextmanager
def connect(dsn: str, autocommit: bool = True) -> Iterator[Connection]:
    """A connection for the duration of the block (libpq's conventions: a URI or key=value
    pairs, the PG* variables, ~/.pgpass). Any psycopg error inside the block, the connection's
    own included, becomes a `StoreError` whose text holds no password."""
    psycopg = _driver()
    try:
        connection = psycopg.connect(dsn, autocommit=autocommit)
    except psycopg.Error as e:
        raise StoreError(
            f"cannot connect to the store {shown_dsn(dsn)}: {describe_failure(e, dsn)}"
        ) from None
    except Exception as e:  # (a DSN libpq cannot even parse: ProgrammingError, ValueError)
        raise StoreError(f"not a usable DSN {shown_dsn(dsn)}: {describe_failure(e, dsn)}") from None
    try:
        with connection:
            yield connection
    except psycopg.Error as e:
        raise StoreError(f"the store {shown_dsn(dsn)} refused: {describe_failure(e, dsn)}") from None
