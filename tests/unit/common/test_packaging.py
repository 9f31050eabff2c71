"""The project's shape: a headless core, one installed namespace, the stylesheet shipped."""

from __future__ import annotations

import pkgutil
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pi_sessions.core

ROOT = Path(__file__).resolve().parents[3]


def test_core_never_imports_textual_rich_or_pydantic() -> None:
    # (pydantic and its schemas cost ~100 ms of the browser's start; core's models are plain classes)
    modules = [m.name for m in pkgutil.walk_packages(pi_sessions.core.__path__, "pi_sessions.core.")]
    assert len(modules) >= 60
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'pydantic'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"core pulled in: {out.stdout.strip()}"


def test_wheel_ships_one_namespace_and_the_stylesheet(tmp_path: Path) -> None:
    source = tmp_path / "src"
    # A copy: setuptools leaves a build/ folder behind in the tree it builds.
    ignore = shutil.ignore_patterns(".venv", ".git", "fixtures", "__snapshots__", "build", "*.egg-info")
    shutil.copytree(ROOT, source, ignore=ignore)
    wheel_dir = tmp_path / "wheel"
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    subprocess.run([*pip, "-w", str(wheel_dir), str(source)], check=True, capture_output=True)
    [wheel] = wheel_dir.glob("pi_sessions-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "pi_sessions/styles.tcss" in names
    assert "pi_sessions/app/cli.py" in names
    assert "pi_sessions/core/projection/pi_models.txt" in names  # check's model catalog: package data
    # every module of every wing ships (a new wing not listed in pyproject's packages would not)
    sources = {f"pi_sessions/{p.relative_to(ROOT).as_posix()}" for p in (ROOT / "core").rglob("*.py")}
    assert sources - set(names) == set()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"pi_sessions"}, tops
    assert not any(n.startswith("pi_sessions/tests/") for n in names)


def test_installed_package_finds_its_stylesheet() -> None:
    from importlib.resources import files

    assert (files("pi_sessions") / "styles.tcss").is_file()


def test_core_holds_wings_only_each_with_a_one_line_purpose() -> None:
    loose = sorted(p.name for p in (ROOT / "core").glob("*.py") if p.name != "__init__.py")
    assert loose == [], f"modules directly in core/: {loose}"
    wings = sorted(p for p in (ROOT / "core").iterdir() if (p / "__init__.py").is_file())
    assert len(wings) >= 8
    for wing in wings:
        purpose = (wing / "__init__.py").read_text().strip()
        assert purpose.startswith('"""') and purpose.endswith('"""') and "\n" not in purpose, wing.name
