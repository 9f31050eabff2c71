"""What the user does with what they found: resume, fork, clone, rename, label, delete,
export and copy. The main screen calls these; core does the reading and writing."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import SuspendNotSupported

from ..core.append import append_label, append_session_name
from ..core.clipboard import CopyOutcome, copy_text, describe, plan_copy
from ..core.entry_copy import entry_copy_text
from ..core.export import export_context, export_html_with_pi, export_tree
from ..core.fork import ForkPlan, plan_fork, write_fork
from ..core.jsvalues import js_string
from ..core.locations import fork_folder
from ..core.outline import entry_text, excerpt
from ..core.problems import SessionError
from ..core.resume import build_resume_command, shell_line
from ..core.session import Session
from ..core.text import one_line
from ..core.trash import move_to_trash
from .screens import ConfirmScreen, ForkScreen, MenuScreen, PromptScreen
from .text_screen import TextScreen

if TYPE_CHECKING:
    from .main_screen import MainScreen


# ---------------------------------------------------------------------- resume
def resume_selected(screen: MainScreen) -> None:
    session = screen.session
    if session is None or session.path is None:
        screen.notify("no session selected", severity="warning")
        return
    resume_session(screen, session.path, session.cwd, session.session_id or "")


def resume_session(
    screen: MainScreen, path: str, cwd: str, session_id: str, *, skip_live_check: bool = False
) -> None:
    if not skip_live_check and screen.sidebar.session_list.is_live(path):

        def answered(yes: bool | None) -> None:
            if yes:
                resume_session(screen, path, cwd, session_id, skip_live_check=True)

        screen.app.push_screen(
            ConfirmScreen(
                "This session is being written right now. Resume it anyway?",
                "Another pi seems to be appending to it; two writers on one file interleave their entries.",
            ),
            answered,
        )
        return
    if not cwd or not os.path.isdir(cwd):
        _resume_missing_cwd(screen, path, cwd, session_id)
        return
    _run_resume(screen, path, cwd, session_id)


def _resume_missing_cwd(screen: MainScreen, path: str, cwd: str, session_id: str) -> None:
    here = os.getcwd()

    def chosen(choice: str | None) -> None:
        if choice == "here":
            _run_resume(screen, path, here, session_id)
        elif choice == "fork":
            session = screen.session if screen.session and screen.session.path == path else Session.open(path)
            leaf = session.default_leaf
            if leaf is None:
                screen.notify("the session has no entries to fork", severity="warning")
                return
            plan = plan_fork(session, leaf, cwd=here, folder=fork_folder(screen.root, here))
            _write_and_open(screen, plan, resume=True)

    screen.app.push_screen(
        MenuScreen(
            f"The session's directory no longer exists: {one_line(cwd, 300) or '(none)'}",
            [
                ("here", f"continue in the current directory ({here})"),
                ("fork", f"fork it into {here}"),
                ("cancel", "cancel"),
            ],
        ),
        chosen,
    )


def _run_resume(screen: MainScreen, path: str, cwd: str, session_id: str) -> None:
    argv = build_resume_command(screen.settings.resume_command, path, cwd, session_id)
    if screen.settings.served:
        # In a browser there is no terminal to hand to pi: give the command to run elsewhere.
        line = shell_line(argv, cwd) if argv else screen.settings.resume_command
        screen.app.push_screen(
            TextScreen("Resume in a terminal", line, "This app runs in a browser; run this where pi is.")
        )
        copy_value(screen, line, "the resume command", show_on_failure=False)
        return
    if not argv or shutil.which(argv[0]) is None:
        line = shell_line(argv, cwd) if argv else screen.settings.resume_command
        screen.set_status(
            f"{argv[0] if argv else 'pi'} is not on PATH; the command would be: {line}", error=True
        )
        program = one_line(argv[0] if argv else "pi", 100)
        screen.notify(
            f"{program} not found on PATH.\nWould run: {one_line(line, 400)}",
            severity="error",
            timeout=10,
        )
        return
    app = screen.app
    try:
        with app.suspend():
            result = subprocess.run(argv, cwd=cwd)
    except SuspendNotSupported:
        # Headless (tests, some web terminals): run it without handing over the terminal.
        result = subprocess.run(
            argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    except OSError as e:
        screen.set_status(f"could not run {shlex.join(argv)}: {e.strerror}", error=True)
        return
    if screen.settings.exit_on_resume:
        app.exit()
        return
    code = "" if result.returncode == 0 else f" (exit {result.returncode})"
    screen.set_status(f"back from {argv[0]}{code}: {shlex.join(argv)}")
    screen.after_external_change(path)


# ---------------------------------------------------------------------- fork and clone
def fork_selected(screen: MainScreen, *, leaf: str | None = None, cwd: str | None = None) -> None:
    session = screen.session
    if session is None:
        screen.notify("no session selected", severity="warning")
        return
    entry = leaf or screen.tree.current_id() or session.default_leaf
    if entry is None:
        screen.notify("this session has no entries to fork", severity="warning")
        return
    try:
        folder = fork_folder(screen.root, cwd) if cwd else None
        plan = plan_fork(session, entry, cwd=cwd, folder=folder)
    except SessionError as e:
        screen.set_status(str(e), error=True)
        return

    def chosen(choice: str | None) -> None:
        if choice in ("fork", "fork-resume"):
            _write_and_open(screen, plan, resume=choice == "fork-resume")
        elif choice == "cwd":
            screen.app.push_screen(
                PromptScreen("Fork into which directory?", value=cwd or session.cwd or os.getcwd()),
                lambda value: fork_selected(screen, leaf=entry, cwd=value) if value else None,
            )

    screen.app.push_screen(ForkScreen(f"Fork at {one_line(entry, 200)}", fork_preview(session, plan)), chosen)


def clone_selected(screen: MainScreen) -> None:
    if screen.session is not None and screen.session.default_leaf:
        fork_selected(screen, leaf=screen.session.default_leaf)


def fork_preview(session: Session, plan: ForkPlan) -> list[str]:
    messages = [line for line in plan.lines[1:] if line.get("type") == "message"]
    first = next(
        (m for m in messages if isinstance(m.get("message"), dict) and m["message"].get("role") == "user"),
        None,
    )
    last = messages[-1] if messages else None
    lines = [
        f"{plan.entry_count} entries (the path from the root to {plan.leaf_id}, labels re-created)",
        f"cwd: {plan.header.get('cwd')}",
        f"new file: {plan.path}",
        f"parent: {plan.source_path}",
    ]
    labels = plan.labels
    lines.append(
        "labels: " + (", ".join(f"{label!r} on {target}" for target, label in labels) if labels else "none")
    )
    for title, line in (("first message", first), ("last message", last)):
        if line is not None:
            record = session.by_id.get(line["id"])
            text = excerpt(session, record, 100) if record is not None else one_line(entry_text(line), 100)
            lines.append(f"{title}: {text}")
    if not plan.has_conversation:
        lines.append(
            "note: no user or assistant message on this path; pi itself would not write the file yet"
        )
    return lines


def _write_and_open(screen: MainScreen, plan: ForkPlan, *, resume: bool) -> None:
    try:
        path = write_fork(plan)
    except SessionError as e:
        screen.set_status(f"fork failed: {e}", error=True)
        screen.notify(f"Fork failed: {e}", severity="error", timeout=10)
        return
    screen.notify(f"Forked into {one_line(path, 400)}", title="Fork", timeout=6)
    screen.set_status(f"forked: {path}")
    screen.after_external_change(path, select_session=path)
    if resume:
        resume_session(
            screen,
            path,
            str(plan.header.get("cwd", "")),
            str(plan.header.get("id", "")),
            skip_live_check=True,
        )


# ---------------------------------------------------------------------- small edits
def rename_selected(screen: MainScreen) -> None:
    session = screen.session
    if session is None or session.path is None:
        return

    def done(value: str | None) -> None:
        if value is None:
            return
        _guarded(
            screen, lambda: append_session_name(session, value), "named" if value.strip() else "name cleared"
        )

    screen.app.push_screen(
        PromptScreen("Session name (appended as pi's /name does; empty clears it)", value=session.name or ""),
        done,
    )


def label_selected(screen: MainScreen) -> None:
    session = screen.session
    entry = screen.tree.current_id()
    if session is None or entry is None:
        return

    def done(value: str | None) -> None:
        if value is None:
            return
        _guarded(
            screen,
            lambda: append_label(session, entry, value or None),
            "labelled" if value else "label cleared",
        )

    current = session.labels.get(entry)
    screen.app.push_screen(
        PromptScreen(
            f"Label for {one_line(entry, 200)} (empty clears it)", value=js_string(current) if current else ""
        ),
        done,
    )


def _guarded(screen: MainScreen, write: Callable[[], object], what: str) -> None:
    session = screen.session
    try:
        write()
    except SessionError as e:
        screen.set_status(f"not written: {e}", error=True)
        screen.notify(f"Not written: {e}", severity="error", timeout=8)
        return
    screen.set_status(f"{what}: one line appended to {session.path if session else ''}")
    if session is not None and session.path:
        screen.after_external_change(session.path)


# ---------------------------------------------------------------------- delete
def delete_selected(screen: MainScreen) -> None:
    summary = screen.sidebar.session_list.current()
    if summary is None:
        return
    path = summary.path

    def answered(yes: bool | None) -> None:
        if not yes:
            return
        try:
            where = move_to_trash(path)
        except SessionError as e:
            screen.set_status(f"not deleted: {e}", error=True)
            return
        screen.notify(f"Moved to {one_line(where, 400)}", title="Deleted", timeout=6)
        screen.set_status(f"moved {path} to {where}")
        screen.after_external_change(path)

    screen.app.push_screen(
        ConfirmScreen(
            f"Move this session to the trash?\n{one_line(summary.title, 300)}",
            f"{one_line(path, 400)}\nIt can be restored from the trash.",
        ),
        answered,
    )


# ---------------------------------------------------------------------- export
EXPORTS = {
    "context": "the context at the selected entry (Markdown and JSON)",
    "tree": "the whole session tree (Markdown and JSON)",
    "html": "the session as pi's own HTML page (pi --export)",
}


def export_menu(screen: MainScreen) -> None:
    """What to export (pi's HTML too when pi is on PATH), then where; nothing is overwritten."""
    session = screen.session
    if session is None:
        screen.notify("no session selected", severity="warning")
        return
    kinds = [kind for kind in EXPORTS if kind != "html" or pi_command() is not None]

    def chosen(kind: str | None) -> None:
        if kind is not None:
            ask_export_folder(screen, kind)

    screen.app.push_screen(MenuScreen("Export", [(kind, EXPORTS[kind]) for kind in kinds]), chosen)


def export_folders(screen: MainScreen) -> list[tuple[str, str]]:
    """(folder, label) choices: the session's working directory and the current one."""
    session = screen.session
    here = screen.current_cwd
    own = session.cwd if session is not None else ""
    choices: list[tuple[str, str]] = []
    if own and os.path.isdir(own) and own != here:
        choices.append((own, f"the session's folder: {own}"))
    elif own and own == here:
        return [(here, f"the session's folder, also the current one: {here}")]
    choices.append((here, f"the current folder: {here}"))
    return choices


def ask_export_folder(screen: MainScreen, kind: str) -> None:
    folders = export_folders(screen)
    session = screen.session
    note = ""
    if session is not None and session.cwd and not os.path.isdir(session.cwd):
        note = f"The session's folder no longer exists: {session.cwd}"

    def chosen(key: str | None) -> None:
        if key is not None:
            export_selected(screen, kind, folders[int(key)][0])

    screen.app.push_screen(
        MenuScreen(
            f"Export {EXPORTS[kind].split(' (')[0]} into which folder?",
            [(str(i), label) for i, (_, label) in enumerate(folders)],
            detail=(note + "\n" if note else "") + "A new file is made: nothing existing is overwritten.",
        ),
        chosen,
    )


def export_selected(screen: MainScreen, what: str, folder: str) -> None:
    session = screen.session
    if session is None:
        return
    if what == "html":
        _export_html(screen, session, folder)
        return
    try:
        if what == "context":
            leaf = screen.context_leaf or session.default_leaf
            if leaf is None:
                return
            paths = export_context(session, leaf, folder)
        else:
            paths = export_tree(session, folder)
    except (OSError, SessionError) as e:
        screen.set_status(f"export failed: {e}", error=True)
        return
    _exported(screen, list(paths))


def _exported(screen: MainScreen, paths: list[str]) -> None:
    screen.notify("Exported to\n" + "\n".join(one_line(p, 400) for p in paths), title="Export", timeout=8)
    screen.set_status("exported: " + "  ".join(paths))


def pi_command() -> str | None:
    return shutil.which("pi")


def _export_html(screen: MainScreen, session: Session, folder: str) -> None:
    pi = pi_command()
    if pi is None or session.path is None:
        screen.set_status("pi is not on PATH: its HTML export is not available", error=True)
        return
    source = session.path
    screen.set_status(f"exporting with {pi} --export...")

    def work() -> None:
        try:
            path = export_html_with_pi(pi, source, folder)
        except (OSError, SessionError) as e:
            screen.app.call_from_thread(screen.set_status, f"pi's export failed: {e}", error=True)
            return
        screen.app.call_from_thread(_exported, screen, [path])

    # pi takes a moment to start; it never gets the terminal (no input, output captured).
    screen.run_worker(work, thread=True, group="export-html", exit_on_error=False)


# ---------------------------------------------------------------------- copy
def copy_menu(screen: MainScreen) -> None:
    session = screen.session
    summary = screen.sidebar.session_list.current()
    path = session.path if session and session.path else (summary.path if summary else None)
    if path is None:
        return
    session_id = (session.session_id if session else None) or (str(summary.id) if summary else "")
    cwd = session.cwd if session else (summary.cwd if summary else "")
    entry = screen.tree.current_id()
    choices: list[tuple[str, str]] = []
    if session is not None and entry is not None:
        choices.append(("text", f"the text of entry {entry}"))
    choices += [
        ("path", "the session file's path"),
        ("id", "the session id"),
        ("command", "the resume command"),
    ]
    names = dict(choices)

    def chosen(choice: str | None) -> None:
        if choice is None:
            return
        if choice == "text" and session is not None and entry is not None:
            value = entry_text(session.entry_dict(session.by_id[entry]))
        elif choice == "path":
            value = path
        elif choice == "id":
            value = session_id
        else:
            value = shell_line(
                build_resume_command(screen.settings.resume_command, path, cwd, session_id), cwd
            )
        copy_value(screen, value, names[choice])

    screen.app.push_screen(MenuScreen("Copy", choices), chosen)


def copy_entry_text(screen: MainScreen) -> None:
    """pi's copy in its tree (`app.message.copy`): the selected entry's text, no menu."""
    session = screen.session
    entry = screen.tree.current_id()
    if session is None or entry is None:
        return
    try:
        value = entry_copy_text(session.entry_dict(session.by_id[entry]))
    except (SessionError, OSError) as e:
        screen.set_status(f"cannot read the entry: {e}", error=True)
        return
    if value is None:
        screen.set_status("the selected entry has no text to copy", error=True)
        return
    copy_value(screen, value, f"the text of entry {entry}")


def copy_value(screen: MainScreen, value: str, what: str, *, show_on_failure: bool = True) -> None:
    """Copy by the way that reaches the user's clipboard from here (core.clipboard decides),
    off the event loop (a clipboard tool may be slow); the notice says which way it went, and
    if none could, the text is shown to select by hand."""
    app = screen.app
    plan = plan_copy(os.environ, sys.platform, shutil.which, served=screen.settings.served)
    label = f"{what} ({len(value)} characters)"

    def send_osc52(text: str) -> None:
        app.call_from_thread(app.copy_to_clipboard, text)

    def work() -> None:
        outcome = copy_text(plan, value, send_osc52)
        app.call_from_thread(_copied, screen, value, label, outcome, show_on_failure)

    screen.run_worker(work, thread=True, group="copy", exit_on_error=False)


def _copied(screen: MainScreen, value: str, label: str, outcome: CopyOutcome, show_on_failure: bool) -> None:
    message = describe(outcome, label)
    screen.set_status(message, error=outcome.route is None)
    if outcome.route is not None:
        screen.notify(message, title="Copy", timeout=5)
    elif show_on_failure:
        screen.app.push_screen(TextScreen("Nothing could copy it: select it by hand", value, message))
    else:
        screen.notify(message, title="Copy", severity="warning", timeout=8)
