"""Two leaves compared, as rows: where their paths split, what each side spent since, pi's
context size at each leaf, and the entries one context sends and the other does not (or sends
in another form, with each side's reason).

The rows come from a `core.compare.Comparison`; this widget lays them out (an entry's excerpt
is read back only when its row is drawn) and says which entry a row stands for, so the view
can jump there. Headings and notes are not selectable: the cursor moves over entries only.
"""

from __future__ import annotations

from enum import Enum

from textual.strip import Strip

from ..core.common.text import human_count, one_line
from ..core.projection.compare import Comparison, Relation, Side
from ..core.reading.records import EntryRecord
from ..core.session.describe import Excerpts, kind_label
from ..core.session.session import Session
from .rowlist import RowList
from .rowtext import RowText


class RowKind(Enum):
    HEADING = "heading"
    ENTRY = "entry"  # an entry of the session: selectable, a jump target
    NOTE = "note"
    BLANK = "blank"


class CompareRow:
    """One row: a heading, a note, or an entry with what it is in the comparison (`tag`)."""

    __slots__ = ("kind", "record", "tag", "text")

    def __init__(
        self, kind: RowKind, text: str = "", record: EntryRecord | None = None, tag: str = ""
    ) -> None:
        self.kind = kind
        self.text = text
        self.record = record
        self.tag = tag  # "split", "leaf A", "leaf B", or "" for an entry of a list


TAG_WIDTH = 8  # "leaf A  "


def side_notes(side: Side) -> tuple[str, str]:
    """What a side spent since the split, and pi's context at its leaf."""
    entries = len(side.since_split)
    spent = (
        f"since the split: {entries} {'entry' if entries == 1 else 'entries'}, "
        f"{side.message_count} {'message' if side.message_count == 1 else 'messages'}, "
        f"{human_count(side.totals.tokens)} tokens, ${side.totals.cost:.4f}"
    )
    messages = side.context_message_count
    context = (
        f"pi's context at this leaf: {messages} {'message' if messages == 1 else 'messages'}, "
        f"~{human_count(side.context_tokens)} tokens"
    )
    return spent, context


RELATION_NOTES = {
    Relation.SAME: "A and B are the same entry",
    Relation.A_BELOW_B: "B lies on A's path: B itself is the split point",
    Relation.B_BELOW_A: "A lies on B's path: A itself is the split point",
    Relation.FORKED: "the deepest entry both paths share; they part below it",
    Relation.UNRELATED: "none: the two leaves have different roots and share nothing",
}


def comparison_rows(comparison: Comparison) -> list[CompareRow]:
    """The rows of a comparison, top to bottom."""
    rows: list[CompareRow] = [CompareRow(RowKind.HEADING, "Where the paths split")]
    if comparison.split is not None:
        rows.append(CompareRow(RowKind.ENTRY, record=comparison.split, tag="split"))
    rows.append(CompareRow(RowKind.NOTE, RELATION_NOTES[comparison.relation]))
    if comparison.split is not None:
        shared = comparison.shared_count
        same = f"{shared} {'entry' if shared == 1 else 'entries'} up to it sent the same way in both contexts"
        rows.append(CompareRow(RowKind.NOTE, same))
    for name, side, which in (("A", comparison.a, "marked"), ("B", comparison.b, "selected")):
        rows.append(CompareRow(RowKind.BLANK))
        rows.append(CompareRow(RowKind.HEADING, f"{name}: the {which} entry"))
        rows.append(CompareRow(RowKind.ENTRY, record=side.leaf, tag=f"leaf {name}"))
        rows += [CompareRow(RowKind.NOTE, note) for note in side_notes(side)]
    for name, side in (("A", comparison.a), ("B", comparison.b)):
        rows.append(CompareRow(RowKind.BLANK))
        rows.append(CompareRow(RowKind.HEADING, f"Only in {name}'s context ({len(side.only_here)})"))
        rows += [CompareRow(RowKind.ENTRY, record=record) for record in side.only_here]
        if not side.only_here:
            rows.append(CompareRow(RowKind.NOTE, "nothing"))
    differences = comparison.different_form
    rows.append(CompareRow(RowKind.BLANK))
    rows.append(CompareRow(RowKind.HEADING, f"In both, sent differently ({len(differences)})"))
    for difference in differences:
        rows.append(CompareRow(RowKind.ENTRY, record=difference.record))
        rows.append(CompareRow(RowKind.NOTE, f"A: {difference.a.describe()}"))
        rows.append(CompareRow(RowKind.NOTE, f"B: {difference.b.describe()}"))
    if not differences:
        rows.append(CompareRow(RowKind.NOTE, "nothing"))
    return rows


class CompareList(RowList):
    """The rows of one comparison; enter on an entry posts `Activated` (the view jumps)."""

    COMPONENT_CLASSES = RowList.COMPONENT_CLASSES | {
        "compare--heading",
        "compare--note",
        "compare--tag",
        "compare--id",
        "compare--kind",
        "compare--label",
    }

    DEFAULT_CSS = """
    CompareList > .compare--heading { color: $accent; text-style: bold; }
    CompareList > .compare--note { color: $text-muted; }
    CompareList > .compare--tag { color: $warning; text-style: bold; }
    CompareList > .compare--id { color: $text-muted; }
    CompareList > .compare--kind { color: $secondary; }
    CompareList > .compare--label { color: $accent; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.session: Session | None = None
        self.comparison: Comparison | None = None
        self.rows: list[CompareRow] = []
        self.excerpts = Excerpts()  # each entry's, read back once

    # ------------------------------------------------------------------ data in
    def show_note(self, text: str) -> None:
        """No comparison (yet): `text` instead ("comparing…", or why it failed)."""
        self.comparison = None
        self.rows = []
        self.placeholder = [text]
        self.cursor = -1
        self.set_row_count(0)

    def show(self, session: Session, comparison: Comparison, rows: list[CompareRow] | None = None) -> None:
        """Show `comparison`, as `rows` when they were laid out already (in a worker)."""
        self.session = session
        self.comparison = comparison
        self.rows = rows if rows is not None else comparison_rows(comparison)
        self.excerpts.reset(session)
        self.cursor = -1
        self.set_row_count(len(self.rows))
        self.move_cursor(self._step(0, 1), notify=False)

    # ------------------------------------------------------------------ what a row stands for
    def is_selectable(self, index: int) -> bool:
        return self.rows[index].kind is RowKind.ENTRY

    def entry_at(self, index: int) -> str | None:
        if 0 <= index < len(self.rows):
            record = self.rows[index].record
            if record is not None:
                entry_id: str = record.id
                return entry_id
        return None

    def current_entry(self) -> str | None:
        return self.entry_at(self.cursor)

    def select_entry(self, entry_id: str, tag: str = "") -> bool:
        """Put the cursor on the row of `entry_id` (with `tag`: that row of it, e.g. "leaf A")."""
        for index, row in enumerate(self.rows):
            if row.record is not None and row.record.id == entry_id and (not tag or row.tag == tag):
                self.move_cursor(index)
                return True
        return False

    # ------------------------------------------------------------------ drawing
    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        row = self.rows[index]
        text = RowText(self.row_style(selected), self.glyphs)
        if row.kind is RowKind.HEADING:
            text.add(" " + row.text, self.style("compare--heading"))
        elif row.kind is RowKind.NOTE:
            text.add(" " * (TAG_WIDTH + 3), raw=True)
            text.add(row.text, self.style("compare--note"))
        elif row.kind is RowKind.ENTRY and row.record is not None:
            self._entry(text, row.tag, row.record)
        return text.strip(width)

    def _entry(self, text: RowText, tag: str, record: EntryRecord) -> None:
        g = self.glyphs
        text.add(f"   {tag:<{TAG_WIDTH}}", self.style("compare--tag"), raw=True)
        text.add(f"{one_line(record.id, 40, glyphs=g):<8} ", self.style("compare--id"), raw=True)
        text.add(f"{one_line(kind_label(record), 24, glyphs=g):<9} ", self.style("compare--kind"), raw=True)
        label = self.session.labels.get(record.id) if self.session is not None else None
        if label:
            text.add(g.label + one_line(str(label), 24, glyphs=g), self.style("compare--label"))
            text.add(" ", raw=True)
        text.add(self.excerpts.of(record, self.glyphs))
