"""What the user does with what they found: resume, fork, clone, rename, label, delete and
copy, each one async flow; and the two reports over the selected path (the compaction audit,
the size doctor, which offers a clone or a fork). Every action on what is selected is run from
here by name (`Actions.flow`): the exports are app/export_flows.py's, the flows that open a view
app/view_flows.py's.

A flow asks with `push_screen_wait` and goes on with the answer (the screen runs it as a worker);
core does the reading and writing. Writing a file, trashing one, copying and running pi happen
off the event loop; what walks the open session stays on it (only the loop changes it). A flow
knows its host only as an `ActionHost` (app/action_host.py): what is open and selected, the
settings, the status line, and `after_external_change`, which brings every pane up to date
after a write before the flow says it is done. A new action is a method here (its name in
`FLOWS`) and a binding `flow('name')` in widgets/keys.py.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sys
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from ..core.common.jsvalues import js_string
from ..core.common.locations import fork_folder
from ..core.common.problems import SessionError
from ..core.common.text import counted, one_line
from ..core.session.describe import entry_text
from ..core.session.session import Session
from .action_host import ActionHost
from .export_flows import EXPORT_FLOWS, ExportFlows
from .marks_flow import MARK_FLOWS, MarkActions, MarkHost
from .view_flows import VIEW_FLOWS, ViewFlows, ViewHost

__all__ = ["FLOWS", "ActionHost", "Actions", "FlowHost"]

if TYPE_CHECKING:
    from ..core.projection.readiness import Readiness
    from ..core.writing.append import PlannedAppend
    from ..core.writing.fork import ForkPlan

# Each flow imports what it writes, runs or shows where it starts: none of it is needed for
# the first screen (a start would import them all).

APPEND_TRIES = 3  # a line planned while pi appends is planned again, this many times at most
# The flows a binding can name (`flow('fork')`) that are here (the others: EXPORT_FLOWS, VIEW_FLOWS).
FLOWS = (
    "resume",
    "fork",
    "clone",
    "compaction_audit",
    "size_doctor",
    "rename",
    "label",
    "delete",
    "copy",
    "copy_entry_text",
)


class FlowHost(ActionHost, ViewHost, MarkHost, Protocol):
    """What every flow needs: the actions' host, the view flows' (app/view_flows.py) and the
    marks' (app/marks_flow.py)."""


class Actions:
    """The flows, on one host."""

    def __init__(self, host: FlowHost) -> None:
        self.host = host
        self.exports = ExportFlows(host)
        self.views = ViewFlows(host)

    def flow(self, name: str, *args: str) -> Coroutine[Any, Any, None]:
        """The flow `name` (with `args`, e.g. `export_into` "tree"): here, an export's or a view's."""
        if name in VIEW_FLOWS:
            return getattr(self.views, name)(*args)  # type: ignore[no-any-return]
        if name in EXPORT_FLOWS:
            return getattr(self.exports, name)(*args)  # type: ignore[no-any-return]
        if name in MARK_FLOWS:
            return getattr(MarkActions(self.host), name)(*args)  # type: ignore[no-any-return]
        if name not in FLOWS:
            raise ValueError(f"no flow named {name!r}")
        return getattr(self, name)(*args)  # type: ignore[no-any-return]

    def _line(self, text: str, limit: int) -> str:
        return one_line(text, limit, glyphs=self.host.glyphs)

    # ------------------------------------------------------------------ resume
    async def resume(self) -> None:
        session = self.host.session
        if session is None or session.path is None:
            self.host.notify("no session selected", severity="warning")
            return
        await self.resume_session(session.path, session.cwd, session.session_id or "")

    async def resume_session(
        self, path: str, cwd: str, session_id: str, *, skip_live_check: bool = False
    ) -> None:
        from .screens import ConfirmScreen, MenuScreen

        host = self.host
        if not skip_live_check and host.is_live(path):
            question = ConfirmScreen(
                "This session is being written right now. Resume it anyway?",
                "Another pi seems to be appending to it; two writers on one file interleave their entries.",
            )
            if not await host.push_screen_wait(question):
                return
        ready = None if skip_live_check else await self._readiness(path)  # (a fork we just wrote: no)
        if not cwd or not os.path.isdir(cwd):
            await self._resume_missing_cwd(path, cwd, session_id, ready.summary() if ready else "")
            return
        if ready is not None and ready.needs_attention:
            choice = await host.push_screen_wait(
                MenuScreen(
                    "pi will resume this session with warnings",
                    [
                        ("resume", "resume it anyway"),
                        ("clone", "clone it and resume the clone (the original stays as it is)"),
                        ("cancel", "cancel"),
                    ],
                    detail=ready.summary() + "\n(pi-sessions check PATH lists each)",
                )
            )
            if choice == "clone":
                await self._fork_and_resume(path, None)
            if choice != "resume":
                return
        await self._run_resume(path, cwd, session_id)

    async def _readiness(self, path: str, leaf: str | None = None) -> Readiness | None:
        """The resume check of `path` at `leaf` (the default leaf), None when it cannot be made."""
        from ..core.writing.readycheck import check_leaf

        try:
            session = await self._session_at(path)
            leaf = leaf or session.default_leaf
            return None if leaf is None else await asyncio.to_thread(check_leaf, session, leaf)
        except (SessionError, OSError):
            return None

    async def _session_at(self, path: str) -> Session:
        open_session = self.host.session
        if open_session is not None and open_session.path == path:
            return open_session
        return await asyncio.to_thread(Session.open, path)

    async def _resume_missing_cwd(self, path: str, cwd: str, session_id: str, summary: str = "") -> None:
        from .screens import MenuScreen

        host = self.host
        here = os.getcwd()
        menu = MenuScreen(
            f"The session's directory no longer exists: {self._line(cwd, 300) or '(none)'}",
            [
                ("here", f"continue in the current directory ({here})"),
                ("fork", f"fork it into {here}"),
                ("cancel", "cancel"),
            ],
            detail=summary,
        )
        choice = await host.push_screen_wait(menu)
        if choice == "here":
            await self._run_resume(path, here, session_id)
        elif choice == "fork":
            await self._fork_and_resume(path, here)

    async def _fork_and_resume(self, path: str, cwd: str | None) -> None:
        """A clone of `path` at its default leaf (into `cwd`'s folder when given), then resumed."""
        from ..core.writing.fork import plan_fork

        host = self.host
        session = await self._session_at(path)
        leaf = session.default_leaf
        if leaf is None:
            host.notify("the session has no entries to fork", severity="warning")
            return
        folder = fork_folder(host.root, cwd) if cwd else None
        plan = plan_fork(session, leaf, cwd=cwd, folder=folder)
        await self._write_and_open(plan, resume=True)

    async def _run_resume(self, path: str, cwd: str, session_id: str) -> None:
        from ..core.writing.resume import build_resume_command, shell_line
        from .text_screen import TextScreen

        host = self.host
        settings = host.settings
        argv = build_resume_command(settings.resume_command, path, cwd, session_id)
        if settings.served:
            # In a browser there is no terminal to hand to pi: give the command to run elsewhere.
            line = shell_line(argv, cwd) if argv else settings.resume_command
            await self.copy_value(line, "the resume command", show_on_failure=False)
            hint = "This app runs in a browser; run this where pi is."
            await host.push_screen_wait(TextScreen("Resume in a terminal", line, hint))
            return
        if not argv or shutil.which(argv[0]) is None:
            line = shell_line(argv, cwd) if argv else settings.resume_command
            program = argv[0] if argv else "pi"
            host.set_status(f"{program} is not on PATH; the command would be: {line}", error=True)
            host.notify(
                f"{self._line(program, 100)} not found on PATH.\nWould run: {self._line(line, 400)}",
                severity="error",
                timeout=10,
            )
            return
        try:
            code = host.run_in_terminal(argv, cwd)
        except OSError as e:
            host.set_status(f"could not run {shlex.join(argv)}: {e.strerror}", error=True)
            return
        if settings.exit_on_resume:
            host.exit_app()
            return
        await host.after_external_change(path)
        exit_note = "" if code == 0 else f" (exit {code})"
        host.set_status(f"back from {argv[0]}{exit_note}: {shlex.join(argv)}")

    # ------------------------------------------------------------------ fork and clone
    async def fork(self, *, leaf: str | None = None) -> None:
        """Preview the fork at the selected entry (or `leaf`), then write it where asked."""
        from ..core.writing.fork import fork_preview, plan_fork
        from .screens import ForkScreen, PromptScreen

        host = self.host
        session = host.session
        if session is None:
            host.notify("no session selected", severity="warning")
            return
        entry = leaf or host.selected_entry() or session.default_leaf
        if entry is None:
            host.notify("this session has no entries to fork", severity="warning")
            return
        cwd: str | None = None
        ready = await self._readiness(session.path, entry) if session.path else None
        while True:
            try:
                folder = fork_folder(host.root, cwd) if cwd else None
                plan = plan_fork(session, entry, cwd=cwd, folder=folder)
            except SessionError as e:
                host.set_status(str(e), error=True)
                return
            preview = fork_preview(session, plan, glyphs=host.glyphs)
            if ready is not None:
                preview.append(f"at this entry: {ready.summary()}")
            choice = await host.push_screen_wait(ForkScreen(f"Fork at {self._line(entry, 200)}", preview))
            if choice in ("fork", "fork-resume"):
                await self._write_and_open(plan, resume=choice == "fork-resume")
                return
            if choice != "cwd":
                return
            asked = PromptScreen("Fork into which directory?", value=cwd or session.cwd or os.getcwd())
            cwd = await host.push_screen_wait(asked)
            if not cwd:
                return

    async def clone(self) -> None:
        """A fork at the default leaf: the whole conversation pi would resume."""
        session = self.host.session
        if session is not None and session.default_leaf:
            await self.fork(leaf=session.default_leaf)

    async def _write_and_open(self, plan: ForkPlan, *, resume: bool) -> None:
        from ..core.writing.fork import write_fork

        host = self.host
        try:
            path = await asyncio.to_thread(write_fork, plan)
        except SessionError as e:
            host.set_status(f"fork failed: {e}", error=True)
            host.notify(f"Fork failed: {e}", severity="error", timeout=10)
            return
        await host.after_external_change(path, select_session=path)
        host.notify(f"Forked into {self._line(path, 400)}", title="Fork", timeout=6)
        host.set_status(f"forked: {path}")
        if resume:
            cwd, session_id = str(plan.header.get("cwd", "")), str(plan.header.get("id", ""))
            await self.resume_session(path, cwd, session_id, skip_live_check=True)

    # ------------------------------------------------------------------ reports
    def _report_target(self) -> tuple[Session, str] | None:
        session = self.host.session
        entry = self.host.selected_entry() or (session.default_leaf if session is not None else None)
        if session is None or entry is None or entry not in session.by_id:
            self.host.notify("no entry selected", severity="warning")
            return None
        return session, entry

    async def compaction_audit(self) -> None:
        """What each compaction on the path to the selected entry kept and left out."""
        from .audit_screen import CompactionAuditScreen

        target = self._report_target()
        if target is not None:
            session, entry = target
            title = f"Compaction audit {self.host.glyphs.dot} the path to {self._line(entry, 80)}"
            await self.host.push_screen_wait(CompactionAuditScreen(title, session, entry))

    async def size_doctor(self) -> None:
        """What makes the file big; a clone or a fork from there."""
        from .size_screen import SizeDoctorScreen

        target = self._report_target()
        if target is None:
            return
        session, entry = target
        name = session.name or os.path.basename(session.path or "") or "the session"
        title = f"Size doctor {self.host.glyphs.dot} {self._line(name, 120)}"
        choice = await self.host.push_screen_wait(SizeDoctorScreen(title, session, entry))
        if choice == "clone":
            await self.clone()
        elif choice == "fork":
            await self.fork(leaf=entry)
        elif choice == "slim":
            await self.slim(entry)

    async def slim(self, leaf: str) -> None:
        """A slim copy of the path to `leaf` (images and big tool outputs moved out to files)."""
        from .slim_flow import write_slim_copy

        await write_slim_copy(self.host, leaf, self._line)

    # ------------------------------------------------------------------ small edits
    async def rename(self) -> None:
        from ..core.writing.append import plan_session_name
        from .screens import PromptScreen

        session = self.host.session
        if session is None or session.path is None:
            return
        prompt = PromptScreen(
            "Session name (appended as pi's /name does; empty clears it)", value=session.name or ""
        )
        value = await self.host.push_screen_wait(prompt)
        if value is not None:
            what = "named" if value.strip() else "name cleared"
            await self._append(session, lambda: plan_session_name(session, value), what)

    async def label(self) -> None:
        from ..core.writing.append import plan_label
        from .screens import PromptScreen

        session = self.host.session
        entry = self.host.selected_entry()
        if session is None or entry is None:
            return
        current = session.labels.get(entry)
        question = f"Label for {self._line(entry, 200)} (empty clears it)"
        prompt = PromptScreen(question, value=js_string(current) if current else "")
        value = await self.host.push_screen_wait(prompt)
        if value is not None:
            what = "labelled" if value else "label cleared"
            await self._append(session, lambda: plan_label(session, entry, value or None), what)

    async def _append(self, session: Session, plan: Callable[[], PlannedAppend], what: str) -> None:
        """Plan one line from the session as read, write it off the loop; when pi appended in
        between, take that in (the way every change comes) and plan again."""
        from ..core.writing.append import FileChangedError, write_append

        host = self.host
        path = session.path or ""
        for _ in range(APPEND_TRIES):
            try:
                await asyncio.to_thread(write_append, plan())
            except FileChangedError:
                await host.after_external_change(path, by_us=False)  # pi's line, taken in as such
                if host.session is not session:
                    return  # it was closed or replaced meanwhile: nothing to label any more
                continue
            except SessionError as e:
                host.set_status(f"not written: {e}", error=True)
                host.notify(f"Not written: {e}", severity="error", timeout=8)
                return
            await host.after_external_change(path)
            host.set_status(f"{what}: one line appended to {path}")
            return
        host.set_status(f"not written: {path} keeps changing (pi is writing it); try again", error=True)

    # ------------------------------------------------------------------ delete
    async def delete(self) -> None:
        """Move the selected session's file to the trash, after asking."""
        from ..core.writing.trash import move_to_trash
        from .screens import ConfirmScreen

        host = self.host
        summary = host.selected_summary()
        if summary is None:
            return
        path = summary.path
        question = ConfirmScreen(
            f"Move this session to the trash?\n{self._line(summary.title, 300)}",
            f"{self._line(path, 400)}\nIt can be restored from the trash.",
        )
        if not await host.push_screen_wait(question):
            return
        try:
            where = await asyncio.to_thread(move_to_trash, path)
        except SessionError as e:
            host.set_status(f"not deleted: {e}", error=True)
            return
        await host.after_external_change(path)
        host.notify(f"Moved to {self._line(where, 400)}", title="Deleted", timeout=6)
        host.set_status(f"moved {path} to {where}")

    # ------------------------------------------------------------------ copy
    async def copy(self) -> None:
        """Copy the entry's text, the file's path, the session id or the resume command."""
        from ..core.writing.resume import build_resume_command, shell_line
        from .screens import MenuScreen

        host = self.host
        session = host.session
        summary = host.selected_summary()
        path = session.path if session and session.path else (summary.path if summary else None)
        if path is None:
            return
        session_id = (session.session_id if session else None) or (str(summary.id) if summary else "")
        cwd = session.cwd if session else (summary.cwd if summary else "")
        entry = host.selected_entry()
        choices: list[tuple[str, str]] = []
        if session is not None and entry is not None:
            choices.append(("text", f"the text of entry {entry}"))
        choices += [
            ("path", "the session file's path"),
            ("id", "the session id"),
            ("command", "the resume command"),
        ]
        choice = await host.push_screen_wait(MenuScreen("Copy", choices))
        if choice is None:
            return
        if choice == "text" and session is not None and entry is not None:
            value = entry_text(session.entry_dict(session.by_id[entry]), glyphs=host.glyphs)
        elif choice == "path":
            value = path
        elif choice == "id":
            value = session_id
        else:
            argv = build_resume_command(host.settings.resume_command, path, cwd, session_id)
            value = shell_line(argv, cwd)
        await self.copy_value(value, dict(choices)[choice])

    async def copy_entry_text(self) -> None:
        """pi's copy in its tree (`app.message.copy`): the selected entry's text, no menu."""
        from ..core.session.entry_copy import entry_copy_text

        host = self.host
        session = host.session
        entry = host.selected_entry()
        if session is None or entry is None or entry not in session.by_id:
            return
        try:
            value = entry_copy_text(session.entry_dict(session.by_id[entry]))
        except (SessionError, OSError) as e:
            host.set_status(f"cannot read the entry: {e}", error=True)
            return
        if value is None:
            host.set_status("the selected entry has no text to copy", error=True)
            return
        await self.copy_value(value, f"the text of entry {entry}")

    async def copy_value(self, value: str, what: str, *, show_on_failure: bool = True) -> None:
        """Copy by the way that reaches the user's clipboard from here (core.clipboard decides),
        off the event loop (a clipboard tool may be slow); the notice says which way it went,
        and if none could, the text is shown to select by hand."""
        from ..core.writing.clipboard import CopyOutcome, copy_text, describe, plan_copy
        from .text_screen import TextScreen

        host = self.host
        checked = await self._redacted_for_copy(value)
        if checked is None:
            return
        value = checked
        plan = plan_copy(os.environ, sys.platform, shutil.which, served=host.settings.served)
        label = f"{what} ({len(value)} characters)"
        outcome: CopyOutcome = await asyncio.to_thread(copy_text, plan, value, host.osc52_from_thread)
        message = describe(outcome, label)
        host.set_status(message, error=outcome.route is None)
        if outcome.route is not None:
            host.notify(message, title="Copy", timeout=5)
        elif show_on_failure:
            title = "Nothing could copy it: select it by hand"
            await host.push_screen_wait(TextScreen(title, value, message))
        else:
            host.notify(message, title="Copy", severity="warning", timeout=8)

    async def _redacted_for_copy(self, value: str) -> str | None:
        """A text with secrets in it: ask whether to copy it redacted (the first choice) or as
        it is; None when the user cancelled."""
        from ..core.audit.redact import redactor_for_file
        from ..core.audit.rules import find_secrets
        from .config import load_secrets_allow
        from .screens import MenuScreen

        allow = load_secrets_allow()
        found = find_secrets(value, allow.allows if not allow.empty else None)
        if not found:
            return value
        session = self.host.session
        redactor = await asyncio.to_thread(redactor_for_file, session.path if session else None, allow)
        redacted = redactor.text(value)
        kinds = ", ".join(sorted({s.kind for s in found}))
        answer = await self.host.push_screen_wait(
            MenuScreen(
                f"The text holds {counted(len(found), 'secret')} ({kinds})",
                [("redact", "copy it redacted: [redacted: KIND]"), ("keep", "copy it as it is")],
            )
        )
        if answer is None:
            return None
        return redacted if answer == "redact" else value
