"""Fitting one display line to a width so what it is about stays: paths shortened from the
middle (their start and their file name kept), and the first of several wordings that fits.

`fit_words` (core/common/text.py) cuts at the end: right for a title, wrong for a status line
whose point is its last path ("moved ... to ~/.local/share/Trash/files/x.jsonl") or its count
("deep search · 29 found"). Here a path gives up its middle first, and a caller with a shorter
wording of the same line (fewer words around the figures) has it chosen before any cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .glyphs import UNICODE, Glyphs
from .text import fit_words

SHORTEST_PATH = 16  # cells a path is shortened to at most (its start, the ellipsis, its end)
_TAIL_SHARE = 0.65  # of what a shortened path keeps, the share that is its end (the file name)


def _size(text: str, cells: Callable[[str], int] | None) -> int:
    return len(text) if cells is None else sum(map(cells, text))


_RELATIVE_PATH = re.compile(r"[\w.@+-]+(?:/[\w.@+-]+){2,}/?")


def is_path(word: str) -> bool:
    """A word that reads as a file path (`/a/b`, `~/a`, `./a`, `a/b/c`), not a ratio (`29/69`),
    a URL or text that only holds slashes."""
    word = word.rstrip(":,;)")
    if "://" in word or not any(ch.isalpha() for ch in word):
        return False
    if word.startswith(("/", "~/", "./", "../")):
        return True
    return _RELATIVE_PATH.fullmatch(word) is not None


def shorten_middle(
    text: str, width: int, cells: Callable[[str], int] | None = None, *, glyphs: Glyphs = UNICODE
) -> str:
    """`text` in at most `width` cells, its middle replaced by an ellipsis: its start and,
    with the larger share, its end are kept (a path's file name)."""
    if _size(text, cells) <= width:
        return text
    mark = glyphs.ellipsis
    room = width - len(mark)
    if room <= 0:
        return mark[: max(width, 0)]
    measure = cells or (lambda _: 1)
    tail_room = max(1, round(room * _TAIL_SHARE))
    tail_start, tail_used = len(text), 0
    while tail_start > 0 and tail_used + measure(text[tail_start - 1]) <= tail_room:
        tail_start -= 1
        tail_used += measure(text[tail_start])
    head_end, head_used = 0, 0
    while head_end < tail_start and head_used + measure(text[head_end]) <= room - tail_used:
        head_used += measure(text[head_end])
        head_end += 1
    return text[:head_end] + mark + text[tail_start:]


def fit_paths(
    text: str, width: int, cells: Callable[[str], int] | None = None, *, glyphs: Glyphs = UNICODE
) -> str:
    """`text` in at most `width` cells: its paths shortened from the middle (the longest
    first, none below `SHORTEST_PATH` cells), and only if that is not enough cut at a word
    boundary at its end (`fit_words`)."""
    excess = _size(text, cells) - width
    if excess <= 0 or width <= 0:
        return fit_words(text, width, cells, glyphs=glyphs)
    words = text.split(" ")
    paths = sorted(
        (i for i, word in enumerate(words) if is_path(word) and _size(word, cells) > SHORTEST_PATH),
        key=lambda i: -_size(words[i], cells),
    )
    for i in paths:
        if excess <= 0:
            break
        size = _size(words[i], cells)
        target = max(SHORTEST_PATH, size - excess)
        words[i] = shorten_middle(words[i], target, cells, glyphs=glyphs)
        excess -= size - _size(words[i], cells)
    return fit_words(" ".join(words), width, cells, glyphs=glyphs)


def fit_first(
    wordings: Sequence[str],
    width: int,
    cells: Callable[[str], int] | None = None,
    *,
    glyphs: Glyphs = UNICODE,
) -> str:
    """The first of `wordings` (the most detailed first) that fits `width` cells, else the
    last one fitted (`fit_paths`)."""
    for wording in wordings:
        if _size(wording, cells) <= width:
            return wording
    return fit_paths(wordings[-1] if wordings else "", width, cells, glyphs=glyphs)
