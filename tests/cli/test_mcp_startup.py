"""What `pi-sessions mcp` imports before it can list its tools (its start-up: docs/AGENTS.md):
the SDK's stdio low-level server without the package's client and high-level server, and the
tool list off the stored argument table, which must say what the subcommands' parsers say."""

from __future__ import annotations

import subprocess
import sys

from pi_sessions.app.subcommands.mcp_catalog import ARGUMENTS, current
from pi_sessions.app.subcommands.mcp_tools import specs


def imported_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code`."""
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(out.stdout.split())


def test_the_stored_tool_arguments_are_what_the_parsers_say() -> None:
    # (after a subcommand's options change: .venv/bin/python -m pi_sessions.app.subcommands.mcp_catalog)
    assert current() == ARGUMENTS
    assert specs(ARGUMENTS) == specs()


def test_the_server_imports_the_sdk_stdio_server_but_not_its_client_or_http_stack() -> None:
    loaded = imported_after("from pi_sessions.app.subcommands.mcp_sdk import load; load()")
    assert {"mcp.server.lowlevel.server", "mcp.server.stdio", "mcp.types"} <= loaded
    unused = {"mcp.client", "mcp.client.session", "mcp.server.mcpserver", "httpx2", "mcp.server.sse"}
    assert not unused & loaded, unused & loaded


def test_listing_the_tools_imports_no_subcommand() -> None:
    loaded = imported_after(
        "from pi_sessions.app.subcommands.mcp_catalog import ARGUMENTS\n"
        "from pi_sessions.app.subcommands.mcp_tools import specs\n"
        "assert specs(ARGUMENTS)"
    )
    prefix = "pi_sessions.app.subcommands."
    subcommands = {m for m in loaded if m.startswith(prefix) and not m.startswith(prefix + "mcp")}
    assert not subcommands, subcommands
