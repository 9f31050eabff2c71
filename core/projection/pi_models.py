"""Whether pi 1.6.0 can find a session's model on resume: its built-in catalog (pi_models.txt,
listed from pi 1.6.0's own ModelRuntime), the models the user's models.json adds and the
catalogs pi saved in models-store.json. pi itself is never run."""

from __future__ import annotations

import functools
import os
from typing import Any

from ..common.locations import agent_dir as default_agent_dir
from ..common.smallfiles import read_small_text
from .window import read_json_file

CATALOG_FILE = os.path.join(os.path.dirname(__file__), "pi_models.txt")


@functools.cache
def builtin_models() -> frozenset[str]:
    """`provider/id` of every chat model pi 1.6.0 ships (what `getModel` finds offline)."""
    text = read_small_text(CATALOG_FILE)
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def user_models(agent: str | None = None) -> frozenset[str]:
    """`provider/id` the agent folder adds: models.json's `providers.P.models[].id`, and the
    provider catalogs pi downloaded into models-store.json (`P.models[].id`)."""
    folder = agent or default_agent_dir()
    found: set[str] = set()
    config = read_json_file(os.path.join(folder, "models.json"), comments=True)
    providers = config.get("providers") if isinstance(config, dict) else None
    for provider, entry in providers.items() if isinstance(providers, dict) else ():
        found.update(_ids(provider, entry))
    store = read_json_file(os.path.join(folder, "models-store.json"))
    for provider, entry in store.items() if isinstance(store, dict) else ():
        found.update(_ids(provider, entry))
    return frozenset(found)


def _ids(provider: Any, entry: Any) -> list[str]:
    models = entry.get("models") if isinstance(entry, dict) else None
    items = models if isinstance(models, list) else []
    return [f"{provider}/{i['id']}" for i in items if isinstance(i, dict) and isinstance(i.get("id"), str)]


def knows_model(provider: str, model_id: str, agent: str | None = None) -> bool:
    """Whether pi 1.6.0's `modelRuntime.getModel(provider, modelId)` would find it here."""
    key = f"{provider}/{model_id}"
    return key in builtin_models() or key in user_models(agent)
