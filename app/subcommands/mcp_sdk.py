"""The parts of the official MCP SDK that `pi-sessions mcp` runs on (its low-level server, its
stdio transport, its wire types), imported without the SDK's package-level re-exports.

Why: `import mcp.server.lowlevel` first runs `mcp/__init__.py`, which imports the SDK's client
(`mcp.client`, with httpx2 and its auth), and `mcp/server/__init__.py`, which imports the
high-level `MCPServer` (resources, templates, uvicorn, starlette apps): about a fifth of the
SDK's import time (docs/AGENTS.md, "Start-up"), none of it used by a stdio server. Python runs a
package's `__init__` before any submodule, so the two packages are entered into `sys.modules` as
their bare package objects (their `__path__` set, their `__init__` not run) and only then are the
submodules imported: the SDK's own code, unchanged, less of it.

Only when neither package is imported yet (the server's own process); otherwise, and if the
bare way fails at all, the ordinary import.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType

# What the stdio low-level server uses; each imports its own dependencies as the SDK wrote them.
NEEDED = ("mcp.server.lowlevel.server", "mcp.server.stdio", "mcp.types")
BARE = ("mcp", "mcp.server")  # the packages whose `__init__` is skipped


def _enter_bare() -> None:
    for name in BARE:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.submodule_search_locations is None:
            raise ImportError(name)
        package = importlib.util.module_from_spec(spec)  # (__path__ set; nothing run)
        sys.modules[name] = package
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, package)


def load() -> tuple[ModuleType, ...]:
    """The NEEDED modules, in that order (ImportError when the SDK is not installed)."""
    if not any(name in sys.modules for name in BARE):
        try:
            _enter_bare()
            return tuple(importlib.import_module(name) for name in NEEDED)
        except Exception:  # (an SDK laid out otherwise: start again the ordinary way)
            for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")]:
                del sys.modules[name]
    return tuple(importlib.import_module(name) for name in NEEDED)
