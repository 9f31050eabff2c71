"""The printing subcommands: one module each, registered here by name.

Each module has `HELP` (one line), `EXAMPLES` (command lines that end its `--help`),
`configure(parser)` (its arguments) and `run(ns) -> int`.
Modules import core lazily inside `run`, so building the parser costs nothing, and none of
them imports Textual. To add a subcommand: a new module here and one line in `MODULES`.
"""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType

# name -> module (in this package) that implements it, in the order `--help` lists them
MODULES: dict[str, str] = {
    "list": "listing",
    "search": "search",
    "labels": "labels",
    "tree": "tree",
    "context": "context",
    "compare": "compare",
    "files": "files",
    "history": "history",
    "edits": "edits",
    "commands": "commands",
    "fork": "fork",
    "stats": "stats",
    "costs": "costs",
    "secrets": "secrets",
    "check": "check",
    "slim": "slim",
    "resume": "resume",
    "serve": "serve",
    "completion": "completion",
    "config": "config",
    "pin": "pin",
    "unpin": "unpin",
    "archive": "archive",
    "unarchive": "unarchive",
    "tag": "tag",
    "mcp": "mcp",
    "push": "push",
    "store": "store",
}


def module(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{MODULES[name]}")


def build_parser(name: str) -> argparse.ArgumentParser:
    """The parser of one subcommand (only its module is imported)."""
    mod = module(name)
    parser = argparse.ArgumentParser(
        prog=f"pi-sessions {name}", description=mod.HELP, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    mod.configure(parser)
    examples = "examples:\n" + "".join(f"  {line}\n" for line in mod.EXAMPLES)
    parser.epilog = f"{parser.epilog}\n\n{examples}" if parser.epilog else examples
    return parser


def run(name: str, args: list[str]) -> int:
    ns = build_parser(name).parse_args(args)
    result: int = module(name).run(ns)
    return result
