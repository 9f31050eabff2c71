"""The flows that open a view over what is selected: every label (the labels screen, then landing
on the one chosen), the raw JSON of an entry, the comparison of the marked entry with the
selected one, the files the model knew at the selected entry, the costs of every session, and
from the index: a file's history across sessions and the recent edits (app/history_screen.py,
app/edits_screen.py), landing on the touch chosen; the secrets the audit finds (app/secrets_screen.py),
landing on the entry of the one chosen.
Each is one async flow, as app/actions.py's are (`Actions.flow` runs them by name); each knows
its host only as a `ViewHost`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, TypeVar

from textual.screen import Screen

from ..core.common.glyphs import Glyphs
from ..core.common.problems import SessionError
from ..core.common.text import one_line
from ..core.listing.summary import SessionSummary
from ..core.session.session import Session

if TYPE_CHECKING:  # (imported where used: the first screen needs none of these)
    from pathlib import Path

    from ..core.projection.context import Projection
    from ..core.projection.file_knowledge import FileTracker
    from ..core.search.labels import LabelIndex
    from ..core.search.landing import Aim
    from .history_screen import TouchChoice

T = TypeVar("T")

VIEW_FLOWS = ("labels", "inspect", "compare", "files", "costs", "history", "edits", "secrets")


class ViewHost(Protocol):
    """What the view flows need from the screen they run on."""

    @property
    def glyphs(self) -> Glyphs: ...
    @property
    def session(self) -> Session | None: ...
    @property
    def current_cwd(self) -> str: ...
    @property
    def index_root(self) -> tuple[str, Path | None]:
        """The sessions folder and the folder of its index (None: the default cache folder)."""

    def session_titles(self) -> Mapping[str, str]:
        """Each listed session's title by its path."""

    @property
    def label_index(self) -> LabelIndex:
        """Every label of the listed sessions."""

    def listed_summaries(self) -> list[SessionSummary]:
        """The sessions the sidebar shows (all of them when it shows none)."""

    def selected_entry(self) -> str | None: ...
    def inspected_entry(self) -> str | None:
        """The entry the user looks at: the context's block in the context pane, else the tree's."""

    def marked_entry(self) -> str | None:
        """The entry marked in the tree to compare."""

    def shown_projection(self, entry_id: str) -> Projection | None:
        """The context pane's projection, when it shows the context at `entry_id`."""

    def tracker_for(self, session: Session) -> FileTracker:
        """What the model knew of each file in `session` (kept across entries)."""

    def key_of(self, binding_id: str) -> str:
        """The first key of a binding as people read it ("" when it has none)."""

    def open_at(self, path: str, aim: Aim) -> None:
        """Select `path` in the sidebar, open it landing on `aim`, the tree focused."""

    def go_to_entry(self, session: Session, entry_id: str | None) -> None:
        """A view chose an entry of `session`: the tree's cursor goes there."""

    def set_status(self, text: str, *, error: bool = False) -> None: ...
    async def push_screen_wait(self, screen: Screen[T]) -> T: ...


class ViewFlows:
    """The view flows, on one host."""

    def __init__(self, host: ViewHost) -> None:
        self.host = host
        self.last_file: str | None = None  # the file last selected in the files view

    async def labels(self) -> None:
        """Every label of the listed sessions; land on the one chosen (n / N walk that
        session's labels)."""
        from ..core.search.in_session import HitPlace
        from ..core.search.landing import Aim
        from .labels_screen import LabelsScreen

        host = self.host
        index = host.label_index
        row = await host.push_screen_wait(LabelsScreen(host.listed_summaries(), index))
        if row is None:
            return
        place = HitPlace(row.entry_id, "label", row.on_active_path, row.branch_from)
        labelled = tuple(r.entry_id for r in index.labels_of(row.path))
        host.open_at(row.path, Aim(None, "deep", place=place, walk=labelled or (row.entry_id,)))

    async def costs(self) -> None:
        """What the listed sessions cost, by period, model or project."""
        from .costs_screen import CostsScreen

        await self.host.push_screen_wait(CostsScreen(self.host.listed_summaries()))

    async def inspect(self) -> None:
        """The raw JSON of the entry looked at, as it is in the file."""
        from ..core.projection.cache_breaks import break_at
        from .screens import RawJsonScreen

        host = self.host
        session, entry_id = host.session, host.inspected_entry()
        if session is None or entry_id is None:
            return
        record = session.by_id[entry_id]
        try:
            value = session.entry_dict(record)
        except (SessionError, OSError) as e:
            host.set_status(f"cannot read line {record.line}: {e}", error=True)
            return
        title = f"{entry_id} {host.glyphs.dot} line {record.line} of {session.path}"
        try:
            lost = break_at(session, session.path_to(entry_id))
        except (SessionError, OSError, ValueError):
            lost = None  # (the entry itself was read: its JSON is shown)
        note = f"{host.glyphs.cache_break} {lost.summary()}" if lost is not None else ""
        await host.push_screen_wait(RawJsonScreen(title, value, note))

    async def compare(self) -> None:
        """The marked entry against the selected one; the entry chosen there is selected."""
        host = self.host
        session, marked, selected = host.session, host.marked_entry(), host.selected_entry()
        if session is None or selected is None:
            return
        if marked is None or marked not in session.by_id:
            mark = host.key_of("tree.mark")
            how = f"press {mark} on an entry" if mark else "mark an entry (the palette)"
            host.set_status(f"nothing is marked to compare: {how}, move to another and compare")
            return
        if marked == selected:
            host.set_status("the marked entry is the selected one: move to another entry to compare")
            return
        from .compare_screen import CompareScreen

        host.go_to_entry(session, await host.push_screen_wait(CompareScreen(session, marked, selected)))

    async def files(self) -> None:
        """What the model knew of each file at the selected entry; the entry chosen there is selected."""
        host = self.host
        session, entry = host.session, host.selected_entry()
        if session is None or entry is None:
            return
        from .files_screen import FilesScreen

        root, base = host.index_root
        index = (root, base, host.session_titles)
        screen = FilesScreen(session, entry, host.tracker_for(session), host.shown_projection(entry), index)
        chosen = await host.push_screen_wait(screen)
        self.last_file = screen.last_file or self.last_file
        if isinstance(chosen, str) or chosen is None:
            host.go_to_entry(session, chosen)
        else:
            self._open_touch(chosen)  # a row of the file's history (`h` there)

    async def history(self) -> None:
        """Ask for a file (by default the one last selected in the files view) and show its
        history across every session; land on the touch chosen."""
        from .history_screen import HistoryScreen
        from .screens import PromptScreen

        host = self.host
        session = host.session
        cwd = (session.cwd if session is not None else "") or host.current_cwd
        prompt = PromptScreen(
            "History of a file",
            value=self.last_file or "",
            placeholder="a path; a relative one is taken in the open session's folder",
            detail=f"relative to {one_line(cwd, 200, glyphs=host.glyphs)}",
        )
        value = (await host.push_screen_wait(prompt) or "").strip()
        if not value:
            return
        # (A `~/x` stays as written, as sessions keep it: whose home it was is not in the session.)
        path = value if value.startswith("~") else os.path.normpath(os.path.join(cwd, value))
        root, base = host.index_root
        choice = await host.push_screen_wait(HistoryScreen(root, path, base, host.session_titles))
        if choice is not None:
            self._open_touch(choice)

    async def edits(self) -> None:
        """The files the agent changed across every session, newest first; land on the one chosen."""
        from .edits_screen import EditsScreen

        root, base = self.host.index_root
        choice = await self.host.push_screen_wait(EditsScreen(root, base, self.host.session_titles))
        if choice is not None:
            self._open_touch(choice)

    async def secrets(self) -> None:
        """The secrets the audit finds in the open session (or every listed one, `a` there);
        the tree goes to the entry of the one chosen (another session's is opened there)."""
        from ..core.search.in_session import HitPlace
        from ..core.search.landing import Aim
        from .secrets_screen import SecretsScreen

        host = self.host
        session = host.session
        path = session.path if session is not None else None
        title = host.session_titles().get(path or "", "") or os.path.basename(path or "")
        _, base = host.index_root
        screen = SecretsScreen(
            path,
            title,
            lambda: [s.path for s in host.listed_summaries()],
            base,
            host.session_titles,
        )
        chosen = await host.push_screen_wait(screen)
        if chosen is None or chosen.entry_id is None:
            return
        if session is not None and chosen.session_path == session.path:
            host.go_to_entry(session, chosen.entry_id)
            return
        place = HitPlace(chosen.entry_id, chosen.kind, chosen.on_active_path, None)
        host.open_at(chosen.session_path, Aim(None, "deep", place=place, walk=(chosen.entry_id,)))

    def _open_touch(self, choice: TouchChoice) -> None:
        """Open a touch's session at its entry, n / N walking the file's touches there."""
        from ..core.projection.file_knowledge import display_path
        from ..core.search.in_session import HitPlace
        from ..core.search.landing import Aim

        row = choice.row
        what = f"{row.action} {display_path(row.path, row.cwd)}"
        place = HitPlace(row.entry_id, what, row.on_active_path or None, None)  # (not where a branch leaves)
        self.host.open_at(row.session_path, Aim(None, "deep", place=place, walk=choice.walk))
