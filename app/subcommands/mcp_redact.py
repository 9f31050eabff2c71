"""The MCP answers' redaction (on unless `pi-sessions mcp --no-redact`): every string of each
JSON line an answer holds goes through the secrets audit's redactor (core/audit/redact.py), so
a credential reads `[redacted: KIND]`. The redactor is the server's one for its whole run, primed
with the audit's findings in each session file a line names (its `path`): a secret found once is
redacted the same way in every later answer, even where no rule would see it again.

An excerpt (search) is cut with "…" and its white space collapsed: a secret cut there is a piece
that no rule and no whole value matches. So next to each "…", the longest piece that is part
of a known secret (white space collapsed too; 6 characters and longer) is redacted as well.

A string the answer will cut (longer than `max_chars`: mcp_tools keeps at most that many of its
characters, from its two ends) is redacted only in the `window` at each end that can be kept,
so a 30 MB context costs its ends, not its middle: a window reaches MARGIN characters past what
the cut keeps, and still half that once redacted (else the whole string is redacted), longer
than any secret a rule finds: none that starts in the kept part is cut by the window's edge."""

from __future__ import annotations

import contextlib
import json
import os
from typing import TYPE_CHECKING, Any

from ...core.audit.redact import Redactor, redaction_mark

if TYPE_CHECKING:
    from ...core.audit.allowlist import AllowList

CUT = "…"  # core/search/excerpt.py's mark
_PIECE_MIN = 6
MARGIN = 32_768  # (half of it past the kept part; a 4096-bit RSA key in PEM is ~3,300 characters)

# Keys whose string names a session file (list, search, labels, history: one per line;
# tree, context, files, stats, compare, check: the session asked about).
PATH_KEYS = ("path", "session", "session_path", "file")


class LineRedactor:
    """`line(bytes) -> bytes`, for mcp_tools.Pager: a line with nothing to redact is passed on
    byte for byte; one with something is encoded again the way the command line encodes."""

    def __init__(self, allow: AllowList | None = None) -> None:
        if allow is None:
            from ..config import load_secrets_allow

            allow = load_secrets_allow()
        self.allow = allow
        self.redactor: Redactor = Redactor(allow)
        self.primed: set[str] = set()
        self.known: dict[str, str] = {}  # a secret, its white space collapsed -> its kind
        self.pieces = 0
        self.window: int | None = None  # set per call: max_chars + MARGIN, None when nothing is cut

    @property
    def count(self) -> int:
        """How many values it replaced so far (the server's whole run)."""
        return self.redactor.count + self.pieces

    def prime_file(self, path: str) -> None:
        """Redact every secret the audit finds in this session file (once per file and run)."""
        from ...core.audit.scan import audit_file
        from ...core.common.problems import SessionError

        key = os.path.abspath(path)
        if key in self.primed:
            return
        self.primed.add(key)
        if not key.endswith(".jsonl") or not os.path.isfile(key):
            return
        # (a file the audit cannot read: the rules still see what the answer holds)
        with contextlib.suppress(SessionError, OSError, ValueError, RecursionError):
            values = audit_file(key, self.allow).values
            self.redactor.prime(values)
            for value, kind in values.items():
                if len(value) >= _PIECE_MIN and not self.allow.allows(value):
                    self.known[" ".join(value.split())] = kind

    def prime_from(self, given: dict[str, Any], max_chars: object) -> None:
        """Before a call: the session it names (its `path` argument), and the windows its cuts
        allow (`max_chars` as given; 0 or a bad value: every string redacted whole)."""
        path = given.get("path")
        if isinstance(path, str):
            self.prime_file(path)
        self.window = None
        if isinstance(max_chars, int) and not isinstance(max_chars, bool) and max_chars > 0:
            self.window = max_chars + MARGIN

    def line(self, line: bytes) -> bytes:
        from ...core.audit.scan import candidate_lines
        from ...core.common.jsonout import encode_json, escape_terminal_controls

        if not (
            (self.known and CUT.encode() in line)
            or any(encode_json(v)[1:-1] in line for v in self.redactor.known())
            or candidate_lines(line)
        ):
            return line  # (the same test as _may_hold's, on the line as a whole: most lines)
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):  # (never printed by a subcommand, still redacted)
            text = line.decode("utf-8", "replace")
            redacted = self.redactor.text(text)
            return line if redacted == text else redacted.encode("utf-8")
        if isinstance(value, dict):
            for key in PATH_KEYS:
                if isinstance(value.get(key), str):
                    self.prime_file(value[key])
        before = self.count
        redacted = self._value(value)
        if self.count == before:
            return line
        return escape_terminal_controls(encode_json(redacted))

    def _value(self, value: Any) -> Any:
        if isinstance(value, str):
            window = self.window
            if window is not None and len(value) > 2 * window:  # (only its ends can be kept)
                head = self._string(value[:window])
                tail = self._string(value[len(value) - window :])
                # (what redaction shortened must still reach MARGIN / 2 past what a cut keeps)
                if min(len(head), len(tail)) >= window - MARGIN // 2:
                    return head + value[window : len(value) - window] + tail
            return self._string(value)
        if isinstance(value, dict):
            return {self._value(k) if isinstance(k, str) else k: self._value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._value(v) for v in value]
        return value

    def _may_hold(self, value: str) -> bool:
        """Whether a rule or a known secret may match in `value`: the audit's own prefilter
        (core/audit/scan.candidate_lines, over the string as JSON writes it: literal-led
        patterns on bytes, some hundred times faster than the rules themselves) and a search
        for each known value."""
        from ...core.audit.scan import candidate_lines
        from ...core.common.jsonout import encode_json

        if (CUT in value and self.known) or any(v in value for v in self.redactor.known()):
            return True
        return bool(candidate_lines(encode_json(value)))

    def _string(self, value: str) -> str:
        if not self._may_hold(value):
            return value
        text = self.redactor.text(value)
        return self._cut_pieces(text) if CUT in text and self.known else text

    def _cut_pieces(self, text: str) -> str:
        """`text` with the piece of a known secret next to each cut mark redacted."""
        spans: list[tuple[int, int, str]] = []
        at = text.find(CUT)
        while at >= 0:
            after = at + len(CUT)
            for secret, kind in self.known.items():
                if (start := _piece_before(text, at, secret)) is not None:
                    spans.append((start, at, kind))
                if (end := _piece_after(text, after, secret)) is not None:
                    spans.append((after, end, kind))
            at = text.find(CUT, after)
        if not spans:
            return text
        out: list[str] = []
        at = 0
        for start, end, kind in sorted(spans):
            if start < at:
                continue
            out += [text[at:start], redaction_mark(kind)]
            at = end
            self.pieces += 1
        out.append(text[at:])
        return "".join(out)


def _piece_before(text: str, end: int, secret: str) -> int | None:
    """Where the longest piece of `secret` that ends at `end` starts (None: shorter than 6)."""
    if end < _PIECE_MIN or text[end - _PIECE_MIN : end] not in secret:
        return None
    for start in range(max(0, end - len(secret)), end - _PIECE_MIN + 1):
        if text[start:end] in secret:
            return start
    return None


def _piece_after(text: str, start: int, secret: str) -> int | None:
    """Where the longest piece of `secret` that starts at `start` ends (None: shorter than 6)."""
    if len(text) - start < _PIECE_MIN or text[start : start + _PIECE_MIN] not in secret:
        return None
    for end in range(min(len(text), start + len(secret)), start + _PIECE_MIN - 1, -1):
        if text[start:end] in secret:
            return end
    return None


def note(count: int) -> str:
    """The answer's note on what was redacted."""
    return (
        f"redacted: {count} credential-shaped value{'s' if count != 1 else ''} shown as "
        "[redacted: KIND] (the server was started without --no-redact)"
    )
