"""JSON output that never fails on what a session may hold (lone surrogates, huge numbers)."""

from __future__ import annotations

import math
from typing import Any

import msgspec

_encoder = msgspec.json.Encoder()


def encode_json(value: Any) -> bytes:
    """Compact JSON bytes, as JSON.stringify writes them (non-finite numbers become null)."""
    try:
        return _encoder.encode(value)
    except (msgspec.EncodeError, UnicodeEncodeError, OverflowError, TypeError, ValueError):
        import json

        # ASCII escapes keep lone surrogates as \udXXXX, the way JSON.stringify writes them.
        return json.dumps(_js_safe(value), ensure_ascii=True, separators=(",", ":")).encode()


def encode_json_items(values: list[Any]) -> bytes:
    """The items of `values`, each as `encode_json` gives it, joined by commas (a JSON array
    without its brackets; empty for no items): one call for many small values."""
    try:
        return _encoder.encode(values)[1:-1]
    except (msgspec.EncodeError, UnicodeEncodeError, OverflowError, TypeError, ValueError):
        return b",".join(map(encode_json, values))


def _js_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_js_safe(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _js_safe(v) for k, v in value.items()}
    return value
