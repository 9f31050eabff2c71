"""Entry bodies read back by byte offset: the full entry as pi holds it, the latest ones kept.

A session keeps only the structure of each entry (core/reading/records.py). What a pane draws is read
back from the file at the record's offset when it is needed, checked against the record (a
file that changed under us raises StaleFileError instead of showing another entry), migrated
as the record was, and kept in a cache bounded by count and by bytes (a big tool output is
megabytes of JSON).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from itertools import repeat
from operator import attrgetter
from typing import Any

import msgspec

from ..common.problems import StaleFileError
from .lines import ByteSource, LineDecodeError, OpenReader, decode_json, read_span
from .migration import Migration
from .records import EntryRecord


def read_body(source: ByteSource, record: EntryRecord, migration: Migration | None) -> dict[str, Any]:
    """The entry `record` was read from, as pi holds it (after migration)."""
    return _body_of(read_span(source, record.offset, record.length), record, migration)


# Records read back in one go: at most this many bytes a read, skipping at most this many
# bytes between two of them (lines of other branches).
RUN_BYTES = 1024 * 1024
RUN_GAP = 64 * 1024


def read_bodies(
    source: ByteSource, records: Sequence[EntryRecord], migration: Migration | None
) -> Iterator[dict[str, Any]]:
    """`read_body` of each of `records`, in their order; records that lie close together in
    the file (a path is mostly in file order) are read with one read instead of one each."""
    for run in read_body_runs(source, records, migration):
        yield from run


def read_body_runs(
    source: ByteSource, records: Sequence[EntryRecord], migration: Migration | None
) -> Iterator[list[dict[str, Any]]]:
    """`read_bodies`, a read's worth at a time: lists that together hold every body, in order."""
    for data, base, run, gapless in _read_runs(source, records):
        yield _bodies_in(data, base, run, gapless, migration)


def read_message_runs(source: ByteSource, records: Sequence[EntryRecord]) -> Iterator[list[Any]]:
    """The `message` of each of `records` (message lines of a file that needs no migration),
    a read's worth at a time, in order: only each line's type, id and message are decoded
    (the type and id checked as `read_body` checks them)."""
    for data, base, run, gapless in _read_runs(source, records):
        lines = None
        if gapless:
            try:
                lines = message_line_decoder.decode_lines(data)
            except (msgspec.DecodeError, RecursionError):
                lines = None
        if (
            lines is not None
            and len(lines) == len(run)
            and _same_places(list(map(_type_of, lines)), list(map(_id_of, lines)), run)
        ):
            yield list(map(_message_of, lines))
        else:  # lines apart from each other, or one that changed: read as bodies (which say which)
            yield [body.get("message") for body in _bodies_in(data, base, run, gapless, None)]


def _read_runs(
    source: ByteSource, records: Sequence[EntryRecord]
) -> Iterator[tuple[bytes, int, Sequence[EntryRecord], bool]]:
    """The records in runs that lie close together in the file (a path is mostly in file
    order), each read with one read: (the bytes read, their offset, the run, whether its
    lines follow each other with nothing between them)."""
    reader = OpenReader(source)
    try:
        start = 0
        count = len(records)
        while start < count:
            first = records[start]
            stop, end, gapless = start + 1, first.offset + first.length, True
            while stop < count:
                following = records[stop]
                at = following.offset
                if not (end <= at <= end + RUN_GAP) or at - first.offset > RUN_BYTES:
                    break
                gapless = gapless and at == end + 1
                end = at + following.length
                stop += 1
            yield (
                read_span(reader, first.offset, end - first.offset),
                first.offset,
                records[start:stop],
                gapless,
            )
            start = stop
    finally:
        reader.close()


class MessageLine(msgspec.Struct):
    """What is decoded of a line when only its message is wanted (the rest is skipped over):
    `read_message_runs`, and the helper of core/reading/early_messages.py."""

    type: Any = None
    id: Any = None
    message: Any = None


message_line_decoder = msgspec.json.Decoder(MessageLine)
_message_of = attrgetter("message")


_decoder = msgspec.json.Decoder()


def _bodies_in(
    data: bytes, base: int, run: Sequence[EntryRecord], gapless: bool, migration: Migration | None
) -> list[dict[str, Any]]:
    """The bodies of `run`, whose lines `data` (from offset `base`) holds."""
    if gapless and len(run) > 1:
        # One line after another: all of them in one call, then checked as `_body_of` does.
        try:
            values = _decoder.decode_lines(data)
        except (msgspec.DecodeError, RecursionError):
            values = None
        if values is not None and len(values) == len(run):
            if migration is None and _same_entries(values, run):
                return values
            for value, record in zip(values, run, strict=True):
                if (
                    value.__class__ is not dict
                    or value.get("type") != record.type
                    or (migration is None and value.get("id") != record.id)
                ):
                    raise StaleFileError(f"line {record.line} changed on disk")
                if migration is not None:
                    migration.patch(value, record.parsed_index)
            return values
    view = memoryview(data)
    out = []
    for record in run:
        at = record.offset - base
        out.append(_body_of(view[at : at + record.length], record, migration))
    return out


_type_of, _id_of = attrgetter("type"), attrgetter("id")


def _same_entries(values: list[Any], run: Sequence[EntryRecord]) -> bool:
    """Whether each value is a dict of its record's type and id: the check of `_body_of` for
    a whole run, without a Python step per entry (False: look one by one)."""
    try:
        types, ids = list(map(dict.get, values, repeat("type"))), list(map(dict.get, values, repeat("id")))
    except TypeError:  # a value that is not a dict
        return False
    return _same_places(types, ids, run)


def _same_places(types: list[Any], ids: list[Any], run: Sequence[EntryRecord]) -> bool:
    """Whether `types` and `ids` are those of the records of `run`, in order."""
    return types == list(map(_type_of, run)) and ids == list(map(_id_of, run))


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
    bytes of JSON. Safe to share between threads (workers read bodies while the event loop
    does): a lock guards the order and the byte count; the file is read outside it, by the caller."""

    __slots__ = ("_bytes", "_items", "_lock", "byte_limit", "limit")

    def __init__(self, limit: int, byte_limit: int) -> None:
        self.limit = limit
        self.byte_limit = byte_limit
        self._items: OrderedDict[int, tuple[dict[str, Any], int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, index: int) -> dict[str, Any] | None:
        if index not in self._items:  # a miss needs no lock (one look-up is atomic): walks miss a lot
            return None
        with self._lock:  # another thread may evict it between the look-up and the move
            item = self._items.get(index)
            if item is None:
                return None
            self._items.move_to_end(index)
            return item[0]

    def indexes(self) -> frozenset[int]:
        """The indexes of the bodies held now."""
        with self._lock:
            return frozenset(self._items)

    def put(self, index: int, value: dict[str, Any], size: int) -> None:
        with self._lock:
            old = self._items.pop(index, None)
            if old is not None:
                self._bytes -= old[1]
            self._items[index] = (value, size)
            self._bytes += size
            while self._items and (len(self._items) > self.limit or self._bytes > self.byte_limit):
                _, (_, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped
