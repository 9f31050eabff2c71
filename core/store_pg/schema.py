"""The store's tables, their schema versions and migrations; who may read what (row-level security)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .connect import StoreError

if TYPE_CHECKING:
    from .connect import Connection

SCHEMA = "pi_sessions"

# Whether a role may read a row: its own, or every row when the role is (through any chain of
# role memberships, so a team role works) a member of a role listed in `readers`. The EXISTS
# does not depend on the row: PostgreSQL runs it once per query, not per row.
_MAY_READ = """owner = current_user OR EXISTS (
    SELECT 1 FROM pi_sessions.readers r JOIN pg_catalog.pg_roles g ON g.rolname = r.role
    WHERE pg_catalog.pg_has_role(current_user, g.oid, 'MEMBER'))"""

# MIGRATIONS[n] takes a store from version n to n + 1. Never edit one that shipped: add one.
MIGRATIONS: tuple[str, ...] = (
    f"""
    CREATE TABLE pi_sessions.sessions (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        owner name NOT NULL DEFAULT current_user,
        host text NOT NULL,
        path text NOT NULL,                  -- the file's path on its host
        session_id text,                     -- its header's id (null until it has a header)
        size bigint NOT NULL DEFAULT 0,      -- bytes of the file pushed so far
        digest bytea NOT NULL DEFAULT sha256(''::bytea),  -- of those bytes
        mtime_ns bigint NOT NULL DEFAULT 0,  -- the file's stamp when pushed (unchanged: not read)
        inode bigint NOT NULL DEFAULT 0,
        pushed_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (owner, host, path)
    );
    CREATE TABLE pi_sessions.lines (
        -- sessions.id; no foreign key: its check, a query per line, was half of a first push
        -- (push never deletes a session row; whoever does, deletes its lines too)
        session bigint NOT NULL,
        owner name NOT NULL DEFAULT current_user,
        byte_offset bigint NOT NULL,
        raw bytea NOT NULL,                  -- the line as in the file, its newline included
        PRIMARY KEY (session, byte_offset)
    );
    CREATE TABLE pi_sessions.readers (role name PRIMARY KEY);

    ALTER TABLE pi_sessions.sessions ENABLE ROW LEVEL SECURITY;
    ALTER TABLE pi_sessions.sessions FORCE ROW LEVEL SECURITY;
    ALTER TABLE pi_sessions.lines ENABLE ROW LEVEL SECURITY;
    ALTER TABLE pi_sessions.lines FORCE ROW LEVEL SECURITY;
    CREATE POLICY may_read ON pi_sessions.sessions FOR SELECT USING ({_MAY_READ});
    CREATE POLICY own_rows ON pi_sessions.sessions FOR ALL
        USING (owner = current_user) WITH CHECK (owner = current_user);
    CREATE POLICY may_read ON pi_sessions.lines FOR SELECT USING ({_MAY_READ});
    CREATE POLICY own_rows ON pi_sessions.lines FOR ALL
        USING (owner = current_user) WITH CHECK (owner = current_user);

    GRANT USAGE ON SCHEMA pi_sessions TO PUBLIC;
    GRANT SELECT, INSERT, UPDATE, DELETE ON pi_sessions.sessions, pi_sessions.lines TO PUBLIC;
    GRANT SELECT ON pi_sessions.readers, pi_sessions.schema_version TO PUBLIC;
    """,
)

VERSION = len(MIGRATIONS)

_BOOTSTRAP = """
    CREATE SCHEMA IF NOT EXISTS pi_sessions;
    CREATE TABLE IF NOT EXISTS pi_sessions.schema_version (version integer NOT NULL);
"""


def init_store(connection: Connection) -> tuple[int, int]:
    """Create the store or migrate it to `VERSION`, in one transaction (two `init`s at once
    wait for each other): (the version it had, the version it has)."""
    with connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(hashtext('pi_sessions.schema'))")
        connection.execute(_BOOTSTRAP)
        row = connection.execute("SELECT max(version) FROM pi_sessions.schema_version").fetchone()
        before = int(row[0]) if row and row[0] is not None else 0
        if before > VERSION:
            raise StoreError(_newer(before))
        for migration in MIGRATIONS[before:]:
            connection.execute(migration)
        connection.execute("DELETE FROM pi_sessions.schema_version")
        connection.execute("INSERT INTO pi_sessions.schema_version VALUES (%s)", (VERSION,))
    return before, VERSION


def check_schema(connection: Connection) -> None:
    """Raise a `StoreError` unless the database holds a store of our version."""
    row = connection.execute(
        "SELECT to_regclass('pi_sessions.schema_version') IS NOT NULL"
        " AND has_table_privilege('pi_sessions.schema_version', 'SELECT')"
    ).fetchone()
    version = None
    if row and row[0]:
        found = connection.execute("SELECT max(version) FROM pi_sessions.schema_version").fetchone()
        version = found[0] if found else None
    if version is None:
        raise StoreError("no pi-sessions store in this database: run `pi-sessions store init DSN` first")
    if version > VERSION:
        raise StoreError(_newer(version))
    if version < VERSION:
        raise StoreError(
            f"the store has schema version {version}, this pi-sessions needs {VERSION}:"
            " run `pi-sessions store init DSN` to migrate it"
        )


def _newer(version: int) -> str:
    return (
        f"the store has schema version {version}, newer than this pi-sessions knows ({VERSION}):"
        " upgrade pi-sessions"
    )


def grant_reading(connection: Connection, role: str, revoke: bool = False) -> bool:
    """Let `role` (and every role that is a member of it) read every session in the store,
    or no longer (`revoke`): whether anything changed."""
    exists = connection.execute("SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = %s", (role,)).fetchone()
    if not exists and not revoke:
        raise StoreError(f"no role named {role!r} in this server")
    if revoke:
        cursor = connection.execute("DELETE FROM pi_sessions.readers WHERE role = %s", (role,))
    else:
        cursor = connection.execute(
            "INSERT INTO pi_sessions.readers (role) VALUES (%s) ON CONFLICT DO NOTHING", (role,)
        )
    return cursor.rowcount > 0


def readers(connection: Connection) -> list[str]:
    return [r[0] for r in connection.execute("SELECT role FROM pi_sessions.readers ORDER BY role")]
