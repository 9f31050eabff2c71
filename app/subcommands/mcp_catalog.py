"""The MCP tools' arguments, stored: `tools/list` is answered from this table, without
importing the subcommands whose parsers they are read from (about a fifth of a second under
load). tests/cli/test_mcp_tools.py checks it against the parsers; after a subcommand's options
change, write it again with `.venv/bin/python -m pi_sessions.app.subcommands.mcp_catalog`."""

from __future__ import annotations

# tool -> its arguments, each (name, flag or None, kind, required, choices, help): mcp_tools.Argument
ARGUMENTS: dict[str, tuple[tuple[str, str | None, str, bool, tuple[str, ...], str], ...]] = {
    "list": (
        ("session_dir", "--session-dir", "string", False, (), ""),
        ("cwd", "--cwd", "string", False, (), "only sessions whose header cwd is CWD"),
        (
            "subagents",
            "--subagents",
            "boolean",
            False,
            (),
            "add the subagent sessions found below pi's two levels; each line gets `parent` and "
            "`parentEntryId` (null when it cannot be told)",
        ),
        (
            "store",
            "--store",
            "string",
            False,
            (),
            "read the shared PostgreSQL store instead of this machine's files",
        ),
        ("host", "--host", "string", False, (), "with --store: only sessions pushed as host NAME"),
    ),
    "search": (
        (
            "query",
            None,
            "string",
            True,
            (),
            'words (all must match), "a phrase", re:PATTERN (JavaScript syntax), @7d (active within 7 days)',
        ),
        (
            "deep",
            "--deep",
            "boolean",
            False,
            (),
            "also tool results, bash commands and output, thinking, custom messages, summaries, labels",
        ),
        ("since", "--since", "string", False, (), "only sessions active within DUR (12h, 7d, 2w, 3mo, 1y)"),
        ("session_dir", "--session-dir", "string", False, (), ""),
        (
            "order",
            "--order",
            "string",
            False,
            ("recent", "relevance"),
            "newest first (default), or pi's relevance score (default scope only)",
        ),
    ),
    "tree": (
        ("path", None, "string", True, (), ""),
        (
            "store",
            "--store",
            "string",
            False,
            (),
            "read the shared PostgreSQL store (PATH: the session's path on the host that pushed it)",
        ),
        ("host", "--host", "string", False, (), "with --store: only sessions pushed as host NAME"),
    ),
    "context": (
        ("path", None, "string", True, (), ""),
        ("leaf", "--leaf", "array", False, (), "an entry id (repeatable)"),
        ("all", "--all", "boolean", False, (), "every entry as the leaf"),
        (
            "store",
            "--store",
            "string",
            False,
            (),
            "read the shared PostgreSQL store (PATH: the session's path on the host that pushed it)",
        ),
        ("host", "--host", "string", False, (), "with --store: only sessions pushed as host NAME"),
    ),
    "compare": (
        ("path", None, "string", True, (), ""),
        ("leaf_a", None, "string", True, (), ""),
        ("leaf_b", None, "string", True, (), ""),
    ),
    "files": (
        ("path", None, "string", True, (), ""),
        ("leaf", "--leaf", "string", False, (), "an entry id (default: the default leaf)"),
    ),
    "labels": (("session_dir", "--session-dir", "string", False, (), ""),),
    "stats": (
        ("path", None, "string", True, (), ""),
        ("leaf", "--leaf", "string", False, (), "an entry id (default: the default leaf)"),
        (
            "with_subagents",
            "--with-subagents",
            "boolean",
            False,
            (),
            "also the session's subagent sessions (and theirs): each one's tokens and cost, and the totals "
            "with them",
        ),
        ("session_dir", "--session-dir", "string", False, (), "where to look for them (default: pi's)"),
    ),
    "history": (
        ("path", None, "string", True, (), "the file; a relative path is taken from the current folder"),
        (
            "each_cwd",
            "--each-cwd",
            "boolean",
            False,
            (),
            "take a relative PATH in each session's own cwd instead (the same file of every checkout)",
        ),
        ("session_dir", "--session-dir", "string", False, (), ""),
    ),
    "costs": (
        (
            "by",
            "--by",
            "string",
            False,
            ("day", "week", "month", "model", "cwd"),
            "group by UTC day (default), ISO week, month, model or cwd",
        ),
        ("since", "--since", "string", False, (), "only replies made within DUR (12h, 7d, 2w, 3mo, 1y)"),
        ("session_dir", "--session-dir", "string", False, (), ""),
        (
            "with_subagents",
            "--with-subagents",
            "boolean",
            False,
            (),
            "also the subagent sessions pi does not list (below its two levels; see list --subagents)",
        ),
    ),
    "check": (
        ("path", None, "string", True, (), ""),
        ("leaf", "--leaf", "string", False, (), "an entry id (default: the default leaf)"),
    ),
}


def current() -> dict[str, tuple[tuple[str, str | None, str, bool, tuple[str, ...], str], ...]]:
    """ARGUMENTS as the subcommands' parsers say today."""
    from .mcp_tools import arguments_of, available, parser_of

    return {
        name: tuple(
            (a.name, a.flag, a.kind, a.required, a.choices, a.help) for a in arguments_of(parser_of(name))
        )
        for name in available()
    }


def source() -> str:
    """This module's text with ARGUMENTS as the parsers say today."""
    import pprint
    from pathlib import Path

    table = current()
    text = Path(__file__).read_text(encoding="utf-8")
    head, _, rest = text.partition("ARGUMENTS: ")
    _, _, tail = rest.partition("\n\n\n")
    kind = "dict[str, tuple[tuple[str, str | None, str, bool, tuple[str, ...], str], ...]]"
    return f"{head}ARGUMENTS: {kind} = {pprint.pformat(table, width=110, sort_dicts=False)}\n\n\n{tail}"


if __name__ == "__main__":
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__)
    here.write_text(source(), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(here)], check=False)
