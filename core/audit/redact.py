"""Redaction: each secret in a text, or in every string of a JSON value, becomes
`[redacted: KIND]`. A redactor remembers every value it found (and any it is primed with, e.g.
a session's findings), so a value once recognised redacts the same way everywhere, even where
no rule would see it (an AWS secret key quoted later without its keyword)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from typing import Any

from .allowlist import AllowList
from .rules import find_secrets

__all__ = ["LineRedaction", "Redactor", "line_redaction", "redact_jsonl", "redaction_mark"]

_KNOWN_MIN = 8  # shorter values (a URL's short password) are redacted only where a rule sees them


def redaction_mark(kind: str) -> str:
    return f"[redacted: {kind}]"


class Redactor:
    """Replaces secrets; `count` says how many replacements it made."""

    def __init__(self, allow: AllowList | None = None, known: Mapping[str, str] | None = None) -> None:
        self._allowed = allow.allows if allow is not None and not allow.empty else None
        self._known: dict[str, str] = {}
        self._known_re: re.Pattern[str] | None = None
        self.count = 0
        if known:
            self.prime(known)

    def prime(self, known: Mapping[str, str]) -> None:
        """Redact these values (value -> kind) wherever they appear."""
        for value, kind in known.items():
            if len(value) >= _KNOWN_MIN and (self._allowed is None or not self._allowed(value)):
                self._known[value] = kind
        self._known_re = None

    def known(self) -> list[str]:
        """Every value it redacts wherever it appears (found so far, or primed)."""
        return list(self._known)

    def _pattern(self) -> re.Pattern[str] | None:
        if self._known_re is None and self._known:
            ordered = sorted(self._known, key=len, reverse=True)
            self._known_re = re.compile("|".join(re.escape(v) for v in ordered))
        return self._known_re

    def text(self, text: str) -> str:
        spans = [(s.start, s.end, s.kind) for s in find_secrets(text, self._allowed)]
        fresh = {
            text[a:b]: k for a, b, k in spans if len(text[a:b]) >= _KNOWN_MIN and text[a:b] not in self._known
        }
        if fresh:
            self.prime(fresh)
        pattern = self._pattern()
        if pattern is not None:
            spans += [(m.start(), m.end(), self._known[m.group()]) for m in pattern.finditer(text)]
        if not spans:
            return text
        spans.sort(key=lambda s: (s[0], -s[1]))
        out: list[str] = []
        at = 0
        for start, end, kind in spans:
            if start < at:  # inside the one just replaced
                continue
            out += [text[at:start], redaction_mark(kind)]
            at = end
            self.count += 1
        out.append(text[at:])
        return "".join(out)

    def value(self, value: Any) -> Any:
        """A copy of a JSON value with every string (keys too) redacted."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(k) if isinstance(k, str) else k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value


def redactor_for_file(path: str | None, allow: AllowList | None = None) -> Redactor:
    """A redactor primed with every secret of a session file (so an export, a copy or a served
    page redacts what the audit found, wherever it is quoted again); one that finds them as it
    goes when the file cannot be read."""
    from ..common.problems import SessionError
    from .scan import audit_file

    known: dict[str, str] = {}
    if path is not None:
        with contextlib.suppress(SessionError, OSError):
            known = audit_file(path, allow).values
    return Redactor(allow, known)


def redact_jsonl(data: bytes, redactor: Redactor) -> bytes:
    """A session file's bytes with every line's strings redacted (a line that is not JSON is
    kept only if the redactor finds nothing in it as text)."""
    import json

    out: list[bytes] = []
    for line in data.split(b"\n"):
        if not line.strip():
            out.append(line)
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            out.append(redactor.text(line.decode("utf-8", "replace")).encode("utf-8"))
            continue
        redacted = redactor.value(value)
        try:
            out.append(json.dumps(redacted, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        except UnicodeEncodeError:  # a lone surrogate (JSON allows `\ud800`): kept as its escape
            out.append(json.dumps(redacted, separators=(",", ":")).encode("ascii"))
    return b"\n".join(out)


class LineRedaction:
    """One file's lines redacted one at a time (a push's hook, core/store_pg): a line with
    nothing a rule could see, nor any value the file's audit found, is kept byte for byte; any
    other becomes its JSON with every string redacted, still one JSON line (its newline kept)."""

    def __init__(self, redactor: Redactor, known: Mapping[str, str]) -> None:
        import json

        from .anchors import candidate_lines

        self.redactor = redactor
        self._candidates = candidate_lines
        # Each known value as JSON spells it inside a string (a key's newlines are `\n`).
        self._quoted = [
            json.dumps(v, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass") for v in known
        ]

    def __call__(self, raw: bytes) -> bytes:
        body = raw[:-1] if raw.endswith(b"\n") else raw
        if not self._candidates(body) and not any(q in body for q in self._quoted):
            return raw
        before = self.redactor.count
        redacted = redact_jsonl(body, self.redactor)
        if self.redactor.count == before:  # a candidate that holds none: the line as it is
            return raw
        return redacted + raw[len(body) :]


def line_redaction(data: bytes, allow: AllowList | None = None) -> LineRedaction:
    """The redaction of one file's lines, primed with every secret in its bytes `data` (so a
    value is redacted wherever it is quoted again, even where no rule would see it)."""
    from .scan import values_in

    known = values_in(data, allow)
    return LineRedaction(Redactor(allow, known), known)
