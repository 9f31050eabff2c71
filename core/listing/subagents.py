"""Subagent sessions: the child runs subagent extensions write, found and linked to their parent.

pi lists `<root>/<folder>/*.jsonl` only (pi 1.6.0 `listAll`); subagent extensions write each
child run as a session file of its own, most of them where pi does not look:

- `<folder>/<parent file's stem>/<runId>/run-<i>/session.jsonl` (nicobailon/pi-subagents: the
  parent file's name without `.jsonl`, then the run id; older versions put pi's own file name
  in `<runId>/run-<i>/`), and `<folder>/<parent session id>/<runId>/*.jsonl` (pi-forge PR #34
  reads it so): the parent is the folder's name. Its `subagent-artifacts/` folder beside them
  holds event streams and transcripts, never sessions (their first line can look like a header).
- `<root>/subagents/*.jsonl` (k3dom/pi-plugins' subagent, `--session-dir`: pi lists these),
  `$PI_SUBAGENT_SESSION_DIR` (k3dom/pi-plugins PR #66) and `<agent dir>/subagent-sessions/`
  (dreb, pi-interactive-subagents, pi-herdr-subagents#5): the parent is the session whose
  tool result names the child (its session id, `details.sessionId`) or its header's
  `parentSession` (dreb PR #300).
- oh-my-pi nests its subagents as `<parent file's stem>/<agentId>.jsonl` (the same rule).
- A header's `parentSession` anywhere (tintinweb/pi-subagents PR #222: in the parent's own
  folder, so pi lists it). pi writes the same field for a fork; a fork starts with its
  parent's first message and a subagent with its task, which tells them apart.

The entry that spawned a child (`parent_entry_id`) is the parent's assistant entry holding the
tool call whose result names the child (its session id, its file or its run id); None when
no result does. Only the files of parents with children are read for it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from ..common.locations import iter_session_files
from .spawner import Child, spawning_entries
from .summary import SessionSummary

ENV_SUBAGENT_DIR = "PI_SUBAGENT_SESSION_DIR"
ARTIFACTS = "subagent-artifacts"
SUBAGENTS_FOLDER = "subagents"
SIBLING_FOLDER = "subagent-sessions"
MAX_DEPTH = 4  # folders below a parent's folder that a child may sit in (`<runId>/run-<i>/`)


@dataclass(frozen=True, slots=True)
class Found:
    """A child session file found where a subagent extension writes them."""

    path: str
    layout: str  # "nested", "subagents", "env", "sibling"
    parent: str | None = None  # the parent's path when the layout says it
    run_id: str | None = None


@dataclass(slots=True)
class Subagents:
    """Every child found, by its path; `extra` are the summaries of those pi does not list."""

    children: dict[str, Child] = field(default_factory=dict)
    extra: list[SessionSummary] = field(default_factory=list)

    def of(self, parent: str) -> list[Child]:
        """The children of `parent`, oldest first."""
        kids = [c for c in self.children.values() if c.parent == parent]
        kids.sort(key=lambda c: (c.summary.created or "", c.summary.path))
        return kids

    def by_parent(self) -> dict[str, list[Child]]:
        out: dict[str, list[Child]] = {}
        for child in self.children.values():
            if child.parent is not None:
                out.setdefault(child.parent, []).append(child)
        for kids in out.values():
            kids.sort(key=lambda c: (c.summary.created or "", c.summary.path))
        return out

    def descendants(self, parent: str) -> list[Child]:
        """The subagents of `parent`, theirs after each, every one once."""
        out: list[Child] = []
        seen = {os.path.normpath(parent)}
        stack = list(reversed(self.of(os.path.normpath(parent))))
        while stack:
            child = stack.pop()
            path = os.path.normpath(child.summary.path)
            if path in seen:
                continue
            seen.add(path)
            out.append(child)
            stack.extend(reversed(self.of(path)))
        return out

    def spawned_at(self, parent: str) -> dict[str, list[Child]]:
        """The children of `parent` by the entry that spawned them (those it can be told of)."""
        out: dict[str, list[Child]] = {}
        for child in self.of(parent):
            if child.parent_entry_id is not None:
                out.setdefault(child.parent_entry_id, []).append(child)
        return out


def _scan(folder: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _jsonl_below(folder: str, depth: int) -> Iterator[tuple[str, str]]:
    """(path, first folder name below `folder`) of every `*.jsonl` down to `depth` folders."""
    stack = [(folder, 0, "")]
    while stack:
        here, level, first = stack.pop()
        for entry in sorted(_scan(here), key=lambda e: e.name):
            if entry.name.endswith(".jsonl") and not _is_dir(entry):
                yield entry.path, first
            elif _is_dir(entry) and entry.name != ARTIFACTS and level < depth:
                stack.append((entry.path, level + 1, first or entry.name))


def _nested(container: str) -> Iterator[Found]:
    """Children in folders named after a session file of `container` (its stem or its id)."""
    entries = _scan(container)
    stems = {e.name[: -len(".jsonl")]: e.path for e in entries if e.name.endswith(".jsonl")}
    ids = {stem.rpartition("_")[2]: path for stem, path in stems.items() if "_" in stem}
    for entry in entries:
        if not _is_dir(entry) or entry.name in (ARTIFACTS, SUBAGENTS_FOLDER):
            continue
        parent = stems.get(entry.name) or ids.get(entry.name)
        if parent is None:
            continue
        for path, run in _jsonl_below(entry.path, MAX_DEPTH):
            yield Found(path, "nested", parent, run or None)


def find_files(root: str, env: Mapping[str, str] | None = None) -> list[Found]:
    """Every child session file under `root` and where subagent extensions write them."""
    env = os.environ if env is None else env
    root = os.path.abspath(root)
    found: list[Found] = list(_nested(root))
    for entry in _scan(root):
        if _is_dir(entry) and entry.name != SUBAGENTS_FOLDER:
            found.extend(_nested(entry.path))
    for entry in _scan(os.path.join(root, SUBAGENTS_FOLDER)):
        if entry.name.endswith(".jsonl") and not _is_dir(entry):
            found.append(Found(entry.path, "subagents"))
    extra_dirs: list[tuple[str, str]] = []
    if env.get(ENV_SUBAGENT_DIR):
        extra_dirs.append((os.path.abspath(os.path.expanduser(env[ENV_SUBAGENT_DIR])), "env"))
    if os.path.basename(root) == "sessions":
        extra_dirs.append((os.path.join(os.path.dirname(root), SIBLING_FOLDER), "sibling"))
    extra_dirs.append((os.path.join(root, SIBLING_FOLDER), "sibling"))
    for folder, layout in extra_dirs:
        for path, _ in _jsonl_below(folder, MAX_DEPTH):
            found.append(Found(path, layout))
    seen: set[str] = set()
    out = []
    for item in found:
        if item.path not in seen:
            seen.add(item.path)
            out.append(item)
    return out


def _norm(path: str) -> str:
    return os.path.normpath(path)


def link(
    root: str,
    listed: Sequence[SessionSummary],
    found: Iterable[Found],
) -> Subagents:
    """The children among `found` (read, unless listed) and among the
    listed sessions, each with its parent and, where it can be told, the spawning entry."""
    by_path = {_norm(s.path): s for s in listed}
    result = Subagents()
    listed_paths = {_norm(p) for p in iter_session_files(root)}
    for item in found:
        path = _norm(item.path)
        summary = by_path.get(path)
        if summary is None:
            summary = _summary_of(item.path)
            if summary is None:
                continue
            if path not in listed_paths:
                result.extra.append(summary)
        parent = item.parent
        header_parent = summary.parent_session_path
        if parent is None and isinstance(header_parent, str) and header_parent:
            parent = header_parent
        result.children[path] = Child(
            summary,
            item.layout,
            _norm(parent) if parent else None,
            run_id=item.run_id,
            listed_by_pi=path in listed_paths,
        )
    for summary in listed:
        path = _norm(summary.path)
        parent = summary.parent_session_path
        if path in result.children or not isinstance(parent, str) or not parent:
            continue
        above = by_path.get(_norm(parent))
        if above is None or above.first_message == summary.first_message:
            continue  # a fork (it starts where its parent did), or a parent not here
        result.children[path] = Child(summary, "header", _norm(parent), listed_by_pi=True)
    everyone = list(listed) + result.extra
    spawning_entries(list(result.children.values()), everyone)
    return result


def _summary_of(path: str) -> SessionSummary | None:
    from .store import read_file_state

    entry, _ = read_file_state(path)
    return entry.summary if entry is not None else None


def find(root: str, listed: Sequence[SessionSummary], env: Mapping[str, str] | None = None) -> Subagents:
    """`link` of `find_files`: every subagent session of the store at `root`."""
    return link(root, listed, find_files(root, env))


def top_level(summaries: Sequence[SessionSummary], subagents: Subagents) -> list[SessionSummary]:
    """The sessions that are not a child of a session that is there."""
    here = {_norm(s.path) for s in summaries}
    children = subagents.children
    out = []
    for s in summaries:
        child = children.get(_norm(s.path))
        if child is None or child.parent is None or child.parent not in here:
            out.append(s)
    return out


__all__ = ["Child", "Found", "Subagents", "find", "find_files", "link", "top_level"]
