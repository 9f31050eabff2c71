"""Export names its files from the session's ids: whatever those ids hold (an absolute path,
`..`, a `/`, a newline or ESC), the files land in the chosen folder under one plain name each."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pi_sessions.core.session.session import Session
from pi_sessions.core.writing.export import export_context, export_tree

from tests.helpers.sessions import header, jsonl, user

HOSTILE = [
    "/tmp/evil-abs",
    "../../escaped",
    "..",
    "a/b/../../../c",
    "x\ny\x1b[31m\u202e",
    "é" * 200,
    "\ud800",
]


@pytest.mark.parametrize("hostile", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_ids_write_only_plain_names_inside_the_chosen_folder(tmp_path: Path, hostile: str) -> None:
    path = tmp_path / "deep" / "er" / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(jsonl(header(id=hostile), user(hostile, None, "hi")))
    session = Session.open(path)
    assert session.default_leaf == hostile
    out = tmp_path / "deep" / "er" / "out"
    before = set(tmp_path.rglob("*"))
    written = [*export_context(session, hostile, str(out)), *export_tree(session, str(out))]
    for name in written:
        assert os.path.dirname(name) == str(out)
        base = os.path.basename(name)
        assert base not in (".", "..") and not base.startswith(".")
        assert not any(c in base for c in "/\n\r\x1b\u202e\ud800"), repr(base)
        assert len(base.encode()) <= 255
    assert set(tmp_path.rglob("*")) - before == {out, *map(Path, written)}
    assert not Path("/tmp/evil-abs-context-leaf.md").exists()
