"""Reading the store back: each stored file's bytes, its summary (the listing's own code) and its Session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..common.problems import SessionError
from ..listing.store import Listing, entry_from_bytes, sort_newest_first
from ..listing.summary import SessionSummary
from ..reading.growth import Stamp
from ..session.session import Session
from .schema import check_schema

if TYPE_CHECKING:
    from .connect import Connection

# One statement: the rows and their lines come from one snapshot, never half of a push.
_FILES = """
    SELECT s.host, s.path, s.size, s.mtime_ns, s.inode,
           coalesce((SELECT string_agg(l.raw, ''::bytea ORDER BY l.byte_offset)
                     FROM pi_sessions.lines l WHERE l.session = s.id), ''::bytea)
    FROM pi_sessions.sessions s
    WHERE (%(host)s::text IS NULL OR s.host = %(host)s)
      AND (%(path)s::text IS NULL OR s.path = %(path)s)
    ORDER BY s.host, s.path, s.owner"""


@dataclass(frozen=True, slots=True)
class StoredFile:
    host: str
    path: str  # on its host
    stamp: Stamp  # the file's size, mtime and inode when it was pushed
    data: bytes  # its lines, joined


def stored_files(
    connection: Connection, host: str | None = None, path: str | None = None
) -> list[StoredFile]:
    """Every stored file this role may read (row-level security decides), or those of `host`
    and/or at `path`."""
    check_schema(connection)
    rows = connection.execute(_FILES, {"host": host, "path": path})
    return [
        StoredFile(h, p, Stamp(int(inode), int(size), int(mtime_ns)), bytes(data))
        for h, p, size, mtime_ns, inode, data in rows
    ]


@dataclass(slots=True)
class StoredListing:
    """`Listing` over the store: each summary's host by the summary's identity."""

    listing: Listing
    hosts: dict[int, str]

    def host_of(self, summary: SessionSummary) -> str:
        return self.hosts[id(summary)]


def stored_listing(connection: Connection, host: str | None = None) -> StoredListing:
    """The listing of the stored files, made by the same code as a local one from the same
    bytes (newest first, pi's order); files that are not sessions are skipped with why."""
    listing = Listing()
    hosts: dict[int, str] = {}
    for stored in stored_files(connection, host):
        entry = entry_from_bytes(stored.path, stored.data, stored.stamp)
        if entry.summary is None:
            listing.skipped.append((f"{stored.host}:{stored.path}", entry.skipped or "not a session"))
            continue
        hosts[id(entry.summary)] = stored.host
        listing.summaries.append(entry.summary)
    sort_newest_first(listing.summaries)
    return StoredListing(listing, hosts)


def open_stored(connection: Connection, path: str, host: str | None = None) -> Session:
    """The stored session at `path` (its path on its host) as a Session read from its bytes."""
    found = stored_files(connection, host, path)
    if not found:
        where = f" from host {host}" if host is not None else ""
        raise SessionError(f"no stored session at {path}{where}")
    if len(found) > 1:
        hosts = sorted({f.host for f in found})
        if len(hosts) > 1:
            raise SessionError(
                f"{path} is stored from {len(hosts)} hosts ({', '.join(hosts)}): pick one with --host"
            )
        raise SessionError(f"{path} is stored {len(found)} times from {hosts[0]} (pushed by several roles)")
    return Session.from_bytes(found[0].data, path)
