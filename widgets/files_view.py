"""The files the tool calls on a path named, as rows: each file's state at the entry (its last
read and edit still in context, summarized, omitted or replaced by a context edit, or never
seen), and where it was last read and edited.

The rows come from a `core.files.FilesAtLeaf`; this widget only draws them. How one touch of
a file reads in a line (`touch_line`, `touch_fate`) is here too, for the view that shows the
text the model saw.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.strip import Strip

from ..core.common.glyphs import UNICODE, Glyphs
from ..core.common.text import one_line
from ..core.projection.bashpaths import Access
from ..core.projection.context import Fate
from ..core.projection.file_knowledge import USER_BASH, FileKnowledge, FilesAtLeaf, FileState, Touch
from ..core.projection.stale import StaleFile, Why
from .links import file_link
from .rowlist import RowList
from .rowtext import RowText

STATE_STYLES = {
    FileState.IN_CONTEXT: "files--in-context",
    FileState.SUMMARIZED: "files--summarized",
    FileState.OMITTED: "files--gone",
    FileState.REPLACED: "files--gone",
    FileState.NEVER_SEEN: "files--never-seen",
}
STATE_WIDTH = 10  # "never-seen"
STALE_MARKS = {  # a file that is no longer what the model saw (core/projection/stale.py)
    Why.DELETED: "deleted since",
    Why.CHANGED: "changed on disk since",
    Why.DIFFERS_FROM_HEAD: "differs from git HEAD",
}


def touch_line(touch: Touch, *, glyphs: Glyphs = UNICODE) -> str:
    """`read at e2 (lines 10-29)`, `write at e7`, `edit by sed -i at e5`, `named by ls at e9`,
    `read by !cat at b1` (a command the user ran with `!`)."""
    verb = ("!" if touch.tool == USER_BASH else "") + one_line(touch.verb, 40, glyphs=glyphs)
    if touch.access is Access.READ:
        what = "read" if touch.verb == "read" else f"read by {verb}"
    elif touch.access is Access.EDIT:
        what = verb if touch.verb in ("edit", "write") else f"edit by {verb}"
    else:
        what = f"named by {verb}"
    detail = f" ({touch.detail})" if touch.detail else ""
    return f"{what} at {one_line(touch.entry.id, 40, glyphs=glyphs)}{detail}"


def touch_fate(touch: Touch, fate: Fate | None) -> str:
    """What became of what this touch showed the model, by the entry the view is at."""
    if touch.hidden:
        return "run with !!: excluded from the context, the model never saw it"
    if touch.error:
        return "the tool reported an error: nothing was read or changed for sure"
    if fate is None:
        return "not on this path"
    return fate.describe()


def file_summary(known: FileKnowledge, *, glyphs: Glyphs = UNICODE) -> str:
    """Where a file was last read and edited (or what named it)."""
    parts = []
    if known.last_read is not None:
        parts.append(touch_line(known.last_read, glyphs=glyphs))
    if known.last_edit is not None:
        parts.append(touch_line(known.last_edit, glyphs=glyphs))
    if not parts:
        verbs = ", ".join(dict.fromkeys(one_line(t.verb, 40, glyphs=glyphs) for t in known.touches))
        parts.append(f"named by {verbs}")
    return f" {glyphs.dot} ".join(parts)


class FileList(RowList):
    """One row per file; the cursor's file is the one the view shows."""

    COMPONENT_CLASSES = RowList.COMPONENT_CLASSES | {
        "files--in-context",
        "files--summarized",
        "files--gone",
        "files--never-seen",
        "files--path",
        "files--where",
        "files--stale",
    }

    DEFAULT_CSS = """
    FileList > .files--in-context { color: $success; }
    FileList > .files--summarized { color: $accent; }
    FileList > .files--gone { color: $warning; }
    FileList > .files--never-seen { color: $text-muted; }
    FileList > .files--path { text-style: bold; }
    FileList > .files--where { color: $text-muted; }
    FileList > .files--stale { color: $warning; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.files: list[FileKnowledge] = []
        self.stale: dict[str, StaleFile] = {}  # path -> how the disk differs from what the model saw
        self.path_width = 0  # the longest path shown, in cells

    def show_note(self, text: str) -> None:
        """No files to list: `text` instead ("reading…", none, or why it failed)."""
        self.files = []
        self.placeholder = [text]
        self.cursor = -1
        self.set_row_count(0)

    def show(self, report: FilesAtLeaf, stale: dict[str, StaleFile] | None = None) -> None:
        self.files = list(report.files)
        self.stale = dict(stale or {})
        self.path_width = max(
            (cell_len(one_line(f.display, 300, glyphs=self.glyphs)) for f in self.files), default=0
        )
        self.cursor = -1
        self.placeholder = ["No tool call on the path to this entry named a file."]
        self.set_row_count(len(self.files))
        if self.files:
            self.move_cursor(0)

    def current_file(self) -> FileKnowledge | None:
        return self.files[self.cursor] if 0 <= self.cursor < len(self.files) else None

    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        known = self.files[index]
        g = self.glyphs
        text = RowText(self.row_style(selected), g)
        text.add(f" {known.state:<{STATE_WIDTH}} ", self.style(STATE_STYLES[known.state]), raw=True)
        path = one_line(known.display, 300, glyphs=g)
        link = file_link(self, known.path)
        text.add(path, self.style("files--path") + link if link else self.style("files--path"))
        # Paths in a column, as long as the longest (up to half the row).
        pad = min(self.path_width, width // 2) - cell_len(path)
        text.add(" " * (max(pad, 0) + 2), raw=True)
        text.add(file_summary(known, glyphs=g), self.style("files--where"))
        stale = self.stale.get(known.path)
        if stale is not None:
            text.add(f" {g.dot} ", self.style("files--where"), raw=True)
            text.add(STALE_MARKS[stale.why], self.style("files--stale"), raw=True)
        return text.strip(width)
