"""The glyphs a widget draws with: its app's one set (core/common/glyphs.py), looked up, never changed.

The app picks the set once (`PiSessionsApp.glyphs`, from `--ascii`), the way it picks a theme;
a widget reads it with `glyphs_of(self)` and hands it to whatever builds its text (plain.py,
core's descriptions). Outside a running app (a widget built in a test) it is UNICODE.
"""

from __future__ import annotations

# Textual raises this (a RuntimeError) when no app runs: it is not exported elsewhere.
from textual._context import NoActiveAppError
from textual.app import App
from textual.message_pump import MessagePump

from ..core.common.glyphs import UNICODE, Glyphs


def glyphs_of(node: MessagePump) -> Glyphs:
    """The glyphs of the app `node` runs in."""
    try:
        app: App[object] = node.app
    except NoActiveAppError:
        return UNICODE
    glyphs = getattr(app, "glyphs", UNICODE)
    return glyphs if isinstance(glyphs, Glyphs) else UNICODE
