"""`pi-sessions mcp`: a read-only Model Context Protocol server over stdio (the official `mcp`
SDK's low-level server); each tool runs the subcommand of its name in this process and answers
with what that prints with `--json` (app/mcp_tools.py)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import mcp.types as types
    from mcp.server import ServerRequestContext

    from .mcp_redact import LineRedactor
    from .mcp_tools import Answer, Pager, ToolSpec

HELP = "a read-only MCP server over stdio: the subcommands as tools, for coding agents"

EXAMPLES = (
    "npx @modelcontextprotocol/inspector pi-sessions mcp     (try it by hand)",
    "claude mcp add pi-sessions -- pi-sessions mcp",
)

INSTRUCTIONS = (
    "Read-only access to pi coding agent sessions (~/.pi/agent/sessions). Each tool is the "
    "pi-sessions subcommand of its name; its answer is that command's --json output, one JSON "
    "document per line. Start with search (a hit names path and entry_id) or list, then context "
    "(what the model saw at an entry), tree, files, compare or stats on that path. Long answers "
    "come in pages: pass the cursor a note gives; long strings are cut with a note (max_chars)."
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # (the JSON line kept whole)
    parser.add_argument(
        "--no-redact",
        action="store_true",
        help="answer with credentials as the sessions hold them (default: each reads [redacted: KIND])",
    )
    parser.epilog = (
        "An MCP client runs it as its server; in its configuration:\n"
        '  {"mcpServers": {"pi-sessions": {"command": "pi-sessions", "args": ["mcp"]}}}\n'
        "Secrets in the answers are redacted unless --no-redact. Tools, answers and secrets: docs/AGENTS.md"
    )


def run(ns: argparse.Namespace) -> int:
    try:
        import anyio

        from .mcp_sdk import load

        load()  # (an install without the SDK: one line, not a traceback)
    except ImportError:
        from ...core.common.problems import SessionError

        raise SessionError("the MCP SDK is not installed: pip install mcp") from None
    if ns.no_redact:
        from .output import warn

        warn("pi-sessions mcp: --no-redact: answers hold the credentials the sessions hold")
    anyio.run(serve, not ns.no_redact)
    return 0


def run_subcommand(name: str, argv: list[str], stdout: Pager) -> tuple[int, str]:
    """`pi-sessions NAME ARGV` in this process, its output going to `stdout`, with the error
    lines and exit statuses of the command line (app/cli.py's, which this package may not import)."""
    from ...core.common.problems import SessionError
    from . import run
    from .mcp_tools import Enough
    from .output import captured, warn

    with captured(stdout) as said:
        try:
            code = run(name, argv)
        except Enough:  # the page is full
            code = 0
        except SessionError as e:
            warn(f"pi-sessions: {e}")
            code = 2
        except OSError as e:
            warn(f"pi-sessions: {e.strerror or e}: {e.filename or ''}".rstrip(": "))
            code = 2
        except SystemExit as e:  # (a subcommand's own exit ends its run, not the server)
            code = e.code if isinstance(e.code, int) else 1
        except Exception as e:  # (the server goes on)
            warn(f"pi-sessions: internal error: {type(e).__name__}: {e}")
            code = 1
    return code, said[0]


def _text(text: str) -> types.TextContent:
    import mcp.types as types

    return types.TextContent(type="text", text=text)


def _error(line: str) -> types.CallToolResult:
    import mcp.types as types

    from ...core.common.text import inline

    return types.CallToolResult(content=[_text(inline(line))], is_error=True)


async def serve(redact: bool = True) -> None:
    import anyio

    from .mcp_sdk import load

    load()  # (first: the imports below then find the SDK's modules in place)
    import mcp.types as types
    from mcp.server.lowlevel.server import Server
    from mcp.server.stdio import stdio_server

    from ... import __version__
    from .mcp_catalog import ARGUMENTS
    from .mcp_tools import DEFAULT_MAX_CHARS, ToolError, call, specs

    known: list[ToolSpec] = []
    redactor: list[LineRedactor] = []  # (made at the first call: the audit is not needed to list)

    def tools() -> list[ToolSpec]:
        if not known:
            known.extend(specs(ARGUMENTS))
        return known

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        hints = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
        return types.ListToolsResult(
            tools=[
                types.Tool(name=s.name, description=s.description, input_schema=s.schema, annotations=hints)
                for s in tools()
            ]
        )

    def one_call(name: str, given: dict[str, Any]) -> tuple[Answer, int]:
        if not redact:
            return call(name, given, run_subcommand), 0
        if not redactor:
            from .mcp_redact import LineRedactor

            redactor.append(LineRedactor())
        lines = redactor[0]
        lines.prime_from(given, given.get("max_chars", DEFAULT_MAX_CHARS))
        before = lines.count
        try:
            answer = call(name, given, run_subcommand, lines.line)
        except ToolError as e:  # (an error or a warning may quote the session too)
            raise ToolError(lines.redactor.text(str(e))) from None
        answer.warnings = [lines.redactor.text(w) for w in answer.warnings]
        return answer, lines.count - before

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        from ...core.common.text import inline
        from .mcp_redact import note

        try:
            answer, redacted = await anyio.to_thread.run_sync(
                one_call, params.name, dict(params.arguments or {})
            )
        except ToolError as e:
            return _error(str(e))
        except Exception as e:  # the server outlives any one call
            return _error(f"internal error: {type(e).__name__}: {e}")
        content: list[types.ContentBlock] = [_text(answer.text)]
        notes = [answer.note] if answer.note else []
        notes += [note(redacted)] if redacted else []
        notes += [f"warning: {w}" for w in answer.warnings]
        if notes:
            content.append(_text("\n".join(inline(n) for n in notes)))
        return types.CallToolResult(content=content)

    server: Server[Any] = Server(
        "pi-sessions",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
