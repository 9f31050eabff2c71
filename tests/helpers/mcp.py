"""Driving `pi-sessions mcp` as an agent's client does: the SDK's own stdio client and session
against the installed command, with this test's XDG folders."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

COMMAND = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "pi-sessions"
DEADLINE = 120.0  # only a hang reaches this


def with_server(use: Callable[[ClientSession], Awaitable[Any]], flags: Sequence[str] = ()) -> Any:
    """`use(session)` against one `pi-sessions mcp FLAGS` process."""
    env = {k: v for k, v in os.environ.items() if k.startswith("XDG_")}

    async def main() -> Any:
        params = StdioServerParameters(command=str(COMMAND), args=["mcp", *flags], env=env)
        with anyio.fail_after(DEADLINE):
            async with stdio_client(params) as (read, write_), ClientSession(read, write_) as session:
                await session.initialize()
                return await use(session)

    return anyio.run(main)


def calls(*wanted: tuple[str, dict[str, Any]], flags: Sequence[str] = ()) -> list[Any]:
    """The results of these tool calls, in order, from one server."""

    async def use(session: ClientSession) -> list[Any]:
        return [await session.call_tool(name, args) for name, args in wanted]

    result: list[Any] = with_server(use, flags)
    return result


def text(result: Any) -> str:
    """The answer's JSON lines (a tool error fails the test with its line)."""
    assert not result.is_error, result.content[0].text
    return str(result.content[0].text)


def note(result: Any) -> str:
    return str(result.content[1].text) if len(result.content) > 1 else ""
