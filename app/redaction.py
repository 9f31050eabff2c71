"""The browser's redaction (on in the page `pi-sessions serve` serves, unless `--no-redact`):
every session text drawn passes first through one `Redactor` (core/audit), so each secret is
shown as `[redacted: KIND]`; each session opened primes it with the secrets its file holds, so
a value is redacted wherever the session quotes it again, even where no rule would see it.

The sanitiser every drawn text passes through (core/common/text.py) calls it; the answers are
remembered (a row is drawn again and again), and forgotten when a priming adds values.
"""

from __future__ import annotations

import contextlib
import threading

from ..core.audit.allowlist import AllowList
from ..core.audit.redact import Redactor
from ..core.common import text

_CACHE_SIZE = 8192
_CACHE_CHARS = 2048


class BrowserRedaction:
    """The one redaction of the browser's texts (thread-safe: worker threads draw text too)."""

    def __init__(self, allow: AllowList) -> None:
        self.allow = allow
        self.redactor = Redactor(allow)
        self._lock = threading.Lock()
        self._seen: dict[str, str] = {}
        self._primed: set[str] = set()

    def __call__(self, value: str) -> str:
        done = self._seen.get(value)
        if done is not None:
            return done
        with self._lock:
            out = self.redactor.text(value)
            if len(value) <= _CACHE_CHARS:  # (a row, a title: drawn again and again)
                if len(self._seen) >= _CACHE_SIZE:
                    self._seen.clear()
                self._seen[value] = out
        return out

    def prime_with_file(self, path: str) -> None:
        """Every secret of the session file at `path` redacts from now on, wherever it is quoted."""
        from ..core.audit.scan import audit_file
        from ..core.common.problems import SessionError

        if path in self._primed:
            return
        with contextlib.suppress(SessionError, OSError):
            values = audit_file(path, self.allow).values
            with self._lock:
                self.redactor.prime(values)
                self._seen.clear()
            self._primed.add(path)


_ACTIVE: BrowserRedaction | None = None


def start_redaction(allow: AllowList) -> BrowserRedaction:
    """Redact every session text this process draws from now on."""
    global _ACTIVE
    _ACTIVE = BrowserRedaction(allow)
    text.set_redaction(_ACTIVE)
    return _ACTIVE


def stop_redaction() -> None:
    global _ACTIVE
    _ACTIVE = None
    text.set_redaction(None)


def prime_with_file(path: str) -> None:
    """A session is opened: with redaction on, its secrets redact wherever they are quoted."""
    if _ACTIVE is not None:
        _ACTIVE.prime_with_file(path)
