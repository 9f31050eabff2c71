"""What pi 1.6.0 will do when this session is resumed at a leaf, said before anything is written:
orphan tool calls, a header version newer than pi's, a model pi cannot restore (not in its
catalog, or its provider has no login), a cwd that is gone, a legacy file pi migrates in place
(each checked against pi 1.6.0: docs/RESUME_CHECKS.md)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..reading.migration import CURRENT_VERSION, header_version
from ..reading.records import EntryRecord, MessageHead
from ..session.session import Session
from .context import Projection, entry_messages, project
from .pi_logins import login_variables
from .pi_models import knows_model
from .stale import StaleFile, Why

__all__ = ["Code", "Finding", "Readiness", "not_a_session", "readiness"]

PI_VERSION = "1.6.0"


class Code(StrEnum):
    NOT_A_SESSION = "not-a-session"
    MIGRATES_ON_OPEN = "migrates-on-open"
    NEWER_VERSION = "newer-version"
    ORPHAN_TOOL_CALL = "orphan-tool-call"
    UNKNOWN_MODEL = "unknown-model"
    NO_LOGIN = "no-login"
    CWD_MISSING = "cwd-missing"


# What each finding says in the one-line summary.
_SHORT = {
    Code.NOT_A_SESSION: "not a session",
    Code.MIGRATES_ON_OPEN: "rewritten on open",
    Code.NEWER_VERSION: "newer format",
    Code.ORPHAN_TOOL_CALL: "tool call without result",
    Code.UNKNOWN_MODEL: "model not restored",
    Code.NO_LOGIN: "no login for the model",
    Code.CWD_MISSING: "cwd gone",
}


@dataclass(frozen=True, slots=True)
class Finding:
    code: Code
    message: str
    entry_id: str | None = None
    tool_call_ids: tuple[str, ...] = ()  # an orphan finding's calls

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": str(self.code), "message": self.message, "entry_id": self.entry_id}
        if self.tool_call_ids:
            out["tool_call_ids"] = list(self.tool_call_ids)
        return out


@dataclass(slots=True)
class Readiness:
    """The answer for one leaf: pi opens the file (`ready`) and what it will do or find."""

    leaf_id: str | None
    findings: list[Finding] = field(default_factory=list)
    stale_files: list[StaleFile] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return not any(f.code is Code.NOT_A_SESSION for f in self.findings)

    @property
    def warnings(self) -> bool:
        return bool(self.findings or self.stale_files)

    @property
    def needs_attention(self) -> bool:
        """Worth a question before resuming: a finding, or a file changed or deleted on disk
        (a file that only differs from HEAD is the usual state of work in progress)."""
        return bool(self.findings) or any(s.why is not Why.DIFFERS_FROM_HEAD for s in self.stale_files)

    def exit_status(self) -> int:
        if not self.ready:
            return 2
        return 3 if self.warnings else 0

    def summary(self) -> str:
        """One line for a dialog: `pi 1.6.0: ready`, or what it will meet."""
        if not self.ready:
            return f"pi {PI_VERSION}: cannot open it, not a session"
        parts: list[str] = []
        counts: dict[Code, int] = {}
        for finding in self.findings:
            counts[finding.code] = counts.get(finding.code, 0) + 1
        for code, count in counts.items():
            parts.append(_SHORT[code] + (f" ×{count}" if count > 1 else ""))
        by_why: dict[Why, int] = {}
        for stale in self.stale_files:
            by_why[stale.why] = by_why.get(stale.why, 0) + 1
        if by_why:
            counted = ", ".join(f"{n} {why.describe()}" for why, n in by_why.items())
            parts.append(f"files the model saw: {counted}")
        if not parts:
            return f"pi {PI_VERSION}: ready, nothing to warn about"
        return f"pi {PI_VERSION}: ready with warnings: " + "; ".join(parts)


def not_a_session(reason: str) -> Readiness:
    """The answer for a file pi refuses ("Session file is not a valid pi session")."""
    message = f"pi {PI_VERSION} refuses to open it ('Session file is not a valid pi session'): {reason}"
    return Readiness(None, [Finding(Code.NOT_A_SESSION, message)])


def readiness(
    session: Session,
    leaf_id: str,
    *,
    stale_files: list[StaleFile] | None = None,
    agent: str | None = None,
    is_dir: Callable[[str], bool] = os.path.isdir,
    has_login: Callable[[str], bool | None] | None = None,
) -> Readiness:
    """What pi 1.6.0 will do with the session at `leaf_id` (raises UnknownEntryError).
    `has_login` (core/projection/pi_logins.py's `login_check`) says whether a provider has a
    login here; without it logins are not looked at."""
    projection = project(session, leaf_id)
    findings: list[Finding] = []
    findings.extend(_format_findings(session))
    findings.extend(orphan_tool_calls(session, projection))
    findings.extend(_model_findings(session, projection, agent, has_login))
    cwd = session.cwd
    if cwd and not is_dir(cwd):
        findings.append(
            Finding(
                Code.CWD_MISSING,
                f"the session's cwd no longer exists: {cwd}; pi {PI_VERSION} asks to continue in the "
                "current directory or to fork the session there (`pi-sessions fork PATH --cwd DIR`)",
            )
        )
    return Readiness(leaf_id, findings, list(stale_files or []))


def _format_findings(session: Session) -> list[Finding]:
    header = session.header or {}
    if session.migrated:
        legacy = "v1" if session.is_v1 else "v2"
        ids = " with new random entry ids" if session.is_v1 else ""
        return [
            Finding(
                Code.MIGRATES_ON_OPEN,
                f"a {legacy} file: pi {PI_VERSION} migrates it to v{CURRENT_VERSION} and rewrites it in "
                f"place{ids} on open, with no backup; to keep the original, resume a copy "
                "(`pi-sessions fork PATH --leaf ID`, or clone it in the browser)",
            )
        ]
    raw = header.get("version")
    version = header_version(raw)
    if version > CURRENT_VERSION:
        return [
            Finding(
                Code.NEWER_VERSION,
                f"header version {raw!r} is newer than pi {PI_VERSION}'s {CURRENT_VERSION}: pi opens it "
                "and appends v3 entries to it without a word; a newer pi may read them differently",
            )
        ]
    return []


def orphan_tool_calls(session: Session, projection: Projection) -> list[Finding]:
    """Tool calls in what pi sends that no result answers before the next turn: pi-ai's
    `transformMessages` sends an invented error result ("No result provided") for each; the
    file keeps the orphan. A failed or aborted reply is not sent at all, nor its calls."""
    findings: list[Finding] = []
    pending: list[tuple[EntryRecord, list[tuple[str, str]]]] = []
    answered: set[str] = set()

    def close() -> None:
        for record, calls in pending:
            missing = [(cid, name) for cid, name in calls if cid not in answered]
            if missing:
                findings.append(_orphan_finding(record, missing))
        pending.clear()
        answered.clear()

    # Only replies and results are read back, all in one walk over the file (no cache churn).
    steps: list[tuple[int, EntryRecord, str | None]] = []
    for index, (record, count) in enumerate(zip(projection.context, projection.counts, strict=True)):
        if not count:
            continue
        head = record.message if record.type == "message" else None
        steps.append((index, record, head.role if isinstance(head, MessageHead) else None))
    wanted = [record for _, record, role in steps if role in ("assistant", "toolResult")]
    bodies = session.entry_dicts(wanted)
    for index, record, role in steps:
        if role == "system":
            continue  # pi-ai holds these back: they never close a tool call
        if role not in ("assistant", "toolResult"):
            close()  # a user turn (or what convertToLlm makes one of) closes the calls
            continue
        body = next(bodies)
        for message in entry_messages(session, record, index == 0, projection.edits.get(record.id), body):
            if not isinstance(message, dict):
                continue
            if message.get("role") == "toolResult":
                call_id = message.get("toolCallId")
                if isinstance(call_id, str):
                    answered.add(call_id)
                continue
            close()
            if message.get("role") != "assistant" or message.get("stopReason") in ("error", "aborted"):
                continue
            calls = _tool_calls(message.get("content"))
            if calls:
                pending.append((record, calls))
    close()
    return findings


def _tool_calls(content: Any) -> list[tuple[str, str]]:
    calls = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "toolCall":
            call_id, name = block.get("id"), block.get("name")
            name = name if isinstance(name, str) else "?"
            calls.append((call_id if isinstance(call_id, str) else "", name))
    return calls


def _orphan_finding(record: EntryRecord, missing: list[tuple[str, str]]) -> Finding:
    names = ", ".join(f"{name} ({cid or 'no id'})" for cid, name in missing)
    plural = "s have" if len(missing) > 1 else " has"
    return Finding(
        Code.ORPHAN_TOOL_CALL,
        f"tool call{plural} no result: {names}; pi {PI_VERSION} sends 'No result provided' as an error "
        "result in its place; the file is left as it is",
        record.id,
        tuple(cid for cid, _ in missing),
    )


def _model_findings(
    session: Session,
    projection: Projection,
    agent: str | None,
    has_login: Callable[[str], bool | None] | None = None,
) -> list[Finding]:
    """pi restores the model only when the context has messages and `getBranchSelection`'s
    model (the last model_change, or the last non-virtual reply's model) is in its catalog and
    its provider has a login (`modelRuntime.hasConfiguredAuth`)."""
    if projection.message_count == 0:
        return []
    selected = _branch_selection(session, projection.path)
    if selected is None:
        return []
    record, provider, model_id = selected
    name = f"{_js(provider)}/{_js(model_id)}"
    if isinstance(provider, str) and isinstance(model_id, str) and knows_model(provider, model_id, agent):
        if has_login is None or has_login(provider) is not False:
            return []
        where = "no entry in auth.json"
        variables = login_variables(provider)
        if variables:
            where += ", none of " + ", ".join(variables) + " set"
        return [
            Finding(
                Code.NO_LOGIN,
                f"pi {PI_VERSION} has no login for {provider} ({where}): it says 'Could not restore "
                f"model {name}' and goes on with a model it has a login for, or with none at all "
                "('No models available'); log in (pi's /login) or set the key first",
                record.id,
            )
        ]
    return [
        Finding(
            Code.UNKNOWN_MODEL,
            f"pi {PI_VERSION} does not know the model {name} (not in its catalog nor in models.json): "
            f"it says 'Could not restore model {name}' and continues with its default model",
            record.id,
        )
    ]


def _js(value: Any) -> str:
    return value if isinstance(value, str) else "undefined"  # as pi's template string shows it


def _branch_selection(session: Session, path: list[EntryRecord]) -> tuple[EntryRecord, Any, Any] | None:
    for record in reversed(path):
        if record.type == "model_change":
            return record, record.provider, record.modelId
        head = record.message if record.type == "message" else None
        if isinstance(head, MessageHead) and head.role == "assistant":
            message = session.entry_dict(record).get("message")
            if isinstance(message, dict) and message.get("api") == "pi-virtual":
                continue  # a failed routing names the virtual model: pi looks further back
            return record, head.provider, head.model
    return None
