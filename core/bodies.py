"""Entry bodies read back by byte offset: the full entry as pi holds it, the latest ones kept.

A session keeps only the structure of each entry (core/records.py). What a pane draws is read
back from the file at the record's offset when it is needed, checked against the record (a
file that changed under us raises StaleFileError instead of showing another entry), migrated
as the record was, and kept in a cache bounded by count and by bytes (a big tool output is
megabytes of JSON).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any

from .lines import ByteSource, LineDecodeError, OpenReader, decode_json, read_span
from .migration import Migration
from .problems import StaleFileError
from .records import EntryRecord


def read_body(source: ByteSource, record: EntryRecord, migration: Migration | None) -> dict[str, Any]:
    """The entry `record` was read from, as pi holds it (after migration)."""
    return _body_of(read_span(source, record.offset, record.length), record, migration)


# Records read back in one go: at most this many bytes a read, skipping at most this many
# bytes between two of them (lines of other branches).
RUN_BYTES = 4 * 1024 * 1024
RUN_GAP = 64 * 1024


def read_bodies(
    source: ByteSource, records: Sequence[EntryRecord], migration: Migration | None
) -> Iterator[dict[str, Any]]:
    """`read_body` of each of `records`, in their order; records that lie close together in
    the file (a path is mostly in file order) are read with one read instead of one each."""
    reader = OpenReader(source)
    try:
        yield from _read_runs(reader, records, migration)
    finally:
        reader.close()


def _read_runs(
    reader: OpenReader, records: Sequence[EntryRecord], migration: Migration | None
) -> Iterator[dict[str, Any]]:
    start = 0
    count = len(records)
    while start < count:
        first = records[start]
        stop, end = start + 1, first.offset + first.length
        while stop < count:
            following = records[stop]
            if not (end <= following.offset <= end + RUN_GAP) or following.offset - first.offset > RUN_BYTES:
                break
            end = following.offset + following.length
            stop += 1
        if stop == start + 1:
            yield _body_of(read_span(reader, first.offset, first.length), first, migration)
        else:
            data = read_span(reader, first.offset, end - first.offset)
            view = memoryview(data)
            base = first.offset
            for record in records[start:stop]:
                at = record.offset - base
                yield _body_of(view[at : at + record.length], record, migration)
        start = stop


def _body_of(data: bytes | memoryview, record: EntryRecord, migration: Migration | None) -> dict[str, Any]:
    try:
        value = decode_json(data)
    except LineDecodeError:
        raise StaleFileError(f"line {record.line} changed on disk") from None
    if not isinstance(value, dict) or value.get("type") != record.type:
        raise StaleFileError(f"line {record.line} changed on disk")
    if migration is None and value.get("id") != record.id:
        raise StaleFileError(f"line {record.line} changed on disk")
    if migration is not None:
        migration.patch(value, record.parsed_index)
    return value


class BodyCache:
    """The most recently read bodies, by record index, up to `limit` of them and `byte_limit`
    bytes of JSON."""

    __slots__ = ("_bytes", "_items", "byte_limit", "limit")

    def __init__(self, limit: int, byte_limit: int) -> None:
        self.limit = limit
        self.byte_limit = byte_limit
        self._items: OrderedDict[int, tuple[dict[str, Any], int]] = OrderedDict()
        self._bytes = 0

    def get(self, index: int) -> dict[str, Any] | None:
        item = self._items.get(index)
        if item is None:
            return None
        self._items.move_to_end(index)
        return item[0]

    def put(self, index: int, value: dict[str, Any], size: int) -> None:
        old = self._items.pop(index, None)
        if old is not None:
            self._bytes -= old[1]
        self._items[index] = (value, size)
        self._bytes += size
        while self._items and (len(self._items) > self.limit or self._bytes > self.byte_limit):
            _, (_, dropped) = self._items.popitem(last=False)
            self._bytes -= dropped
