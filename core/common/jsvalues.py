"""JavaScript value semantics that pi's reading code relies on.

pi is written in TypeScript and reads session files with `JSON.parse`; a few of its rules
depend on how JavaScript treats values (truthiness, `new Date(x).getTime()`,
`Array.prototype.join`, `toISOString`). These helpers reproduce exactly those rules so the
rest of the core can state pi's behaviour plainly.
"""

from __future__ import annotations

import math
import re
import time
from typing import Any

# ECMAScript's date-time string format (with the extended six-digit years), which V8 parses
# before falling back to its legacy heuristics.
_ISO_RE = re.compile(
    r"^(?P<year>[+-]\d{6}|\d{4})"
    r"(?:-(?P<month>\d{2})(?:-(?P<day>\d{2}))?)?"
    r"(?:T(?P<hour>\d{2}):(?P<minute>\d{2})(?::(?P<second>\d{2})(?:\.(?P<frac>\d+))?)?"
    r"(?P<tz>Z|[+-]\d{2}:\d{2})?)?$"
)

# What toISOString writes (and so what pi writes): a date read back the general way gives the same.
_PI_ISO_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})\.([0-9]{3})Z")

_MAX_TIME_MS = 8.64e15
_YEAR_10000_MS = 253402300800000  # 10000-01-01: below it and from 1970, gmtime and %Y write the year


# JavaScript's String.prototype.trim() whitespace (differs from str.strip() at the edges).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    return text.strip(JS_WHITESPACE)


def js_number(value: int | float) -> float:
    """A JSON number as JavaScript holds it: a double, so 1e400 (or a 400-digit integer) is
    Infinity instead of Python's OverflowError."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def json_number(value: float) -> float | int:
    """A whole number written without a fraction, as JSON.stringify writes it (`7394`, not `7394.0`)."""
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def is_finite_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(js_number(value))


def js_truthy(value: Any) -> bool:
    """`Boolean(value)` in JavaScript."""
    if value is None or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def date_ms(value: Any) -> float | None:
    """`new Date(value).getTime()`, or None where JavaScript gives NaN.

    Strings in ECMAScript's ISO format are parsed exactly (a date-time without an offset is
    local time, a date alone is UTC); numbers are taken as milliseconds; `null` is 0.
    """
    if value.__class__ is str and len(value) == 24 and (m := _PI_ISO_RE.fullmatch(value)):
        # pi's own form (a header, an entry), parsed at once
        year, month, day, hour, minute, second, millis = map(int, m.groups())
        if 1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute <= 59 and second <= 59:
            days = _days_from_civil(year, month, 1) + day - 1
            return float(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis)
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        ms = js_number(value)
        if math.isnan(ms) or abs(ms) > _MAX_TIME_MS:
            return None
        return float(math.trunc(ms))
    if not isinstance(value, str):
        return None
    m = _ISO_RE.match(value.strip())
    if not m:
        return None
    year_text = m.group("year")
    if year_text == "-000000":
        return None
    year = int(year_text)
    month = int(m.group("month") or 1)
    day = int(m.group("day") or 1)
    hour = int(m.group("hour") or 0)
    minute = int(m.group("minute") or 0)
    second = int(m.group("second") or 0)
    frac = m.group("frac") or ""
    millis = int((frac + "000")[:3]) if frac else 0
    if not (1 <= month <= 12) or not (1 <= day <= 31) or hour > 24 or minute > 59 or second > 59:
        return None
    if hour == 24 and (minute or second or millis):
        return None
    # V8 takes any day up to 31 in any month and rolls over: 2023-02-30 is 2023-03-02.
    days = _days_from_civil(year, month, 1) + day - 1
    ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    tz = m.group("tz")
    if tz is None and m.group("hour") is not None:
        # A date-time without an offset is local time in JavaScript.
        ms -= _local_offset_ms(ms)
    elif tz and tz != "Z":
        sign = 1 if tz[0] == "+" else -1
        ms -= sign * (int(tz[1:3]) * 60 + int(tz[4:6])) * 60_000
    if abs(ms) > _MAX_TIME_MS:
        return None
    return float(ms)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 for a proleptic Gregorian date."""
    y = year - (month <= 2)
    era = y // 400  # floor division: no correction for negative years
    yoe = y - era * 400
    mp = (month + 9) % 12
    doy = (153 * mp + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _local_offset_ms(utc_guess_ms: int) -> int:
    try:
        local = time.localtime(utc_guess_ms / 1000)
    except (OverflowError, OSError, ValueError):
        return 0
    return int(local.tm_gmtoff or 0) * 1000


def iso_from_ms(ms: float | None) -> str | None:
    """`new Date(ms).toISOString()`; None for an invalid date (JSON.stringify gives null)."""
    if ms is None or math.isnan(ms) or abs(ms) > _MAX_TIME_MS:
        return None
    return _iso_extended(int(ms))


def _iso_extended(ms: int) -> str:
    if 0 <= ms < _YEAR_10000_MS:  # (at C speed: half the time; a listing writes two per session)
        seconds, milli = divmod(ms, 1000)
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{milli:03d}Z"
    days, rem = divmod(ms, 86_400_000)
    # civil_from_days
    z = days + 719468
    era = z // 146097  # (floor division: no correction for negative days)
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    y += m <= 2
    year = f"{y:04d}" if 0 <= y <= 9999 else (f"+{y:06d}" if y > 0 else f"-{-y:06d}")
    h, rem = divmod(rem, 3_600_000)
    mi, rem = divmod(rem, 60_000)
    s, milli = divmod(rem, 1000)
    return f"{year}-{m:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}.{milli:03d}Z"


def js_string(value: Any) -> str:
    """`String(value)` for the values `Array.prototype.join` meets (null/undefined give "")."""
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return _js_number_string(value)
    if isinstance(value, list):
        return ",".join(js_string(v) for v in value)
    return "[object Object]"


class NotAnArray(TypeError):
    """The content is neither a string nor an array (pi's text extraction throws)."""


def text_of_blocks(content: Any, separator: str) -> str:
    """Text of a message content the way pi extracts it.

    A string is itself; an array gives the `text` of its `type: "text"` blocks joined with
    `separator`. Anything else makes pi throw: raises `NotAnArray` (or `TypeError` for a
    null block) so callers can decide what pi's exception means for them.
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise NotAnArray(f"content is {type(content).__name__}, not a string or an array")
    parts: list[str] = []
    for block in content:
        if block is None:
            raise TypeError("null content block")
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(js_string(block.get("text")))
    return separator.join(parts)


def _js_number_string(value: float) -> str:
    """ECMAScript's Number::toString for a finite number: the shortest digits (Python's repr
    finds the same ones), laid out as JavaScript does (1e21 and 1e-7 in exponent form)."""
    if value == 0:
        return "0"
    text = repr(abs(value))
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    # The value is 0.DIGITS times 10**point.
    point = len(whole) + int(exponent or 0) - (len(whole + fraction) - len(digits))
    digits = digits.rstrip("0")
    sign = "-" if value < 0 else ""
    k = len(digits)
    if k <= point <= 21:
        return sign + digits + "0" * (point - k)
    if 0 < point <= 21:
        return sign + digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return sign + "0." + "0" * -point + digits
    e = point - 1
    shown = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{shown}e{'+' if e > 0 else '-'}{abs(e)}"


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _surrogate_pair(match: re.Match[str]) -> str:
    offset = ord(match.group()) - 0x10000
    return chr(0xD800 + (offset >> 10)) + chr(0xDC00 + (offset & 0x3FF))


def utf16_units(text: str) -> str:
    """Astral characters as surrogate pairs, so indices and lengths are JavaScript's."""
    if not _ASTRAL.search(text):
        return text
    return _ASTRAL.sub(_surrogate_pair, text)
