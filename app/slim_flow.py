"""The slim copy flow: what a slim copy of the path to an entry would move out, asked first,
then written beside the session (core/writing/slim.py does the work) and opened."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..core.common.problems import SessionError
from .action_host import ActionHost


async def write_slim_copy(host: ActionHost, leaf: str, line: Callable[[str, int], str]) -> None:
    """A slim copy of the path to `leaf` (images and big tool outputs moved out to files)."""
    from ..core.common.text import human_bytes
    from ..core.writing.slim import plan_slim, write_slim
    from .screens import ConfirmScreen

    session = host.session
    if session is None or session.path is None:
        return
    try:
        plan = await asyncio.to_thread(plan_slim, session, leaf)
    except SessionError as e:
        host.set_status(str(e), error=True)
        return
    if not plan.moved:
        host.notify("nothing to move out: no image, no tool output over 64 kB on this path", timeout=6)
        return
    moved = sum(m.bytes for m in plan.moved)
    question = ConfirmScreen(
        f"Write a slim copy? {len(plan.moved)} moved out ({human_bytes(moved)}): "
        f"{human_bytes(plan.bytes_after)} instead of {human_bytes(plan.bytes_before)}",
        f"new file: {plan.path}\nmoved files: {plan.folder}\nthe original stays as it is",
    )
    if not await host.push_screen_wait(question):
        return
    try:
        path = await asyncio.to_thread(write_slim, plan)
    except SessionError as e:
        host.set_status(f"slim copy failed: {e}", error=True)
        return
    await host.after_external_change(path, select_session=path)
    host.notify(f"Slim copy: {line(path, 400)}", title="Slim", timeout=6)
    host.set_status(f"slim copy: {path}")
