"""File paths a shell command names, recognised conservatively (what `cat`, `sed -i`, `rm`, a
`>` redirection... were pointed at).

A small lexer that knows quoting, operators, comments and here-documents splits the command
into simple commands; a handful of well-known programs are understood from their options.
Anything unclear (an unknown program, a `$VAR` or glob in a word, a `cd` into somewhere we
cannot know, an unterminated quote) names nothing rather than something wrong. (Over 450
lines: the lexer and the programs it understands are one grammar; another program is one
more function here.)
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache


class Access(StrEnum):
    """What a tool call did with a file, as far as the model's knowledge of it goes."""

    READ = "read"  # its text was shown to the model (read tool, cat, head, sed -n...)
    EDIT = "edit"  # it was changed, and the call holds the change (edit, write, sed -i, >, rm...)
    OTHER = "other"  # named without showing or changing its text (ls, grep, a script run...)


@dataclass(frozen=True, slots=True)
class NamedPath:
    path: str  # as written, joined to the directories `cd` went to (relative to the shell's start)
    access: Access
    verb: str  # the program or operator: "cat", "sed -i", ">", "rm"...


@dataclass(frozen=True, slots=True)
class Word:
    text: str  # quotes removed
    literal: bool  # no expansion, substitution or glob: the text is what the shell passes


class Op(str):
    """An operator token: `&&`, `|`, `>`, a newline..."""

    __slots__ = ()


class _Unparsable(Exception):
    pass


_SEPARATORS = frozenset({"&&", "||", ";;", ";", "|&", "|", "&", "\n", "(", ")"})
_WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
_OTHER_REDIRECTS = frozenset({"<", "<>", "<&", "<<<"})
_HEREDOCS = frozenset({"<<", "<<-"})
# Longest first, so `>>` is not read as two `>`.
_OPERATORS = sorted(
    (_SEPARATORS - {"\n"}) | _WRITE_REDIRECTS | _OTHER_REDIRECTS | _HEREDOCS, key=len, reverse=True
)
_OPERATOR_START = frozenset(op[0] for op in _OPERATORS)
_GLOB = frozenset("*?[{")
_PLAIN = re.compile(r"[^\s'\"\\$`*?[{;&|<>()]+")  # characters a word takes as they are
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
MAX_COMMAND = 200_000  # characters: a longer command is not looked into


def tokenize(command: str) -> list[Word | Op]:
    """Words and operators of a shell command (raises _Unparsable on unbalanced quoting)."""
    tokens: list[Word | Op] = []
    heredocs: list[tuple[str, bool]] = []  # delimiters waiting for the next newline
    want_delimiter: bool | None = None  # after `<<` (False) or `<<-` (True)
    i, n = 0, len(command)
    while i < n:
        c = command[i]
        if c in " \t\r":
            i += 1
        elif c == "\\" and command.startswith("\n", i + 1):
            i += 2  # a line continuation
        elif c == "\n":
            tokens.append(Op("\n"))
            i = _skip_heredocs(command, i + 1, heredocs)
            heredocs = []
        elif c == "#":
            end = command.find("\n", i)
            i = n if end < 0 else end
        elif c in _OPERATOR_START:
            op = next(o for o in _OPERATORS if command.startswith(o, i))
            tokens.append(Op(op))
            i += len(op)
            if op in _HEREDOCS:
                want_delimiter = op == "<<-"
        else:
            if c.isdigit():
                j = i
                while j < n and command[j].isdigit():
                    j += 1
                if j < n and command[j] in "<>":
                    i = j  # a file descriptor before a redirection: `2>`, `1>>`
                    continue
            word, i = _word(command, i)
            if want_delimiter is not None:
                heredocs.append((word.text, want_delimiter))
                want_delimiter = None
            tokens.append(word)
    return tokens


def _word(command: str, i: int) -> tuple[Word, int]:
    parts: list[str] = []
    literal = True
    n = len(command)
    while i < n:
        plain = _PLAIN.match(command, i)
        if plain is not None:
            parts.append(plain.group())
            i = plain.end()
            continue
        c = command[i]
        if c in " \t\r\n" or c in _OPERATOR_START:
            break
        if c == "'":
            end = command.find("'", i + 1)
            if end < 0:
                raise _Unparsable("unterminated single quote")
            parts.append(command[i + 1 : end])
            i = end + 1
        elif c == '"':
            i += 1
            while True:
                if i >= n:
                    raise _Unparsable("unterminated double quote")
                d = command[i]
                if d == '"':
                    i += 1
                    break
                if d == "\\" and i + 1 < n and command[i + 1] in '$`"\\\n':
                    parts.append(command[i + 1])
                    i += 2
                    continue
                if d in "$`":
                    literal = False
                parts.append(d)
                i += 1
        elif c == "\\":
            if i + 1 < n:
                parts.append(command[i + 1])
            i += 2
        elif c == "$":
            literal = False
            if command.startswith("$(", i):
                i = _skip_balanced(command, i + 1)
            else:
                parts.append(c)
                i += 1
        elif c == "`":
            literal = False
            end = command.find("`", i + 1)
            if end < 0:
                raise _Unparsable("unterminated backquote")
            i = end + 1
        else:
            if c in _GLOB:
                literal = False  # a pattern, not a path (a leading `~` is kept as written)
            parts.append(c)
            i += 1
    text = "".join(parts)
    return Word(text, literal or text in ("{", "}")), i


def _skip_balanced(command: str, i: int) -> int:
    """From an opening parenthesis to just after its match (quotes inside are not honoured)."""
    depth = 0
    for j in range(i, len(command)):
        if command[j] == "(":
            depth += 1
        elif command[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    raise _Unparsable("unbalanced $(")


def _skip_heredocs(command: str, i: int, heredocs: list[tuple[str, bool]]) -> int:
    """Skip the bodies of here-documents that start on the line just ended."""
    for delimiter, strip_tabs in heredocs:
        while i < len(command):
            end = command.find("\n", i)
            line = command[i:] if end < 0 else command[i:end]
            i = len(command) if end < 0 else end + 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
    return i


def simple_commands(tokens: list[Word | Op]) -> Iterator[list[Word | Op]]:
    """Each simple command (its words and redirections); a subshell's `(` and `)` come
    through on their own, so a `cd` inside one can be undone."""
    current: list[Word | Op] = []
    for token in tokens:
        if isinstance(token, Op) and token in _SEPARATORS:
            if current:
                yield current
                current = []
            if token in ("(", ")"):
                yield [token]
            continue
        current.append(token)
    if current:
        yield current


@lru_cache(maxsize=4096)
def named_paths(command: str) -> tuple[NamedPath, ...]:
    """The paths a shell command names, with what it does to them (empty when unclear).
    Remembered: sessions run the same few commands over and over."""
    if len(command) > MAX_COMMAND:
        return ()
    try:
        tokens = tokenize(command)
    except _Unparsable:
        return ()
    found: list[NamedPath] = []
    base: str | None = ""  # where `cd` went, relative to the start ("" = the start; None = unknown)
    saved: list[str | None] = []
    for parts in simple_commands(tokens):
        if parts == [Op("(")]:
            saved.append(base)
            continue
        if parts == [Op(")")]:
            base = saved.pop() if saved else base
            continue
        argv: list[Word] = []
        redirects: list[tuple[str, Word]] = []
        items = iter(parts)
        for item in items:
            if isinstance(item, Op):
                target = next(items, None)
                if isinstance(target, Word):
                    redirects.append((item, target))
            else:
                argv.append(item)
        argv = _strip_prefixes(argv)
        name = posixpath.basename(argv[0].text) if argv and argv[0].literal else ""
        if name in ("cd", "pushd"):
            base = _cd(base, argv[1:])
        elif name == "popd":
            base = None
        handler = _HANDLERS.get(name) or (_script if _SCRIPT_RUNNER.fullmatch(name) else None)
        if handler is not None:
            for word, access, verb in handler(name, argv[1:]):
                if _pathlike(word):
                    _add(found, base, word.text, access, verb)
        for op, target in redirects:
            if op in _WRITE_REDIRECTS and _pathlike(target) and not (op == ">&" and target.text.isdigit()):
                _add(found, base, target.text, Access.EDIT, op)
    return tuple(found)


def _add(found: list[NamedPath], base: str | None, text: str, access: Access, verb: str) -> None:
    if text.startswith(("/", "~")):
        found.append(NamedPath(text, access, verb))
    elif base is not None:
        found.append(NamedPath(posixpath.join(base, text) if base else text, access, verb))


def _cd(base: str | None, args: list[Word]) -> str | None:
    args = [a for a in args if not (a.literal and a.text in ("-L", "-P", "--"))]
    if not args:
        return "~"
    target = args[0]
    if not target.literal or target.text == "-":
        return None
    if target.text.startswith(("/", "~")):
        return target.text
    if base is None:
        return None
    return posixpath.join(base, target.text) if base else target.text


def _pathlike(word: Word) -> bool:
    text = word.text
    return (
        word.literal
        and 0 < len(text) <= 4096
        and not text.startswith("-")
        and text not in (".", "..")
        and not text.startswith("/dev/")
        and "\n" not in text
        and "://" not in text
    )


_WRAPPER_VALUES: dict[str, frozenset[str]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"}),
    "env": frozenset({"-u", "-C", "-S"}),
    "nice": frozenset({"-n"}),
    "nohup": frozenset(),
    "time": frozenset(),
    "command": frozenset(),
    "exec": frozenset({"-a"}),
    "timeout": frozenset({"-k", "-s"}),
    "then": frozenset(),
    "do": frozenset(),
    "else": frozenset(),
    "if": frozenset(),
    "elif": frozenset(),
    "while": frozenset(),
    "until": frozenset(),
    "!": frozenset(),
    "{": frozenset(),
}


def _strip_prefixes(argv: list[Word]) -> list[Word]:
    """Drop variable assignments, `sudo`/`env`/`time`... and shell keywords before the program."""
    i = 0
    while i < len(argv):
        word = argv[i]
        if _ASSIGNMENT.match(word.text):
            i += 1
            continue
        if not word.literal or word.text not in _WRAPPER_VALUES:
            break
        values = _WRAPPER_VALUES[word.text]
        i += 1
        while i < len(argv) and argv[i].text.startswith("-"):
            i += 2 if argv[i].text in values else 1
        if word.text == "timeout" and i < len(argv):
            i += 1  # the duration
    return argv[i:]


Found = list[tuple[Word, Access, str]]


def _positionals(args: list[Word], values: frozenset[str] = frozenset()) -> list[Word]:
    """Arguments that are not options (`values`: options taking the next word as their value)."""
    out: list[Word] = []
    i = 0
    options = True
    while i < len(args):
        text = args[i].text
        if options and text == "--":
            options = False
        elif options and text.startswith("-") and len(text) > 1:
            if text in values:
                i += 1
        elif options and text.startswith("+") and text[1:].isdigit():
            pass  # `tail +5`
        else:
            out.append(args[i])
        i += 1
    return out


_SHOW_VALUES: dict[str, frozenset[str]] = {
    "cat": frozenset(),
    "tac": frozenset({"-s", "--separator"}),
    "nl": frozenset({"-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"}),
    "head": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "tail": frozenset({"-n", "-c", "--lines", "--bytes", "--pid", "-s", "--sleep-interval"}),
    "less": frozenset({"-p", "-x", "-y", "-b", "-h", "-j", "-z", "-o", "-O", "-t", "-T"}),
    "more": frozenset({"-n"}),
    "bat": frozenset({"-r", "--line-range", "-l", "--language", "-H", "--highlight-line", "-m"})
    | frozenset({"--map-syntax", "--theme", "--style", "--tabs", "--wrap", "--terminal-width"}),
}
_SHOW_VALUES["batcat"] = _SHOW_VALUES["bat"]


def _show(name: str, args: list[Word]) -> Found:
    return [(w, Access.READ, name) for w in _positionals(args, _SHOW_VALUES[name])]


def _sed(name: str, args: list[Word]) -> Found:
    in_place = False
    script_given = False
    files: list[Word] = []
    i = 0
    options = True
    while i < len(args):
        text = args[i].text
        if options and text == "--":
            options = False
        elif options and text.startswith("--"):
            if text.startswith("--in-place"):
                in_place = True
            elif text.startswith(("--expression", "--file")):
                script_given = True
                i += 0 if "=" in text else 1
            elif text in ("--line-length",):
                i += 1
        elif options and text.startswith("-") and len(text) > 1:
            cluster = text[1:]
            for k, letter in enumerate(cluster):
                if letter == "i":
                    in_place = True
                    if k == 0 and len(cluster) == 1 and i + 1 < len(args) and args[i + 1].text == "":
                        i += 1  # BSD's `-i ''`
                    break  # the rest is a backup suffix
                if letter in "efl":
                    script_given = script_given or letter in "ef"
                    if k == len(cluster) - 1:
                        i += 1  # the value is the next word
                    break
        elif not script_given:
            script_given = True
        else:
            files.append(args[i])
        i += 1
    if in_place:
        return [(w, Access.EDIT, "sed -i") for w in files]
    return [(w, Access.READ, "sed") for w in files]


_GREP_VALUES = {"grep": "efmABCdD", "egrep": "efmABCdD", "fgrep": "efmABCdD", "rg": "efgtTmABCMjE"}
_GREP_LONG_VALUES = frozenset(
    {"--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context"}
    | {"--include", "--exclude", "--exclude-dir", "--glob", "--iglob", "--type", "--type-not"}
    | {"--max-columns", "--threads", "--encoding", "--max-depth", "--sort", "--sortr", "--color"}
)


def _grep(name: str, args: list[Word]) -> Found:
    short_values = _GREP_VALUES[name]
    pattern_given = False
    paths: list[Word] = []
    i = 0
    options = True
    while i < len(args):
        text = args[i].text
        if options and text == "--":
            options = False
        elif options and text.startswith("--"):
            key = text.split("=", 1)[0]
            if key in ("--regexp", "--file"):
                pattern_given = True
            if key in _GREP_LONG_VALUES and "=" not in text:
                i += 1
        elif options and text.startswith("-") and len(text) > 1:
            cluster = text[1:]
            for k, letter in enumerate(cluster):
                if letter in short_values:
                    pattern_given = pattern_given or letter in "ef"
                    if k == len(cluster) - 1:
                        i += 1
                    break
        elif not pattern_given:
            pattern_given = True
        else:
            paths.append(args[i])
        i += 1
    return [(w, Access.OTHER, name) for w in paths]


_LISTING_VALUES: dict[str, frozenset[str]] = {
    "ls": frozenset({"-I", "-w", "-T", "--ignore", "--width", "--hide", "--sort", "--format"}),
    "stat": frozenset({"-c", "-f", "--format", "--printf"}),
    "file": frozenset({"-m", "-f", "-F", "-e"}),
    "wc": frozenset(),
    "du": frozenset({"-d", "-B", "-t", "--exclude"}),
    "tree": frozenset({"-L", "-P", "-I", "-o", "--filelimit"}),
    "realpath": frozenset(),
    "readlink": frozenset(),
    "cmp": frozenset({"-i", "-n"}),
    "diff": frozenset({"-U", "-C", "-x", "-X", "-I", "-F", "-L", "--label"}),
}


def _listing(name: str, args: list[Word]) -> Found:
    return [(w, Access.OTHER, name) for w in _positionals(args, _LISTING_VALUES[name])]


def _find(name: str, args: list[Word]) -> Found:
    out: Found = []
    for word in args:
        if word.text.startswith(("-", "(", "!")):
            break
        out.append((word, Access.OTHER, name))
    return out


_CHANGE_VALUES: dict[str, frozenset[str]] = {
    "rm": frozenset(),
    "unlink": frozenset(),
    "shred": frozenset({"-n", "-s", "--iterations", "--size"}),
    "touch": frozenset({"-d", "-t", "-r", "--date", "--reference"}),
    "truncate": frozenset({"-s", "-r", "--size", "--reference"}),
    "tee": frozenset(),
    "mv": frozenset({"-S", "--suffix"}),
}


def _change(name: str, args: list[Word]) -> Found:
    words = _target_directory(args) if name == "mv" else []
    words += _positionals(_without_target_directory(args), _CHANGE_VALUES[name])
    return [(w, Access.EDIT, name) for w in words]


def _cp(name: str, args: list[Word]) -> Found:
    target = _target_directory(args)
    sources = _positionals(_without_target_directory(args), frozenset({"-S", "--suffix"}))
    if not target and sources:
        target, sources = [sources[-1]], sources[:-1]
    return [(w, Access.OTHER, name) for w in sources] + [(w, Access.EDIT, name) for w in target]


def _target_directory(args: list[Word]) -> list[Word]:
    for i, word in enumerate(args):
        if word.text in ("-t", "--target-directory") and i + 1 < len(args):
            return [args[i + 1]]
        if word.text.startswith("--target-directory="):
            return [Word(word.text.split("=", 1)[1], word.literal)]
    return []


def _without_target_directory(args: list[Word]) -> list[Word]:
    out: list[Word] = []
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word.text in ("-t", "--target-directory"):
            skip = True
        elif not word.text.startswith("--target-directory="):
            out.append(word)
    return out


_SCRIPT_RUNNER = re.compile(r"(python[0-9.]*|node|bash|sh|zsh|ruby|perl)")
_SCRIPT_STOP = frozenset({"-c", "-m", "-e", "-p", "-E", "--eval", "--print"})
_SCRIPT_VALUES = frozenset({"-W", "-X", "-r", "--require", "-o", "-O", "-I"})


def _script(name: str, args: list[Word]) -> Found:
    """`python x.py`, `node x.js`, `bash x.sh`: the script file, run (its text unseen)."""
    i = 0
    while i < len(args):
        text = args[i].text
        if text in _SCRIPT_STOP:
            return []  # the program comes from the command line or a module, not a file
        if text.startswith("-"):
            i += 2 if text in _SCRIPT_VALUES else 1
            continue
        return [(args[i], Access.OTHER, name)]
    return []


_HANDLERS: dict[str, Callable[[str, list[Word]], Found]] = {
    **dict.fromkeys(_SHOW_VALUES, _show),
    "sed": _sed,
    **dict.fromkeys(_GREP_VALUES, _grep),
    **dict.fromkeys(_LISTING_VALUES, _listing),
    "find": _find,
    **dict.fromkeys(_CHANGE_VALUES, _change),
    "cp": _cp,
}
