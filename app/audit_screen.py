"""The compaction audit (`A`): for each compaction on the path to the selected entry, the context
before and after, the window it kept, what it summarized, and the files and commands of the
summarized work that its summary never names (core/projection/compaction_audit.py)."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.common.glyphs import Glyphs
from ..core.common.text import counted, one_line
from ..core.projection.compaction_audit import (
    CompactionAudit,
    CompactionsOffPath,
    audit_compactions,
    compactions_off_path,
)
from ..widgets.keys import bindings
from .report_screen import ReportLine, ReportScreen

SHOWN_ITEMS = 40  # files or commands listed per compaction (the rest: a count)


def _count(value: int | float | None) -> str:
    return "?" if value is None else f"{value:,}"


def _items(items: Sequence[str], separator: str, glyphs: Glyphs) -> str:
    shown = [one_line(item, 160, glyphs=glyphs) for item in items[:SHOWN_ITEMS]]
    more = len(items) - len(shown)
    return separator.join(shown) + (f"{separator}and {more} more" if more > 0 else "")


def audit_lines(
    audits: Sequence[CompactionAudit], path_length: int, elsewhere: CompactionsOffPath, glyphs: Glyphs
) -> list[ReportLine]:
    """The report's lines: one section per compaction, root first."""
    if not audits:
        text = "No compaction on the path to this entry."
        if elsewhere.later:
            text += f" {counted(elsewhere.later, 'compaction')} later on this path: select an entry below."
        if elsewhere.other_branches:
            text += f" {counted(elsewhere.other_branches, 'compaction')} on other branches."
        return [ReportLine(text, "lead")]
    arrow = glyphs.arrow
    how_many = counted(len(audits), "compaction")
    lines = [ReportLine(f"{how_many} on the path ({path_length} entries).", "lead")]
    for number, audit in enumerate(audits, 1):
        lines.append(
            ReportLine(
                f"Compaction {number} of {len(audits)}: {one_line(audit.compaction_id, 60, glyphs=glyphs)}, "
                f"entry {audit.position + 1} of the path",
                "heading",
            )
        )
        lines.append(
            ReportLine(
                f"Context {_count(audit.tokens_before)} {arrow} {_count(audit.tokens_after)} tokens "
                "(before: as pi recorded it; after: pi's estimate right after the compaction)"
            )
        )
        if audit.first_kept_id:
            kept = (
                f"Kept {audit.kept_entries} entries from {one_line(audit.first_kept_id, 60, glyphs=glyphs)} "
                f"({audit.kept_tokens:,} tokens)"
            )
        else:
            kept = "Kept nothing: the summary replaced everything before it"
        lines.append(ReportLine(kept))
        lines.append(
            ReportLine(
                f"Summarized {audit.summarized_entries} entries, {audit.summarized_messages} messages "
                f"({audit.summarized_tokens:,} tokens) into {audit.summary_chars:,} characters"
            )
        )
        if audit.missing_paths:
            lines.append(
                ReportLine(
                    f"Files the summary does not name ({len(audit.missing_paths)} of {len(audit.paths)}): "
                    + _items(audit.missing_paths, ", ", glyphs),
                    "warning",
                )
            )
        if audit.missing_commands:
            lines.append(
                ReportLine(
                    f"Commands the summary does not name ({len(audit.missing_commands)} of "
                    f"{len(audit.commands)}): " + _items(audit.missing_commands, "; ", glyphs),
                    "warning",
                )
            )
        if not audit.missing_paths and not audit.missing_commands:
            named = len(audit.paths) + len(audit.commands)
            lines.append(
                ReportLine(
                    f"The summary names every file and command of the summarized work ({named})"
                    if named
                    else "The summarized work touched no file and ran no command",
                    "dim",
                )
            )
    return lines


class CompactionAuditScreen(ReportScreen):
    BINDINGS = bindings("audit")
    KEYS = (("audit.close", "close"),)

    def build(self, glyphs: Glyphs) -> list[ReportLine]:
        session = self.session
        path = session.path_to(self.leaf)
        audits = audit_compactions(session, path)
        return audit_lines(audits, len(path), compactions_off_path(session, path), glyphs)
