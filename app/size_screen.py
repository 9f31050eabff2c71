"""The size doctor (`S`): what makes the session file big (bytes by message role, entry type,
tool, branch, images; core/projection/sizes.py), and what a clone of the active leaf or a fork at the
selected entry would leave behind, with the keys that make one."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.common.glyphs import Glyphs
from ..core.common.keybindings import Resolved, keys_label
from ..core.common.text import human_bytes, one_line
from ..core.projection.sizes import ByteCount, SizeReport, fork_drops, size_report
from ..widgets.keys import bindings
from .report_screen import ReportLine, ReportScreen
from .screens import live_keys

TABLE_ROWS = 8  # the largest this many of each table


def _table(report: SizeReport, table: Mapping[str, ByteCount], glyphs: Glyphs) -> str:
    largest = report.largest(dict(table), TABLE_ROWS)
    parts = [f"{one_line(name, 40, glyphs=glyphs)} {human_bytes(n.bytes)} ({n.count})" for name, n in largest]
    text = ", ".join(parts)
    more = len(table) - len(largest)
    return text + (f", and {more} more" if more > 0 else "")


def size_lines(
    report: SizeReport,
    *,
    entries: int,
    leaf: str,
    default_leaf: str | None,
    clone_drops: int,
    keys: Resolved,
    glyphs: Glyphs,
) -> list[ReportLine]:
    """The report's lines; `clone_drops`: what a clone (a fork at `default_leaf`) would drop."""
    here = one_line(leaf, 60, glyphs=glyphs)
    lines = [
        ReportLine(f"{human_bytes(report.file_bytes)} in {entries} entries", "lead"),
        ReportLine(
            f"The path to {here}: {human_bytes(report.active.bytes)} ({report.active.count} entries); "
            f"every other branch: {human_bytes(report.abandoned.bytes)} ({report.abandoned.count} entries)"
        ),
    ]
    clone_key = keys_label(keys.keys_of("sizeDoctor.clone")[:1])
    fork_key = keys_label(keys.keys_of("sizeDoctor.fork")[:1])
    if default_leaf is not None:
        text = (
            f"A clone of the active leaf keeps only the conversation pi would resume: about "
            f"{human_bytes(clone_drops)} less."
            if clone_drops
            else "A clone of the active leaf would keep about as much: there is little else in the file."
        )
        lines.append(ReportLine(text + (f" {clone_key}: clone" if clone_key else ""), "hint"))
    if leaf != default_leaf and report.clone_drops:
        text = f"A fork at {here} keeps only the path to it: about {human_bytes(report.clone_drops)} less."
        lines.append(ReportLine(text + (f" {fork_key}: fork here" if fork_key else ""), "hint"))
    lines.append(ReportLine("What takes the room", "heading"))
    lines.append(ReportLine("By message role: " + (_table(report, report.by_role, glyphs) or "no messages")))
    others = {k: v for k, v in report.by_type.items() if k != "message"}
    if others:
        lines.append(ReportLine("Other entries: " + _table(report, others, glyphs)))
    if report.tool_results:
        lines.append(ReportLine("Tool results: " + _table(report, report.tool_results, glyphs)))
    if report.tool_calls:
        lines.append(ReportLine("Tool calls: " + _table(report, report.tool_calls, glyphs)))
    if report.images.count:
        lines.append(
            ReportLine(f"Images: {report.images.count}, {human_bytes(report.images.bytes)} of their data")
        )
    if report.other_bytes:
        lines.append(ReportLine(f"Blank, unreadable or partial lines: {human_bytes(report.other_bytes)}"))
    return lines


class SizeDoctorScreen(ReportScreen):
    BINDINGS = bindings("sizeDoctor")
    KEYS = (
        ("sizeDoctor.clone", "clone"),
        ("sizeDoctor.fork", "fork here"),
        ("sizeDoctor.slim", "slim copy"),
        ("sizeDoctor.close", "close"),
    )

    def build(self, glyphs: Glyphs) -> list[ReportLine]:
        session = self.session
        report = size_report(session, self.leaf)
        default = session.default_leaf
        if default == self.leaf:
            clone_drops = report.clone_drops
        else:
            clone_drops = fork_drops(session, default) if default is not None else 0
        return size_lines(
            report,
            entries=len(session.records),
            leaf=self.leaf,
            default_leaf=default,
            clone_drops=clone_drops,
            keys=live_keys(self),
            glyphs=glyphs,
        )
