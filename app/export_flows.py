"""The export flows: what to export (the context or the tree as Markdown and JSON, pi's own HTML
when pi is on PATH), then into which folder; nothing existing is overwritten. Core writes the
files (core/writing/export.py); pi's export runs off the event loop.
"""

from __future__ import annotations

import asyncio
import os
import shutil

from ..core.common.problems import SessionError
from ..core.common.text import one_line
from ..core.session.session import Session
from .action_host import ActionHost

EXPORTS = {
    "context": "the context at the selected entry (Markdown and JSON)",
    "tree": "the whole session tree (Markdown and JSON)",
    "html": "the session as pi's own HTML page (pi --export)",
}
EXPORT_FLOWS = ("export", "export_into")


class ExportFlows:
    """The export flows, on one host."""

    def __init__(self, host: ActionHost) -> None:
        self.host = host

    def _line(self, text: str, limit: int) -> str:
        return one_line(text, limit, glyphs=self.host.glyphs)

    async def export(self) -> None:
        """What to export (pi's HTML too when pi is on PATH), then where; nothing is overwritten."""
        from .screens import MenuScreen

        if self.host.session is None:
            self.host.notify("no session selected", severity="warning")
            return
        kinds = [kind for kind in EXPORTS if kind != "html" or pi_command() is not None]
        kind = await self.host.push_screen_wait(MenuScreen("Export", [(k, EXPORTS[k]) for k in kinds]))
        if kind is not None:
            await self.export_into(kind)

    def export_folders(self) -> list[tuple[str, str]]:
        """(folder, label) choices: the session's working directory and the current one."""
        session = self.host.session
        here = self.host.current_cwd
        own = session.cwd if session is not None else ""
        choices: list[tuple[str, str]] = []
        if own and os.path.isdir(own) and own != here:
            choices.append((own, f"the session's folder: {own}"))
        elif own and own == here:
            return [(here, f"the session's folder, also the current one: {here}")]
        choices.append((here, f"the current folder: {here}"))
        return choices

    async def export_into(self, kind: str) -> None:
        """Ask which folder, then export `kind` ("context", "tree" or "html") there."""
        from ..core.writing.export import export_context, export_tree
        from .screens import MenuScreen

        host = self.host
        folders = self.export_folders()
        session = host.session
        note = ""
        if session is not None and session.cwd and not os.path.isdir(session.cwd):
            note = f"The session's folder no longer exists: {session.cwd}"
        menu = MenuScreen(
            f"Export {EXPORTS[kind].split(' (')[0]} into which folder?",
            [(str(i), label) for i, (_, label) in enumerate(folders)],
            detail=(note + "\n" if note else "") + "A new file is made: nothing existing is overwritten.",
        )
        key = await host.push_screen_wait(menu)
        if key is None or host.session is None:
            return
        session, folder = host.session, folders[int(key)][0]
        if kind == "html":
            await self._export_html(session, folder)
            return
        # On the loop: an export walks the open session, which only the loop may change.
        try:
            if kind == "context":
                leaf = host.context_leaf or session.default_leaf
                if leaf is None:
                    return
                paths = export_context(session, leaf, folder)
            else:
                paths = export_tree(session, folder)
        except (OSError, SessionError) as e:
            host.set_status(f"export failed: {e}", error=True)
            return
        self._exported(list(paths))

    def _exported(self, paths: list[str]) -> None:
        listed = "\n".join(self._line(p, 400) for p in paths)
        self.host.notify(f"Exported to\n{listed}", title="Export", timeout=8)
        self.host.set_status("exported: " + "  ".join(paths))

    async def _export_html(self, session: Session, folder: str) -> None:
        from ..core.writing.export import export_html_with_pi

        host = self.host
        pi = pi_command()
        if pi is None or session.path is None:
            host.set_status("pi is not on PATH: its HTML export is not available", error=True)
            return
        host.set_status(f"exporting with {pi} --export...")
        # pi takes a moment to start; it never gets the terminal (no input, output captured).
        try:
            path = await asyncio.to_thread(export_html_with_pi, pi, session.path, folder)
        except (OSError, SessionError) as e:
            host.set_status(f"pi's export failed: {e}", error=True)
            return
        self._exported([path])


def pi_command() -> str | None:
    return shutil.which("pi")
