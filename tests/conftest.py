from __future__ import annotations

import inspect
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.corpus import FIXTURES

TIERS = ("unit", "oracle", "app", "snapshot", "e2e")


@pytest.fixture
def corpus_dir() -> Path:
    return FIXTURES


@pytest.fixture(autouse=True)
def _own_folders(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets its own config, cache and data folders, and none of the developer's pi
    settings: a config.toml, an index cache or PI_CODING_AGENT_* at home never change a
    result, and two runs at once never share a file; no colour setting leaks between tests."""
    home = tmp_path_factory.mktemp("xdg")
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(name, str(home / name.lower()))
    for name in ("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR", "PI_SESSIONS_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    # pi's logins (`check` asks whether the model's provider has one): none of the tester's, and
    # a made-up Anthropic key, the provider of the hand-made sessions' models (as the oracle's
    # pi_restore_model.mjs runs pi). A test of a missing login takes it away.
    from pi_sessions.core.projection.pi_logins import EVERY_LOGIN_VARIABLE

    for name in EVERY_LOGIN_VARIABLE:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-not-a-key")
    # pi's terminal switches and the terminals that show links: the tester's terminal (a VS Code
    # or kitty window) must not change what a test draws.
    from pi_sessions.app import config

    for name in ("PI_TRUE_COLOR", "PI_HYPERLINKS", "TERM_PROGRAM", "TMUX", *config._HYPERLINK_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    # The browser's entry sets these for Textual; a test that runs it in-process must not hand
    # them to the next test (a served app then drew without colour). Set first so that
    # monkeypatch restores them even when they were absent.
    for name in ("NO_COLOR", "TEXTUAL_COLOR_SYSTEM", "TEXTUAL_ANIMATIONS"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


@pytest.fixture(autouse=True)
def _no_demo_copies_left() -> Iterator[None]:
    """Tests that open the demo (the `d` key) leave no temporary copy behind."""
    yield
    from pi_sessions.app.demo import remove_demos

    remove_demos()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test gets one tier (`pytest -m app` runs one alone): the module's or its own
    marker if it has one, else snapshot for screen pictures, app for Pilot (async) tests and
    unit for the rest."""
    for item in items:
        if any(item.get_closest_marker(tier) for tier in TIERS):
            continue
        function = getattr(item, "function", None)
        if "snap_compare" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.snapshot)
        elif function is not None and inspect.iscoroutinefunction(function):
            item.add_marker(pytest.mark.app)
        else:
            item.add_marker(pytest.mark.unit)


@pytest.fixture
def fake_pi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in `pi` on PATH that records its working directory and arguments (read them
    with helpers.calls)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "pi-calls.txt"
    script = bin_dir / "pi"
    script.write_text(f'#!/bin/sh\n{{ pwd; for a in "$@"; do echo "$a"; done; echo --; }} >> "{record}"\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return record
