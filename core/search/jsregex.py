"""JavaScript regular expressions (flag `i`, no `u`, Annex B) translated to Python patterns.

pi compiles a `re:` query with `new RegExp(pattern, "i")`. The translation keeps JavaScript's
meaning where Python's differs (see `_JsRegexTranslator`), and refuses what JavaScript refuses.
It targets the `regex` package, which (unlike `re`) has variable-width lookbehind, matched right
to left as in JavaScript, and a `timeout=` on every match. The translated pattern reads UTF-16
code units (astral characters as surrogate pairs).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from ..common.jsvalues import utf16_units

if TYPE_CHECKING:
    import regex

__all__ = [
    "JS_SPACE_CLASS",
    "JS_SPACE_CLASS_BUT_SPACE",
    "JsRegexError",
    "compile_js_regex",
    "translate_js_regex",
]

# JavaScript's `\s` (the same set as String.prototype.trim), spelled for inside a class.
JS_SPACE_CLASS_BUT_SPACE = (
    "\\t\\n\\x0b\\x0c\\r\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
)
JS_SPACE_CLASS = "\\x20" + JS_SPACE_CLASS_BUT_SPACE


class _RegexSyntaxError(Exception):
    pass


_ASCII_WORD = "A-Za-z0-9_"
_CLASS_SHORTHANDS = {"d": "0-9", "w": _ASCII_WORD, "s": JS_SPACE_CLASS}
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
    lookbehind_end: int  # a lookbehind: where its `)` is in the source; -1 otherwise


def _valid_group_name(name: str) -> bool:
    """JavaScript's RegExpIdentifierName (without `\\u` escapes): an identifier, `$` allowed."""
    if not name:
        return False
    plain = name.replace("$", "_").replace("\u200c", "").replace("\u200d", "")
    return (plain[:1] == name[:1] or name[0] == "$") and plain.isidentifier()


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
    terminator, `$` is only the end, case-insensitivity is narrower, a named group is a
    numbered one (`\\k<name>` a numbered reference), a group that has not matched matches the
    empty string, unknown escapes such as `\\a` are the letter itself, `[]` and `[^]` exist, and
    Python-only syntax (`(?P<`, `(?i)`, `(?>`, `a*+`, quantified `\\b`) is refused.
    """

    def __init__(self, pattern: str) -> None:
        self.src = utf16_units(pattern)  # without `u`, a pattern is UTF-16 code units
        self.pos = 0
        # Capture groups: where each opens in the source, and the numbers of named ones.
        self.group_starts: list[int] = []
        self.group_names: dict[str, int] = {}
        self._scan_groups()
        self.open_groups: list[_OpenGroup] = []
        self.opened = 0  # capture groups opened so far
        self.closed: set[int] = set()  # numbers of the groups closed so far

    @property
    def group_count(self) -> int:
        return len(self.group_starts)

    def _scan_groups(self) -> None:
        src, i, in_class = self.src, 0, False
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
                    self.group_starts.append(i)
                elif src.startswith("?<", i + 1) and src[i + 3 : i + 4] not in ("=", "!"):
                    self.group_starts.append(i)
                    name = _GROUP_NAME.match(src, i + 2)
                    if name:
                        if name.group(1) in self.group_names:
                            raise _RegexSyntaxError("Duplicate capture group name")
                        self.group_names[name.group(1)] = len(self.group_starts)
            i += 1

    def _closing_paren(self, start: int) -> int:
        """Where the group whose body starts at `start` ends (its `)`), or the pattern's end."""
        src, i, depth, in_class = self.src, start, 0, False
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
                depth += 1
            elif ch == ")":
                if depth == 0:
                    return i
                depth -= 1
            i += 1
        return len(src)

    def translate(self) -> str:
        out: list[str] = []
        src = self.src
        quantifiable = False  # JavaScript refuses `^*`, `\b+`, `(?<=a)?`, `|*`...
        while self.pos < len(src):
            ch = src[self.pos]
            self.pos += 1
            braces = _BRACE_QUANTIFIER.match(src, self.pos - 1) if ch == "{" else None
            if ch in "*+?" or braces is not None:
                if not quantifiable:
                    raise _RegexSyntaxError("Nothing to repeat")
                if braces is not None:
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
                    if group.number is not None:
                        self.closed.add(group.number)
                    quantifiable = group.lookbehind_end < 0
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
            self.open_groups.append(_OpenGroup(self.opened, -1))
            return "("
        head = src[pos + 1 : pos + 3]
        if head[:1] in (":", "=", "!") or head in ("<=", "<!"):
            opener = "(?" + (head if head[0] == "<" else head[0])
            self.pos += len(opener) - 1
            end = self._closing_paren(self.pos) if head[0] == "<" else -1
            self.open_groups.append(_OpenGroup(None, end))
            return opener
        if head[:1] != "<":
            raise _RegexSyntaxError("Invalid group")
        name = _GROUP_NAME.match(src, pos + 1)
        if name is None or not _valid_group_name(name.group(1)):
            raise _RegexSyntaxError("Invalid capture group name")
        self.pos = name.end()
        self.opened += 1
        self.open_groups.append(_OpenGroup(self.opened, -1))
        return "("  # named groups are numbered like the others: references use the number

    def _backreference(self, group: int) -> str:
        """In JavaScript a group that has not matched (yet) matches the empty string.

        A lookbehind matches right to left (in JavaScript and in `regex` alike), so inside one
        a group further right in the same lookbehind has already matched."""
        if group not in self.closed and not self._later_in_lookbehind(group):
            return "(?:)"
        return f"(?i:(?({group})\\{group}))"

    def _later_in_lookbehind(self, group: int) -> bool:
        inner = next((g for g in reversed(self.open_groups) if g.lookbehind_end >= 0), None)
        return inner is not None and self.pos <= self.group_starts[group - 1] < inner.lookbehind_end

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
            number = self.group_names.get(name.group(1))
            if number is None:
                raise _RegexSyntaxError("Invalid named capture referenced")
            self.pos = name.end()
            return self._backreference(number)
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


class JsRegexError(ValueError):
    """JavaScript would refuse this pattern (the message is the reason, as V8 words it where
    we know how)."""


def translate_js_regex(pattern: str) -> str:
    """A JavaScript pattern with flag `i` as an equivalent pattern for the `regex` package
    (compiled without flags); raises `JsRegexError` for what JavaScript would refuse."""
    try:
        return _JsRegexTranslator(pattern).translate()
    except _RegexSyntaxError as e:
        raise JsRegexError(str(e)) from None


def compile_js_regex(pattern: str) -> regex.Pattern[str]:
    """`new RegExp(pattern, "i")` as a compiled pattern that reads UTF-16 code units (see
    `utf16_units`). Raises `JsRegexError`."""
    import regex  # (20 ms to import: only once a regex query is typed)

    try:
        return regex.compile(translate_js_regex(pattern))
    except (regex.error, RecursionError, OverflowError, ValueError) as e:
        if isinstance(e, JsRegexError):
            raise
        reason = getattr(e, "msg", None) or str(e)
        raise JsRegexError(reason) from None
