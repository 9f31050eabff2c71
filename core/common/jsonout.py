"""JSON output that never fails on what a session may hold (lone surrogates, huge numbers),
and that is inert on a terminal: characters that act as controls there are written escaped."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

_encoder = msgspec.json.Encoder()


def encode_json(value: Any) -> bytes:
    """Compact JSON bytes, as JSON.stringify writes them (non-finite numbers become null)."""
    try:
        return _encoder.encode(value)
    except (msgspec.EncodeError, UnicodeEncodeError, OverflowError, TypeError, ValueError):
        import json

        # ASCII escapes keep lone surrogates as \udXXXX, the way JSON.stringify writes them.
        return json.dumps(_js_safe(value), ensure_ascii=True, separators=(",", ":")).encode()


def encode_json_items(values: list[Any]) -> bytes:
    """The items of `values`, each as `encode_json` gives it, joined by commas (a JSON array
    without its brackets; empty for no items): one call for many small values."""
    try:
        return _encoder.encode(values)[1:-1]
    except (msgspec.EncodeError, UnicodeEncodeError, OverflowError, TypeError, ValueError):
        return b",".join(map(encode_json, values))


def _js_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_js_safe(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _js_safe(v) for k, v in value.items()}
    return value


# The UTF-8 of what core/common/text.py replaces that JSON itself does not escape (it escapes
# only below U+0020): DEL, C1 (U+009B is a CSI), bidi controls, U+2028/2029, zero-width and
# invisible fillers, tag characters. Each is a whole character: these lead bytes never follow
# another character's lead byte, so a match cannot start inside one.
_TERMINAL_CONTROLS = re.compile(
    rb"\x7f|\xc2[\x80-\x9f\xad]|\xcd\x8f|\xd8\x9c|\xe1(?:\x85[\x9f\xa0]|\xa0\x8e)"
    rb"|\xe2\x80[\x8b-\x8f\xa8-\xae]|\xe2\x81[\xa0-\xaf]|\xe3\x85\xa4"
    rb"|\xef(?:\xbb\xbf|\xbe\xa0|\xbf[\xb9-\xbb])|\xf3\xa0[\x80\x81][\x80-\xbf]"
)


def _escaped(match: re.Match[bytes]) -> bytes:
    code = ord(match.group().decode("utf-8"))
    if code > 0xFFFF:  # a tag character: a surrogate pair, as JSON writes astral characters
        code -= 0x10000
        return b"\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))
    return b"\\u%04x" % code


def escape_terminal_controls(data: bytes) -> bytes:
    """Encoded JSON with every terminal control in it written as a `\\uXXXX` escape: the same
    values, but nothing a terminal acts on. (Such characters only occur inside strings.)"""
    return _TERMINAL_CONTROLS.sub(_escaped, data) if _TERMINAL_CONTROLS.search(data) else data


def escape_terminal_controls_in(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """`escape_terminal_controls` over JSON given in pieces cut anywhere (even inside a
    character): a piece's unfinished last character waits for the next piece."""
    for _, escaped in _pairs(pieces):
        yield escaped


def has_terminal_controls(pieces: Iterable[bytes]) -> bool:
    """Whether JSON given in pieces cut anywhere holds a character `escape_terminal_controls` escapes."""
    return any(a is not b for a, b in _pairs(pieces))


def _pairs(pieces: Iterable[bytes]) -> Iterator[tuple[bytes, bytes]]:
    held = b""
    for piece in pieces:
        data = held + piece if held else piece
        cut = _unfinished_tail(data)
        held = data[cut:]
        whole = data[:cut]
        yield whole, escape_terminal_controls(whole)
    if held:
        yield held, escape_terminal_controls(held)


def _unfinished_tail(data: bytes) -> int:
    """Where an unfinished UTF-8 character at the end of `data` starts (len(data): none)."""
    end = len(data)
    for back in range(1, min(4, end) + 1):
        byte = data[end - back]
        if byte < 0x80:
            return end
        if byte >= 0xC0:  # a lead byte: how long its character is
            length = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return end - back if length > back else end
    return end
