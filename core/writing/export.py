"""Exports: the context at an entry (what the model saw) and the whole session tree, as
Markdown for people and JSON for programs, each written to a new file (never overwriting)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from typing import Any

from ..common.jsonout import encode_json
from ..common.jsvalues import js_string
from ..common.problems import SessionError
from ..common.text import counted, file_name_part
from ..projection.context import Projection, project
from ..projection.tokens import context_tokens
from ..session.describe import content_text, entry_summary_line
from ..session.outline import outline_rows
from ..session.session import Session


def context_json(session: Session, projection: Projection) -> dict[str, Any]:
    return {
        "session": session.path,
        "sessionId": session.session_id,
        "leaf": projection.leaf_id,
        "model": projection.model,
        "thinkingLevel": projection.thinking_level,
        "context_entry_ids": [r.id for r in projection.context],
        "projection_message_counts": projection.counts,
        "messages": projection.messages(session),
        "excluded": [
            {"id": f.record.id, "reason": str(f.reason), "by": f.by, "why": f.describe()}
            for f in projection.fates
            if not f.in_context
        ],
        "systemPrompt": _system_prompt_json(session, projection),
    }


def _system_prompt_json(session: Session, projection: Projection) -> dict[str, Any]:
    prompt = projection.system_prompt(session)
    return {"content": prompt.content, "sections": prompt.sections, "tools": prompt.tools}


def _message_markdown(message: Any) -> str:
    if not isinstance(message, dict):
        return f"```\n{js_string(message)}\n```"
    role = message.get("role")
    lines: list[str] = []
    content = message.get("content")
    if role in ("compactionSummary", "branchSummary"):
        lines.append(js_string(message.get("summary")))
    elif role == "bashExecution":
        lines.append(f"```\n$ {js_string(message.get('command'))}\n{js_string(message.get('output'))}\n```")
    elif role == "system":
        if isinstance(content, str) and content:
            lines.append(content)
        sections = message.get("sections")
        if isinstance(sections, dict):
            for name, value in sections.items():
                lines.append(f"**§ {name}**" + (" (removed)" if value is None else f"\n\n{js_string(value)}"))
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                lines.append(js_string(block.get("text")))
            elif kind == "thinking":
                lines.append("> thinking: " + js_string(block.get("thinking")).replace("\n", "\n> "))
            elif kind == "toolCall":
                args = json.dumps(block.get("arguments"), indent=2, ensure_ascii=False)
                lines.append(f"**→ {js_string(block.get('name'))}**\n```json\n{args}\n```")
            elif kind == "image":
                lines.append("*[image]*")
    else:
        lines.append(content_text(content))
    return "\n\n".join(lines)


def context_markdown(session: Session, projection: Projection) -> str:
    model = projection.model
    model_text = (
        f"{js_string(model.get('provider'))}/{js_string(model.get('modelId'))}" if model else "no model yet"
    )
    out = [
        f"# Context at {projection.leaf_id}",
        "",
        f"- session: `{session.path}` ({session.session_id})",
        f"- model: {model_text}",
        f"- thinking: {js_string(projection.thinking_level)}",
        f"- {counted(projection.message_count, 'message')}, "
        f"{context_tokens(session, projection):,} tokens of context (pi's estimate)",
        "",
    ]
    prompt = projection.system_prompt(session)
    if not prompt.is_empty:
        out += ["## system prompt", "", prompt.text(), ""]
        if prompt.tools:
            out += ["Tools: " + ", ".join(js_string(t.get("name")) for t in prompt.tools), ""]
    for record, message in projection.sourced_messages(session):
        role = message.get("role") if isinstance(message, dict) else "?"
        if role == "system":
            continue
        out += [f"## {js_string(role)} · {record.id}", "", _message_markdown(message), ""]
    excluded = [f for f in projection.fates if not f.in_context]
    if excluded:
        out += ["## Not in context", ""]
        out += [f"- {f.record.id} ({js_string(f.record.type)}): {f.describe()}" for f in excluded]
        out.append("")
    return "\n".join(out)


def tree_json(session: Session) -> dict[str, Any]:
    return {
        "header": session.header,
        "name": session.name,
        "default_leaf": session.default_leaf,
        "roots": session.roots,
        "children": {k: v for k, v in session.children_lists().items() if v},
        "labels": {k: v for k, v in session.labels.items() if k in session.by_id},
        "entries": [session.entry_dict(r) for r in session.records],
        "problems": [p.to_json() for p in session.problems],
    }


def tree_markdown(session: Session) -> str:
    header = session.header or {}
    out = [
        f"# {session.name or 'Session'} ({session.session_id})",
        "",
        f"- file: `{session.path}`",
        f"- cwd: `{js_string(header.get('cwd'))}`",
        f"- {len(session.records)} entries, default leaf {session.default_leaf}",
        "",
    ]
    for row in outline_rows(session):
        marker = "*" if row.on_active_path else "-"
        out.append(f"{'  ' * row.depth}{marker} {entry_summary_line(session, row.record, 200)}")
    return "\n".join(out) + "\n"


def write_new_file(folder: str, stem: str, suffix: str, data: bytes) -> str:
    """Create `folder/stem.suffix` (or `stem-1.suffix`, ...) exclusively; never overwrite."""
    os.makedirs(folder, exist_ok=True)
    for attempt in range(1000):
        name = f"{stem}{'' if attempt == 0 else f'-{attempt}'}{suffix}"
        path = os.path.join(folder, name)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return path
    raise FileExistsError(f"no free file name for {stem}{suffix} in {folder}")


def export_context(session: Session, leaf_id: str, folder: str) -> tuple[str, str]:
    projection = project(session, leaf_id)
    stem = f"{file_name_part(session.session_id or '')}-context-{file_name_part(leaf_id, fallback='leaf')}"
    md = write_new_file(folder, stem, ".md", context_markdown(session, projection).encode("utf-8", "replace"))
    js = write_new_file(folder, stem, ".json", encode_json(context_json(session, projection)) + b"\n")
    return md, js


def export_tree(session: Session, folder: str) -> tuple[str, str]:
    stem = f"{file_name_part(session.session_id or '')}-tree"
    md = write_new_file(folder, stem, ".md", tree_markdown(session).encode("utf-8", "replace"))
    js = write_new_file(folder, stem, ".json", encode_json(tree_json(session)) + b"\n")
    return md, js


def export_html_with_pi(pi: str, session_path: str, folder: str, timeout: float = 120.0) -> str:
    """pi's own HTML page of a session (`pi --export FILE OUT`), as a new file in `folder`.

    pi opens the file with its session manager, which may write to it (a missing final
    newline, a migration), so it gets a private copy. The output name is reserved first by
    creating it exclusively: pi overwrites its output, and so can overwrite only that."""
    base = os.path.basename(session_path).removesuffix(".jsonl")
    target = write_new_file(folder, f"pi-session-{base}", ".html", b"")
    try:
        with tempfile.TemporaryDirectory(prefix="pi-sessions-export-") as scratch:
            copy = os.path.join(scratch, os.path.basename(session_path))
            shutil.copyfile(session_path, copy)
            result = subprocess.run(
                [pi, "--export", copy, target],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout,
                cwd=scratch,
                env={**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"},
            )
    except subprocess.TimeoutExpired:
        os.unlink(target)
        raise SessionError(f"{pi} --export did not finish in {timeout:.0f} s") from None
    except OSError:
        os.unlink(target)
        raise
    if result.returncode != 0 or os.path.getsize(target) == 0:
        os.unlink(target)
        said = (result.stderr or result.stdout).strip().splitlines()
        raise SessionError(
            f"{pi} --export failed (exit {result.returncode}): {said[0] if said else 'no output'}"
        )
    return target
