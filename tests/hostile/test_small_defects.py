"""Smaller defects: fork --session-dir without --cwd, resume --print with a newline in the
cwd, the trash at the top of the system's disk."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from pi_sessions.core.common.problems import SessionError
from pi_sessions.core.writing import trash

from tests.helpers.cli import cli
from tests.helpers.sessions import header, jsonl, user


def test_fork_with_only_session_dir_writes_into_that_folder(tmp_path: Path) -> None:
    source = tmp_path / "src" / "s.jsonl"
    source.parent.mkdir()
    source.write_bytes(jsonl(header(cwd="/home/u/proj"), user("u", None, "hi")))
    out = cli("fork", str(source), "--leaf", "u", "--session-dir", str(tmp_path / "dest"))
    assert out.code == 0, out.stderr
    written = list((tmp_path / "dest").rglob("*.jsonl"))
    assert len(written) == 1 and written[0].parent.name == "--home-u-proj--"
    assert list(source.parent.iterdir()) == [source]  # not next to the source


def test_resume_print_keeps_a_newline_in_the_cwd_and_stays_one_inert_line(tmp_path: Path) -> None:
    cwd = tmp_path / "a\nb \x1b[31m'q"
    cwd.mkdir()
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(header(cwd=str(cwd)), user("u", None, "hi")))
    out = cli("resume", str(path), "--print", "--command=pi --session {path}")
    assert out.code == 0, out.stderr
    line = out.stdout.rstrip("\n")
    assert "\n" not in line and "\x1b" not in line
    shown = subprocess.run(["bash", "-c", line.split(" && ")[0] + " && pwd"], capture_output=True, text=True)
    assert shown.stdout == f"{cwd}\n"  # the printed cd goes exactly there


def test_no_trash_is_made_at_the_top_of_the_root_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "s.jsonl"
    victim.write_text("{}\n")
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "not-a-folder"))  # no usable home trash
    monkeypatch.setattr(trash, "_mount_point", lambda path: Path("/"))
    made: list[str] = []
    real_mkdir = Path.mkdir

    def mkdir(self: Path, *args: object, **kwargs: object) -> None:
        if str(self).startswith("/.Trash-"):  # (never really made, even when the check fails)
            made.append(str(self))
            raise PermissionError(str(self))
        real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "mkdir", mkdir)
    with pytest.raises(SessionError, match="none is made at /"):
        trash.freedesktop_trash(victim)
    assert victim.exists() and not made


def test_a_flipped_bit_in_the_index_cache_never_changes_the_list(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    for i in range(6):
        folder = root / f"--p{i % 2}--"
        folder.mkdir(parents=True, exist_ok=True)
        first = f"message number {i} with words"
        (folder / f"s{i}.jsonl").write_bytes(
            jsonl(header(id=f"id-{i}", cwd=f"/p{i % 2}"), user("u", None, first))
        )
    fresh = cli("list", "--session-dir", str(root), "--json", "--no-cache").stdout
    assert cli("list", "--session-dir", str(root), "--json").stdout == fresh  # the cache is written
    cache_root = Path(os.environ["XDG_CACHE_HOME"])
    (cache,) = [p for p in cache_root.rglob("*") if p.is_file() and not p.name.startswith(".")]
    good = cache.read_bytes()
    wrong = []
    for n in range(60):
        at = 16 + (n * 7919) % (len(good) - 16)  # spread over the head (and the states after it)
        damaged = bytearray(good)
        damaged[at] ^= 1 << (n % 8)
        cache.write_bytes(bytes(damaged))
        out = cli("list", "--session-dir", str(root), "--json")
        if out.code != 0 or out.stdout != fresh:
            wrong.append(at)
    assert not wrong, f"{len(wrong)} of 60 flipped bits changed the list: at {wrong[:10]}"
