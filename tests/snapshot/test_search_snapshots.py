"""What search results look like at 160x48 on the bundled demo: each result with a line under it
that says where it matched, the matched text highlighted, and where the hit sits.

Update after a deliberate change with `pytest tests/test_search_snapshots.py --snapshot-update`
and look at the picture (tests/__snapshots__) before committing.
"""

from __future__ import annotations

from typing import Any

from tests.helpers.app import settled, until
from tests.helpers.snapshot import ready


def test_wide_terminal_search_results_with_highlights(snap_compare: Any, demo_app: Any) -> None:
    async def searched(pilot: Any) -> None:
        await ready(pilot)
        screen = pilot.app.screen
        await pilot.press("slash", *"test")
        await until(pilot, lambda: getattr(screen.sidebar.matches, "text", None) == "test", "the results")

        def placed() -> bool:
            results = screen.sidebar.matches
            return all(results.place(path) is not None for path in results.paths)

        await until(pilot, placed, "where each hit sits")
        await settled(pilot)

    assert snap_compare(demo_app(), terminal_size=(160, 48), run_before=searched)
