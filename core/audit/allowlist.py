"""The allow-list: values, or patterns (`re:` lines), that look like secrets but are not
(a documented example key, a test fixture's token). One per line; `#` starts a comment line."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from ..common.smallfiles import read_small_text

__all__ = ["ALLOW_FILE", "AllowList", "load_allow_list", "parse_allow_list"]

ALLOW_FILE = "secrets-allow.txt"  # in the config folder, next to config.toml


@dataclass(frozen=True, slots=True)
class AllowList:
    values: frozenset[str] = frozenset()
    patterns: tuple[re.Pattern[str], ...] = ()
    problems: tuple[str, ...] = field(default=())  # lines that could not be read, each one line

    @property
    def empty(self) -> bool:
        return not self.values and not self.patterns

    def allows(self, value: str) -> bool:
        """True when `value` is not a secret: listed, or matched whole by a pattern."""
        return value in self.values or any(p.fullmatch(value) for p in self.patterns)


def parse_allow_list(text: str) -> AllowList:
    values: set[str] = set()
    patterns: list[re.Pattern[str]] = []
    problems: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("re:"):
            try:
                patterns.append(re.compile(line[3:].strip()))
            except re.error as e:
                problems.append(f"line {number}: not a regular expression ({e})")
        else:
            values.add(line)
    return AllowList(frozenset(values), tuple(patterns), tuple(problems))


def load_allow_list(path: str | os.PathLike[str]) -> AllowList:
    """The allow-list file at `path`; an absent file allows nothing, an unreadable one says why."""
    try:
        return parse_allow_list(read_small_text(path))
    except FileNotFoundError:
        return AllowList()
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        return AllowList(problems=(f"{os.fspath(path)}: {reason}",))
