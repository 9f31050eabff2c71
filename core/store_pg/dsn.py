"""A connection string as it may be shown: the password gone from it and from any message about it."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

HIDDEN = "***"

# libpq's key=value form: `key = value`, a value bare or single-quoted with backslash escapes.
_PAIR = re.compile(r"(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s']*)")
_URI_SCHEMES = ("postgresql://", "postgres://")


def is_uri(dsn: str) -> bool:
    return dsn.strip().lower().startswith(_URI_SCHEMES)


def shown_dsn(dsn: str) -> str:
    """The DSN with every password replaced by `***` (URI userinfo, `password=` in its query
    or as a key=value pair); what stays says which server, database and user were meant."""
    if is_uri(dsn):
        return _shown_uri(dsn.strip())
    return _PAIR.sub(lambda m: f"{m[1]}={HIDDEN}" if m[1].lower() == "password" else m[0], dsn)


def _shown_uri(uri: str) -> str:
    try:
        parts = urlsplit(uri)
    except ValueError:
        return "(a connection URI that cannot be parsed)"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hosts = netloc.rpartition("@")
        if ":" in userinfo:
            userinfo = f"{userinfo.partition(':')[0]}:{HIDDEN}"
        netloc = f"{userinfo}@{hosts}"
    query = parts.query
    if query:
        pairs = [(k, HIDDEN if k.lower() == "password" else v) for k, v in parse_qsl(query, True)]
        query = urlencode(pairs, safe="/*:")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def passwords_in(dsn: str, env: Mapping[str, str] | None = None) -> list[str]:
    """Every password the DSN (or $PGPASSWORD) holds, as written and as libpq reads it."""
    found: list[str] = []
    if is_uri(dsn):
        try:
            parts = urlsplit(dsn.strip())
        except ValueError:
            parts = None
        if parts is not None:
            userinfo = parts.netloc.rpartition("@")[0]
            if ":" in userinfo:
                raw = userinfo.partition(":")[2]
                found += [raw, unquote(raw)]
            found += [v for k, v in parse_qsl(parts.query, True) if k.lower() == "password"]
    else:
        for key, value in _PAIR.findall(dsn):
            if key.lower() == "password":
                found.append(value)
                if value.startswith("'"):
                    found.append(re.sub(r"\\(.)", r"\1", value[1:-1]))
    secret = (os.environ if env is None else env).get("PGPASSWORD")
    if secret:
        found.append(secret)
    # Longest first: a password that holds another is hidden whole.
    return sorted({p for p in found if p}, key=len, reverse=True)


def scrub(message: str, dsn: str, env: Mapping[str, str] | None = None) -> str:
    """`message` (an error, a status line) with the DSN shown as `shown_dsn` and no password
    of it left anywhere, on one line."""
    out = message.replace(dsn, shown_dsn(dsn)) if dsn else message
    for secret in passwords_in(dsn, env):
        out = out.replace(secret, HIDDEN)
    return " ".join(out.split())
