"""Inputs that crashed a command (exit 1, a traceback): odd shapes in a session, a deeply
nested or huge settings file, ctrl+c before the program is even loaded."""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers.cli import cli
from tests.helpers.sessions import assistant, entry, header, jsonl, user


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "sessions" / "--p--" / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    return path


def _all_succeed(*runs: tuple[str, ...]) -> None:
    for args in runs:
        for form in ((), ("--json",)):
            if args[0] == "resume" and form:
                continue
            out = cli(*args, *form)
            assert out.code == 0, (args, form, out.stderr)


def test_files_when_a_tool_name_is_a_list(tmp_path: Path) -> None:
    call = {"type": "toolCall", "id": "t1", "name": ["read"], "arguments": {"path": "/x"}}
    result = {"role": "toolResult", "toolCallId": "t1", "toolName": ["read"], "content": [], "timestamp": 3}
    path = _write(
        tmp_path,
        jsonl(
            header(),
            user("u", None, "hi"),
            assistant("a", "u", "x", 1, content=[call], stopReason="toolUse"),
            entry("message", "r", "a", 2, message=result),
        ),
    )
    _all_succeed(("files", str(path)))


def test_deep_search_when_an_entry_type_is_a_list(tmp_path: Path) -> None:
    odd = entry("message", "b", "u", 1, message={"role": "user", "content": "needle", "timestamp": 1})
    odd["type"] = ["message"]
    path = _write(tmp_path, jsonl(header(), user("u", None, "needle too"), odd))
    _all_succeed(("search", "needle", "--deep", "--session-dir", str(path.parent.parent)))


def test_a_version_1_header_id_holding_a_lone_surrogate(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        b'{"type":"session","id":"\\ud800","timestamp":"2025-03-01T10:00:00.000Z","cwd":"/p"}\n'
        b'{"type":"message","timestamp":"2025-03-01T10:00:01.000Z","message":{"role":"user","content":"needle"}}\n',
    )
    folder = str(path.parent.parent)
    _all_succeed(
        ("tree", str(path)),
        ("context", str(path)),
        ("stats", str(path)),
        ("files", str(path)),
        ("resume", str(path), "--print"),
        ("search", "needle", "--session-dir", folder),
    )


def test_stats_on_numbers_that_sum_to_nan_and_on_a_nul_in_the_cwd(tmp_path: Path) -> None:
    huge = {"input": 1e308, "output": 1e308, "totalTokens": -1e308, "cost": {"total": 1e308}}
    path = _write(
        tmp_path,
        jsonl(
            header(cwd="/p\0q"),  # an unknown model and a compaction: .pi/settings.json of the cwd is read
            user("u", None, "hi"),
            assistant("a", "u", "x", 1, usage=huge, provider="nobody", model="unknown-x"),
            entry("compaction", "c", "a", 2, summary="s", firstKeptEntryId="u", tokensBefore=1e308),
            assistant("b", "c", "y", 3, usage={**huge, "totalTokens": 1e308}),
        ).replace(b"1e+308", b"1" + b"0" * 400),
    )
    _all_succeed(("stats", str(path)))


@pytest.mark.parametrize("which", ["config.toml", "keybindings.json"])
def test_a_deeply_nested_settings_file_is_reported_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "pi-sessions" / "config.toml"
    config.parent.mkdir(parents=True)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path))
    if which == "config.toml":
        config.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    else:
        (tmp_path / "keybindings.json").write_text('{"x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    out = cli("config")
    assert out.code == 0, out.stderr
    assert "nested too deeply" in out.stderr


def test_a_config_of_20000_unknown_keys_gets_a_hint_for_a_few_and_a_count_for_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "pi-sessions" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[keys]\n" + "".join(f'"app.session.rename{i}" = "ctrl+x"\n' for i in range(20_000)))
    hints = []
    real = difflib.get_close_matches
    monkeypatch.setattr(difflib, "get_close_matches", lambda *a, **k: hints.append(a[0]) or real(*a, **k))
    out = cli("config")
    assert out.code == 0
    assert len(hints) <= 20  # the fuzzy hint (the costly part) only for the first few
    assert "19980 more unknown ids" in out.stderr
    assert (
        "unknown id 'app.session.rename0'" in out.stderr and "did you mean app.session.rename?" in out.stderr
    )


def test_ctrl_c_while_the_program_is_still_loading_exits_130_quietly() -> None:
    """A ctrl+c that lands while the modules are imported (the first tens of milliseconds)."""
    script = textwrap.dedent(
        """
        import sys
        class Interrupt:
            def find_spec(self, name, path=None, target=None):
                if name == "pi_sessions.app.cli":
                    raise KeyboardInterrupt
        sys.meta_path.insert(0, Interrupt())
        from pi_sessions.app.entry import console_main
        sys.argv = ["pi-sessions", "search", "x"]
        console_main()
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 130 and out.stderr == ""
    # and from the entry module's first line, one lands as a quiet end, not a traceback
    probe = "import signal, pi_sessions.app.entry; print(signal.getsignal(signal.SIGINT) is signal.SIG_DFL)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout == "True\n"
    scripts = Path(__file__).parents[2] / "pyproject.toml"
    assert 'pi-sessions = "pi_sessions.app.entry:console_main"' in scripts.read_text()


def test_deep_search_when_a_label_target_is_an_object(tmp_path: Path) -> None:
    """Found by the 20,000-case fuzz run (seed 15, case 16180)."""
    path = _write(
        tmp_path,
        jsonl(
            header(),
            user("u", None, "needle"),
            entry("label", "l", "u", 1, targetId={"a": 1}, label="needle"),
            entry("label", "m", "l", 2, targetId="u", label="needle"),
        ),
    )
    _all_succeed(("search", "needle", "--deep", "--session-dir", str(path.parent.parent), "--no-cache"))
