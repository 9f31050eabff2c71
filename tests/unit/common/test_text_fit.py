"""Text cut to fit is cut at a word boundary, with an ellipsis (`...` under --ascii), and text
that has room to wrap is wrapped: nothing is cut in the middle of a word that would fit."""

from __future__ import annotations

import pytest
from pi_sessions.core.common.glyphs import ASCII
from pi_sessions.core.common.text import fit_words, one_line, wrap_words
from pi_sessions.widgets.rowtext import RowText
from rich.cells import cell_len
from rich.style import Style


@pytest.mark.parametrize(
    "text, width, fitted",
    [
        ("checkpoint great stuff", 22, "checkpoint great stuff"),  # fits: untouched
        ("checkpoint great stuff", 21, "checkpoint great…"),
        ("checkpoint great stuff", 17, "checkpoint great…"),
        ("checkpoint great stuff", 16, "checkpoint…"),
        ("one two", 4, "one…"),
        ("a /very/long/path/with/no/spaces", 12, "a /very/lon…"),  # one long word: cut inside it
        ("word", 1, "…"),
        ("word", 0, ""),
        ("trailing   spaces here", 12, "trailing…"),
    ],
)
def test_cut_at_a_word_boundary_with_an_ellipsis(text: str, width: int, fitted: str) -> None:
    assert fit_words(text, width) == fitted
    assert len(fit_words(text, width)) <= width


def test_ascii_ellipsis_and_wide_characters() -> None:
    assert fit_words("日本語 テキスト", 9, cell_len) == "日本語…"  # 7 cells: the next word does not fit
    assert fit_words("checkpoint great stuff", 16, glyphs=ASCII) == "checkpoint..."
    assert fit_words("word", 2, glyphs=ASCII) == ".."
    assert one_line("The quick brown fox jumps", 12, glyphs=ASCII) == "The quick..."


def test_a_field_is_not_cut_down_to_one_word() -> None:
    header = "anthropic/claude · thinking medium · 7 messages · 1.2k tokens"
    assert fit_words(header, 40) == "anthropic/claude · thinking medium…"  # not "· 7…"
    assert (
        fit_words("system prompt · sections: preamble, tools", 36) == "system prompt · sections: preamble,…"
    )
    assert fit_words("system prompt · sections: preamble", 19) == "system prompt…"  # no dangling ·


def test_one_line_fields_are_cut_between_words() -> None:
    assert one_line("The quick brown fox\njumps over the lazy dog", 20) == "The quick brown fox…"
    assert one_line("short", 20) == "short"


@pytest.mark.parametrize(
    "text, width, lines",
    [
        ("Press d to open the bundled demo", 12, ["Press d to", "open the", "bundled demo"]),
        ("a /tmp/sessions/of/a/user b", 10, ["a", "/tmp/", "sessions/", "of/a/user", "b"]),
        ("abcdefghijkl", 5, ["abcde", "fghij", "kl"]),
        ("", 10, [""]),
    ],
)
def test_paragraphs_wrap_at_spaces_and_long_words_break_after_a_slash(
    text: str, width: int, lines: list[str]
) -> None:
    assert wrap_words(text, width) == lines
    assert all(len(line) <= width for line in wrap_words(text, width))


def test_a_row_cuts_its_last_piece_at_a_word_boundary_and_keeps_a_label_apart() -> None:
    base = Style()
    row = RowText(base).add("user      ", raw=True).add("◆checkpoint").add(" ", raw=True)
    row.add("Great, can you also update the docs")
    assert row.strip(40).text == "user      ◆checkpoint Great, can you…   "
    text = RowText(base).add("assistant ", raw=True).add("Here is the summary of it").right("⎇2").strip(30)
    assert text.text == "assistant Here is the…      ⎇2"
    assert cell_len(text.text) == 30


def test_many_lines_made_inert_at_once_are_each_line_made_inert() -> None:
    from pi_sessions.core.common.text import inline, inline_lines

    for lines in (
        ["plain", "lines", ""],
        ["a line with\na newline of its own", "next"],  # (one scan would take it for two lines)
        ["esc \x1b[31m", "bidi \u202e", "tab\tand nel\x85"],
        ["\n", "", "\n\n"],
        [],
    ):
        assert inline_lines(lines) == "\n".join(inline(line) for line in lines), lines
