"""The model's context window, where it came from, and how full the context is (pi's gauge).

The window comes, in this order, from pi's `models.json` in the agent folder (a model the user
configured, or an override of a built-in one), from a small table of well-known models, or is
inferred from a compaction on the path: pi compacts when the context exceeds the window minus
`reserveTokens` (settings `compaction.reserveTokens`, default 16,384), so `tokensBefore +
reserveTokens` bounds the window from above. The gauge follows pi's footer: the percentage with
one decimal, "warning" above 70 %, "error" above 90 %.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum
from typing import Any

from ..common.jsvalues import is_finite_number, js_number, js_string
from ..common.locations import agent_dir as default_agent_dir
from ..common.smallfiles import read_small_text
from ..common.text import not_a_count
from ..reading.records import EntryRecord

DEFAULT_RESERVE_TOKENS = 16384  # pi's DEFAULT_COMPACTION_SETTINGS.reserveTokens
DEFAULT_MODEL_WINDOW = 128000  # pi's default contextWindow for a model models.json adds
WARNING_ABOVE = 70.0
ERROR_ABOVE = 90.0

# Context windows of well-known models (as pi 1.6.0's catalog lists them), by model id.
KNOWN_WINDOWS: dict[str, int] = {
    "claude-opus-4-5": 200_000,
    "claude-sonnet-4-5": 200_000,
    "claude-haiku-4-5": 200_000,
    "claude-opus-4-1": 200_000,
    "claude-opus-4": 200_000,
    "claude-sonnet-4": 200_000,
    "claude-3-7-sonnet": 200_000,
    "claude-3-5-sonnet": 200_000,
    "claude-3-5-haiku": 200_000,
    "gpt-5": 400_000,
    "gpt-5.1": 400_000,
    "gpt-5-mini": 400_000,
    "gpt-5-codex": 400_000,
    "gpt-5.1-codex": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4.1-mini": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "gemini-2.5-pro": 1_048_576,
    "gemini-2.5-flash": 1_048_576,
    "glm-4.6": 202_752,
}


class WindowSource(StrEnum):
    MODELS_JSON = "models.json"
    KNOWN_MODEL = "known model"
    COMPACTION = "compaction"  # an upper bound inferred from a threshold compaction


@dataclass(frozen=True, slots=True)
class ContextWindow:
    tokens: int
    source: WindowSource
    detail: str  # for people: the file, the table entry, or the compaction and its arithmetic

    @property
    def is_estimate(self) -> bool:
        return self.source is WindowSource.COMPACTION


class Level(StrEnum):
    """pi's footer colours for the context percentage."""

    NORMAL = "normal"
    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class ContextGauge:
    """How full the context is: pi's figure, the window when known, pi's percentage and level."""

    tokens: int | float
    window: ContextWindow | None
    unknown_in_footer: bool = False  # pi's footer shows "?" here (after a compaction, no reply yet)

    @property
    def percent(self) -> float | None:
        if self.window is None or self.window.tokens <= 0:
            return None
        return self.tokens / self.window.tokens * 100

    @property
    def level(self) -> Level:
        percent = self.percent
        if percent is None or self.unknown_in_footer:
            return Level.NORMAL
        if percent > ERROR_ABOVE:
            return Level.ERROR
        if percent > WARNING_ABOVE:
            return Level.WARNING
        return Level.NORMAL

    def percent_text(self) -> str:
        """pi's `percent.toFixed(1) + "%"`, "?" when unknown."""
        percent = self.percent
        if percent is None:
            return "?"
        return to_fixed(percent, 1) + "%"

    def to_json(self) -> dict[str, Any]:
        window = self.window
        return {
            "context_tokens": self.tokens,
            "context_window": window.tokens if window else None,
            "context_window_source": str(window.source) if window else None,
            "context_window_detail": window.detail if window else None,
            "context_percent": None if self.percent is None else float(to_fixed(self.percent, 1)),
            "context_level": str(self.level),
            "unknown_in_pi_footer": self.unknown_in_footer,
        }


def to_fixed(value: float, digits: int) -> str:
    """JavaScript's `Number.prototype.toFixed` (ties away from zero on the exact binary value)."""
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if abs(value) >= 1e21:
        return js_string(value)
    if value == 0:
        value = 0.0  # (-0).toFixed() has no sign
    return f"{Decimal(value).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP):f}"


def format_tokens(count: int | float) -> str:
    """pi's footer `formatTokens`: 999, 1.2k, 45k, 1.5M, 12M (inf and ? for what is no number)."""
    if (odd := not_a_count(count)) is not None:
        return odd
    if count < 1000:
        return js_string(count)
    if count < 10000:
        return to_fixed(count / 1000, 1) + "k"
    if count < 1_000_000:
        return f"{math.floor(count / 1000 + 0.5)}k"
    if count < 10_000_000:
        return to_fixed(count / 1_000_000, 1) + "M"
    return f"{math.floor(count / 1_000_000 + 0.5)}M"


# ---------------------------------------------------------------------------- pi's files
def strip_json_comments(text: str) -> str:
    """`//` and `/* */` comments outside strings removed (pi reads models.json that way)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
        elif ch == '"':
            in_string = True
            out.append(ch)
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


_file_cache: dict[str, tuple[tuple[int, int], Any]] = {}


def read_json_file(path: str, comments: bool = False) -> Any:
    """A JSON file's value (None when absent or unreadable), re-read only when it changed."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):  # (ValueError: a NUL in a cwd the session names)
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    cached = _file_cache.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        text = read_small_text(path).removeprefix("\ufeff")
        value = json.loads(strip_json_comments(text) if comments else text)
    except (OSError, ValueError, RecursionError):
        value = None
    _file_cache[path] = (stamp, value)
    return value


def _positive_int(value: Any) -> int | None:
    if is_finite_number(value) and js_number(value) > 0:
        return int(js_number(value))
    return None


def _model_ids(model: Mapping[str, Any] | None) -> tuple[str | None, str | None]:
    if not model:
        return None, None
    provider, model_id = model.get("provider"), model.get("modelId")
    return (
        provider if isinstance(provider, str) else None,
        model_id if isinstance(model_id, str) else None,
    )


def window_from_models_json(
    model: Mapping[str, Any] | None, agent: str | None = None
) -> ContextWindow | None:
    """The window models.json gives the model: a model it adds, or an override of a built-in."""
    provider, model_id = _model_ids(model)
    if provider is None or model_id is None:
        return None
    path = os.path.join(agent or default_agent_dir(), "models.json")
    config = read_json_file(path, comments=True)
    providers = config.get("providers") if isinstance(config, dict) else None
    entry = providers.get(provider) if isinstance(providers, dict) else None
    if not isinstance(entry, dict):
        return None
    models = entry.get("models")
    for item in models if isinstance(models, list) else ():
        if isinstance(item, dict) and item.get("id") == model_id:
            window = _positive_int(item.get("contextWindow"))
            if window is not None:
                return ContextWindow(window, WindowSource.MODELS_JSON, path)
            return ContextWindow(DEFAULT_MODEL_WINDOW, WindowSource.MODELS_JSON, f"{path} (pi's default)")
    overrides = entry.get("modelOverrides")
    override = overrides.get(model_id) if isinstance(overrides, dict) else None
    if isinstance(override, dict):
        window = _positive_int(override.get("contextWindow"))
        if window is not None:
            return ContextWindow(window, WindowSource.MODELS_JSON, f"{path} (override)")
    return None


def window_of_known_model(model: Mapping[str, Any] | None) -> ContextWindow | None:
    """The table's window for the model id, also behind a `vendor/` prefix or a date suffix."""
    _, model_id = _model_ids(model)
    if not model_id:
        return None
    name = model_id.rsplit("/", 1)[-1]
    for candidate in (model_id, name, name.replace(".", "-")):
        if candidate in KNOWN_WINDOWS:
            return ContextWindow(KNOWN_WINDOWS[candidate], WindowSource.KNOWN_MODEL, candidate)
    # claude-sonnet-4-5-20250929, gpt-4o-2024-08-06: the longest known id it starts with.
    best = max((k for k in KNOWN_WINDOWS if name.startswith(k + "-")), key=len, default=None)
    if best is not None:
        return ContextWindow(KNOWN_WINDOWS[best], WindowSource.KNOWN_MODEL, best)
    return None


def reserve_tokens(model: Mapping[str, Any] | None, agent: str | None = None, cwd: str | None = None) -> int:
    """pi's `compaction.reserveTokens` for the model: the per-model override, then the setting
    (the project's .pi/settings.json over the agent's settings.json), then 16,384."""
    merged: dict[str, Any] = {}
    paths = [os.path.join(agent or default_agent_dir(), "settings.json")]
    if cwd:
        paths.append(os.path.join(cwd, ".pi", "settings.json"))
    for path in paths:
        settings = read_json_file(path)
        compaction = settings.get("compaction") if isinstance(settings, dict) else None
        if isinstance(compaction, dict):
            overrides = {**merged.get("modelOverrides", {})}
            if isinstance(compaction.get("modelOverrides"), dict):
                overrides.update(compaction["modelOverrides"])
            merged = {**merged, **compaction, "modelOverrides": overrides}
    provider, model_id = _model_ids(model)
    override = (
        merged.get("modelOverrides", {}).get(f"{provider}/{model_id}") if provider and model_id else None
    )
    for source in (override, merged):
        value = source.get("reserveTokens") if isinstance(source, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53:
            return value
    return DEFAULT_RESERVE_TOKENS


def window_from_compactions(compactions: Iterable[EntryRecord], reserve: int) -> ContextWindow | None:
    """`tokensBefore + reserveTokens` of the compaction that came nearest the window (the
    largest tokensBefore): pi compacted there because the context passed window - reserve."""
    best: EntryRecord | None = None
    for record in compactions:
        if record.type != "compaction" or _positive_int(record.tokensBefore) is None:
            continue
        if best is None or js_number(record.tokensBefore) > js_number(best.tokensBefore):
            best = record
    if best is None:
        return None
    before = int(js_number(best.tokensBefore))
    return ContextWindow(
        before + reserve,
        WindowSource.COMPACTION,
        f"at most {before:,} + {reserve:,}: compaction {best.id} (tokensBefore + reserveTokens)",
    )


def context_window(
    model: Mapping[str, Any] | None,
    path: Iterable[EntryRecord] = (),
    *,
    agent: str | None = None,
    cwd: str | None = None,
) -> ContextWindow | None:
    """The window for `model` (a projection's `{provider, modelId}`), None when nothing tells.

    `path` (the entries to the leaf) lets a compaction on it bound the window when neither
    models.json nor the table knows the model."""
    found = window_from_models_json(model, agent) or window_of_known_model(model)
    if found is not None:
        return found
    compactions = [r for r in path if r.type == "compaction"]
    if not compactions:
        return None
    return window_from_compactions(compactions, reserve_tokens(model, agent, cwd))
