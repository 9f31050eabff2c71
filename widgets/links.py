"""File paths as terminal hyperlinks (OSC 8), where the app says the terminal shows them.

The address is built here and only here: every character of a session's path that is not
plain in a URL is percent-encoded, so nothing from a session reaches the terminal inside the
escape sequence (the link text itself goes through plain.py like all text).
"""

from __future__ import annotations

import os
import urllib.parse

from rich.style import Style
from textual._context import NoActiveAppError
from textual.message_pump import MessagePump


def file_url(path: str) -> str:
    """`file:///...` for an absolute path, every unusual character percent-encoded."""
    # (a lone surrogate from a session's JSON is percent-encoded as its bytes, not an error)
    return "file://" + urllib.parse.quote(path.encode("utf-8", "surrogatepass"), safe="/")


def file_link(node: MessagePump, path: str) -> Style | None:
    """The link style for `path` (absolute) when `node`'s app draws links; else None."""
    try:
        links = getattr(node.app, "hyperlinks", False)
    except NoActiveAppError:
        return None
    if links is not True or not os.path.isabs(path):
        return None
    return Style(link=file_url(path))
