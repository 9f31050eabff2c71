"""The session search: pi 1.6.0's picker search (parseSearchQuery, matchSession,
filterAndSortSessions and pi-tui's fuzzyMatch), plus matched fields and excerpts.

Expected scores are worked out by hand from pi-tui's scorePositions (per matched index i:
-5·k for the k-th consecutive match, where index 0 counts as following index -1; +2 per
skipped character; -10 at a word start; +0.1·i; -100 for an exact match; +5 for the
letters/digits swap) and agree with pi 1.6.0 run under Node.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pytest
from pi_sessions.core.listing.summary import SessionSummary
from pi_sessions.core.search import query as query_module
from pi_sessions.core.search import texts as searchtext_module
from pi_sessions.core.search.excerpt import cell_width
from pi_sessions.core.search.fuzzy import fuzzy_match
from pi_sessions.core.search.jsregex import translate_js_regex
from pi_sessions.core.search.picker import (
    TIER_WEIGHT,
    Excerpt,
    ParsedQuery,
    PatternTooSlow,
    QueryToken,
    SearchCancelled,
    SearchHit,
    SearchIndex,
    SessionText,
    SortOrder,
    filter_sessions,
    parse_query,
)
from pi_sessions.core.search.query import parse_duration

from tests.helpers.checks import known


def session(
    id: str, name: str | None = None, cwd: str = "/home/u/proj", text: str = "", modified: float = 0.0
) -> SessionText:
    return SessionText(
        id=id, cwd=cwd, name=name, message_texts=[text] if text else [], modified_ms=modified, path=id
    )


def ids(hits: Iterable[SearchHit[Any]]) -> list[str]:
    return [hit.item.id for hit in hits]


def found(query: str, *sessions: SessionText, order: SortOrder = "recent") -> list[str]:
    return [s.id for s in filter_sessions(sessions, query, order)]


# ---------------------------------------------------------------------------- fuzzyMatch


@pytest.mark.parametrize(
    ("query", "text", "score"),
    [
        # exact: 0 → -5-10, 1 → -10+0.1, 2 → -15+0.2; then -100 for query == text
        ("abc", "abc", -139.7),
        # p@0 -15; r@2: gap +2, +0.2; s@3: consecutive -5, +0.3
        ("prs", "parser", -17.5),
        # greedy o,p,u,s is scattered over "openrouter"; the contiguous "opus" at 39 wins:
        # 39: after "-" -10 +3.9; 40..42: -5/-10/-15 and +4.0/+4.1/+4.2
        ("opus", "openrouter openrouter/anthropic/claude-opus", -23.8),
        # d@6 after "/" -10 +0.6; m@12 gap +10 +1.2; o@13 consecutive -5 +1.3
        ("dmo", "/home/dev/demo", -1.9000000000000001),
        # v@4 after a space -10 +0.4; 2@5 consecutive -5 +0.5
        ("v2", "Fix v2 parser", -14.1),
    ],
)
def test_fuzzy_scores(query: str, text: str, score: float) -> None:
    assert fuzzy_match(query, text) == (True, score)


def test_fuzzy_letters_digits_swap() -> None:
    # "v2" has no "2" after the "v": retried as "2v" at 0,1 (-15, -10+0.1), then +5
    assert fuzzy_match("v2", "2v-model") == (True, -19.9)
    # "2v" against "v2": swapped to "v2", an exact match (-24.9 - 100), then +5
    assert fuzzy_match("2v", "v2") == (True, -119.9)
    # "2v"@6,7 in a path: after "/" -10 +0.6; consecutive -5 +0.7; then +5
    assert fuzzy_match("v2", "/work/2v-app") == (True, -8.700000000000001)
    # only letters-then-digits (or the reverse) are swapped
    assert fuzzy_match("v2x", "2vx").matches is False
    assert fuzzy_match("zz", "abc") == (False, 0.0)
    assert fuzzy_match("", "abc") == (True, 0.0)
    assert fuzzy_match("abcd", "abc").matches is False


def test_fuzzy_counts_utf16_units_like_javascript() -> None:
    # "😀" is two UTF-16 units: x@3, then the pair @4,5 and y@6, all consecutive:
    # +0.3; -5+0.4; -10+0.5; -15+0.6
    assert fuzzy_match("x😀y", "a😀x😀y") == (True, -28.2)


# ---------------------------------------------------------------------------- parsing


def test_parse_tokens_and_phrases() -> None:
    parsed = parse_query('  foo "node  cve" bar  ')
    assert parsed.mode == "tokens"
    assert parsed.tokens == (
        QueryToken("fuzzy", "foo"),
        QueryToken("phrase", "node  cve"),
        QueryToken("fuzzy", "bar"),
    )
    assert parsed.error is None
    assert parse_query('a"b c"d').tokens == (
        QueryToken("fuzzy", "a"),
        QueryToken("phrase", "b c"),
        QueryToken("fuzzy", "d"),
    )
    assert parse_query('"" x "  "').tokens == (QueryToken("fuzzy", "x"),)


def test_parse_unbalanced_quotes_fall_back_to_words() -> None:
    assert parse_query('foo "bar baz').tokens == (
        QueryToken("fuzzy", "foo"),
        QueryToken("fuzzy", '"bar'),
        QueryToken("fuzzy", "baz"),
    )
    assert parse_query('"a" "b').tokens == (QueryToken("fuzzy", '"a"'), QueryToken("fuzzy", '"b'))


def test_parse_blank_and_empty_phrase() -> None:
    assert parse_query(" \t\u00a0").is_blank
    assert parse_query("").tokens == ()
    empty_phrase = parse_query('""')
    assert not empty_phrase.is_blank and empty_phrase.tokens == ()


def test_parse_regex_mode() -> None:
    parsed = parse_query("re: fix(ed|es) ")
    assert parsed.mode == "regex" and parsed.error is None and parsed.regex is not None
    assert parsed.regex.search("FIXED it")
    assert parse_query("re:") == ParsedQuery("regex", error="Empty regex", text="re:")
    assert parse_query("re:   ").error == "Empty regex"
    invalid = parse_query("re:(")
    assert invalid.regex is None
    assert invalid.error is not None and invalid.error.startswith("Invalid regular expression: /(/i: ")
    # "re:" must start the query; "RE:" is an ordinary token
    assert parse_query("RE:x").tokens == (QueryToken("fuzzy", "RE:x"),)


def test_regex_follows_javascript_syntax() -> None:
    def matches(pattern: str, text: str) -> bool:
        parsed = parse_query("re:" + pattern)
        assert parsed.regex is not None, parsed.error
        return parsed.regex.search(text) is not None

    assert matches("^fix$", "FIX")
    assert not matches("fix$", "fix\n")  # `$` is only the very end
    assert not matches(r"\d", "٣")  # ASCII digits only
    assert not matches(r"\w", "é")
    assert matches(r"\bcve\b", "a cve-2024")
    assert not matches(".", "\u2028")
    assert matches("(?<w>ab)\\k<w>", "abAB")  # named groups, case-insensitive backreference
    assert matches("(a)?b\\1c", "bc")  # a group that did not match matches ""
    assert matches("[^]", "\n") and not matches("x[]", "x")
    assert matches(r"\a\/", "a/")  # unknown escapes are the character itself
    assert matches("é", "É") and not matches("ſ", "s") and not matches("k", "\u212a")
    # a regex reads UTF-16 units, as in JavaScript: "😀" is two of them
    emoji = SearchIndex([session("emoji-session", text="😀")])
    assert ids(emoji.search("re:^.$")) == [] and ids(emoji.search("re:^..$")) == ["emoji-session"]
    for python_only in ("(?P<x>a)", "(?i)a", "a*+", r"\b+", "(?>a)"):
        assert parse_query("re:" + python_only).error is not None, python_only
    assert translate_js_regex("[a-c]") == "[a-cABC]"


def test_regex_lookbehind_of_any_width_as_in_javascript() -> None:
    # Results checked with Node 22 (`new RegExp(p, "i").exec(s)?.index`).
    def index(pattern: str, text: str) -> int | None:
        parsed = parse_query("re:" + pattern)
        assert parsed.regex is not None, parsed.error
        found = parsed.regex.search(text)
        return None if found is None else found.start()

    assert index(r"(?<=fix(ed|ing) )bug", "Fixing bug") == 7  # Python's re refuses this one
    assert index(r"(?<=fix(ed|ing) )bug", "fix bug") is None
    # a lookbehind matches right to left: its \1 refers to the group on its right
    assert index(r"(?<=\1(a))b", "xaab") == 3
    assert index(r"(?<=\1(a))b", "ab") is None
    assert index(r"(?<=(?<w>\w+)-)\k<w>", "ab-ab") == 3
    assert index(r"(?<$x>a)\k<$x>", "aA") == 0  # any JavaScript group name
    assert parse_query("re:(?<a>x)(?<a>y)").error is not None  # duplicate names
    assert parse_query("re:(?<1a>x)").error is not None
    hits = SearchIndex([session("s", text="we fixed the bug")]).search(r"re:(?<=fix(ed|ing) \w+ )bug")
    assert ids(hits) == ["s"]


def test_a_regex_that_backtracks_forever_says_so() -> None:
    index = SearchIndex([session("short", text="aaa"), session("long", text="a" * 40 + "!")])
    with pytest.raises(PatternTooSlow) as raised:
        index.search("re:(a|aa)+$", time_limit=0.05)
    assert "too slow" in str(raised.value)
    # the textbook case finishes (the regex package sees through it); so do normal patterns
    assert ids(index.search("re:(a+)+$")) == ["short"]
    assert ids(index.search("re:a{3}")) == ["short", "long"]


# pattern, text, and what node 22 says `new RegExp(pattern, "i").test(text)` gives (pi's
# picker builds its regex so); "error" where it throws. The text is the only field searched.
NODE_REGEX_ANSWERS = [
    ("(?<w>x)\\1", "xx", True),  # named groups are numbered too
    ("(?<w>x)(y)\\2", "xyy", True),
    ("(?<w>x)(y)\\2", "xy\x02", False),
    ("(?:x)\\1", "x\x01", True),  # no group: an octal escape
    ("(?=x)(x)\\1", "xx", True),
    ("a\\", "a", "error"),
    ("[\\d]", "5", True),
    ("[\\d]", "x", False),
    ("[\\D]", "x", True),
    ("[\\D]", "5", False),
    ("[\\S]", " ", False),
    ("[\\w]", "_", True),
    ("[\\d-z]", "z", True),
    ("[\\d-z]", "5", True),
    ("[\\d-z]", "y", False),
    ("[😀-😃]", "😁", "error"),  # two UTF-16 units each: \ude00-\ud83d is out of order
    ("\\D", "123", False),
    ("\\D", "12a", True),
    ("\\W", "abc_9", False),
    ("\\W", "ab-c", True),
    ("\\S", " \t\n", False),
    ("\\S", " x ", True),
    ("\\s", "a\xa0b", True),
    ("\\s", "a\ufeffb", True),
    ("\\s", "a\u2028b", True),
    ("\\s", "a\x85b", False),
    ("\\s", "a\u180eb", False),
    ("a\\Bb", "ab", True),
    ("a\\Bb", "a b", False),
    ("\\bcat", "concat", False),
    ("\\Bcat", "concat", True),
    ("\\w", "é", False),
    ("\\d", "٣", False),
    ("\\cJ", "a\nb", True),
    ("[\\cJ]", "\n", True),
    ("[\\c1]", "\x11", True),
    ("[\\c_]", "\x1f", True),
    ("\\c1", "\\c1", True),
    ("[\\c]", "\\", True),
    ("[\\c]", "c", True),
    ("\\x41", "a", True),
    ("\\x4", "x4", True),
    ("\\u0041", "A", True),
    ("\\u004", "u004", True),
    ("\\101", "A", True),
    ("\\0", "\x00", True),
    ("\\08", "\x008", True),
    ("[\\b]", "\x08", True),
    ("\\8", "8", True),
    ("(a)\\1", "AA", True),
    ("(a)\\2", "a\x02", True),
    ("(a)\\10", "a\x08", True),
    ("\\1(a)", "a", True),
    ("(?<w>x)\\k<w>", "xX", True),
    ("\\k<w>", "k<w>", True),
    ("(?<w>x)\\k<v>", "xx", "error"),
    ("(?<word>ab)\\k<word>", "abAB", True),  # names longer than one character
    ("(?<ab>x)\\k<ab>", "xy", False),
    ("(?<$ab>x)\\k<$ab>", "xx", True),
    ("(?<a1>x)\\1", "xx", True),
    ("(?<1a>x)", "x", "error"),
    ("(?<a b>x)", "x", "error"),
    ("(?<a\u200cb>x)", "x", True),  # ZWNJ inside a name, not first
    ("(?<\u200cab>x)", "x", "error"),
    ("(?<=a)b", "ab", True),
    ("(?<=a)b", "cb", False),
    ("(?<!a)b", "ab", False),
    ("(?<!a)b", "cb", True),
    ("(?=a)", "a", True),
    ("x(?!a)", "xa", False),
    ("^.$", "😀", False),
    ("^..$", "😀", True),
    ("[😀]", "\ud83d", True),
    ("\\ud83d", "😀", True),
    ("\\u{1F600}", "😀", False),
    ("u{3}", "uuu", True),
    (".", "\n", False),
    (".", "\r", False),
    (".", "\u2028", False),
    (".", "\x85", True),
    ("[^]", "\n", True),
    ("[]", "x", False),
    ("a$", "a\n", False),
    ("ſ", "s", False),
    ("s", "ſ", False),
    ("k", "K", False),
    ("é", "É", True),
    ("ß", "SS", False),
    ("[a-z]", "K", True),
    ("[^a-z]", "K", False),
    ("[\\d-z]", "-", True),
    ("[\\w-]", "-", True),
    ("a{2}", "aa", True),
    ("a{2,}", "aaa", True),
    ("a{,2}", "a{,2}", True),
    ("a{", "a{", True),
    ("x{1,2", "x{1,2", True),
    ("(", "(", "error"),
    (")", ")", "error"),
    ("[", "[", "error"),
    ("]", "]", True),
    ("}", "}", True),
    ("a**", "a", "error"),
    ("a+?", "a", True),
    ("(?:a|b)+$", "ab", True),
    ("\\p{L}", "p{L}", True),
    ("\\P", "P", True),
    ("[\\s\\S]", "\n", True),
    ("[^\\d]", "5", False),
    ("[^\\W]", "_", True),
    ("\\/", "/", True),
    ("\\-", "-", True),
    ("(?i)a", "a", "error"),
    ("(?P<x>a)", "a", "error"),
    ("a*+", "a", "error"),
    ("(?>a)", "a", "error"),
    ("\\Z", "Z", True),
    ("\\A", "A", True),
    ("\\z", "z", True),
    ("\\t", "\t", True),
    ("\\v", "\x0b", True),
    ("\\f", "\x0c", True),
    ("[\\x41-\\x43]", "b", True),
    ("[\\u0041-\\u0043]", "d", False),
]


@pytest.mark.parametrize(("pattern", "text", "node"), NODE_REGEX_ANSWERS)
def test_regex_search_matches_what_javascript_matches(pattern: str, text: str, node: bool | str) -> None:
    parsed = parse_query("re:" + pattern)
    if node == "error":
        assert parsed.error is not None and parsed.error.startswith("Invalid regular expression: ")
        return
    assert parsed.error is None, parsed.error
    only_the_text = SessionText(id="", cwd="", name=None, message_texts=[text], modified_ms=0.0, path="p")
    assert bool(SearchIndex([only_the_text]).search(parsed)) is node


# ---------------------------------------------------------------------------- matching


def test_all_tokens_must_match_each_in_any_field() -> None:
    a = session("a1", name="Parser rewrite", text="we fixed the lexer")
    b = session("b1", name="Lexer notes", text="nothing about parsing here")
    assert found("parser lexer", a, b) == ["a1"]  # "parser" in a's name, "lexer" in its messages
    assert found("lexer", a, b) == ["a1", "b1"]
    assert found("parser missing", a, b) == []
    assert found("PARSER", a, b) == ["a1"]


def test_field_priority_and_scores() -> None:
    named = session("aaaa", name="Fix v2 parser")
    by_cwd = session("cccc", cwd="/work/2v-app")
    index = SearchIndex([named, by_cwd])
    hit = index.search("v2")
    assert [(h.item.id, h.score, h.fields) for h in hit] == [
        ("aaaa", -14.1, ("name",)),  # tier 0 + fuzzyMatch("v2", "fix v2 parser")
        ("cccc", 2 * TIER_WEIGHT - 8.700000000000001, ("cwd~",)),  # tier 2, swapped "2v"
    ]
    # two tokens add up: name (tier 0, "parser"@7..12: -10+0.7, then -5..-25 and +0.8..+1.2)
    # and text (tier 1, in the id)
    (both,) = SearchIndex([named]).search("parser aaaa")
    assert both.score == -79.3 + TIER_WEIGHT
    assert both.fields == ("name", "id")


def test_fuzzy_subsequence_only_on_name_and_cwd() -> None:
    by_name = session("n1", name="session browser")
    by_cwd = session("c1", cwd="/home/dev/demo")
    by_text = session("t1", text="session browser")
    by_id = session("sbrw-0000")
    everyone = (by_name, by_cwd, by_text, by_id)
    assert found("sbrw", *everyone) == ["n1", "sbrw-0000"]  # exact in the id, scattered in the name
    assert found("sssbrw", *everyone) == ["n1"]
    (hit,) = SearchIndex(everyone).search("dmo")
    assert hit.item.id == "c1" and hit.fields == ("cwd~",)
    assert hit.score == 2 * TIER_WEIGHT - 1.9000000000000001


@pytest.mark.parametrize(
    ("query", "name", "cwd", "pi_score", "field"),
    [
        # pi's matchSession scores (node 22): the better of the two scattered matches counts
        ("abc", "a b c", "/a/xxxxxxxxxb/yyyyyyyyyc", 1999969.6, "name~"),
        ("abc", "a    xxxxx   b    yyyyyy    c", "/a/b/c", 1999974.9, "cwd~"),
        (
            "sbr",
            "s                b                 r",
            "/q",
            2000036.2,
            "name~",
        ),  # a poor match still counts
    ],
)
def test_a_scattered_match_scores_by_the_better_of_name_and_cwd(
    query: str, name: str, cwd: str, pi_score: float, field: str
) -> None:
    (hit,) = SearchIndex([session("x", name=name, cwd=cwd)]).search(query)
    assert (round(hit.score, 6), hit.fields) == (pi_score, (field,))


def test_phrases_are_exact_after_whitespace_normalization() -> None:
    text_hit = session("t", text="found a Node\n\t CVE today")
    name_hit = session("n", name="Node CVE audit")
    hyphen = session("h", text="node-cve")
    index = SearchIndex([text_hit, name_hit, hyphen])
    hits = index.search('"node  cve"', "relevance")
    # name: tier 0 + fuzzyMatch("node cve", "node cve audit"), the 8 characters at 0..7
    assert [(h.item.id, h.score, h.fields) for h in hits] == [
        ("n", -197.20000000000002, ("name",)),
        ("t", float(TIER_WEIGHT), ("message",)),
    ]
    assert ids(index.search('"cve today"')) == ["t"]
    assert ids(index.search('"node today"')) == []


def test_unbalanced_quote_is_a_literal_token() -> None:
    quoted = session("q", text='he said "hello there')
    plain = session("p", text="hello there")
    assert found('"hello there', quoted, plain) == ["q"]


def test_regex_mode_matching() -> None:
    a = session("a", name="Fix parser", text="x")
    b = session("b", text="the parser failed\nat line 3")
    c = session("c", cwd="/srv/parser-lab")
    index = SearchIndex([c, b, a])
    hits = index.search(r"re:pars(er|ing)", "relevance")
    assert [(h.item.id, h.score, h.fields) for h in hits] == [
        ("a", 0.0, ("name",)),
        ("c", float(TIER_WEIGHT), ("cwd",)),
        ("b", float(TIER_WEIGHT), ("message",)),
    ]
    assert ids(index.search(r"re:^at line \d$")) == []  # no multiline: ^ is the text's start
    assert ids(index.search(r"re:line \d$")) == ["b"]
    assert index.search("re:(") == [] and index.search("re:") == []
    assert filter_sessions([a, b], "re:[") == []


def test_relevance_orders_by_tier_then_newest() -> None:
    in_cwd = session("cwd", cwd="/work/parser", modified=5)
    fuzzy = session("fuzzy", name="p-a-r-s-e-r", modified=9)
    in_name = session("name", name="parser", modified=1)
    in_text_old = session("text-old", text="the parser", modified=2)
    in_text_new = session("text-new", text="a parser", modified=3)
    items = [in_cwd, fuzzy, in_name, in_text_old, in_text_new]
    assert found("parser", *items, order="recent") == ["cwd", "fuzzy", "name", "text-old", "text-new"]
    assert found("parser", *items, order="relevance") == ["name", "cwd", "text-new", "text-old", "fuzzy"]


def test_blank_query_keeps_order_but_empty_phrase_sorts() -> None:
    old, new = session("old", modified=1), session("new", modified=2)
    assert found("  ", old, new, order="relevance") == ["old", "new"]
    # `""` parses to no tokens: everything matches with score 0, so newest first
    assert found('""', old, new, order="relevance") == ["new", "old"]
    assert [h.score for h in SearchIndex([old]).search("")] == [0.0]


def test_named_only() -> None:
    named, blank, unnamed = session("n", name="Work"), session("b", name=" \t"), session("u")
    index = SearchIndex([named, blank, unnamed])
    assert ids(index.search("", named_only=True)) == ["n"]
    assert ids(index.search("proj", named_only=True)) == ["n"]
    assert ids(index.search("proj", named_only=False)) == ["n", "b", "u"]
    assert ids(index.search("", named_only=False)) == ["n", "b", "u"]


# ---------------------------------------------------------------------------- fields and excerpts

STORY = (
    "We looked at the logs first. Then the Parser crashed on line 42 because a closing brace "
    "was missing from the input."
)


def test_matched_fields_in_query_order() -> None:
    item = session("abc-123", name="Release notes", cwd="/work/app", text=STORY)
    index = SearchIndex([item])
    assert index.search("release")[0].fields == ("name",)
    assert index.search("abc")[0].fields == ("id",)
    assert index.search("brace")[0].fields == ("message",)
    assert index.search("work")[0].fields == ("cwd",)
    assert index.search("rls")[0].fields == ("name~",)
    assert index.search("wrkpp")[0].fields == ("cwd~",)
    assert index.search("brace app notes logs")[0].fields == ("message", "cwd", "name")
    # the hit is shown where the text matched, else in the first token's field
    assert index.search("app brace")[0].field == "message"
    assert index.search("release app")[0].field == "name"
    assert index.search("rls")[0].field == "name"
    assert index.search("release app")[0].excerpt() == Excerpt("Release notes", ((0, 7),))
    assert index.search("abc")[0].excerpt() == Excerpt("abc-123", ((0, 3),))
    assert SearchIndex([item]).search("")[0].excerpt() is None


def test_excerpt_is_centred_on_the_match() -> None:
    index = SearchIndex([session("s", text=STORY)])
    excerpt = index.search("parser")[0].excerpt()
    assert excerpt == Excerpt("…the logs first. Then the Parser crashed on line 42 because…", ((26, 32),))
    assert excerpt.text[excerpt.match_start : excerpt.match_end] == "Parser"
    # several tokens: centred on the longest one (the likeliest to be rare); all are marked
    excerpt = index.search("then crashed")[0].excerpt()
    assert excerpt == Excerpt("…first. Then the Parser crashed on line 42 because a…", ((24, 31), (8, 12)))
    excerpt = index.search("brace logs")[0].excerpt(120)
    assert excerpt is not None and [excerpt.text[a:b] for a, b in excerpt.spans] == ["brace", "logs"]
    # at the start and at the end: no ellipsis on that side
    assert str(index.search("we")[0].excerpt()) == "We looked at the logs first. Then the Parser crashed on…"
    assert str(index.search("input")[0].excerpt()).endswith("brace was missing from the input.")


@pytest.mark.parametrize("width", [3, 8, 20, 40, 60, 120, 400])
def test_excerpt_fits_any_width_and_shows_the_match(width: int) -> None:
    text = "x" * 300 + " 世界 the needle is here " + "y" * 300
    (hit,) = SearchIndex([session("s", text=text)]).search("needle")
    excerpt = hit.excerpt(width)
    assert excerpt is not None
    assert cell_width(excerpt.text) <= width
    start, end = excerpt.spans[0]
    shown = excerpt.text[start:end]
    assert shown == "needle"[: len(shown)] and len(shown) == min(6, width - 2)
    if width >= 40:  # centred: about as much before the match as after it
        before, after = cell_width(excerpt.text[:start]), cell_width(excerpt.text[end:])
        assert abs(before - after) <= 14
    assert hit.excerpt(width) is excerpt  # computed once per width


def test_several_tokens_are_shown_in_a_message_that_holds_them_all() -> None:
    texts = ["the parser is slow", "lexer notes", "the parser and the lexer crashed", "parser lexer"]
    (hit,) = SearchIndex([SessionText(id="s", message_texts=texts)]).search("lexer parser")
    assert hit.segment == 2  # "parser" (the longest) in a message with "lexer" too
    excerpt = hit.excerpt()
    assert excerpt is not None and [excerpt.text[a:b] for a, b in excerpt.spans] == ["parser", "lexer"]
    (hit,) = SearchIndex([SessionText(id="s", message_texts=texts[:2])]).search("lexer parser")
    assert hit.segment == 0  # no message holds both: the longest token's first place


def test_excerpt_comes_from_the_message_that_matched() -> None:
    texts = ["first message about logs", "the parser crashed", "a third one"]
    item = SessionText(id="s", message_texts=texts)
    (hit,) = SearchIndex([item]).search("parser")
    assert hit.segment == 1 and hit.in_text and hit.entry_id is None
    assert hit.excerpt() == Excerpt("the parser crashed", ((4, 10),))
    # a phrase may run from one message into the next, as in pi (joined with " ")
    (across,) = SearchIndex([item]).search('"crashed a third"')
    assert across.segment == 1 and across.excerpt() == Excerpt("the parser crashed", ((11, 18),))
    assert SearchIndex([item]).search("re:^a third")[0:1] == []  # `^` is the start of the whole text
    (last,) = SearchIndex([item]).search("re:third one$")
    assert last.segment == 2 and last.excerpt() == Excerpt("a third one", ((2, 11),))


def test_excerpt_collapses_whitespace_for_phrases_and_regexes() -> None:
    index = SearchIndex([session("s", text="line one\n\n\n   line two has ERROR\there")])
    for query in ("re:error", '"has   error"', "error"):
        excerpt = index.search(query)[0].excerpt()
        assert excerpt is not None and excerpt.text == "line one line two has ERROR here"
    assert index.search("re:error")[0].excerpt() == Excerpt("line one line two has ERROR here", ((22, 27),))
    assert index.search('"two has"')[0].excerpt() == Excerpt("line one line two has ERROR here", ((14, 21),))


def test_excerpt_positions_survive_length_changing_text() -> None:
    # "İ" lowercases to two characters and "😀" is two UTF-16 units for a regex
    segments = ["İİİİ " * 10 + "the parser\tfailed " + "😀" * 30 + " end", "😀 second İ message"]
    index = SearchIndex([SessionText(id="s", message_texts=segments)])
    for query in ("parser", "re:parser"):
        excerpt = index.search(query)[0].excerpt()
        assert excerpt is not None
        assert excerpt.text[excerpt.match_start : excerpt.match_end] == "parser"
        assert "the parser failed 😀" in excerpt.text
    excerpt = index.search("re:END")[0].excerpt()
    assert excerpt is not None and excerpt.text[excerpt.match_start : excerpt.match_end] == "end"
    for query in ("second", "re:second"):
        (hit,) = index.search(query)
        assert hit.segment == 1
        assert hit.excerpt() == Excerpt("😀 second İ message", ((2, 8),))


# ---------------------------------------------------------------------------- time filters

DAY = 86_400_000.0
NOW = 1_750_000_000_000.0


def test_time_filters_in_the_query() -> None:
    assert parse_query("@7d").window_ms == 7 * DAY
    assert parse_query("fix @2w bug").tokens == (QueryToken("fuzzy", "fix"), QueryToken("fuzzy", "bug"))
    assert parse_query("fix @2w bug").window_ms == 14 * DAY
    assert parse_query("@3mo @12h x").window_ms == 12 * 3_600_000  # the narrowest
    assert parse_query("@1y").window_ms == 365 * DAY
    assert parse_query("@2W").window_ms == 14 * DAY
    # a regex after its time filters; inside a pattern or a phrase it is text
    assert parse_query("@7d re:fix(ed)?").window_ms == 7 * DAY
    assert parse_query("@7d re:fix(ed)?").regex is not None
    assert parse_query("re:a @7d").window_ms is None
    assert parse_query('"meet @7d"').window_ms is None
    # not a time filter: ordinary tokens
    for word in ("@types/node", "@7days", "@d", "a@7d", "@7x"):
        assert parse_query(word).tokens == (QueryToken("fuzzy", word),), word
    assert parse_query("@0d").error == "@0d: a time filter needs a count above 0"
    assert parse_query("x", window_ms=DAY).window_ms == DAY
    assert parse_query("x @2d", window_ms=5 * DAY).window_ms == 2 * DAY
    assert not parse_query("", window_ms=DAY).is_blank


def test_time_filters_keep_sessions_active_in_the_window() -> None:
    recent = session("recent", text="fix it", modified=NOW - 2 * DAY)
    older = session("older", text="fix it", modified=NOW - 10 * DAY)
    ancient = session("ancient", text="fix it", modified=NOW - 400 * DAY)
    index = SearchIndex([recent, older, ancient])
    assert ids(index.search("@7d", now_ms=NOW)) == ["recent"]
    assert ids(index.search("fix @2w", now_ms=NOW)) == ["recent", "older"]
    assert ids(index.search("@2y fix", now_ms=NOW)) == ["recent", "older", "ancient"]
    assert ids(index.search("@7d re:FIX", now_ms=NOW)) == ["recent"]
    assert ids(index.search(parse_query("fix", window_ms=3 * DAY), now_ms=NOW)) == ["recent"]
    assert ids(index.search("@7d", "relevance", now_ms=NOW)) == ["recent"]
    assert index.search("@0d", now_ms=NOW) == []


def test_parse_duration() -> None:
    assert parse_duration("7d") == 7 * DAY
    assert parse_duration("@3mo") == 90 * DAY
    assert parse_duration(" 36h ") == 36 * 3_600_000
    for bad in ("", "7", "d", "0d", "-1d", "1.5d", "7 d", "7days"):
        with pytest.raises(ValueError, match="not a duration"):
            parse_duration(bad)


# ---------------------------------------------------------------------------- inputs


@dataclass
class OwnSession:
    """Any object with the Searchable attributes can be searched."""

    name: str | None
    id: str
    cwd: str
    message_texts: list[str]
    modified_ms: float
    extra: int = 0


def test_any_searchable_object_and_summaries() -> None:
    mine = [OwnSession(None, "x1", "/a", ["hello world"], 1.0, extra=7)]
    assert filter_sessions(mine, "world") == mine
    summary = SessionSummary(path="/s/a.jsonl", id="abc", cwd="/w", name="Named", modified_ms=5.0)
    texts = ["first text", "second"]
    item = SessionText.from_summary(summary, texts)
    assert item == SessionText(
        id="abc", cwd="/w", name="Named", message_texts=texts, modified_ms=5.0, path="/s/a.jsonl"
    )
    assert item.message_texts is texts  # the store's list, not a copy
    assert SessionText.from_summary(SessionSummary(path="p")).id == ""


def test_update_follows_the_new_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """An update keeps what is unchanged, takes in what is new and forgets what went (reusing
    prepared texts is a matter of speed: tests/bench)."""
    long_text = "word " * 500
    items = [session("a", text=long_text + "alpha"), session("b", text=long_text + "beta")]
    index = SearchIndex(items)
    prepared: list[int] = []
    real = query_module.normalize_whitespace_lower

    def counting(text: str) -> str:
        if len(text) > 100:
            prepared.append(len(text))
        return real(text)

    monkeypatch.setattr(searchtext_module, "normalize_whitespace_lower", counting)
    index.update([items[1], items[0], session("c", text=long_text + "gamma")])
    assert len(prepared) == 1  # only the new text
    assert ids(index.search("")) == ["b", "a", "c"]
    assert ids(index.search("gamma")) == ["c"]
    assert len(index) == 3
    index.update([items[1], session("c", text=long_text + "gamma")])
    assert ids(index.search("")) == ["b", "c"]
    assert ids(index.search("gamma")) == ["c"] and ids(index.search("beta")) == ["b"]
    assert ids(index.search("alpha")) == []
    index.update([session("b", text="rewritten"), items[0]])  # b's text changed, a is back
    assert ids(index.search("beta")) == [] and ids(index.search("rewritten")) == ["b"]
    assert ids(index.search("alpha")) == ["a"] and len(index) == 2


def test_a_growing_session_is_taken_up_where_it_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = ["first " * 40, "second " * 40]  # the store appends to this very list as the file grows
    item = SessionText(id="live", message_texts=texts)
    index = SearchIndex([item])
    assert ids(index.search("third")) == []
    normalized: list[str] = []
    real = query_module.normalize_whitespace_lower
    monkeypatch.setattr(
        searchtext_module, "normalize_whitespace_lower", lambda t: normalized.append(t) or real(t)
    )
    texts.append("a third message")
    index.update([SessionText(id="live", message_texts=texts)])
    assert normalized == ["a third message"]  # only what was appended
    (hit,) = index.search("third")
    assert hit.segment == 2 and str(hit.excerpt()) == "a third message"
    assert ids(index.search('"second a third"')) == ["live"]  # joined as pi joins them


def test_narrower_keystrokes_give_what_a_fresh_search_gives() -> None:
    rng = random.Random(3)
    words = ["parser", "parse", "pars", "lexer", "Lexicon", "ΑΣ", "ΑΣΑ", "v2", "2v", "İx", "k"]
    items = [
        session(
            f"s{i}",
            name=rng.choice([None, "Parser work", "v2 notes", "ΑΣΑ"]),
            cwd=rng.choice(["/work/lexer", "/srv/2v-app", "/home/u"]),
            text=" ".join(rng.choice(words) for _ in range(rng.randint(0, 6))),
            modified=float(rng.randint(0, 9) * DAY),
        )
        for i in range(80)
    ]
    typed = ["pars", "parser lex", '"pars', "v2 k", "ΑΣΑ", "p r", "@3d pa", "lexer @9d", "2v", '"par"x']
    index = SearchIndex(items)
    for query in typed:
        for order in ("recent", "relevance"):
            for i in range(1, len(query) + 1):  # letter by letter, then backwards
                prefix = query[:i]
                got = index.search(prefix, order, now_ms=9 * DAY)
                assert ids(got) == ids(SearchIndex(items).search(prefix, order, now_ms=9 * DAY)), prefix
            for i in range(len(query), 0, -1):
                prefix = query[:i]
                assert ids(index.search(prefix, order, now_ms=9 * DAY)) == ids(
                    SearchIndex(items).search(prefix, order, now_ms=9 * DAY)
                ), prefix


def test_a_narrower_keystroke_looks_only_at_what_matched() -> None:
    items = [session(f"s{i}", text="parser" if i % 10 == 0 else "lexer") for i in range(100)]
    index = SearchIndex(items)
    assert len(index.search("pa")) == 10
    looked: list[int] = []

    class Counting(list):
        def __getitem__(self, i: Any) -> Any:
            looked.append(i)
            return super().__getitem__(i)

    index._entries = Counting(index._entries)
    assert len(index.search("par")) == 10 and len(looked) == 10
    assert len(index.search("par ser")) == 10 and len(looked) == 20
    assert len(index.search("pa")) == 10 and len(looked) == 120  # wider: everything again
    assert len(index.search("par")) == 10 and len(looked) == 130
    index.update(items)
    assert len(index.search("parse")) == 10  # a new list: everything again (not counted here)


def test_hits_are_made_only_for_the_rows_looked_at() -> None:
    index = SearchIndex([session(f"s{i}", text=f"hello {i}") for i in range(500)])
    results = index.search("hello")
    assert len(results) == 500 and results._hits.count(None) == 500
    assert results.items[:2] == [results.item(0), results.item(1)]
    first = results[0]
    assert results[0] is first and results._hits.count(None) == 499
    assert [h.item.id for h in results[1:3]] == ["s1", "s2"]
    assert str(results[-1].excerpt()) == "hello 499"


def test_a_stale_search_can_be_cancelled() -> None:
    index = SearchIndex([session(f"s{i}", text="hello") for i in range(1000)])
    looks: list[int] = []

    def cancelled() -> bool:
        looks.append(1)
        return len(looks) > 1

    with pytest.raises(SearchCancelled):
        index.search("hello", cancelled=cancelled)
    assert len(index.search("hello", cancelled=lambda: False)) == 1000


# ---------------------------------------------------------------------------- scale


def test_thousands_of_sessions() -> None:
    rng = random.Random(7)
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnoprstuvw") for _ in range(rng.randint(3, 9))) for _ in range(4000)
    ]

    def text_of(i: int) -> str:
        words: list[str] = []
        size = 0
        while size < 4000:
            word = rng.choice(vocabulary)
            words.append(word)
            size += len(word) + 1
        words.insert(len(words) // 2, f"marker{i:04d}")
        if i % 100 == 0:
            words.append("The Quick\n\nBrown fox")
        return " ".join(words)

    items = [
        session(
            f"{i:08x}-0000-7000-8000-000000000000",
            name=f"task {i} zyx" if i % 10 == 0 else None,
            cwd=f"/home/u/project{i % 7}",
            text=text_of(i),
            modified=float(i),
        )
        for i in range(3000)
    ]
    assert all(3900 < len(item.message_texts[0]) < 4200 for item in items)
    index = SearchIndex(items)
    queries = {
        "marker0042": [42],
        "MARKER2999": [2999],
        "marker0042 marker0043": [],
        '"quick brown fox"': list(range(0, 3000, 100)),
        '"quick brown fox" marker1200': [1200],
        "re:marker00[0-2]7": [7, 17, 27],
        "re:marker(?:0001|2998)$": [],
        "qqqqqq": [],
        "zx marker0070": [70],  # "zx" is scattered in the name only
        "project6 marker0006": [6],
        "00000001-0000": [1],
        "prjct3 marker0010": [10],
    }
    for query, expected in queries.items():
        assert [int(h.item.id[:8], 16) for h in index.search(query)] == expected, query
    # relevance: every hit is in the name (tier 0), so newest (highest modified) first on ties
    relevance = index.search("zyx", "relevance")
    assert len(relevance) == 300
    assert all(h.fields == ("name",) for h in relevance)
    assert [h.score for h in relevance] == sorted(h.score for h in relevance)
    recent = index.search("zyx")
    assert [h.item.id for h in recent] == [item.id for item in items if item.name]
    scattered = index.search("zx", "relevance")
    assert len(scattered) == 300 and all(h.fields == ("name~",) for h in scattered)
    # a common word: fields and excerpts for many hits
    common = index.search(vocabulary[0])
    assert common and all(h.fields in (("message",), ("name",), ("id",), ("cwd",)) for h in common)
    for hit in common[:50]:
        if hit.fields == ("message",):
            assert vocabulary[0] in known(hit.excerpt()).text.lower()
    assert len(index.search("re:.")) == 3000
    assert len(index.search("")) == 3000
