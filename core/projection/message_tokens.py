"""pi's estimate of one message's tokens (`estimateTokens`) and of an assistant reply's usage.

The rules of pi 1.6.0's compaction.js, on messages as pi's projection holds them: characters / 4,
rounded up, counted by role; JavaScript string lengths (UTF-16 code units); an image 4,800
characters; tool arguments and tool lists as long as `JSON.stringify` writes them. Where a
hand-broken message would make pi throw or produce NaN, the broken part counts 0 here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from ..common.jsvalues import js_number, js_string, js_trim, js_truthy, text_of_blocks

IMAGE_CHARS = 4800  # pi's ESTIMATED_IMAGE_CHARS
MISSING: Any = object()  # a key absent from the JSON object (JavaScript's undefined)


# ---------------------------------------------------------------------------- JavaScript lengths
def js_length(text: str) -> int:
    """`text.length` in JavaScript: UTF-16 code units (an emoji counts 2)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) >> 1


def _length(value: Any) -> int:
    """`value.length` where pi reads it; what would be NaN or throw in pi counts 0 here."""
    if isinstance(value, str):
        return js_length(value)
    if isinstance(value, list):
        return len(value)
    return 0


_ESCAPED_SHORT = ('"', "\\", "\n", "\r", "\t", "\b", "\f")


def _json_string_length(text: str) -> int:
    n = js_length(text) + 2
    for ch in _ESCAPED_SHORT:
        n += text.count(ch)
    if not text.isprintable():
        # Other C0 controls become \u00XX; lone surrogates become \udXXX (JSON.stringify is
        # well-formed since ES2019). Paired surrogates cannot occur in a Python str.
        for ch in text:
            code = ord(ch)
            if (code < 0x20 and ch not in _ESCAPED_SHORT) or 0xD800 <= code <= 0xDFFF:
                n += 5
    return n


def _js_number_text_length(value: int | float) -> int:
    if isinstance(value, int) and -(2**53) < value < 2**53:
        return len(str(value))
    number = js_number(value)
    if not math.isfinite(number):
        return 4  # null
    return len(js_string(number))


def json_length(value: Any) -> int:
    """`JSON.stringify(value).length` for a value parsed from JSON (0 for undefined)."""
    if value is MISSING:
        return 0
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if isinstance(value, str):
        return _json_string_length(value)
    if isinstance(value, int | float):
        return _js_number_text_length(value)
    if isinstance(value, list):
        return 2 + max(len(value) - 1, 0) + sum(json_length(v) for v in value)
    if isinstance(value, dict):
        if not value:
            return 2
        return 1 + sum(_json_string_length(str(k)) + 2 + json_length(v) for k, v in value.items())
    return 4


# ---------------------------------------------------------------------------- pi's estimateTokens
def _content_chars(content: Any) -> int:
    """pi's estimateTextAndImageContentChars."""
    if isinstance(content, str):
        return js_length(content)
    if not isinstance(content, list):
        return 0  # pi throws: not iterable
    chars = 0
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            if js_truthy(text):
                chars += _length(text)
        elif kind == "image":
            chars += IMAGE_CHARS
    return chars


def _assistant_chars(content: Any) -> int:
    if not isinstance(content, list):
        return 0  # a string iterates characters, none with a type; anything else throws
    chars = 0
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            chars += _length(block.get("text"))
        elif kind == "thinking":
            chars += _length(block.get("thinking"))
        elif kind == "toolCall":
            chars += _length(block.get("name")) + json_length(block.get("arguments", MISSING))
    return chars


def _object_values(value: Any) -> list[Any]:
    """`Object.values(value)` for a parsed JSON value."""
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return list(value)
    return []


def _system_chars(message: dict[str, Any]) -> int:
    chars = _content_chars(message.get("content"))
    sections = message.get("sections")
    if js_truthy(sections):
        if isinstance(sections, str):
            chars += js_length(sections)  # one-character strings, each of length 1
        else:
            for section in _object_values(sections):
                if js_truthy(section):
                    chars += _length(section)
    tools = message.get("toolsAdded", MISSING)
    if tools is not MISSING and js_truthy(tools):
        chars += json_length(tools)
    return chars


def _ceil_quarter(chars: int) -> int:
    return -(-chars // 4)


def estimate_message_tokens(message: Any) -> int:
    """pi's `estimateTokens(message)`: ceil(characters / 4) by role (0 for unknown roles).

    Where pi would throw or produce NaN (a hand-broken message) the broken part counts 0."""
    if not isinstance(message, dict):
        return 0
    role = message.get("role")
    if role == "system":
        chars = _system_chars(message)
    elif role in ("user", "custom", "toolResult"):
        chars = _content_chars(message.get("content"))
    elif role == "assistant":
        chars = _assistant_chars(message.get("content"))
    elif role == "bashExecution":
        chars = _length(message.get("command")) + _length(message.get("output"))
    elif role in ("branchSummary", "compactionSummary"):
        chars = _length(message.get("summary"))
    else:
        return 0
    return _ceil_quarter(chars)


# ---------------------------------------------------------------------------- usage
# A reported size is a JavaScript value: a number, or text when a hand-edited usage holds
# strings (pi then concatenates: "12" + 30 is "1230").
JsSize = float | str

_DECIMAL_RE = re.compile(r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_RADIX_RE = re.compile(r"0([xXoObB])([0-9a-fA-F]+)")


def _to_primitive(value: Any) -> Any:
    """ToPrimitive for parsed JSON: arrays join, objects are "[object Object]"."""
    return js_string(value) if isinstance(value, list | dict) else value


def js_to_number(value: Any) -> float:
    """JavaScript's `Number(value)` for parsed JSON values (MISSING is undefined)."""
    value = _to_primitive(value)
    if value is MISSING:
        return math.nan
    if value is None or value is False:
        return 0.0
    if value is True:
        return 1.0
    if isinstance(value, int | float):
        return js_number(value)
    text = js_trim(value)
    if not text:
        return 0.0
    radix = _RADIX_RE.fullmatch(text)
    if radix:
        base = {"x": 16, "o": 8, "b": 2}[radix.group(1).lower()]
        try:
            return float(int(radix.group(2), base))
        except ValueError:
            return math.nan
    if _DECIMAL_RE.fullmatch(text):
        return float(text.replace("Infinity", "inf"))
    return math.nan


def _js_text(value: Any) -> str:
    if value is MISSING:
        return "undefined"
    if value is None:
        return "null"
    return js_string(value)


def js_add(left: Any, right: Any) -> JsSize:
    """JavaScript's `left + right` for parsed JSON values: text if either side is text."""
    a, b = _to_primitive(left), _to_primitive(right)
    if isinstance(a, str) or isinstance(b, str):
        return _js_text(a) + _js_text(b)
    return js_to_number(a) + js_to_number(b)


def calculate_context_tokens(usage: Any) -> JsSize | None:
    """pi's `calculateContextTokens`: `totalTokens || input + output + cacheRead + cacheWrite`."""
    if not isinstance(usage, dict):
        return None  # every field undefined: NaN
    total = usage.get("totalTokens", MISSING)
    if total is not MISSING and js_truthy(total):
        value = _to_primitive(total)
        return value if isinstance(value, str) else js_to_number(value)
    parts = [usage.get(key, MISSING) for key in ("input", "output", "cacheRead", "cacheWrite")]
    value = js_add(parts[0], parts[1])
    for part in parts[2:]:
        value = js_add(value, part)
    return value


def usage_context_tokens(message: Any) -> JsSize | None:
    """The context size an assistant reply reports (pi's `getAssistantUsage`): None for other
    messages, aborted or error replies, and usage that sums to nothing."""
    if not isinstance(message, dict) or message.get("role") != "assistant" or "usage" not in message:
        return None
    if message.get("stopReason") in ("aborted", "error"):
        return None
    usage = message["usage"]
    if not js_truthy(usage):
        return None
    value = calculate_context_tokens(usage)
    if value is None or not js_to_number(value) > 0:
        return None
    return value


# ---------------------------------------------------------------------------- the system prompt
def _tool_key(tool: Any) -> Any:
    """A JavaScript Map key for `tool.name` (SameValueZero: 1 and "1" differ)."""
    name = tool.get("name", MISSING) if isinstance(tool, dict) else MISSING
    if name is MISSING:
        return ("undefined",)
    if isinstance(name, bool) or name is None:
        return ("literal", name)
    if isinstance(name, int | float):
        return ("number", js_number(name))
    if isinstance(name, str):
        return ("string", name)
    return ("object", id(name))


def _entries_of(value: Any) -> list[tuple[str, Any]]:
    """`Object.entries(value ?? {})` for a parsed JSON value."""
    if isinstance(value, dict):
        return [(str(k), v) for k, v in value.items()]
    if isinstance(value, list):
        return [(str(i), v) for i, v in enumerate(value)]
    if isinstance(value, str):
        return [(str(i), c) for i, c in enumerate(value)]
    return []


def _iterated(value: Any) -> list[Any]:
    """`for (x of value ?? [])` on parsed JSON: an array's items, a string's characters
    (pi throws on anything else)."""
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        return list(value)
    return []


def current_system_tokens(messages: Iterable[Any]) -> int:
    """`estimateTokens(getCurrentSystemMessage(messages))` (pi-ai's replay: content appended,
    sections patched by name, tools removed then added), 0 when there is none."""
    content: list[str] = []
    sections: dict[str, Any] = {}
    tools: dict[Any, Any] = {}
    timestamp: Any = MISSING
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "system":
            continue
        if timestamp is MISSING or timestamp is None:
            timestamp = message.get("timestamp", MISSING)
        body = message.get("content")
        try:
            text = text_of_blocks(body, "\n")
        except TypeError:
            text = ""
        if text:
            content.append(text)
        for name, value in _entries_of(message.get("sections")):
            if value is None:
                sections.pop(name, None)
            else:
                sections[name] = value
        for tool in _iterated(message.get("toolsRemoved")):
            tools.pop(_tool_key(tool), None)
        for tool in _iterated(message.get("toolsAdded")):
            tools[_tool_key(tool)] = tool
    if timestamp is MISSING and not tools:
        return 0
    current: dict[str, Any] = {"role": "system", "content": "\n\n".join(content)}
    if sections:
        current["sections"] = sections
    if tools:
        current["toolsAdded"] = list(tools.values())
    return estimate_message_tokens(current)
