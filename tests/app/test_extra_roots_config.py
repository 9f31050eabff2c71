"""config.toml's `extra_roots`: checked by pydantic, each labelled, shown by `pi-sessions config`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pi_sessions.app.config import extra_roots, read_settings

from tests.helpers.cli import cli


def test_extra_roots_are_read_with_their_labels(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('extra_roots = ["~/.omp/agent/sessions", {path = "/srv/copy", label = "box"}]\n')
    loaded = read_settings(config, env={})
    assert loaded.problems == []
    assert extra_roots(loaded.settings) == [
        (str(Path("~/.omp/agent/sessions").expanduser()), "omp"),
        ("/srv/copy", "box"),
    ]


def test_a_bad_extra_root_is_reported_and_dropped(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("extra_roots = [{path = 1}]\n")
    loaded = read_settings(config, env={})
    assert extra_roots(loaded.settings) == []
    assert any("extra_roots" in p for p in loaded.problems)


def test_config_shows_the_extra_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pi-sessions").mkdir()
    (tmp_path / "pi-sessions" / "config.toml").write_text(
        'extra_roots = [{path = "/srv/copy", label = "box"}]\n'
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    result = cli("config", "--json")
    assert result.code == 0, result.stderr
    value = json.loads(result.stdout)["settings"]["extra_roots"]["value"]
    assert value == [{"path": "/srv/copy", "label": "box"}]
    assert '[{path = "/srv/copy", label = "box"}]' in cli("config").stdout
