"""Running the command line in-process (a fresh interpreter per call is too slow for fuzzing)
and checking that what it printed for people is inert."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from dataclasses import dataclass

from pi_sessions.app.cli import main

# Written here, not taken from core/common/text.py: the check must not trust the sanitiser it checks.
# C0 (newline aside: lines are split on it first), DEL, C1, lone surrogates, bidi controls,
# zero-width and other invisible format characters, line and paragraph separators.
RAW_CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\ud800-\udfff\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
    "\U000e0000-\U000e007f]"
)


def raw_controls(text: str) -> list[str]:
    """Every raw control character in `text` (newlines between lines allowed), as repr."""
    return [repr(m.group()) for line in text.split("\n") for m in RAW_CONTROL.finditer(line)]


@dataclass
class CliResult:
    code: int
    out: bytes
    err: bytes

    @property
    def stdout(self) -> str:
        return self.out.decode("utf-8")  # strict: the readable forms are valid UTF-8

    @property
    def stderr(self) -> str:
        return self.err.decode("utf-8")


def cli(*args: str) -> CliResult:
    """`pi-sessions ARGS` in this process, stdout and stderr captured as bytes."""
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdout, sys.stderr
    stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="strict", write_through=True)
    sys.stdout, sys.stderr = stdout, stderr
    try:
        code = main(list(args))
    except SystemExit as e:  # argparse: --help (0) or bad arguments (2, its message on stderr)
        code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    finally:
        sys.stdout, sys.stderr = saved
        stdout.flush()
        stderr.flush()
    result = CliResult(code, out.getvalue(), err.getvalue())
    stdout.detach()  # closing a wrapper would close the buffer under it
    stderr.detach()
    return result


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`cli` as `subprocess.run([... "pi-sessions", *args], capture_output=True, text=True)`
    answers, for tests written against that (an interpreter per call costs a few tenths of a
    second; the entry point itself is run as a process in tests/e2e and test_cli's --help test)."""
    result = cli(*args)
    return subprocess.CompletedProcess(["pi-sessions", *args], result.code, result.stdout, result.stderr)
