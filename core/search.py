"""pi's session picker search (pi 1.6.0), plus which field matched and where.

A query is whitespace-separated tokens (all must match, each in any field), `"quoted
phrases"` (exact, whitespace-normalized), or `re:<pattern>` (one case-insensitive regular
expression). A token is looked for, in this order, in the name, the id, the message text and
the cwd; failing that it may match as a scattered subsequence of the name or the cwd. Scores
are pi's: lower is better, `tier * 1_000_000 + fuzzy score`, tiers name (0) / text (1) /
fuzzy (2).

`SearchIndex` prepares each session's message text once (lowercased, whitespace collapsed), so
a query over thousands of sessions only does substring scans and a few short fuzzy matches.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import TYPE_CHECKING, Generic, Literal, NamedTuple, Protocol, TypeVar

from .jsvalues import JS_WHITESPACE, js_string, js_trim

if TYPE_CHECKING:
    from .listing import SessionSummary

__all__ = [
    "EXCERPT_WIDTH",
    "TIER_FUZZY",
    "TIER_NAME",
    "TIER_TEXT",
    "TIER_WEIGHT",
    "Excerpt",
    "FuzzyMatch",
    "ParsedQuery",
    "QueryToken",
    "SearchHit",
    "SearchIndex",
    "Searchable",
    "SessionText",
    "SortOrder",
    "TokenKind",
    "filter_sessions",
    "fuzzy_match",
    "normalize_whitespace_lower",
    "parse_query",
    "translate_js_regex",
]

TIER_NAME = 0  # the token appears in the session name
TIER_TEXT = 1  # ... in the id, the message text or the cwd
TIER_FUZZY = 2  # its characters appear scattered in the name or the cwd
TIER_WEIGHT = 1_000_000

EXCERPT_WIDTH = 60
_EXCERPT_WORD_SLACK = 12  # at most this many characters are dropped to cut at a space

SortOrder = Literal["recent", "relevance"]
TokenKind = Literal["fuzzy", "phrase"]

# JavaScript's `\s` (the same set as String.prototype.trim).
_JS_SPACE_CLASS_BUT_SPACE = (
    "\\t\\n\\x0b\\x0c\\r\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
)
_JS_SPACE_CLASS = "\\x20" + _JS_SPACE_CLASS_BUT_SPACE
_JS_SPACE_RUN = re.compile(f"[{_JS_SPACE_CLASS}]+")
# Only the runs that are not a single space already (far fewer to replace).
_JS_SPACE_RUN_TO_COLLAPSE = re.compile(
    f"[{_JS_SPACE_CLASS_BUT_SPACE}][{_JS_SPACE_CLASS}]*|\\x20[{_JS_SPACE_CLASS}]+"
)
_CONTROL_CHARS = re.compile("[\x00-\x1f\x7f]")


def normalize_whitespace_lower(text: str) -> str:
    """Lowercase, every whitespace run as one space, trimmed (pi's normalizeWhitespaceLower)."""
    return _collapse_whitespace(text.lower())


def _collapse_whitespace(text: str) -> str:
    return js_trim(_JS_SPACE_RUN_TO_COLLAPSE.sub(" ", text))


# ---------------------------------------------------------------------------- fuzzy matching


class FuzzyMatch(NamedTuple):
    matches: bool
    score: float  # lower is better


_NO_MATCH = FuzzyMatch(False, 0.0)
_WORD_BOUNDARY_CHARS = frozenset(JS_WHITESPACE + "-_./:")
_LETTERS_THEN_DIGITS = re.compile(r"([a-z]+)([0-9]+)")
_DIGITS_THEN_LETTERS = re.compile(r"([0-9]+)([a-z]+)")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _surrogate_pair(match: re.Match[str]) -> str:
    offset = ord(match.group()) - 0x10000
    return chr(0xD800 + (offset >> 10)) + chr(0xDC00 + (offset & 0x3FF))


def _as_utf16_units(text: str) -> str:
    """Astral characters as surrogate pairs, so indices and lengths are JavaScript's."""
    if not _ASTRAL.search(text):
        return text
    return _ASTRAL.sub(_surrogate_pair, text)


def _score_positions(text_lower: str, positions: Iterable[int]) -> float:
    score = 0.0
    last_index = -1
    consecutive = 0
    for i in positions:
        # pi's quirk: a match at index 0 counts as consecutive to the "previous" index -1.
        if last_index == i - 1:
            consecutive += 1
            score -= consecutive * 5
        else:
            consecutive = 0
            if last_index >= 0:
                score += (i - last_index - 1) * 2  # gap penalty
        if i == 0 or text_lower[i - 1] in _WORD_BOUNDARY_CHARS:
            score -= 10
        score += i * 0.1  # later matches cost slightly more
        last_index = i
    return score


def _match_query(query: str, text: str) -> FuzzyMatch:
    """`query` and `text` are already lowercased."""
    if not query:
        return FuzzyMatch(True, 0.0)
    if len(query) > len(text):
        return _NO_MATCH
    # Greedy alignment: each character at its first occurrence after the previous one.
    positions: list[int] = []
    last_index = -1
    for ch in query:
        last_index = text.find(ch, last_index + 1)
        if last_index < 0:
            return _NO_MATCH
        positions.append(last_index)
    score = _score_positions(text, positions)
    # A contiguous occurrence may score better than the greedy alignment.
    length = len(query)
    start = text.find(query)
    while start != -1:
        score = min(score, _score_positions(text, range(start, start + length)))
        start = text.find(query, start + 1)
    if query == text:
        score -= 100
    return FuzzyMatch(True, score)


def fuzzy_match(query: str, text: str) -> FuzzyMatch:
    """pi-tui's fuzzyMatch: `query`'s characters in order in `text`, case-insensitively.

    When that fails, a query of letters then digits ("v2") is retried as digits then letters
    ("2v"), and vice versa, at a cost of 5.
    """
    query_lower = _as_utf16_units(query.lower())
    text_lower = _as_utf16_units(text.lower())
    primary = _match_query(query_lower, text_lower)
    if primary.matches:
        return primary
    parts = _LETTERS_THEN_DIGITS.fullmatch(query_lower) or _DIGITS_THEN_LETTERS.fullmatch(query_lower)
    if parts is None:
        return primary
    swapped = _match_query(parts.group(2) + parts.group(1), text_lower)
    if not swapped.matches:
        return primary
    return FuzzyMatch(True, swapped.score + 5)


# ---------------------------------------------------------------------------- JavaScript regex


class _RegexSyntaxError(Exception):
    pass


_ASCII_WORD = "A-Za-z0-9_"
_CLASS_SHORTHANDS = {"d": "0-9", "w": _ASCII_WORD, "s": _JS_SPACE_CLASS}
_WORD_BOUNDARY = "(?a:\\b)"  # Python's ASCII \b is JavaScript's
_NOT_WORD_BOUNDARY = "(?:(?a:\\B)|\\A\\Z)"  # Python 3.11: \B never matches an empty string
_ANY_BUT_LINE_END = "[^\\n\\r\\u2028\\u2029]"
_HEX = frozenset("0123456789abcdefABCDEF")
_OCTAL = frozenset("01234567")
_GROUP_NAME = re.compile(r"<([^>]*)>")
_BRACE_QUANTIFIER = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")
_CONTROL_ESCAPES = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}

# A class member: (one character, a set spelled for inside [], the body of a negated set)
_ClassAtom = tuple[str | None, str | None, str | None]


class _OpenGroup(NamedTuple):
    number: int | None  # capture number
    name: str | None
    lookbehind: bool


def _literal(ch: str) -> str:
    """One character as a Python pattern (or class member) that matches just it."""
    code = ord(ch)
    if ch.isascii() and ch.isalnum():
        return ch
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


@cache
def _case_variants() -> tuple[dict[str, str], list[str]]:
    """JavaScript's case-insensitive classes (flag `i` without `u`): two UTF-16 units are
    equal when their one-character uppercase forms are, except that nothing outside ASCII
    becomes ASCII ("ſ" is not "s", the Kelvin sign is not "k"). Python's IGNORECASE is wider,
    so the translation spells the variants out instead. Returns each cased character's
    variants, and the sorted cased characters."""
    groups: dict[str, str] = {}
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        upper = ch.upper()
        key = upper if len(upper) == 1 and (code < 128 or ord(upper) >= 128) else ch
        groups[key] = groups.get(key, "") + ch
    variants: dict[str, str] = {}
    for members in groups.values():
        if len(members) > 1:
            for ch in members:
                variants[ch] = members
    return variants, sorted(variants)


def _case_insensitive(ch: str) -> str:
    """A literal character, matching its case variants."""
    members = _case_variants()[0].get(ch)
    if members is None:
        return _literal(ch)
    return "[" + "".join(_literal(m) for m in members) + "]"


def _class_range(low: str, high: str) -> str:
    """`low-high` inside a class, plus the case variants of the cased characters in it."""
    variants, cased = _case_variants()
    extra = {m for ch in cased[bisect_left(cased, low) : bisect_right(cased, high)] for m in variants[ch]}
    extra = {m for m in extra if not low <= m <= high}
    spelled = _literal(low) if low == high else f"{_literal(low)}-{_literal(high)}"
    return spelled + "".join(_literal(m) for m in sorted(extra))


class _JsRegexTranslator:
    """JavaScript regular expression syntax (flag `i`, no `u`, with Annex B's leniency) to an
    equivalent Python pattern, compiled without flags.

    What differs: `\\d \\w \\s \\b` are ASCII/JavaScript sets, `.` excludes every line
    terminator, `$` is only the end, case-insensitivity is narrower, `(?<name>` and
    `\\k<name>` are spelled differently, a group that has not matched matches the empty
    string, unknown escapes such as `\\a` are the letter itself, `[]` and `[^]` exist, and
    Python-only syntax (`(?P<`, `(?i)`, `(?>`, `a*+`, quantified `\\b`) is refused.
    """

    def __init__(self, pattern: str) -> None:
        self.src = _as_utf16_units(pattern)  # without `u`, a pattern is UTF-16 code units
        self.pos = 0
        self.group_count, self.group_names = self._count_groups()
        self.open_groups: list[_OpenGroup] = []
        self.opened = 0  # capture groups opened so far
        self.closed: set[int | str] = set()  # numbers and names of the groups closed so far

    def _count_groups(self) -> tuple[int, set[str]]:
        src, count, i, in_class = self.src, 0, 0, False
        names: set[str] = set()
        while i < len(src):
            ch = src[i]
            if ch == "\\":
                i += 2
                continue
            if in_class:
                in_class = ch != "]"
            elif ch == "[":
                in_class = True
            elif ch == "(":
                if not src.startswith("?", i + 1):
                    count += 1
                elif src.startswith("?<", i + 1) and src[i + 3 : i + 4] not in ("=", "!"):
                    count += 1
                    name = _GROUP_NAME.match(src, i + 2)
                    if name:
                        names.add(name.group(1))
            i += 1
        return count, names

    def translate(self) -> str:
        out: list[str] = []
        src = self.src
        quantifiable = False  # JavaScript refuses `^*`, `\b+`, `(?<=a)?`, `|*`...
        while self.pos < len(src):
            ch = src[self.pos]
            self.pos += 1
            if ch in "*+?" or (ch == "{" and _BRACE_QUANTIFIER.match(src, self.pos - 1)):
                if not quantifiable:
                    raise _RegexSyntaxError("Nothing to repeat")
                if ch == "{":
                    braces = _BRACE_QUANTIFIER.match(src, self.pos - 1)
                    assert braces is not None
                    self.pos = braces.end()
                    ch = braces.group()
                out.append(ch + self._quantifier_suffix())
                quantifiable = False
                continue
            quantifiable = True
            if ch == "\\":
                if src.startswith(("b", "B"), self.pos):
                    quantifiable = False
                out.append(self._escape())
            elif ch == "[":
                out.append(self._char_class())
            elif ch == ".":
                out.append(_ANY_BUT_LINE_END)
            elif ch in "^$|":
                out.append("\\Z" if ch == "$" else ch)
                quantifiable = False
            elif ch == "(":
                out.append(self._group_open())
                quantifiable = False
            elif ch == ")":
                out.append(ch)
                if self.open_groups:
                    group = self.open_groups.pop()
                    self.closed.update(g for g in (group.number, group.name) if g is not None)
                    quantifiable = not group.lookbehind
            else:
                out.append(_case_insensitive(ch))  # `{`, `}` and `]` are literals here too
        return "".join(out)

    def _quantifier_suffix(self) -> str:
        """The lazy `?` after a quantifier; `a*+` (possessive in Python) is an error in JavaScript."""
        suffix = ""
        if self.src.startswith("?", self.pos):
            self.pos += 1
            suffix = "?"
        if self.src.startswith("+", self.pos):
            raise _RegexSyntaxError("Nothing to repeat")
        return suffix

    def _group_open(self) -> str:
        src, pos = self.src, self.pos
        if not src.startswith("?", pos):
            self.opened += 1
            self.open_groups.append(_OpenGroup(self.opened, None, False))
            return "("
        head = src[pos + 1 : pos + 3]
        if head[:1] in (":", "=", "!") or head in ("<=", "<!"):
            opener = "(?" + (head if head[0] == "<" else head[0])
            self.pos += len(opener) - 1
            self.open_groups.append(_OpenGroup(None, None, head[0] == "<"))
            return opener
        if head[:1] != "<":
            raise _RegexSyntaxError("Invalid group")
        name = _GROUP_NAME.match(src, pos + 1)
        if name is None:
            raise _RegexSyntaxError("Invalid capture group name")
        self.pos = name.end()
        self.opened += 1
        self.open_groups.append(_OpenGroup(self.opened, name.group(1), False))
        return f"(?P<{name.group(1)}>"

    def _backreference(self, group: int | str) -> str:
        """In JavaScript a group that has not matched (yet) matches the empty string; Python
        fails there, and refuses references to groups not closed yet."""
        if group not in self.closed:
            return "(?:)"
        reference = f"\\{group}" if isinstance(group, int) else f"(?P={group})"
        return f"(?i:(?({group}){reference}))"

    def _escape(self) -> str:
        """The escape after a backslash outside a character class."""
        src = self.src
        if self.pos >= len(src):
            raise _RegexSyntaxError("\\ at end of pattern")
        ch = src[self.pos]
        self.pos += 1
        if ch in _CLASS_SHORTHANDS:
            return f"[{_CLASS_SHORTHANDS[ch]}]"
        if ch.lower() in _CLASS_SHORTHANDS:
            return f"[^{_CLASS_SHORTHANDS[ch.lower()]}]"
        if ch == "b":
            return _WORD_BOUNDARY
        if ch == "B":
            return _NOT_WORD_BOUNDARY
        if ch == "k" and self.group_names:
            name = _GROUP_NAME.match(src, self.pos)
            if name is None:
                raise _RegexSyntaxError("Invalid named reference")
            if name.group(1) not in self.group_names:
                raise _RegexSyntaxError("Invalid named capture referenced")
            self.pos = name.end()
            return self._backreference(name.group(1))
        if ch in "123456789":
            end = self.pos
            while end < len(src) and src[end] in "0123456789":
                end += 1
            number = int(src[self.pos - 1 : end])
            if number <= self.group_count:
                self.pos = end
                return self._backreference(number)
        if ch == "c" and not (
            src[self.pos : self.pos + 1].isascii() and src[self.pos : self.pos + 1].isalpha()
        ):
            self.pos -= 1  # a lone `\c` is a backslash, then the letter c
            return "\\\\"
        self.pos -= 1
        return _case_insensitive(self._escaped_character(in_class=False))

    def _escaped_character(self, in_class: bool) -> str:
        """The one character an escape stands for (`self.pos` is just after the backslash)."""
        src = self.src
        ch = src[self.pos]
        self.pos += 1
        if ch in _CONTROL_ESCAPES:
            return _CONTROL_ESCAPES[ch]
        if ch == "c":  # `\cJ`; in a class also `\c1` and `\c_`
            letter = src[self.pos : self.pos + 1]
            if letter.isascii() and (letter.isalpha() or (in_class and (letter.isdigit() or letter == "_"))):
                self.pos += 1
                return chr(ord(letter) % 32)
            self.pos -= 1  # a lone `\c` in a class is a backslash, then the "c"
            return "\\"
        if ch == "x" and len(src) >= self.pos + 2 and set(src[self.pos : self.pos + 2]) <= _HEX:
            self.pos += 2
            return chr(int(src[self.pos - 2 : self.pos], 16))
        if ch == "u" and len(src) >= self.pos + 4 and set(src[self.pos : self.pos + 4]) <= _HEX:
            self.pos += 4
            return chr(int(src[self.pos - 4 : self.pos], 16))
        if ch in _OCTAL:
            return chr(self._legacy_octal(ch))
        if ch == "b" and in_class:
            return "\b"
        return ch  # identity escapes: `\a` is "a", `\/` is "/"

    def _legacy_octal(self, first: str) -> int:
        """Annex B's `\\0`, `\\7`, `\\17`, `\\377` (at most 0o377)."""
        src = self.src
        value = int(first)
        if self.pos < len(src) and src[self.pos] in _OCTAL:
            value = value * 8 + int(src[self.pos])
            self.pos += 1
            if first in "0123" and self.pos < len(src) and src[self.pos] in _OCTAL:
                value = value * 8 + int(src[self.pos])
                self.pos += 1
        return value

    def _class_atom(self) -> _ClassAtom:
        src = self.src
        ch = src[self.pos]
        self.pos += 1
        if ch != "\\":
            return ch, None, None
        if self.pos >= len(src):
            raise _RegexSyntaxError("\\ at end of pattern")
        ch = src[self.pos]
        if ch in _CLASS_SHORTHANDS:
            self.pos += 1
            return None, _CLASS_SHORTHANDS[ch], None
        if ch.lower() in _CLASS_SHORTHANDS:
            self.pos += 1
            return None, None, _CLASS_SHORTHANDS[ch.lower()]
        return self._escaped_character(in_class=True), None, None

    def _char_class(self) -> str:
        src = self.src
        negated = src.startswith("^", self.pos)
        if negated:
            self.pos += 1
        members: list[str] = []
        complements: list[str] = []  # bodies of `\D \W \S`, which are [^body]

        def add(atom: _ClassAtom) -> None:
            single, spelled, complement = atom
            if single is not None:
                members.append(_class_range(single, single))
            elif spelled is not None:
                members.append(spelled)
            elif complement is not None:
                complements.append(complement)

        while True:
            if self.pos >= len(src):
                raise _RegexSyntaxError("Unterminated character class")
            if src[self.pos] == "]":  # even first: `[]` matches nothing, `[^]` anything
                self.pos += 1
                break
            low = self._class_atom()
            if not (src.startswith("-", self.pos) and self.pos + 1 < len(src) and src[self.pos + 1] != "]"):
                add(low)
                continue
            self.pos += 1
            high = self._class_atom()
            if low[0] is None or high[0] is None:  # `[\d-z]`: three members (Annex B)
                add(low)
                members.append(_literal("-"))
                add(high)
            elif ord(high[0]) < ord(low[0]):
                raise _RegexSyntaxError("Range out of order in character class")
            else:
                members.append(_class_range(low[0], high[0]))
        body = "".join(members)
        if not complements:
            if not body:
                return "[\\s\\S]" if negated else "(?!)"
            return f"[{'^' if negated else ''}{body}]"
        if not negated:  # the union of the members and the complemented sets
            options = ([f"[{body}]"] if body else []) + [f"[^{c}]" for c in complements]
            return f"(?:{'|'.join(options)})"
        # Negated: not a member, and inside every complemented set's body.
        guard = f"(?![{body}])" if body else ""
        return f"(?:{guard}{''.join(f'(?=[{c}])' for c in complements[1:])}[{complements[0]}])"


def translate_js_regex(pattern: str) -> str:
    """A JavaScript pattern with flag `i` as an equivalent Python pattern (to compile without
    flags); raises `re.error` for what JavaScript would refuse."""
    try:
        return _JsRegexTranslator(pattern).translate()
    except _RegexSyntaxError as e:
        raise re.error(str(e)) from None


# ---------------------------------------------------------------------------- queries


@dataclass(frozen=True, slots=True)
class QueryToken:
    kind: TokenKind
    value: str


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    mode: Literal["tokens", "regex"]
    tokens: tuple[QueryToken, ...] = ()
    # Translated from JavaScript; it reads UTF-16 units (astral characters as surrogate pairs).
    regex: re.Pattern[str] | None = None
    error: str | None = None
    text: str = ""  # the query, trimmed

    @property
    def is_blank(self) -> bool:
        """A blank query: every session, in the given order (`""` is not blank: it matches all
        with score 0, so "relevance" still sorts them newest first)."""
        return not self.text


def parse_query(text: str) -> ParsedQuery:
    """pi's parseSearchQuery: tokens and "quoted phrases", or `re:<pattern>`."""
    trimmed = js_trim(text)
    if not trimmed:
        return ParsedQuery("tokens")
    if trimmed.startswith("re:"):
        pattern = js_trim(trimmed[3:])
        if not pattern:
            return ParsedQuery("regex", error="Empty regex", text=trimmed)
        try:
            regex = re.compile(translate_js_regex(pattern))
        except (re.error, RecursionError, OverflowError) as e:
            reason = e.msg if isinstance(e, re.error) else str(e)
            error = f"Invalid regular expression: /{pattern}/i: {reason}"
            return ParsedQuery("regex", error=error, text=trimmed)
        return ParsedQuery("regex", regex=regex, text=trimmed)

    tokens: list[QueryToken] = []
    buffer: list[str] = []
    in_quote = False

    def flush(kind: TokenKind) -> None:
        value = js_trim("".join(buffer))
        buffer.clear()
        if value:
            tokens.append(QueryToken(kind, value))

    for ch in trimmed:
        if ch == '"':
            flush("phrase" if in_quote else "fuzzy")
            in_quote = not in_quote
        elif not in_quote and ch in JS_WHITESPACE:
            flush("fuzzy")
        else:
            buffer.append(ch)
    if in_quote:  # unbalanced quotes: plain whitespace-separated tokens, quotes kept
        words = _JS_SPACE_RUN.split(trimmed)
        return ParsedQuery("tokens", tuple(QueryToken("fuzzy", w) for w in words if w), text=trimmed)
    flush("fuzzy")
    return ParsedQuery("tokens", tuple(tokens), text=trimmed)


# ---------------------------------------------------------------------------- sessions


class Searchable(Protocol):
    """What the search reads from one session."""

    @property
    def name(self) -> str | None: ...

    @property
    def id(self) -> str: ...

    @property
    def cwd(self) -> str: ...

    @property
    def message_text(self) -> str:
        """Every user/assistant message text, joined with " " (pi's allMessagesText)."""
        ...

    @property
    def modified_ms(self) -> float: ...


@dataclass(frozen=True, slots=True)
class SessionText:
    """A ready-made `Searchable`."""

    id: str
    cwd: str = ""
    name: str | None = None
    message_text: str = ""
    modified_ms: float = 0.0
    path: str = ""

    @classmethod
    def from_summary(cls, summary: SessionSummary, texts: Iterable[str] = ()) -> SessionText:
        return cls(
            id=js_string(summary.id),
            cwd=summary.cwd,
            name=summary.name,
            message_text=" ".join(texts),
            modified_ms=summary.modified_ms,
            path=summary.path,
        )


T = TypeVar("T", bound=Searchable)


class _MessageText:
    """One session's message text, prepared once."""

    __slots__ = ("_flat", "_utf16", "normalized", "original")

    def __init__(self, original: str) -> None:
        self.original = original
        # Lowercased, whitespace runs as one space, trimmed. A token without whitespace is
        # in pi's lowercased text exactly when it is in this one, so one copy serves both.
        self.normalized = normalize_whitespace_lower(original)
        self._flat: str | None = None
        self._utf16: str | None = None

    @property
    def utf16(self) -> str:
        """The original text as JavaScript's regular expressions see it (for `re:`)."""
        if self._utf16 is None:
            self._utf16 = _as_utf16_units(self.original)
        return self._utf16

    @property
    def flat(self) -> str:
        """The original text with whitespace collapsed (what excerpts are cut from)."""
        if self._flat is None:
            self._flat = _collapse_whitespace(self.original)
        return self._flat

    def flat_index_of_normalized(self, index: int) -> int:
        flat = self.flat
        if len(flat) == len(self.normalized):
            return index
        # Lowercasing changed some lengths ("İ" is two characters lowercased): walk.
        consumed = 0
        for position, ch in enumerate(flat):
            if consumed >= index:
                return position
            consumed += len(ch.lower())
        return len(flat)

    def flat_index_of_utf16(self, index: int) -> int:
        head = self.utf16[:index]
        if self.utf16 is not self.original:
            head = head.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        return min(len(self.flat), len(_collapse_whitespace(head + "x")) - 1)


class _Entry(Generic[T]):
    __slots__ = (
        "cwd",
        "cwd_lower",
        "cwd_normalized",
        "id",
        "id_lower",
        "item",
        "modified_ms",
        "name",
        "name_lower",
        "name_normalized",
        "named",
        "text",
    )

    def __init__(self, item: T, text: _MessageText) -> None:
        self.item = item
        self.name = item.name or ""
        self.name_lower = self.name.lower()
        self.name_normalized = normalize_whitespace_lower(self.name)
        self.named = bool(js_trim(self.name))
        self.id = item.id
        self.id_lower = item.id.lower()
        self.cwd = item.cwd
        self.cwd_lower = item.cwd.lower()
        self.cwd_normalized = normalize_whitespace_lower(item.cwd)
        self.modified_ms = item.modified_ms
        self.text = text


def _tier_score(tier: int, score: float = 0.0) -> float:
    return tier * TIER_WEIGHT + score


_NAME_SCORE = _tier_score(TIER_NAME)
_TEXT_SCORE = _tier_score(TIER_TEXT)


class _TokenMatch(NamedTuple):
    score: float
    field: str
    start: int = -1  # a message match: where, in the normalized text (the UTF-16 one for a regex)
    end: int = -1


def _match_in(entry: _Entry[T], value: str, name: str, cwd: str) -> _TokenMatch | None:
    """pi's order for a plain value: name, id, message, cwd. `value` is lowercased; `name`
    and `cwd` are the entry's fields prepared the same way (lowercased, or also
    whitespace-normalized for a phrase). Messages and ids only match exactly."""
    if value in name:
        return _TokenMatch(_tier_score(TIER_NAME, fuzzy_match(value, name).score), "name")
    if value in entry.id_lower:
        return _TokenMatch(_TEXT_SCORE, "id")
    start = entry.text.normalized.find(value)
    if start >= 0:
        return _TokenMatch(_TEXT_SCORE, "message", start, start + len(value))
    if value in cwd:
        return _TokenMatch(_TEXT_SCORE, "cwd")
    return None


def _match_fuzzy(entry: _Entry[T], value: str) -> _TokenMatch | None:
    literal = _match_in(entry, value.lower(), entry.name_lower, entry.cwd_lower)
    if literal is not None:
        return literal
    best: _TokenMatch | None = None
    for field_name, text in (("name~", entry.name), ("cwd~", entry.cwd)):
        matched, score = fuzzy_match(value, text)
        if matched and (best is None or score < best.score):
            best = _TokenMatch(score, field_name)
    if best is None:
        return None
    return _TokenMatch(_tier_score(TIER_FUZZY, best.score), best.field)


def _match_regex(entry: _Entry[T], regex: re.Pattern[str]) -> _TokenMatch | None:
    """`regex` comes from `translate_js_regex`: it reads UTF-16 code units, as JavaScript does."""
    if entry.name and regex.search(_as_utf16_units(entry.name)):
        return _TokenMatch(_NAME_SCORE, "name")
    if regex.search(_as_utf16_units(entry.id)):
        return _TokenMatch(_TEXT_SCORE, "id")
    found = regex.search(entry.text.utf16)
    if found:
        return _TokenMatch(_TEXT_SCORE, "message", found.start(), found.end())
    if regex.search(_as_utf16_units(entry.cwd)):
        return _TokenMatch(_TEXT_SCORE, "cwd")
    return None


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class Excerpt:
    """A short stretch of message text (whitespace collapsed) around a match."""

    text: str
    match_start: int  # the match within `text`
    match_end: int

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class _MessageSpan:
    text: _MessageText
    start: int
    end: int
    in_utf16: bool  # a regex match indexes the UTF-16 text, a token the normalized one


def _cut_excerpt(flat: str, start: int, end: int, width: int) -> Excerpt:
    end = max(start, min(end, len(flat)))
    slack = width - (end - start)
    left = max(0, start - max(0, slack) // 2)
    right = min(len(flat), left + width)
    left = max(0, min(left, right - width))
    # Whole words at the edges, when a space is near enough.
    if left > 0:
        space = flat.find(" ", left - 1, min(start, left + _EXCERPT_WORD_SLACK))
        if space >= 0:
            left = space + 1
    if right < len(flat):
        space = flat.rfind(" ", max(end, right - _EXCERPT_WORD_SLACK), right + 1)
        if space >= 0:
            right = space
    body = _CONTROL_CHARS.sub(" ", flat[left:right])
    prefix = "…" if left > 0 else ""
    suffix = "…" if right < len(flat) else ""
    offset = len(prefix) - left
    return Excerpt(prefix + body + suffix, start + offset, min(end, right) + offset)


@dataclass(frozen=True)
class SearchHit(Generic[T]):
    """One session that matched, with pi's score and where its tokens matched."""

    item: T
    score: float = 0.0  # pi's score: lower is better
    # Where each token matched, in query order without repeats: "name", "id", "message",
    # "cwd", or "name~"/"cwd~" for a scattered (fuzzy) match. Empty for an empty query.
    fields: tuple[str, ...] = ()
    _message_span: _MessageSpan | None = field(default=None, repr=False, compare=False)

    @cached_property
    def excerpt(self) -> Excerpt | None:
        """About EXCERPT_WIDTH characters of message text around the earliest message match."""
        span = self._message_span
        if span is None:
            return None
        text = span.text
        if span.in_utf16:
            start, end = text.flat_index_of_utf16(span.start), text.flat_index_of_utf16(span.end)
        else:
            start, end = text.flat_index_of_normalized(span.start), text.flat_index_of_normalized(span.end)
        return _cut_excerpt(text.flat, start, end, EXCERPT_WIDTH)


def _match_entry(entry: _Entry[T], query: ParsedQuery) -> SearchHit[T] | None:
    if query.mode == "regex":
        if query.regex is None:
            return None
        found = _match_regex(entry, query.regex)
        if found is None:
            return None
        regex_span = _MessageSpan(entry.text, found.start, found.end, True) if found.start >= 0 else None
        return SearchHit(entry.item, found.score, (found.field,), regex_span)
    total = 0.0
    fields: list[str] = []
    span: _MessageSpan | None = None
    for token in query.tokens:
        if token.kind == "phrase":
            phrase = normalize_whitespace_lower(token.value)
            if not phrase:
                continue
            found = _match_in(entry, phrase, entry.name_normalized, entry.cwd_normalized)
        else:
            found = _match_fuzzy(entry, token.value)
        if found is None:
            return None
        total += found.score
        if found.field not in fields:
            fields.append(found.field)
        if found.start >= 0 and (span is None or found.start < span.start):
            span = _MessageSpan(entry.text, found.start, found.end, False)
    return SearchHit(entry.item, total, tuple(fields), span)


class SearchIndex(Generic[T]):
    """Sessions prepared for searching; keep it and call `update` when the list changes."""

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._entries: list[_Entry[T]] = []
        self._texts: dict[str, _MessageText] = {}
        self.update(items)

    def update(self, items: Iterable[T]) -> None:
        """Take a new list (and order). Message texts seen before are not prepared again."""
        previous = self._texts
        texts: dict[str, _MessageText] = {}
        entries: list[_Entry[T]] = []
        for item in items:
            source = item.message_text
            text = texts.get(source) or previous.get(source)
            if text is None:
                text = _MessageText(source)
            texts[source] = text
            entries.append(_Entry(item, text))
        self._entries = entries
        self._texts = texts

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def items(self) -> list[T]:
        return [entry.item for entry in self._entries]

    def search(
        self, query: str | ParsedQuery, order: SortOrder = "recent", named_only: bool = False
    ) -> list[SearchHit[T]]:
        """pi's filterAndSortSessions, as hits. "recent" keeps the index's order; "relevance"
        sorts by score, then newest first. A query with an error matches nothing."""
        parsed = parse_query(query) if isinstance(query, str) else query
        entries: Sequence[_Entry[T]] = self._entries
        if named_only:
            entries = [entry for entry in entries if entry.named]
        if parsed.is_blank:
            return [SearchHit(entry.item) for entry in entries]
        if parsed.error is not None:
            return []
        matched: list[tuple[SearchHit[T], float]] = []
        for entry in entries:
            hit = _match_entry(entry, parsed)
            if hit is not None:
                matched.append((hit, entry.modified_ms))
        if order == "relevance":
            matched.sort(key=lambda pair: (pair[0].score, -pair[1]))
        return [hit for hit, _ in matched]


def filter_sessions(
    items: Iterable[T], query: str, order: SortOrder = "recent", named_only: bool = False
) -> list[T]:
    """pi's filterAndSortSessions in one call (build a `SearchIndex` to search repeatedly)."""
    return [hit.item for hit in SearchIndex(items).search(query, order, named_only)]
