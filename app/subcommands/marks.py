"""`pi-sessions pin|unpin|archive|unarchive|tag`: one session's marks, kept in a side file beside
config.toml (keyed by the header's session id), never in the session file; prints the state."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    name = parser.prog.split()[-1]
    parser.set_defaults(mark_command=name)
    parser.add_argument(
        "--json", action="store_true", help="one object: path, session_id, pinned, archived, tags"
    )
    parser.add_argument("path", metavar="PATH", help="a session file")
    if name == "tag":
        # REMAINDER: `-wip` is a tag to remove, not an option (a `--json` among them still counts)
        parser.add_argument(
            "changes", nargs=argparse.REMAINDER, metavar="+TAG|-TAG", help="+TAG adds, -TAG removes"
        )


def run(ns: argparse.Namespace) -> int:
    import os

    from ...core.common.jsonout import encode_json
    from ...core.common.problems import SessionError
    from ...core.listing.marks import MarkChange, MarkError, parse_tag_changes
    from ...core.writing.marks_file import read_marks, session_id_of, update_marks
    from ..marks_flow import marks_path
    from .output import text, write_line

    name: str = ns.mark_command
    path = os.path.abspath(ns.path)
    as_json: bool = ns.json
    words = [w for w in getattr(ns, "changes", None) or () if w != "--"]
    if "--json" in words:
        as_json = True
        words = [w for w in words if w != "--json"]
    session_id = session_id_of(path)
    try:
        if name == "tag":
            change = parse_tag_changes(words)
        else:
            change = {
                "pin": MarkChange(pinned=True),
                "unpin": MarkChange(pinned=False),
                "archive": MarkChange(archived=True),
                "unarchive": MarkChange(archived=False),
            }[name]
        if change == MarkChange():  # (`tag FILE` alone: only show them)
            marks = read_marks(marks_path())
        else:
            marks = update_marks(marks_path(), session_id, change, path)
    except MarkError as e:
        raise SessionError(str(e)) from None
    mark = marks.of(session_id)
    if as_json:
        obj = {
            "path": path,
            "session_id": session_id,
            "pinned": mark.pinned,
            "archived": mark.archived,
            "tags": list(mark.tags),
        }
        write_line(encode_json(obj))
        return 0
    state = [word for word, on in (("pinned", mark.pinned), ("archived", mark.archived)) if on]
    tags = " ".join("#" + tag for tag in mark.tags)
    text(f"{path}: {', '.join(state) or 'not pinned, not archived'}; tags: {tags or '(none)'}")
    return 0
