"""`pi-sessions completion bash|zsh|fish|tcsh`: a tab-completion script made by shtab from the
live parsers (the browser's, and every registered subcommand's under it), so new subcommands
and flags are completed without touching this file.

What shtab cannot guess is said here: which values are folders or files (`.complete`, from the
value's name), and that the browser's first word may be a session file or a folder as well as
a subcommand (bash and fish: the first word completes files besides the subcommands; bash:
`--option=value` too).
"""

from __future__ import annotations

import argparse

HELP = "print a shell completion script (bash, zsh, fish or tcsh)"

EXAMPLES = (
    "source <(pi-sessions completion bash)    (zsh: the same with zsh)",
    "pi-sessions completion fish | source",
)

SHELLS = ("bash", "zsh", "fish", "tcsh")
PROG = "pi-sessions"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=SHELLS, help="which shell the script is for")


def run(ns: argparse.Namespace) -> int:
    from .output import lines

    lines(script(ns.shell).rstrip("\n").split("\n"))
    return 0


def script(shell: str) -> str:
    """The completion script for `shell`, from the parsers as they are now."""
    import shtab

    parser = whole_parser()
    preamble = ""
    if shell == "bash":
        # The first word: a subcommand, or a session file or folder to open (shtab's prefix).
        preamble = f"_shtab_{PROG.replace('-', '_')}_pos_0_COMPGEN=_shtab_compgen_files"
    text: str = shtab.complete(parser, shell=shell, preamble=preamble)
    return text + {"bash": BASH_EQUALS, "fish": FISH_FIRST_WORD}.get(shell, "")


# fish: the first word may be a session file or a folder as well as a subcommand.
FISH_FIRST_WORD = """
# The first word: a session file or a folder to open, besides the subcommands.
complete -c pi-sessions -n __fish_use_subcommand -F
"""


# bash splits `--theme=l` at the `=` (COMP_WORDBREAKS): completed as `--theme l` would be.
BASH_EQUALS = """
# `--option=value`: bash hands it over as `--option`, `=`, `value`; shtab reads `--option value`.
_pi_sessions() {
  local -a words=()
  local i cword=0
  for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
    if [[ ${COMP_WORDS[i]} == "=" && $i -gt 0 && ${COMP_WORDS[i-1]} == --* ]]; then
      if ((i == COMP_CWORD)); then cword=${#words[@]}; words+=(""); fi
      continue
    fi
    ((i == COMP_CWORD)) && cword=${#words[@]}
    words+=("${COMP_WORDS[i]}")
  done
  local -a COMP_WORDS=("${words[@]}")
  local COMP_CWORD=$cword
  _shtab_pi_sessions
}
complete -o bashdefault -F _pi_sessions pi-sessions
"""


def whole_parser() -> argparse.ArgumentParser:
    """The browser's options with every registered subcommand under them, each value that is
    a folder or a file marked so."""
    from .. import subcommands
    from ..arguments import browser_parser

    browser = browser_parser()
    root = argparse.ArgumentParser(prog=PROG, description=browser.description, add_help=False)
    for action in browser._actions:
        if action.option_strings:
            root._add_action(_marked(action))
    commands = root.add_subparsers(dest="command", metavar="SUBCOMMAND")
    for name in subcommands.MODULES:
        built = subcommands.build_parser(name)
        sub = commands.add_parser(name, help=subcommands.module(name).HELP, add_help=False)
        for action in built._actions:
            sub._add_action(_marked(action))
    return root


def _marked(action: argparse.Action) -> argparse.Action:
    """`action`, its value marked as a folder or a file where its name says so."""
    import shtab

    if action.nargs != 0 and not action.choices:
        completes = _completes(action)
        if completes is not None:
            action.complete = shtab.DIRECTORY if completes == "dir" else shtab.FILE  # type: ignore[attr-defined]
    return action


def _completes(action: argparse.Action) -> str | None:
    """What a value is, guessed from its name: a folder, a file, or free (None)."""
    metavar = action.metavar if isinstance(action.metavar, str) else None
    name = (metavar or action.dest).upper()
    dest = action.dest.lower()
    if name in ("DIR", "CWD", "FOLDER") or dest.endswith("_dir") or dest == "cwd":
        return "dir"
    if name in ("PATH", "FILE", "PATHS", "FILES") or dest in ("path", "paths", "file", "files"):
        return "file"
    return None
