"""Token counts and costs no finite number can hold (two replies of 1e308 sum to infinity,
1e308 and -1e308 to NaN, JSON's 1e400 reads as Infinity): every figure is shown, none raises."""

from __future__ import annotations

import math
from pathlib import Path

from pi_sessions.core.common.text import human_count, short_cost
from pi_sessions.core.projection.timeline import sparkline
from pi_sessions.core.projection.window import format_tokens

from tests.helpers.app import loaded, make_app, screen_text
from tests.helpers.cli import cli
from tests.helpers.sessions import assistant, header, jsonl, user

BIG = "1" + "0" * 400  # JSON.parse: Infinity


def _session(path: Path, values: list[float]) -> Path:
    lines = [header(), user("u", None, "hi")]
    parent = "u"
    for i, value in enumerate(values):
        usage = {"input": value, "output": value, "totalTokens": value, "cost": {"total": value}}
        lines += [
            assistant(f"a{i}", parent, "x", 2 * i + 1, usage=usage),
            user(f"v{i}", f"a{i}", "y", 2 * i + 2),
        ]
        parent = f"v{i}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(jsonl(*lines))
    return path


def test_figures_that_are_no_number_read_as_inf_or_a_question_mark() -> None:
    assert format_tokens(math.inf) == "inf" and format_tokens(-math.inf) == "-inf"
    assert format_tokens(math.nan) == "?" and human_count(math.nan) == "?"
    assert human_count(math.inf) == "inf" and short_cost(math.inf) == "$inf"
    assert format_tokens(12_345_678) == "12M" and human_count(1234) == "1.2k"  # numbers unchanged
    assert len(sparkline([math.inf, 1.0, math.nan], 10)) == 3


async def test_the_browser_opens_a_session_whose_tokens_sum_to_infinity(tmp_path: Path) -> None:
    _session(tmp_path / "s" / "--p--" / "a.jsonl", [1e308, 1e308])
    app = make_app(tmp_path / "s", tmp_path / "cache")
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await loaded(pilot)
        assert "inf tokens" in screen.context_view.header.text()
        assert "inf" in screen_text(app)


def test_stats_on_infinite_and_nan_sums_prints_every_figure(tmp_path: Path) -> None:
    for name, values in (("inf", [1e308, 1e308]), ("nan", [1e308, -1e308, 1e308])):
        path = _session(tmp_path / name / "s.jsonl", values)
        path.write_text(path.read_text().replace("1e+308", BIG))  # Infinity as JSON.parse reads it
        for args in (("stats", str(path)), ("stats", str(path), "--json")):
            out = cli(*args)
            assert out.code == 0, (name, args, out.stderr)
            assert "tokens" in out.stdout
