"""What the screen looks like, at 80x24 up to 160x48, on the bundled demo sessions: the panes,
the dialogs, search results, folds, an expanded message, the live marker, the empty and error
states, and the 16-colour and no-colour terminals.

Update the pictures after a deliberate change with `pytest tests/test_snapshots.py --snapshot-update`
and look at them (tests/__snapshots__) before committing.

Everything a picture depends on is pinned by `demo_app` (tests/helpers/snapshot.py): the clock (ages), HOME (`~` in
folder names), TZ, the working directory, the terminal's environment (NO_COLOR, COLORTERM,
TEXTUAL_*), and the folder the demo is copied to (its path is on screen: a private folder
under /tmp, shown as one fixed name of the same length).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pi_sessions
import pytest
from pi_sessions.app.screens import ConfirmScreen, ForkScreen, MenuScreen, PromptScreen, RawJsonScreen
from pi_sessions.app.tui import PiSessionsApp
from pi_sessions.widgets.key_footer import KeyFooter
from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual import constants
from textual.filter import LineFilter

from tests.helpers.app import lines_of, main, settled, until
from tests.helpers.checks import known
from tests.helpers.snapshot import NOW, ready

pytestmark = pytest.mark.snapshot

KITCHEN_SINK = "--tmp-scratch--/2025-03-30T10-52-05-079Z_0195e6ae-1c57-71e5-b35b-1bbb5f940b52.jsonl"
FORKED = "--home-u-proj-a--/2025-03-12T04-57-35-367Z_019588b7-1787-71e5-b35b-1b6ecf9221df.jsonl"


class SixteenColours(LineFilter):
    """What a 16-colour terminal receives: every colour reduced to the standard palette, as
    Rich does on output when Textual runs with TEXTUAL_COLOR_SYSTEM=standard (`--color 16`)."""

    def apply(self, segments: list[Segment], background: Any) -> list[Segment]:
        def reduce(style: Style | None) -> Style | None:
            if style is None:
                return None
            return style + Style.from_color(
                style.color.downgrade(ColorSystem.STANDARD) if style.color else None,
                style.bgcolor.downgrade(ColorSystem.STANDARD) if style.bgcolor else None,
            )

        return [Segment(text, reduce(style), control) for text, style, control in segments]


class SixteenColourApp(PiSessionsApp):
    # CSS_PATH is read relative to the class's own module: point it at the package's stylesheet
    CSS_PATH = str(Path(pi_sessions.__file__).parent / "styles.tcss")

    def get_line_filters(self) -> list[LineFilter]:
        return [*super().get_line_filters(), SixteenColours()]


def _quit_and_help_shown(pilot: Any) -> None:
    """At 80 columns the footer still says how to quit and where the help is."""
    footer = lines_of(pilot.app.screen.query_one(KeyFooter))[0]
    assert footer.startswith(" q Quit  ? Help "), footer


async def _dialog(pilot: Any, kind: type) -> None:
    await until(pilot, lambda: isinstance(pilot.app.screen, kind), kind.__name__)
    await pilot.pause()


# ---------------------------------------------------------------------- the panes
def test_small_terminal_first_screen(snap_compare: Any, demo_app: Any) -> None:
    async def first(pilot: Any) -> None:
        await ready(pilot)
        _quit_and_help_shown(pilot)

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=first)


def test_small_terminal_tree_and_context(snap_compare: Any, demo_app: Any) -> None:
    async def tree(pilot: Any) -> None:
        await ready(pilot)
        await pilot.press("tab", "k", "k")
        await settled(pilot)
        _quit_and_help_shown(pilot)

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=tree)


def test_wide_terminal_three_panes(snap_compare: Any, demo_app: Any) -> None:
    assert snap_compare(demo_app(), terminal_size=(160, 48), run_before=ready)


def test_wide_terminal_excluded_entries_with_reasons(snap_compare: Any, demo_app: Any) -> None:
    async def excluded(pilot: Any) -> None:
        await ready(pilot)
        await pilot.press("x")
        main(pilot).focus_pane("context")
        await pilot.press("home")
        body = main(pilot).context_view.body
        for _ in range(60):  # message by message down to the first entry not in the context
            await settled(pilot)
            if any(line.startswith("✗") for line in lines_of(body)):
                break
            await pilot.press("right_square_bracket")
        assert any(line.startswith("✗") for line in lines_of(body))
        await settled(pilot)

    assert snap_compare(demo_app(KITCHEN_SINK), terminal_size=(160, 48), run_before=excluded)


def test_ascii_and_help(snap_compare: Any, demo_app: Any) -> None:
    async def help_screen(pilot: Any) -> None:
        await ready(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(demo_app(ascii=True), terminal_size=(80, 24), run_before=help_screen)


def test_wide_terminal_comparison_of_two_leaves(snap_compare: Any, demo_app: Any) -> None:
    async def comparison(pilot: Any) -> None:
        await ready(pilot)
        screen = pilot.app.screen
        screen.focus_pane("tree")
        screen.branch_tree.select("329cfeae")  # the end of the branch with the compaction
        await pilot.press("m")
        screen.branch_tree.select("91ac5f50")  # the active leaf, with context edits
        await pilot.press("equals_sign")
        await until(pilot, lambda: getattr(pilot.app.screen, "comparison", None) is not None, "the rows")
        await pilot.pause()

    assert snap_compare(demo_app(KITCHEN_SINK), terminal_size=(160, 48), run_before=comparison)


def test_wide_terminal_files_the_model_knew(snap_compare: Any, demo_app: Any) -> None:
    async def files(pilot: Any) -> None:
        await ready(pilot)
        pilot.app.screen.focus_pane("tree")
        await pilot.press("w")
        await until(pilot, lambda: getattr(pilot.app.screen, "report", None) is not None, "the files")
        await pilot.press("down", "down", "down", "down")  # lib/utils.py: its read, replaced since
        await pilot.pause()

    assert snap_compare(demo_app(KITCHEN_SINK), terminal_size=(160, 48), run_before=files)


API_WITH_COMPACTION = "--srv-my-api--/2025-03-12T09-04-49-453Z_01958999-712d-71e5-b35b-1b7130a4d54a.jsonl"


def _report(key: str) -> Any:
    async def report(pilot: Any) -> None:
        await ready(pilot)
        await pilot.press(key)
        await until(pilot, lambda: getattr(pilot.app.screen, "ready", False), "the report")
        await pilot.pause()

    return report


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_compaction_audit(snap_compare: Any, demo_app: Any, size: tuple[int, int]) -> None:
    """Behind the audit: the header's sparkline with the compaction's mark."""
    assert snap_compare(demo_app(API_WITH_COMPACTION), terminal_size=size, run_before=_report("A"))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_size_doctor(snap_compare: Any, demo_app: Any, size: tuple[int, int]) -> None:
    assert snap_compare(demo_app(KITCHEN_SINK), terminal_size=size, run_before=_report("S"))


def test_folded_rows(snap_compare: Any, demo_app: Any) -> None:
    async def folded(pilot: Any) -> None:
        await ready(pilot)
        await pilot.press("end", "left_square_bracket", "space")  # fold the last fork point
        await settled(pilot)

    assert snap_compare(demo_app(KITCHEN_SINK), terminal_size=(100, 30), run_before=folded)


def test_expanded_message(snap_compare: Any, demo_app: Any) -> None:
    async def expanded(pilot: Any) -> None:
        await ready(pilot)
        await pilot.press("tab", "tab", "home", *["right_square_bracket"] * 5)  # thinking and a tool call
        await pilot.press("enter")
        await settled(pilot)

    assert snap_compare(demo_app(), terminal_size=(120, 36), run_before=expanded)


def test_search_results_with_highlights(snap_compare: Any, demo_app: Any) -> None:
    async def searched(pilot: Any) -> None:
        await ready(pilot)
        screen = main(pilot)
        await pilot.press("slash", *"fetchData")
        await until(pilot, lambda: screen.sidebar.matches is not None, "the session search")
        await pilot.press("enter", "enter")  # out of the search box, then open the one found
        found = screen.sidebar.session_list.current()
        assert found is not None
        await until(pilot, lambda: screen.session is not None and screen.session.path == found.path, "it")
        await pilot.press("slash", *"fetchData", "enter")
        await until(pilot, lambda: screen.branch_tree.matches, "the tree search")
        await settled(pilot)

    assert snap_compare(demo_app(), terminal_size=(160, 40), run_before=searched)


def test_live_marker(snap_compare: Any, demo_app: Any) -> None:
    async def live(pilot: Any) -> None:
        await ready(pilot)
        screen = main(pilot)
        screen.activity.grew(str(demo_app.sessions / FORKED), NOW)  # as if a pi wrote it just now
        session_list = screen.sidebar.session_list
        session_list.set_rows(session_list.rows, keep_path=known(screen.session).path)
        await pilot.pause()

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=live)


def test_empty_folder(snap_compare: Any, demo_app: Any, pinned: Path) -> None:
    empty = pinned / "empty"
    empty.mkdir()

    async def scanned(pilot: Any) -> None:
        await until(pilot, lambda: main(pilot).scanned, "the scan")
        await pilot.pause()

    assert snap_compare(demo_app(root=empty), terminal_size=(80, 24), run_before=scanned)


def test_a_file_that_cannot_be_opened(snap_compare: Any, demo_app: Any) -> None:
    broken = demo_app.sessions / "--home-u-proj-a--" / "notes.jsonl"
    broken.write_text("these are my notes, not a session\n")

    async def refused(pilot: Any) -> None:
        await until(pilot, lambda: main(pilot).scanned, "the scan")
        await until(pilot, lambda: "cannot open" in str(main(pilot).query_one("#status").render()), "error")
        await pilot.pause()

    assert snap_compare(
        demo_app("--home-u-proj-a--/notes.jsonl"), terminal_size=(100, 24), run_before=refused
    )


# ---------------------------------------------------------------------- dialogs
def test_fork_preview(snap_compare: Any, demo_app: Any) -> None:
    async def preview(pilot: Any) -> None:
        await ready(pilot)
        await pilot.press("tab", "k", "f")
        await _dialog(pilot, ForkScreen)

    assert snap_compare(demo_app(), terminal_size=(100, 30), run_before=preview)


def test_confirm_delete(snap_compare: Any, demo_app: Any) -> None:
    async def confirm(pilot: Any) -> None:
        await ready(pilot)
        await pilot.press("D")
        await _dialog(pilot, ConfirmScreen)

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=confirm)


def test_rename_prompt(snap_compare: Any, demo_app: Any) -> None:
    async def prompt(pilot: Any) -> None:
        await ready(pilot)
        await pilot.press("M")
        await _dialog(pilot, PromptScreen)

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=prompt)


def test_copy_menu(snap_compare: Any, demo_app: Any) -> None:
    async def menu(pilot: Any) -> None:
        await ready(pilot)
        await pilot.press("tab", "y")
        await _dialog(pilot, MenuScreen)

    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=menu)


def test_raw_json(snap_compare: Any, demo_app: Any) -> None:
    async def raw(pilot: Any) -> None:
        await ready(pilot)
        await pilot.press("tab", "k", "i")
        await _dialog(pilot, RawJsonScreen)

    assert snap_compare(demo_app(), terminal_size=(100, 30), run_before=raw)


# ---------------------------------------------------------------------- plain terminals
def test_sixteen_colours(snap_compare: Any, demo_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(constants, "COLOR_SYSTEM", "standard")  # what `--color 16` sets
    app = demo_app(app_class=SixteenColourApp)
    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)


def test_no_colour(snap_compare: Any, demo_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")  # what `--color none` sets; the app reads it when built
    assert snap_compare(demo_app(), terminal_size=(80, 24), run_before=ready)
