"""Search inside one session file: what text each entry has per scope, and where a hit sits.

Two scopes:
- default: pi's picker text, the user and assistant text of every message entry in file order
  (what the sessions index searches, from the store);
- deep: that, plus thinking, tool calls, tool results, bash commands and their output, custom
  messages, branch and compaction summaries, and the session's labels; every segment is
  matched on its own and says which entry and field it came from.

A hit in a session is placed relative to the active path (the default leaf's path, what pi
resumes): on it, or on a branch that leaves it at some entry ("branch from <entry>").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from ..common.jsvalues import js_string, text_of_blocks
from ..common.problems import StaleFileError
from ..reading.records import CONTENT_ABSENT, CONTENT_STRING, EntryRecord
from ..session.session import Session
from .bytefilter import ByteFilter, Screen
from .excerpt import Excerpt
from .hits import EXCERPT_WIDTH, SearchHit
from .matching import REGEX_TIME_LIMIT, PatternTooSlow, match_session
from .query import ParsedQuery, normalize_whitespace_lower
from .texts import FIELD_MESSAGE, MessageText, Owner, SegmentedText, TextMatch

__all__ = [
    "DEEP_FIELDS",
    "FIELD_BASH_COMMAND",
    "FIELD_BASH_OUTPUT",
    "FIELD_CUSTOM_MESSAGE",
    "FIELD_LABEL",
    "FIELD_SUMMARY",
    "FIELD_THINKING",
    "FIELD_TOOL_CALL",
    "FIELD_TOOL_RESULT",
    "EntryHit",
    "HitPlace",
    "Scope",
    "TreePlaces",
    "deep_text",
    "entry_hits",
    "entry_segments",
    "locate_hit",
    "message_text",
    "pi_message_text",
]

Scope = Literal["default", "deep"]
Keep = Callable[[EntryRecord], bool]  # which records are worth reading back

FIELD_THINKING = "thinking"
FIELD_TOOL_CALL = "tool_call"
FIELD_TOOL_RESULT = "tool_result"
FIELD_BASH_COMMAND = "bash_command"
FIELD_BASH_OUTPUT = "bash_output"
FIELD_CUSTOM_MESSAGE = "custom_message"
FIELD_SUMMARY = "summary"
FIELD_LABEL = "label"
DEEP_FIELDS = (
    FIELD_THINKING,
    FIELD_TOOL_CALL,
    FIELD_TOOL_RESULT,
    FIELD_BASH_COMMAND,
    FIELD_BASH_OUTPUT,
    FIELD_CUSTOM_MESSAGE,
    FIELD_SUMMARY,
    FIELD_LABEL,
)
# Entry types (and message roles) that may hold text for each scope.
DEEP_TYPES = frozenset({"message", "custom_message", "branch_summary", "compaction"})


# ---------------------------------------------------------------------------- text of entries


def pi_message_text(content: Any) -> str:
    """The text pi's listing takes from a message content (its allMessagesText part): a
    string, or the `text` of its text blocks joined with " "; "" where pi would throw."""
    try:
        return text_of_blocks(content, " ")
    except TypeError:
        return ""


def _lenient_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return " ".join(
        js_string(b.get("text")) for b in content if isinstance(b, dict) and b.get("type") == "text"
    )


def _strings_in(value: Any, out: list[str], depth: int = 0) -> None:
    if isinstance(value, str):
        out.append(value)
    elif depth < 20 and isinstance(value, dict):
        for item in value.values():
            _strings_in(item, out, depth + 1)
    elif depth < 20 and isinstance(value, list):
        for item in value:
            _strings_in(item, out, depth + 1)
    elif value is not None and not isinstance(value, dict | list):
        out.append(json.dumps(value))


def _tool_call_text(block: dict[str, Any]) -> str:
    parts = [js_string(block.get("name"))]
    _strings_in(block.get("arguments"), parts)
    return " ".join(p for p in parts if p)


def entry_segments(entry: dict[str, Any], scope: Scope) -> list[tuple[str, str]]:
    """(field, text) of one entry (as read back from the file), in the order shown; labels
    are not here (they belong to the labelled entry, see `deep_text`)."""
    kind = entry.get("type")
    out: list[tuple[str, str]] = []
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, dict):
            return out
        role = message.get("role")
        content = message.get("content")
        if role in ("user", "assistant") and "content" in message:
            out.append((FIELD_MESSAGE, pi_message_text(content)))
        if scope == "default":
            return [(f, t) for f, t in out if t]
        if role == "assistant" and isinstance(content, list):
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "thinking":
                    out.append((FIELD_THINKING, js_string(block.get("thinking"))))
                elif block.get("type") == "toolCall":
                    out.append((FIELD_TOOL_CALL, _tool_call_text(block)))
        elif role == "toolResult":
            out.append((FIELD_TOOL_RESULT, _lenient_text(content)))
        elif role == "bashExecution":
            out.append((FIELD_BASH_COMMAND, js_string(message.get("command"))))
            out.append((FIELD_BASH_OUTPUT, js_string(message.get("output"))))
        elif role in ("custom", "hookMessage"):
            out.append((FIELD_CUSTOM_MESSAGE, _lenient_text(content)))
    elif scope == "deep":
        if kind == "custom_message":
            out.append((FIELD_CUSTOM_MESSAGE, _lenient_text(entry.get("content"))))
        elif kind in ("branch_summary", "compaction"):
            out.append((FIELD_SUMMARY, js_string(entry.get("summary"))))
    return [(f, t) for f, t in out if t]


def _may_have_message_text(record: EntryRecord) -> bool:
    if record.type != "message" or record.role not in ("user", "assistant"):
        return False
    # `""` is two bytes: an empty string content has no text (no need to read it back)
    return record.content_kind != CONTENT_ABSENT and not (
        record.content_kind == CONTENT_STRING and record.content_size <= 2
    )


def _read(session: Session, record: EntryRecord) -> dict[str, Any] | None:
    try:
        return session.entry_dict(record)
    except (StaleFileError, OSError, ValueError):
        return None


def _message_texts(session: Session, keep: Keep | None = None) -> Iterator[tuple[str, str]]:
    """(entry id, text) of every non-empty user/assistant text, in file order (pi's
    allMessagesText, the same segments the store keeps for the index)."""
    for record in session.records:
        if not _may_have_message_text(record) or (keep is not None and not keep(record)):
            continue
        entry = _read(session, record)
        if entry is None:
            continue
        message = entry.get("message")
        text = pi_message_text(message.get("content")) if isinstance(message, dict) else ""
        if text:
            yield record.id, text


def message_text(session: Session, keep: Keep | None = None) -> MessageText:
    """The session's default-scope text, each segment owned by its entry (`keep`: only the
    records it keeps, for matching segment by segment)."""
    segments: list[str] = []
    owners: list[Owner] = []
    for entry_id, text in _message_texts(session, keep):
        segments.append(text)
        owners.append(Owner(entry_id, FIELD_MESSAGE))
    return MessageText(segments, owners)


def deep_text(session: Session, keep: Keep | None = None) -> SegmentedText:
    """Every searchable segment of the session (deep scope) in file order; `keep` may skip
    records known to hold nothing of interest (they are then not read back). A label is a
    segment of the entry it labels, placed where the label was set."""
    segments: list[str] = []
    owners: list[Owner] = []
    labels = session.labels
    final_label: dict[Any, EntryRecord] = {}
    if labels:
        for record in session.records:
            target = record.targetId
            if record.type == "label" and isinstance(target, str) and target in labels:
                final_label[target] = record
    for record in session.records:
        if record.type == "label":
            target = record.targetId
            if isinstance(target, str) and final_label.get(target) is record and target in session.by_id:
                segments.append(js_string(labels[target]))
                owners.append(Owner(target, FIELD_LABEL))
            continue
        if (
            not isinstance(record.type, str)
            or record.type not in DEEP_TYPES
            or (keep is not None and not keep(record))
        ):
            continue
        entry = _read(session, record)
        if entry is None:
            continue
        for field, text in entry_segments(entry, "deep"):
            segments.append(text)
            owners.append(Owner(record.id, field))
    return SegmentedText(segments, owners)


# ---------------------------------------------------------------------------- places in the tree


@dataclass(frozen=True, slots=True)
class HitPlace:
    """Where a hit is in its session."""

    entry_id: str | None  # None: the hit is the session's name, id or cwd
    field: str
    on_active_path: bool | None  # None without an entry
    branch_from: str | None  # off the active path: the entry where its branch leaves it


class TreePlaces:
    """Answers "on the active path, or on a branch from where?" for entries of one session."""

    def __init__(self, session: Session, leaf: str | None = None) -> None:
        self.session = session
        leaf = session.default_leaf if leaf is None else leaf
        self.active: set[str] = (
            {r.id for r in session.path_to(leaf)} if leaf is not None and leaf in session.by_id else set()
        )
        self._fork: dict[str, str | None] = {}

    def place(self, entry_id: str) -> tuple[bool, str | None]:
        """(on the active path, the fork point on the active path where its branch starts)."""
        if entry_id in self.active:
            return True, None
        record = self.session.by_id.get(entry_id)
        walked: list[str] = []
        fork: str | None = None
        while record is not None:
            if record.id in self._fork:
                fork = self._fork[record.id]
                break
            if record.id in self.active:
                fork = record.id
                break
            walked.append(record.id)
            if len(walked) > len(self.session.by_id):
                break  # a cycle the session did not cut
            record = self.session.parent_of(record)
        for walked_id in walked:
            self._fork[walked_id] = fork
        return False, fork

    def hit_place(self, entry_id: str | None, field: str) -> HitPlace:
        if entry_id is None:
            return HitPlace(None, field, None, None)
        on_path, fork = self.place(entry_id)
        return HitPlace(entry_id, field, on_path, fork)


# ---------------------------------------------------------------------------- locating index hits


def locate_hit(
    session: Session, hit: SearchHit[Any], query: ParsedQuery, places: TreePlaces | None = None
) -> HitPlace:
    """The entry of a default-scope index hit, read from the session file: the message whose
    text holds the match (the store keeps texts, not entries). Reads the messages up to that
    one; if the file no longer agrees with the index, matches again against the file."""
    places = places or TreePlaces(session)
    if not hit.in_text:
        return places.hit_place(None, hit.field)
    segment, expected = hit.segment, hit.segment_text
    if segment is not None and expected is not None:
        for ordinal, (entry_id, text) in enumerate(_message_texts(session)):
            if ordinal == segment:
                if text == expected:
                    return places.hit_place(entry_id, FIELD_MESSAGE)
                break
    # The file changed since it was indexed (or lines the index counted have no id): again.
    fresh = match_session(query, None, None, "", "", message_text(session), REGEX_TIME_LIMIT)
    if fresh is None or not fresh.in_text:
        return places.hit_place(None, hit.field)
    return places.hit_place(fresh.entry_id, FIELD_MESSAGE)


# ---------------------------------------------------------------------------- every hit of a session


class EntryHit:
    """One entry of a session that matches the query (for walking the hits in the tree)."""

    __slots__ = (
        "_excerpts",
        "_match",
        "_needles",
        "_text",
        "branch_from",
        "entry_id",
        "field",
        "on_active_path",
    )

    def __init__(
        self,
        entry_id: str,
        place: HitPlace,
        text: MessageText | SegmentedText,
        match: TextMatch,
        needles: tuple[str, ...],
    ) -> None:
        self.entry_id = entry_id
        self.field = place.field
        self.on_active_path = bool(place.on_active_path)
        self.branch_from = place.branch_from
        self._text = text
        self._match = match
        self._needles = needles
        self._excerpts: dict[int, Excerpt] = {}

    def __repr__(self) -> str:
        return f"EntryHit({self.entry_id!r}, {self.field!r}, on_active_path={self.on_active_path})"

    def excerpt(self, width: int = EXCERPT_WIDTH) -> Excerpt:
        if width not in self._excerpts:
            self._excerpts[width] = self._text.excerpt(self._match, width, self._needles)
        return self._excerpts[width]


def entry_hits(
    session: Session,
    query: ParsedQuery,
    scope: Scope = "default",
    time_limit: float = REGEX_TIME_LIMIT,
    *,
    every_token: bool = False,
) -> list[EntryHit]:
    """Every entry with a segment that holds a token of the query (plain tokens and phrases
    literally) or a match of its pattern, in file order, each once (its first segment).
    `every_token`: only entries whose segments hold every token between them (the tree's own
    search, as pi's tree selector filters: `searchTokens.every(...)` on each entry's text)."""
    if query.error or query.matches_everything:
        return []
    keep: Keep | None = None
    if query.mode == "tokens":
        try:
            screen = ByteFilter(query).screen(session.source.read(0, session.end_offset))
        except OSError:
            screen = Screen(False, None)
        if screen.nothing_in_text and scope == "default":
            return []
        keep = screen.keep
    text: MessageText | SegmentedText = (
        message_text(session, keep) if scope == "default" else deep_text(session, keep)
    )
    places = TreePlaces(session)
    needles = tuple(t.matched_as for t in query.tokens if t.matched_as)
    hits: list[EntryHit] = []
    seen: set[str] = set()
    lacking = _entries_lacking_a_token(text, needles) if every_token and query.mode == "tokens" else set()
    for segment in range(text.count):
        owner = text.owner(segment)
        if owner is None or owner.entry_id is None or owner.entry_id in seen or owner.entry_id in lacking:
            continue
        match = _segment_match(text.segments[segment], query, needles, time_limit)
        if match is None:
            continue
        seen.add(owner.entry_id)
        shifted = _in_text(text, segment, match)
        place = places.hit_place(owner.entry_id, owner.field)
        hits.append(EntryHit(owner.entry_id, place, text, shifted, needles))
    return hits


def tree_matches(session: Session, query: ParsedQuery, text: str) -> list[str]:
    """The tree's own search: the ids of entries whose text holds every token (or a match of the
    pattern), deep scope, in file order; an entry id typed alone finds that entry too."""
    found = [hit.entry_id for hit in entry_hits(session, query, "deep", every_token=True)]
    typed = text.strip()
    record = session.by_id.get(typed)
    if record is not None and typed not in found:
        by_id = session.by_id
        found.append(typed)
        found.sort(key=lambda entry_id: by_id[entry_id].index)
    return found


def _entries_lacking_a_token(text: MessageText | SegmentedText, needles: tuple[str, ...]) -> set[str]:
    """The entries whose segments, taken together, miss one of `needles`."""
    found: dict[str, set[str]] = {}
    for segment in range(text.count):
        owner = text.owner(segment)
        if owner is None or owner.entry_id is None:
            continue
        normalized = normalize_whitespace_lower(text.segments[segment])
        found.setdefault(owner.entry_id, set()).update(n for n in needles if n in normalized)
    return {entry_id for entry_id, held in found.items() if len(held) < len(set(needles))}


def _segment_match(
    segment: str, query: ParsedQuery, needles: tuple[str, ...], time_limit: float
) -> TextMatch | None:
    if query.mode == "regex":
        if query.regex is None:
            return None
        one = SegmentedText([segment], [Owner(None, FIELD_MESSAGE)])
        try:
            return one.search(query.regex, time_limit)
        except TimeoutError:
            raise PatternTooSlow() from None
    normalized = normalize_whitespace_lower(segment)
    best: TextMatch | None = None
    for needle in needles:
        at = normalized.find(needle)
        if at >= 0 and (best is None or at < best.start):
            best = TextMatch(at, at + len(needle))
    return best


def _in_text(text: MessageText | SegmentedText, segment: int, match: TextMatch) -> TextMatch:
    """A match within one segment as a match in the whole text's coordinates."""
    starts = text.segment_starts(match.utf16)
    return TextMatch(starts[segment] + match.start, starts[segment] + match.end, match.utf16)
