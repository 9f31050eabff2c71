"""The rules that tell a credential-shaped string, each with the reason it is one, and the
search of a text for them (`find_secrets`).

Plain regular expressions, not Yelp's detect-secrets (docs/SECRETS.md says why): every rule
names a shape a provider documents (a fixed prefix, a length, a structure) or a value that a
keyword names a credential and that looks random. A `Secret` holds the value in full; it never
leaves core/audit: what is shown is a `preview`.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = ["KINDS", "RULES", "Rule", "Secret", "find_secrets", "preview"]


@dataclass(frozen=True, slots=True)
class Secret:
    """One credential-shaped value in a text: [start, end) is where the value is."""

    kind: str
    start: int
    end: int
    value: str


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    pattern: re.Pattern[str]
    reason: str
    group: int = 0  # the group that is the value (0: the whole match)
    check: Callable[[str], bool] | None = None  # a value that fails it is not a secret


# ---------------------------------------------------------------------- checks
def shannon_bits(value: str) -> float:
    """Bits per character of the value's own character frequencies."""
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


_HEX = re.compile(r"[0-9a-fA-F]+")
_IDENTIFIER_PATH = re.compile(r"[A-Za-z_$][\w$]*(?:[.-][A-Za-z_$][\w$]*)+|[A-Z][A-Z0-9_]*_[A-Z0-9_]*")
_FILE_PATH = re.compile(r"[\w.~-]*(?:/[\w.~-]+)+")
_VERSIONISH = re.compile(r"[\d.:_-]+[a-z]?")


def looks_random(value: str) -> bool:
    """A value a keyword names (api_key=..., token: ...) counts when it looks generated: letters
    and digits mixed, many different characters, and not a name (a dotted or SHOUTED identifier,
    a path, a number or date)."""
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        return False
    if _IDENTIFIER_PATH.fullmatch(value) or _VERSIONISH.fullmatch(value):
        return False
    if "/" in value and _FILE_PATH.fullmatch(value) and re.search(r"\.[A-Za-z]{1,5}$|/[a-z]+/", value):
        return False
    if _HEX.fullmatch(value):  # hex digests have 16 symbols at most: 4 bits is their ceiling
        return len(value) >= 20 and shannon_bits(value) >= 3.0
    return shannon_bits(value) >= 3.5


def _jwt_header(value: str) -> bool:
    """A JWT's first part is base64url JSON naming its algorithm (RFC 7519)."""
    head = value.split(".", 1)[0]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError):
        return False
    return isinstance(decoded, dict) and "alg" in decoded


_PLACEHOLDER = re.compile(
    r"(?i)\$\{?\w*\}?|%\(?\w*\)?s?|<[^>]*>|\{[^}]*\}|\*+|x+|\.+|"
    r"pass(?:word|wd)?|pwd|secret|changeme|redacted|example|dummy|test|user|\w*pass\w*"
)


def _real_password(value: str) -> bool:
    """A URL password that is a placeholder ($PASSWORD, <pass>, {password}, ***, password) is
    documentation, not a credential."""
    return not _PLACEHOLDER.fullmatch(value)


# ---------------------------------------------------------------------- the rules
# Every pattern is (?a): ASCII case and classes, as the raw-byte anchors of scan.py see them.
_KEYWORDS = (
    r"api[_-]?key|api[_-]?secret|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|"
    r"client[_-]?secret|secret[_-]?key|private[_-]?key|secret|token|passw(?:or)?d|passwd|pwd|"
    r"credentials?"
)
_VALUE = r"[A-Za-z0-9+/_.~=-]"
# The keyword, the rest of its name (API_TOKEN_PROD), an optional closing quote, the separator.
_ASSIGNMENT = r"(?:" + _KEYWORDS + r")[A-Za-z0-9_.-]*Q?[ \t]*(?:[:=]|:=|=>)[ \t]*Q?"

RULES: tuple[Rule, ...] = (
    Rule(
        "aws-access-key-id",
        re.compile(r"(?a)(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])"),
        "AWS's access key id: a fixed four-letter prefix (AKIA long-term, ASIA temporary) and 16"
        " base32 characters",
    ),
    Rule(
        "aws-secret-access-key",
        re.compile(
            r"(?a)(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?[ \t]*(?:[:=]|=>)[ \t]*[\"']?"
            r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        "AWS's secret access key: 40 base64 characters named by aws_secret_access_key or"
        " SecretAccessKey (the AWS CLI's own names)",
        group=1,
    ),
    Rule(
        "github-token",
        re.compile(
            r"(?a)(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{70,251})(?![A-Za-z0-9_])"
        ),
        "GitHub's tokens carry their type in a prefix: ghp_ (personal), gho_ (OAuth), ghu_/ghs_"
        " (app user/server), ghr_ (refresh), github_pat_ (fine-grained)",
    ),
    Rule(
        "slack-token",
        re.compile(r"(?a)(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9-])"),
        "Slack's tokens start xoxb- (bot), xoxp- (user), xoxa-/xoxr-/xoxs-/xoxo- (app, refresh...)",
    ),
    Rule(
        "slack-webhook",
        re.compile(
            r"(?a)https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9]{8,}/[A-Za-z0-9]{8,}/[A-Za-z0-9]{16,}"
        ),
        "a Slack incoming webhook URL posts to its channel without any other credential",
    ),
    Rule(
        "stripe-key",
        re.compile(r"(?a)(?<![A-Za-z0-9])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}(?![A-Za-z0-9])"),
        "Stripe's secret (sk_) and restricted (rk_) keys; publishable pk_ keys are public by design",
    ),
    Rule(
        "openai-key",
        re.compile(
            r"(?a)(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}"
        ),
        "OpenAI's API keys hold T3BlbkFJ, the base64 of 'OpenAI', in the middle",
    ),
    Rule(
        "anthropic-key",
        re.compile(r"(?a)(?<![A-Za-z0-9_-])sk-ant-(?:api|admin|oat)\d{2}-[A-Za-z0-9_-]{80,}"),
        "Anthropic's API keys start sk-ant-api03- (admin and OAuth ones sk-ant-admin01-, sk-ant-oat01-)",
    ),
    Rule(
        "google-api-key",
        re.compile(r"(?a)(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
        "Google's API keys: AIza and 35 more characters",
    ),
    Rule(
        "private-key",
        re.compile(r"(?a)-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        "a PEM or OpenSSH private key block (its BEGIN line, at least 64 characters of key, up"
        " to its END line)",
    ),
    Rule(
        "url-password",
        re.compile(
            r"(?a)(?i)(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{1,30}://[^\s/?#@:\"'\\<>]{1,128}:([^\s/?#@\"'\\<>]{1,128})@[^\s@/\"'\\<>]"
        ),
        "the password of a URL's user information (scheme://user:password@host); placeholders"
        " such as $PASSWORD, <password> or *** are not counted",
        group=1,
        check=_real_password,
    ),
    Rule(
        "jwt",
        re.compile(
            r"(?a)(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}(?![A-Za-z0-9_-])"
        ),
        "a signed JSON Web Token: base64url JSON header naming its alg, a payload, a signature",
        check=_jwt_header,
    ),
    Rule(
        "bearer-token",
        re.compile(
            r"(?a)(?i)(?<![a-z])(?:bearer|token)[ \t]+([A-Za-z0-9._~+/-]{20,}=*)(?![A-Za-z0-9._~+/=-])"
        ),
        "an HTTP Authorization credential (Bearer / token scheme) that looks generated",
        group=1,
        check=looks_random,
    ),
    Rule(
        "keyword-secret",
        re.compile(
            r"(?a)(?i)(?<![a-z])"
            + _ASSIGNMENT.replace("Q", "[\"']")
            + "("
            + _VALUE
            + r"{16,512})(?!"
            + _VALUE
            + ")"
        ),
        "a value named by a keyword (api_key=, token:, secret, password...) that looks"
        " generated: letters and digits mixed and many different characters",
        group=1,
        check=looks_random,
    ),
)
KINDS: tuple[str, ...] = tuple(r.kind for r in RULES)
_RULE = {r.kind: r for r in RULES}

# Which texts may hold a secret at all: one pass that every rule's match implies.
_ANCHORS = re.compile(
    r"AKIA|ASIA|ABIA|ACCA|gh[pousr]_|github_pat_|xox[abposr]-|hooks\.slack|_live_|_test_|sk-|AIza|"
    r"-----BEGIN|://|eyJ|(?i:bearer|token|secret|key|passw|pwd|credential)"
)
_KEY_BASE64 = re.compile(r"[A-Za-z0-9+/]")
_KEY_END = re.compile(r"-----END [A-Z0-9 ]*-----")
_KEY_BODY = re.compile(r"(?:[A-Za-z0-9+/=:,. \t\r\n-]|\\[nr])*")
_KEY_SPAN = 1 << 14  # an RSA-4096 PEM is about 3.3 KB


def _private_keys(text: str) -> Iterator[Secret]:
    for match in _RULE["private-key"].pattern.finditer(text):
        end_marker = _KEY_END.search(text, match.end(), match.end() + _KEY_SPAN)
        if end_marker is not None:
            body = text[match.end() : end_marker.start()]
            end = end_marker.end()
        else:  # cut off (a partial cat, an output's limit): the key's characters that follow
            run = _KEY_BODY.match(text, match.end(), match.end() + _KEY_SPAN)
            end = run.end() if run else match.end()
            body = text[match.end() : end]
            end -= len(body) - len(body.rstrip(" \t\r\n\\"))
        if len(_KEY_BASE64.findall(body)) >= 64:
            yield Secret("private-key", match.start(), end, text[match.start() : end])


def find_secrets(text: str, allowed: Callable[[str], bool] | None = None) -> list[Secret]:
    """Every secret in `text`, in order, none overlapping another (a longer or earlier one
    wins: a JWT named by `token=` is a jwt). `allowed(value)` true: not a secret."""
    if not _ANCHORS.search(text):
        return []
    found: list[Secret] = []
    for rule in RULES:
        if rule.kind == "private-key":
            found.extend(_private_keys(text))
            continue
        for match in rule.pattern.finditer(text):
            value = match.group(rule.group)
            if rule.check is not None and not rule.check(value):
                continue
            found.append(Secret(rule.kind, match.start(rule.group), match.end(rule.group), value))
    if allowed is not None:
        found = [s for s in found if not allowed(s.value)]
    return _without_overlaps(found)


def _without_overlaps(found: list[Secret]) -> list[Secret]:
    # The rules are ordered from the most specific; a later rule's match inside an earlier
    # one's is the same secret seen less precisely.
    rank = {kind: i for i, kind in enumerate(KINDS)}
    kept: list[Secret] = []
    for secret in sorted(found, key=lambda s: (rank[s.kind], s.start)):
        if all(secret.end <= k.start or secret.start >= k.end for k in kept):
            kept.append(secret)
    kept.sort(key=lambda s: s.start)
    return kept


def preview(value: str) -> str:
    """What may be shown of a secret: its first and last two characters and its length
    (`gh…9f (40 chars)`); a value under 8 characters shows none of them."""
    n = len(value)
    if n < 8:
        return f"… ({n} chars)"
    return f"{value[:2]}…{value[-2:]} ({n} chars)"


def reasons() -> list[tuple[str, str]]:
    """(kind, why it counts) for every rule, in order."""
    return [(r.kind, r.reason) for r in RULES]
