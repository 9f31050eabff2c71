"""Entry bodies read back by byte offset: the full entry as pi holds it, the latest ones kept.

A session keeps only the structure of each entry (core/records.py). What a pane draws is read
back from the file at the record's offset when it is needed, checked against the record (a
file that changed under us raises StaleFileError instead of showing another entry), migrated
as the record was, and kept in a cache bounded by count and by bytes (a big tool output is
megabytes of JSON).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .lines import ByteSource, LineDecodeError, decode_json, read_span
from .migration import Migration
from .problems import StaleFileError
from .records import EntryRecord


def read_body(source: ByteSource, record: EntryRecord, migration: Migration | None) -> dict[str, Any]:
    """The entry `record` was read from, as pi holds it (after migration)."""
    data = read_span(source, record.offset, record.length)
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
