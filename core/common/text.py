"""Making session text safe and short for a terminal: the one sanitiser.

Session text is data: escape sequences and other control characters must never reach the
terminal. Every string that came from a session file or a file name passes through here
before it is drawn or printed (`visible` for multi-line text, `one_line` and `inline` for
one-line fields). What is replaced, and by what:

- C0 controls (newline and tab kept in multi-line text) and DEL: control pictures
  (U+241B for ESC, U+2407 for BEL...), or `<1b>` with ASCII glyphs (core/glyphs.py);
- C1 controls (U+0080-U+009F, 8-bit CSI and OSC among them): `<9b>`;
- lone surrogates (JSON allows `\\ud800`; a terminal cannot print it): `<U+D800>`;
- bidi embeddings, overrides, isolates and marks, zero-width and other invisible format
  characters (they reorder or hide what is shown), line and paragraph separators: `<U+202E>`.

In a one-line field (a row, a title, a status line, a CLI line) a line break is a space:
`one_line` folds every run of whitespace into one space, `inline` turns each whitespace
control into one space and keeps the layout. Markup is never interpreted anywhere: that is
the drawing side's promise (plain Segments, `markup=False`), not a transformation here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from .glyphs import UNICODE, Glyphs

# Each replaced character, as a regex class. Whitespace controls are listed apart: a
# one-line field shows them as a space (they are exactly the controls `str.split` splits on).
_SPACE_CONTROLS = "\t\n\x0b\x0c\r\x1c-\x1f\x85\u2028\u2029"
_OTHER_CONTROLS = (
    "\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f"  # C0 (but whitespace), DEL, C1 (but NEL)
    "\ud800-\udfff"  # lone surrogates
    "\u00ad\u034f\u061c\u115f\u1160\u180e\u3164\uffa0"  # invisible fillers and joiners
    "\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff"  # zero width, bidi marks/embeddings/isolates
    "\ufff9-\ufffb\U000e0000-\U000e007f"  # interlinear annotations, tag characters
)
_MULTILINE_RE = re.compile(f"\r\n|[\x0b\x0c\r\x1c-\x1f\x85\u2028\u2029{_OTHER_CONTROLS}]")
_INLINE_RE = re.compile(f"[{_OTHER_CONTROLS}]")
_SPACE_RE = re.compile(f"[{_SPACE_CONTROLS}]")
_ANY_RE = re.compile(f"[{_SPACE_CONTROLS}{_OTHER_CONTROLS}]")


# The redaction of every session text drawn (`serve` redacts by default: app/redaction.py sets
# it); None: texts are shown as they are. Applied before a text is cut or wrapped.
_REDACT: Callable[[str], str] | None = None


def set_redaction(redact: Callable[[str], str] | None) -> None:
    """Every text made inert from now on is first passed through `redact` (None: none is)."""
    global _REDACT
    _REDACT = redact


def redacting() -> bool:
    return _REDACT is not None


def redacted(text: str) -> str:
    """`text` through the redaction set, if any (for a text cut before it is made inert)."""
    return text if _REDACT is None else _REDACT(text)


def _placeholder(match: re.Match[str], pictures: bool = True) -> str:
    ch = match.group()
    if ch == "\r\n":
        return "\n"  # a Windows line end is a line end
    code = ord(ch)
    if code < 0x20 and pictures:
        return chr(0x2400 + code)  # ESC -> U+241B, BEL -> U+2407...
    if code == 0x7F and pictures:
        return "\u2421"
    return f"<{code:02x}>" if code < 0x100 else f"<U+{code:04X}>"


def _as_code(match: re.Match[str]) -> str:
    return _placeholder(match, pictures=False)


def _replacer(glyphs: Glyphs) -> Callable[[re.Match[str]], str]:
    return _placeholder if glyphs.control_pictures else _as_code


def visible(text: str, *, glyphs: Glyphs = UNICODE) -> str:
    """Multi-line text made inert: newlines (CRLF too) and tabs kept, every other control
    character, invisible format character and lone surrogate shown as a placeholder."""
    if _REDACT is not None:
        text = _REDACT(text)
    return _MULTILINE_RE.sub(_replacer(glyphs), text)


def inline(text: str, *, glyphs: Glyphs = UNICODE) -> str:
    """One line made inert, its layout kept: each whitespace control (newline, tab, CR...)
    becomes one space, every other control a placeholder (as in `visible`)."""
    if _REDACT is not None:
        text = _REDACT(text)
    if _ANY_RE.search(text) is None:
        return text  # the common case, one scan
    return _INLINE_RE.sub(_replacer(glyphs), _SPACE_RE.sub(" ", text))


_ANY_BUT_NEWLINE_RE = re.compile(f"[{_SPACE_CONTROLS.replace(chr(10), '')}{_OTHER_CONTROLS}]")


def inline_lines(lines: list[str], *, glyphs: Glyphs = UNICODE) -> str:
    """`inline` of each line, joined by newlines: one scan of the whole when no line holds
    a control (`context --all` prints millions of lines)."""
    joined = "\n".join(lines)
    if _REDACT is not None:
        return "\n".join([inline(line, glyphs=glyphs) for line in lines])
    if joined.count("\n") == len(lines) - 1 and _ANY_BUT_NEWLINE_RE.search(joined) is None:
        return joined  # (no line holds a newline of its own, nor any other control)
    return "\n".join([inline(line, glyphs=glyphs) for line in lines])


def one_line(text: str, limit: int = 200, *, glyphs: Glyphs = UNICODE) -> str:
    """A single display line: whitespace runs (newlines included) become one space, controls
    become placeholders, and the result is cut to `limit` characters at a word boundary
    (`glyphs.ellipsis` where it was cut)."""
    head = text[: limit * 4] if len(text) > limit * 4 else text
    if _REDACT is not None:
        head = _REDACT(head)
    head = _INLINE_RE.sub(_replacer(glyphs), " ".join(head.split()))
    return fit_words(head, limit, glyphs=glyphs)


def _one_cell(_: str) -> int:
    return 1


def fit_words(
    text: str, width: int, cells: Callable[[str], int] | None = None, *, glyphs: Glyphs = UNICODE
) -> str:
    """`text` if it fits in `width` cells, else cut at the last word boundary that fits,
    with an ellipsis (`...` under `--ascii`). A word longer than half the room is cut
    inside it: one long path must not leave an empty line. `cells` measures one
    character (wide characters take two); by default each takes one."""
    if width <= 0:
        return ""
    measure = cells or _one_cell
    if (len(text) if cells is None else sum(map(measure, text))) <= width:
        return text
    mark = glyphs.ellipsis
    room = width - len(mark)
    if room <= 0:
        return mark[:width]
    used = end = 0
    for end, ch in enumerate(text):  # noqa: B007 - `end` is the first character left out
        used += measure(ch)
        if used > room:
            break
    head = text[:end]
    if not text[end].isspace() and not head[-1:].isspace():
        space = max(head.rfind(" "), head.rfind("\t"))
        if space > 0 and space >= room // 2:
            head = head[:space]
    # Fields joined by ` · ` (a title, a header): a field cut down to a short word ("7" of
    # "7 messages") says less than none, so the cut goes back to the separator.
    separator = f" {glyphs.dot} "
    head = head.rstrip() + " "
    field = head.rfind(separator)
    rest = head[field + len(separator) :].strip()
    if field >= room // 2 and " " not in rest and len(rest) <= 4:
        head = head[:field]
    return head.rstrip() + mark


def wrap_words(text: str, width: int, cells: Callable[[str], int] | None = None) -> list[str]:
    """`text` (one paragraph) as lines of at most `width` cells, broken at spaces; a word
    longer than a line is broken inside it, after a `/` when it has one (paths)."""
    if width <= 0:
        return []
    measure = cells or _one_cell

    def size(word: str) -> int:
        return len(word) if cells is None else sum(map(measure, word))

    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if size(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        while size(word) > width:
            cut = _longest_prefix(word, width, measure)
            slash = word.rfind("/", 0, cut)
            if slash > 0:
                cut = slash + 1
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    if line or not lines:
        lines.append(line)
    return lines


def _longest_prefix(word: str, width: int, measure: Callable[[str], int]) -> int:
    used = 0
    for i, ch in enumerate(word):
        used += measure(ch)
        if used > width:
            return max(1, i)
    return len(word)


def without_controls(text: str) -> str:
    """For an input field pre-filled from a file (a name, a label): whitespace controls
    become spaces and every other replaced character is dropped, so what is typed back is
    plain text."""
    return _INLINE_RE.sub("", _SPACE_RE.sub(" ", text))


_UNSAFE_IN_NAME_RE = re.compile(f'[/\\\\:*?"<>|{_SPACE_CONTROLS}{_OTHER_CONTROLS}]')


def file_name_part(text: str, limit: int = 80, fallback: str = "session") -> str:
    """Text from a session (an id, a name) as one safe part of a file name: no path
    separator, control, bidi or lone surrogate (each becomes `_`), no leading dot (so never
    `.` or `..`), at most `limit` bytes of UTF-8 (a name's cap is in bytes); `fallback` when
    nothing is left."""
    part = _UNSAFE_IN_NAME_RE.sub("_", text).encode("utf-8")[:limit].decode("utf-8", "ignore")
    part = part.lstrip(".").strip()
    return part or fallback


def is_inert(text: str) -> bool:
    """True when `text` holds nothing the sanitiser would replace, not even a newline."""
    return _ANY_RE.search(text) is None


def not_a_count(value: float) -> str | None:
    """How a count or sum that is no finite number reads (`inf`, `-inf`, `?` for NaN), else None:
    a session can hold 1e308 twice, and the sum must still be shown, not raise."""
    if isinstance(value, int) or math.isfinite(value):
        return None
    return "?" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 message`, `2 messages`, `1,204 sessions`: a count with its noun in the right number."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def human_count(value: float) -> str:
    """1234 -> 1.2k, 1234567 -> 1.2M."""
    if (odd := not_a_count(value)) is not None:
        return odd
    n = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= limit:
            scaled = value / limit
            return f"{scaled:.1f}{suffix}" if abs(scaled) < 10 else f"{scaled:.0f}{suffix}"
    return f"{value:.0f}"


def human_bytes(size: int) -> str:
    """512 B, 49.8 kB, 85.1 MB, 1.0 GB (powers of 1024)."""
    for limit, unit in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "kB")):
        if size >= limit:
            return f"{size / limit:.1f} {unit}"
    return f"{size} B"


def short_cost(cost: float) -> str:
    """A cost in at most five cells: $0.63, $12.3, $123, $4567, $12k, $99k+, <$.01 ("" for nothing spent)."""
    if not cost > 0:
        return ""
    if cost == math.inf:
        return "$inf"
    if cost < 0.005:
        return "<$.01"
    if cost < 9.995:
        return f"${cost:.2f}"
    if cost < 99.95:
        return f"${cost:.1f}"
    if cost < 9999.5:
        return f"${cost:.0f}"
    if cost < 99_500:
        return f"${cost / 1000:.0f}k"
    return "$99k+"


def age(seconds: float) -> str:
    """How long ago, in pi's session-selector buckets: now, 5m, 3h, 2d, 1w, 4mo, 1y.

    pi floors whole milliseconds into minutes, hours and days; weeks under 30 days, 30-day
    months under 365 days, then 365-day years. A time in the future is `now`, as in pi."""
    diff_ms = round(seconds * 1000)
    minutes, hours, days = diff_ms // 60_000, diff_ms // 3_600_000, diff_ms // 86_400_000
    if minutes < 1:
        return "now"
    if minutes < 60:
        return f"{minutes}m"
    if hours < 24:
        return f"{hours}h"
    if days < 7:
        return f"{days}d"
    if days < 30:
        return f"{days // 7}w"
    if days < 365:
        return f"{days // 30}mo"
    return f"{days // 365}y"
