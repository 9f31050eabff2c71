"""No test module imports another test module (or a conftest): what tests share lives in
tests/helpers/, so a test file can be moved, renamed or deleted without breaking another one."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_test_module(name: str) -> bool:
    """`name` (tests.x.y) is a test file or a conftest, not a package or a helper."""
    path = ROOT.joinpath(*name.split("."))
    leaf = path.name
    return (leaf.startswith("test_") or leaf == "conftest") and path.with_suffix(".py").is_file()


def _imported(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, module) of every import in `source` (module `module`), nested ones included,
    relative ones resolved; `from package import name` also as package.name (a module may be
    imported by name)."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[: len(package) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _imports_of(path: Path) -> list[tuple[int, str]]:
    return _imported(path.read_text(encoding="utf-8"), _module_of(path), path.name == "__init__.py")


def test_no_test_module_imports_another_test_module() -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in sorted(TESTS.rglob("*.py"))
        for line, name in _imports_of(path)
        if name.startswith("tests.") and _is_test_module(name)
    ]
    assert not wrong, "move what they share into tests/helpers/:\n" + "\n".join(wrong)


def test_the_check_sees_each_way_of_naming_a_test_module() -> None:
    source = (
        "from tests.app.test_config import run_process\n"
        "from tests.app import test_config\n"
        "from .conftest import bin_dir\n"
        "from ..helpers.app import loaded\n"
        "def later():\n    import tests.unit.test_class_sizes\n"
    )
    names = {name for _, name in _imported(source, "tests.app.test_probe") if _is_test_module(name)}
    assert names == {"tests.app.test_config", "tests.app.conftest", "tests.unit.test_class_sizes"}
