"""The sidebar's title keeps its counts as it narrows; an empty list says why
(core/listing/sidebar_words.py)."""

from __future__ import annotations

from pi_sessions.core.listing.sidebar_rows import SortOrder
from pi_sessions.core.listing.sidebar_words import Listed, none_listed, title_wordings


def test_the_wordings_drop_words_before_counts() -> None:
    listed = Listed(
        29,
        69,
        deep=True,
        order=SortOrder.NAME,
        status="29 found, 40/69 files read…",
        status_short="29 found…",
    )
    assert title_wordings(listed, " · ") == [
        "Sessions 29/69 · all folders · by name · deep search · 29 found, 40/69 files read…",
        "Sessions 29/69 · by name · deep · 29 found, 40/69 files read…",
        "29/69 · by name · deep · 29 found, 40/69 files read…",
        "29/69 · by name · deep · 29 found…",
    ]
    assert title_wordings(Listed(9, 9, only_current=True), " · ")[:2] == [
        "Sessions 9 · this folder",
        "Sessions 9 · here",
    ]


def test_an_empty_list_names_the_folder_and_the_keys() -> None:
    keys = {"sessions.scope": "c", "sessions.namedOnly": "n"}.get
    lines = none_listed(Listed(0, 3, only_current=True, named_only=True), "/p", lambda b: keys(b, ""))
    assert lines == [
        "No named sessions in this folder:",
        "  /p",
        "",
        "Press c to view every folder's.",
        "",
        "Press n for the unnamed ones too.",
    ]
    assert none_listed(Listed(0, 3, named_only=True), "/p", lambda b: "") == ["No named sessions."]
