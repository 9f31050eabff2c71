"""Which lines of a session file's raw bytes may hold a secret: the anchors every rule's match
needs (a prefix such as AKIA, ghp_, -----BEGIN, or a keyword followed by an assignment of 16
value characters), searched before any line is decoded.

Two paths find the same lines' secrets. The general one (`candidate_lines_general`) runs one
pattern per first character over the file's lowercased bytes (Python's regex engine scans a
literal prefix fast, but an alternation of different first characters tries every position,
50 times slower): 14 passes over every byte. The fast one (`candidate_lines`, when
ahocorasick_rs is installed) finds every literal in one Aho-Corasick pass over the bytes as
they are (each keyword in all its ASCII cases: the case-insensitive rules' words), and checks
each hit's anchor where it is (the same pattern, matched there with IGNORECASE). It takes the
case-sensitive prefixes (AKIA, ghp_, eyJ...) as the rules spell them, so it may pass over a
line the general path takes (`akia` in lower case) but never one with a secret in it;
tests/unit/audit/test_anchors.py runs both over the corpus and damaged copies.

The anchors are exact for what JSON holds (quotes may come escaped, `/` as `\\/`); a file that
spells printable ASCII as `\\u00XX` escapes is decoded whole (every line a candidate).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable

__all__ = ["candidate_lines", "candidate_lines_general"]

_SP = rb"(?: |\\t)"
_Q = rb"(?:\\?[\"'])"
_ASSIGN = (
    rb"[a-z0-9_.-]*" + _Q + rb"?" + _SP + rb"*(?:[:=]|:=|=>)" + _SP + rb"*" + _Q + rb"?[a-z0-9+/_.~=\\-]{16}"
)
_URL = rb"[^\s/?#@:\"'\\<>]{1,128}:[^\s/?#@\"'\\<>]{1,128}@"
_TOKEN_VALUE = _SP + rb"+[a-z0-9._~+/\\-]{20}"
# Searched in the lowercased bytes (a superset of each rule's matches), one pattern per first
# character: alternatives sharing it cost one pass of the regex engine's literal scan.
_ANCHORS = [
    re.compile(p)
    for p in (
        rb"a(?:kia|sia|bia|cca|iza)",
        rb"g(?:h[pousr]_|ithub_pat_)",
        rb"xox[abposr]-",
        rb"hooks\.slack",
        rb"k(?:_live_|_test_|ey" + _ASSIGN + rb")",
        rb"s(?:k-|ecret" + _ASSIGN + rb")",
        rb"-----begin",
        rb"eyj[a-z0-9_-]{8,}\.eyj",
        rb"://" + _URL,
        rb":\\/\\/" + _URL,
        rb"bearer" + _TOKEN_VALUE,
        rb"token(?:" + _TOKEN_VALUE + rb"|" + _ASSIGN + rb")",
        rb"p(?:assw|wd)" + _ASSIGN,
        rb"credential" + _ASSIGN,
    )
]
_ESCAPED_ASCII = re.compile(rb"\\u00[2-7][0-9a-fA-F]")


def _lines_at(data: bytes, positions: Iterable[int]) -> list[bytes]:
    """The lines of `data` holding these positions, in file order, each once."""
    spans: dict[int, int] = {}
    rfind, find = data.rfind, data.find
    for position in positions:
        start = rfind(b"\n", 0, position) + 1
        if start in spans:
            continue
        end = find(b"\n", position)
        spans[start] = len(data) if end < 0 else end
    return [data[s : spans[s]] for s in sorted(spans)]


def _every_line(data: bytes) -> list[bytes]:
    return [line for line in data.split(b"\n") if line.strip()]


def candidate_lines_general(data: bytes) -> list[bytes]:
    """The lines of `data` that may hold a secret (in file order, each once): the regex passes."""
    if _ESCAPED_ASCII.search(data):
        return _every_line(data)
    lowered = data.lower()
    return _lines_at(data, (m.start() for pattern in _ANCHORS for m in pattern.finditer(lowered)))


# ---------------------------------------------------------------------- the fast path
# (literal as the rules spell it, or None for a keyword found in every case; what must follow it)
_I = re.IGNORECASE
_LITERALS: tuple[tuple[bytes, bool, re.Pattern[bytes] | None], ...] = (
    *((p, True, None) for p in (b"AKIA", b"ASIA", b"ABIA", b"ACCA", b"AIza", b"github_pat_", b"hooks.slack")),
    *((b"gh" + c + b"_", True, None) for c in (b"p", b"o", b"u", b"s", b"r")),
    *((b"xox" + c + b"-", True, None) for c in (b"a", b"b", b"p", b"o", b"s", b"r")),
    (b"_live_", True, None),
    (b"_test_", True, None),
    (b"sk-", True, None),
    (b"-----BEGIN", True, None),
    (b"eyJ", True, re.compile(rb"eyJ[A-Za-z0-9_-]{8,}\.eyJ")),
    (b"://", True, re.compile(rb"://" + _URL)),
    (b":\\/\\/", True, re.compile(rb":\\/\\/" + _URL)),
    (b"key", False, re.compile(rb"key" + _ASSIGN, _I)),
    (b"secret", False, re.compile(rb"secret" + _ASSIGN, _I)),
    (b"bearer", False, re.compile(rb"bearer" + _TOKEN_VALUE, _I)),
    (b"token", False, re.compile(rb"token(?:" + _TOKEN_VALUE + rb"|" + _ASSIGN + rb")", _I)),
    (b"passw", False, re.compile(rb"passw" + _ASSIGN, _I)),
    (b"pwd", False, re.compile(rb"pwd" + _ASSIGN, _I)),
    (b"credential", False, re.compile(rb"credential" + _ASSIGN, _I)),
)


def _cases(word: bytes) -> list[bytes]:
    """Every ASCII spelling of `word` (TOKEN, Token, tOkEn...)."""
    options = [(bytes([c]).lower(), bytes([c]).upper()) if chr(c).isalpha() else (bytes([c]),) for c in word]
    return list(dict.fromkeys(b"".join(p) for p in itertools.product(*options)))


def _fast_finder() -> Callable[[bytes], list[bytes]] | None:
    try:
        from ahocorasick_rs import BytesAhoCorasick, Implementation
    except ImportError:  # (the general path then)
        return None
    patterns: list[bytes] = []
    checks: list[re.Pattern[bytes] | None] = []
    for literal, exact, check in _LITERALS:
        for spelling in [literal] if exact else _cases(literal):
            patterns.append(spelling)
            checks.append(check)
    escape = len(patterns)  # (`\u00`: a file that escapes printable ASCII is decoded whole)
    patterns.append(b"\\u00")
    checks.append(_ESCAPED_ASCII)
    automaton = BytesAhoCorasick(patterns, implementation=Implementation.DFA)
    search = automaton.find_matches_as_indexes

    def candidates(data: bytes) -> list[bytes]:
        hits = []
        for index, start, _ in search(data, overlapping=True):
            check = checks[index]
            if check is None or check.match(data, start):
                if index == escape:
                    return _every_line(data)
                hits.append(start)
        return _lines_at(data, hits) if hits else []

    return candidates


_FAST = _fast_finder()


def candidate_lines(data: bytes) -> list[bytes]:
    """The lines of `data` that may hold a secret (in file order, each once)."""
    return _FAST(data) if _FAST is not None else candidate_lines_general(data)
