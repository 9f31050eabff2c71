"""Planted-bug (mutation) testing of core/ and widgets/: how many small bugs the tests catch.

Run by hand, not in CI (a few hundred mutants take a while on two shared cores):

    .venv/bin/python tests/mutation/run.py --sample 300 --seed 1 [--jobs 2] [FILE ...]
    .venv/bin/python tests/mutation/run.py --list            # how many mutants each file has
    .venv/bin/python tests/mutation/run.py --only core/reading/bodies.py:55 [--kind 'flip boolean']

Each mutant is one small, realistic bug in one file: a comparison flipped (`<` to `>=`, `==`
to `!=`, `in` to `not in`, `is` to `is not`), an integer off by one, a `+ 1` / `- 1` dropped,
`+` and `-` swapped, `and` and `or` swapped, a condition negated, a boolean or a compared
string changed, a simple statement dropped (inside functions; definitions and module
constants are not mutated). Left alone because a change there alters how, not what, the
program does, which no behaviour test can tell: repaint requests (`refresh`, `refresh_row`,
`refresh_lines`: a Pilot test reads each line fresh), the rendering and library option flags
in RENDER_FLAGS, and the operands of bit shifts (sizes like `1 << 20`). It is made on a private copy of the repository
(one per job, under a temporary folder named `pi_sessions` so that the copy is what gets
imported, by pytest and by the subprocesses the tests start), and the tests that exercise
that file (TESTS below) run against it with `pytest -x` and a timeout of a few times their
normal duration. Killed: a test failed or the run timed out. Survived: every test passed.

It prints each survivor with file:line and the mutation, the kill rate, and writes every
result to --out (JSON). A line ending in `# no mutate` is left alone.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"
if not PYTHON.exists():
    PYTHON = Path(sys.executable)

# The tests that exercise each source file, fastest and most direct first (pytest -x stops at
# the first failure, so a killed mutant costs little). Paths relative to the repository.
APP_TESTS = [
    "tests/app/test_pane_keys.py",
    "tests/app/test_app.py",
    "tests/app/test_keys_app.py",
    "tests/app/test_search_browser.py",
    "tests/snapshot/test_snapshots.py",
    "tests/app/test_actions.py",
]
SESSION_TESTS = [  # a session's facade, its state and the jobs on it (core/session/)
    "tests/unit/reading/test_reader.py",
    "tests/unit/projection/test_context.py",
    "tests/unit/reading/test_migration.py",
    "tests/hostile/test_hostile.py",
    "tests/oracle/test_oracle_corpus.py",
    "tests/app/test_app.py",
]
TESTS: dict[str, list[str]] = {
    "core/reading/lines.py": ["tests/unit/reading/test_reader.py", "tests/hostile/test_hostile.py"],
    "core/reading/records.py": [
        "tests/unit/reading/test_reader.py",
        "tests/unit/projection/test_context.py",
        "tests/hostile/test_hostile.py",
        "tests/oracle/test_oracle_corpus.py",
    ],
    "core/session/session.py": SESSION_TESTS,
    "core/session/state.py": SESSION_TESTS,
    "core/session/ingest.py": SESSION_TESTS,
    "core/session/refresh.py": SESSION_TESTS,
    "core/session/read_back.py": SESSION_TESTS,
    "core/projection/context.py": [
        "tests/unit/projection/test_context.py",
        "tests/oracle/test_pi_answers.py",
        "tests/hostile/test_hostile.py",
        "tests/oracle/test_oracle_corpus.py",
        "tests/cli/test_cli.py",
    ],
    "core/writing/fork.py": [
        "tests/oracle/test_pi_answers.py",
        "tests/app/test_actions.py",
        "tests/oracle/test_oracle_corpus.py",
        "tests/hostile/test_hostile.py",
    ],
    "core/listing/summary.py": [
        "tests/unit/listing/test_store.py",
        "tests/oracle/test_pi_answers.py",
        "tests/hostile/test_hostile.py",
        "tests/oracle/test_oracle_corpus.py",
    ],
    "core/listing/store.py": [
        "tests/unit/listing/test_store.py",
        "tests/hostile/test_hostile.py",
        "tests/unit/live/test_watch.py",
    ],
    "core/live/watch.py": [
        "tests/unit/live/test_watch.py",
        "tests/hostile/test_hostile.py",
        "tests/app/test_app.py",
    ],
    "core/search/picker.py": ["tests/unit/search/test_search.py", "tests/app/test_app.py"],
    "core/session/outline.py": [
        "tests/cli/test_cli.py",
        "tests/app/test_actions.py",
        "tests/app/test_pane_keys.py",
        "tests/app/test_app.py",
    ],
    "core/writing/export.py": ["tests/app/test_actions.py"],
    "core/writing/append.py": ["tests/app/test_actions.py", "tests/hostile/test_hostile.py"],
    "core/writing/trash.py": ["tests/app/test_actions.py"],
    "core/listing/sidebar_rows.py": [
        "tests/app/test_pane_keys.py",
        "tests/app/test_app.py",
        "tests/snapshot/test_snapshots.py",
    ],
    "core/common/text.py": ["tests/app/test_app.py", "tests/snapshot/test_snapshots.py"],
    "core/common/jsvalues.py": [
        "tests/unit/reading/test_reader.py",
        "tests/unit/search/test_search.py",
        "tests/oracle/test_pi_answers.py",
        "tests/unit/listing/test_store.py",
        "tests/oracle/test_oracle_corpus.py",
    ],
    "core/common/jsonout.py": ["tests/cli/test_cli.py", "tests/oracle/test_oracle_corpus.py"],
    "core/reading/entries.py": ["tests/unit/reading/test_entries.py", "tests/app/test_app.py"],
    "core/common/locations.py": [
        "tests/unit/listing/test_store.py",
        "tests/app/test_settings.py",
        "tests/app/test_actions.py",
    ],
    "core/writing/resume.py": ["tests/app/test_settings.py"],
    "core/common/problems.py": ["tests/unit/reading/test_reader.py", "tests/cli/test_cli.py"],
}
DEFAULT_TESTS = APP_TESTS
FULL_SUITE = ["tests"]  # what a survivor of its own tests must also pass (pyproject's addopts apply)
FILES = sorted(str(p.relative_to(ROOT)) for d in ("core", "widgets") for p in (ROOT / d).glob("*.py"))


@dataclass(frozen=True)
class Mutant:
    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    original: str
    replacement: str
    kind: str

    def describe(self) -> str:
        before = " ".join(self.original.split())
        after = " ".join(self.replacement.split())
        return f"{self.file}:{self.line} {self.kind}: {before[:70]}  ->  {after[:70]}"


# ---------------------------------------------------------------------- making mutants
FLIP = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
# Boundary shifts: the off-by-one kind of comparison bug.
SHIFT = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}
SIMPLE_STATEMENTS = (
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Return,
    ast.Raise,
    ast.Break,
    ast.Continue,
)
REPAINTS = {"refresh", "refresh_row", "refresh_lines"}
RENDER_FLAGS = {
    "animate",
    "immediate",
    "force",
    "highlight",
    "markup",
    "no_wrap",
    "pad",
    "end",
    "exist_ok",
    "strict",
    "frozen",
    "gc",
    "kw_only",
    "array_like",
    "show",
    "priority",
    "auto_scroll",
    "can_focus",
}


class Collector(ast.NodeVisitor):
    def __init__(self, file: str, source: str) -> None:
        self.file = file
        self.source = source
        self.lines = source.splitlines()
        self.found: list[Mutant] = []
        self.in_function = 0  # statements are dropped only inside functions (not definitions)

    # -- helpers
    def add(self, node: ast.AST, replacement: str, kind: str) -> None:
        if not hasattr(node, "end_lineno"):
            return
        line = self.lines[node.lineno - 1]  # type: ignore[attr-defined]
        if line.rstrip().endswith("# no mutate"):
            return
        original = ast.get_source_segment(self.source, node)
        if original is None or original == replacement:
            return
        self.found.append(
            Mutant(
                self.file,
                node.lineno,  # type: ignore[attr-defined]
                node.col_offset,  # type: ignore[attr-defined]
                node.end_lineno,
                node.end_col_offset,  # type: ignore[attr-defined]
                original,
                replacement,
                kind,
            )
        )

    def expression(self, node: ast.expr) -> str:
        return f"({ast.unparse(node)})"

    # -- what is left alone: docstrings, type-only code, annotations, f-strings, asserts
    def visit_If(self, node: ast.If) -> None:
        if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return
        self.add(node.test, self.expression(ast.UnaryOp(ast.Not(), node.test)), "negate condition")
        self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        self.add(node.test, self.expression(ast.UnaryOp(ast.Not(), node.test)), "negate condition")
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self.add(node.test, self.expression(ast.UnaryOp(ast.Not(), node.test)), "negate condition")
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        return  # positions inside f-strings are not reliable; they are messages anyway

    def visit_Assert(self, node: ast.Assert) -> None:
        return

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_arg(self, node: ast.arg) -> None:
        return

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        for decorator in node.decorator_list:
            self.visit(decorator)
        self.in_function += 1
        self.body(node.body)
        self.in_function -= 1

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.body(node.body)

    def visit_Module(self, node: ast.Module) -> None:
        self.body(node.body)

    def body(self, statements: list[ast.stmt]) -> None:
        for i, statement in enumerate(statements):
            if i == 0 and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # a docstring
            self.visit(statement)

    def visit(self, node: ast.AST) -> None:
        statement = isinstance(node, SIMPLE_STATEMENTS) and self.in_function
        if statement and not _is_docstring(node) and not _is_repaint(node):
            self.add(node, "pass", "drop statement")
        super().visit(node)

    def visit_keyword(self, node: ast.keyword) -> None:
        if node.arg in RENDER_FLAGS and isinstance(node.value, ast.Constant):
            return
        self.visit(node.value)

    # -- expressions
    def visit_Compare(self, node: ast.Compare) -> None:
        for i, op in enumerate(node.ops):
            for table, kind in ((FLIP, "flip comparison"), (SHIFT, "shift boundary")):
                other = table.get(type(op))
                if other is None:
                    continue
                ops = list(node.ops)
                ops[i] = other()
                self.add(node, self.expression(ast.Compare(node.left, ops, node.comparators)), kind)
        for comparator in node.comparators:
            for item in (
                comparator.elts if isinstance(comparator, ast.Tuple | ast.Set | ast.List) else [comparator]
            ):
                if (
                    isinstance(item, ast.Constant)
                    and isinstance(item.value, str)
                    and item.value.isidentifier()
                ):
                    self.add(item, repr(item.value + "_mutant"), "change compared string")
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        self.add(node, self.expression(ast.BoolOp(other, node.values)), "swap and/or")
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.LShift | ast.RShift):
            return  # sizes and masks
        if isinstance(node.op, ast.Add | ast.Sub):
            if isinstance(node.right, ast.Constant) and node.right.value == 1:
                self.add(node, self.expression(node.left), "off by one (drop the 1)")
            if not (isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
                other = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
                self.add(node, self.expression(ast.BinOp(node.left, other, node.right)), "swap + and -")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, bool):
            self.add(node, repr(not value), "flip boolean")
        elif isinstance(value, int) and -1 <= value <= 2 and self.in_function:
            # small integers in code are indexes, counts and boundaries; larger ones (and
            # module constants) are sizes and limits, where one more is no bug
            self.add(node, repr(value + 1), "off by one (constant + 1)")


def _is_repaint(node: ast.AST) -> bool:
    call = node.value if isinstance(node, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in REPAINTS


def _is_docstring(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def mutants_of(file: str) -> list[Mutant]:
    source = (ROOT / file).read_text()
    collector = Collector(file, source)
    collector.visit(ast.parse(source))
    unique: dict[tuple[int, int, int, int, str], Mutant] = {}
    for mutant in collector.found:
        key = (mutant.line, mutant.col, mutant.end_line, mutant.end_col, mutant.replacement)
        unique.setdefault(key, mutant)
    compiles = []
    for mutant in unique.values():
        try:
            compile(apply(source, mutant), file, "exec")
        except SyntaxError:
            continue
        compiles.append(mutant)
    return compiles


def apply(source: str, mutant: Mutant) -> str:
    lines = source.splitlines(keepends=True)
    start = sum(len(line) for line in lines[: mutant.line - 1]) + _byte_col(
        lines[mutant.line - 1], mutant.col
    )
    end = sum(len(line) for line in lines[: mutant.end_line - 1]) + _byte_col(
        lines[mutant.end_line - 1], mutant.end_col
    )
    return source[:start] + mutant.replacement + source[end:]


def _byte_col(line: str, col: int) -> int:
    """ast columns count UTF-8 bytes; str indexes count characters."""
    return len(line.encode("utf-8")[:col].decode("utf-8", "replace"))


# ---------------------------------------------------------------------- running them
@dataclass
class Result:
    mutant: Mutant
    status: str  # killed, survived, timeout
    seconds: float
    failed: str = ""


class Workspace:
    """A private copy of the repository, importable as `pi_sessions`."""

    def __init__(self) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="pi-sessions-mutation-"))
        self.root = self.base / "pi_sessions"
        ignore = shutil.ignore_patterns(
            ".venv", ".git", "build", "*.egg-info", "__pycache__", ".pytest_cache"
        )
        shutil.copytree(ROOT, self.root, ignore=ignore)
        self.env = {**os.environ, "PYTHONPATH": str(self.base), "PYTHONDONTWRITEBYTECODE": "1"}
        self.env.pop("PI_SESSIONS_DEBUG", None)

    def run(self, tests: list[str], timeout: float) -> tuple[str, float, str]:
        started = time.monotonic()
        cache = self.base / "xdg-cache"
        env = {**self.env, "XDG_CACHE_HOME": str(cache), "XDG_CONFIG_HOME": str(self.base / "xdg-config")}
        command = [str(PYTHON), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not e2e", *tests]
        try:
            out = subprocess.run(
                command, cwd=self.root, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return "timeout", time.monotonic() - started, ""
        failed = next((line for line in out.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))), "")
        status = "survived" if out.returncode == 0 else ("killed" if out.returncode == 1 else "error")
        return status, time.monotonic() - started, failed

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


def _importers(file: str) -> list[str]:
    """The test files that import the module of `file` by name, smallest first."""
    package, name = file.removesuffix(".py").split("/")
    direct = re.compile(
        rf"pi_sessions\.{package}\.{name}\b|from pi_sessions\.{package} import [^\n]*\b{name}\b"
    )
    found = [p for p in (ROOT / "tests").glob("test_*.py") if direct.search(p.read_text())]
    return [str(p.relative_to(ROOT)) for p in sorted(found, key=lambda p: (p.stat().st_size, p.name))]


def tests_for(file: str) -> list[str]:
    """The tests run first on a mutant of `file` (the whole suite runs only on a survivor): its
    hand-picked tests, then every test file that imports it; a widget also gets the app's."""
    chosen = [*TESTS.get(file, []), *_importers(file)]
    if file.startswith("widgets/") or not chosen:
        chosen += DEFAULT_TESTS
    return list(dict.fromkeys(chosen))


def sample(mutants: dict[str, list[Mutant]], size: int | None, seed: int) -> list[Mutant]:
    every = [m for file in sorted(mutants) for m in mutants[file]]
    if size is None or size >= len(every):
        return every
    rng = random.Random(seed)
    # Every file gets its share (at least one), the rest in proportion to its mutants.
    chosen: list[Mutant] = []
    for file in sorted(mutants):
        share = max(1, round(size * len(mutants[file]) / len(every)))
        chosen += rng.sample(mutants[file], min(share, len(mutants[file])))
    rng.shuffle(chosen)
    return sorted(chosen[:size], key=lambda m: (m.file, m.line, m.col))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="source files (default: every file of core/ and widgets/)")
    parser.add_argument("--sample", type=int, help="how many mutants to run (default: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (one copy of the repo each)")
    parser.add_argument("--timeout-factor", type=float, default=4.0, help="x the tests' normal duration")
    parser.add_argument("--list", action="store_true", help="only count the mutants")
    parser.add_argument(
        "--quick", action="store_true", help="a mutant its own tests miss survives (no whole-suite run)"
    )
    parser.add_argument("--report", metavar="MARKDOWN", help="also write the figure and the survivors here")
    parser.add_argument(
        "--again", metavar="RESULTS", help="run only the mutants that survived in this earlier --out file"
    )
    parser.add_argument(
        "--only",
        metavar="FILE:LINE",
        action="append",
        help="run only the mutants of this line (repeatable; e.g. a survivor, again, after its new test)",
    )
    parser.add_argument("--kind", help="with --only: only mutants whose kind or replacement contains this")
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "pi-sessions-mutation.json"))
    ns = parser.parse_args(argv)

    files = [f.removeprefix("./") for f in ns.files] or FILES
    if ns.only:
        lines = {(where.rpartition(":")[0], int(where.rpartition(":")[2])) for where in ns.only}
        files = sorted({file for file, _ in lines})
    by_file = {file: mutants_of(file) for file in files}
    if ns.list:
        for file, found in by_file.items():
            print(f"{len(found):5}  {file}")
        print(f"{sum(len(v) for v in by_file.values()):5}  in all")
        return 0
    if ns.again:
        wanted = {
            (r["file"], r["line"], r["original"], r["replacement"])
            for r in json.loads(Path(ns.again).read_text())
            if r["status"] == "survived"
        }
        by_file = {
            f: [m for m in v if (m.file, m.line, m.original, m.replacement) in wanted]
            for f, v in by_file.items()
        }
    if ns.only:
        by_file = {
            f: [
                m
                for m in v
                if (m.file, m.line) in lines and (not ns.kind or ns.kind in f"{m.kind} {m.replacement}")
            ]
            for f, v in by_file.items()
        }
    chosen = sample({f: v for f, v in by_file.items() if v}, ns.sample, ns.seed)
    print(
        f"mutation: {len(chosen)} mutants of {sum(len(v) for v in by_file.values())}, {ns.jobs} job(s)",
        flush=True,
    )

    # What the run works from, read once before the copies are made: the tree may change
    # while the run goes on (new tests being written) without muddling it.
    sources = {file: (ROOT / file).read_text() for file in {m.file for m in chosen}}
    tests = {file: tests_for(file) for file in sources}
    workspaces = [Workspace() for _ in range(max(1, ns.jobs))]
    free = list(workspaces)
    baseline: dict[str, float] = {}
    measured: dict[str, float] = {}  # each test file timed once without a mutant
    try:
        for file in sorted({m.file for m in chosen}):
            for test in tests[file]:
                if test not in measured:
                    status, seconds, failed = workspaces[0].run([test], timeout=1800)
                    if status != "survived":
                        print(f"mutation: {test} fails without a mutant ({failed}); fix that first")
                        return 2
                    measured[test] = seconds
                    print(f"mutation: baseline {seconds:5.1f} s  {test}", flush=True)
            baseline[file] = sum(measured[test] for test in tests[file])

        suite: list[float] = []  # the whole suite's time without a mutant, once a survivor needs it

        def one(mutant: Mutant) -> Result:
            workspace = free.pop()
            target = workspace.root / mutant.file
            source = sources[mutant.file]
            try:
                target.write_text(apply(source, mutant))
                timeout = max(30.0, baseline[mutant.file] * ns.timeout_factor)
                status, seconds, failed = workspace.run(tests[mutant.file], timeout)
                if status == "survived" and not ns.quick:
                    # Its own tests missed it: it survives only if the whole suite does too.
                    if not suite:
                        target.write_text(source)
                        clean, took, failed = workspace.run(FULL_SUITE, timeout=3600)
                        if clean != "survived":
                            raise SystemExit(f"mutation: the suite fails without a mutant ({failed})")
                        suite.append(took)
                        target.write_text(apply(source, mutant))
                    status, more, failed = workspace.run(FULL_SUITE, max(60.0, suite[0] * ns.timeout_factor))
                    seconds += more
                    if status != "survived":
                        failed = failed or status
                        status = {"killed": "killed by the suite"}.get(status, status)
            finally:
                target.write_text(source)
                free.append(workspace)
            return Result(mutant, status, seconds, failed)

        results: list[Result] = []
        with ThreadPoolExecutor(max_workers=len(workspaces)) as pool:
            for i, result in enumerate(pool.map(one, chosen), 1):
                results.append(result)
                mark = {
                    "killed": "killed  ",
                    "killed by the suite": "killed* ",
                    "timeout": "timeout ",
                    "survived": "SURVIVED",
                    "error": "error   ",
                }
                print(f"[{i}/{len(chosen)}] {mark[result.status]} {result.mutant.describe()}", flush=True)
    finally:
        for workspace in workspaces:
            workspace.close()

    report(results, Path(ns.out), Path(ns.report) if ns.report else None, argv_line(ns))
    return 0


def argv_line(ns: argparse.Namespace) -> str:
    parts = [".venv/bin/python tests/mutation/run.py"]
    if ns.sample:
        parts.append(f"--sample {ns.sample}")
    parts.append(f"--seed {ns.seed}")
    if ns.jobs != 1:
        parts.append(f"--jobs {ns.jobs}")
    if ns.quick:
        parts.append("--quick")
    parts += [f"--only {where}" for where in ns.only or []]
    return " ".join(parts + ns.files)


def report(results: list[Result], out: Path, markdown: Path | None = None, command: str = "") -> None:
    killed = [r for r in results if r.status != "survived"]
    survivors = [r for r in results if r.status == "survived"]
    print()
    print("survivors:" if survivors else "no survivors")
    for r in survivors:
        print(f"  {r.mutant.describe()}")
    per_file: dict[str, list[int]] = {}
    for r in results:
        counts = per_file.setdefault(r.mutant.file, [0, 0])
        counts[0] += r.status != "survived"
        counts[1] += 1
    print()
    for file, (k, n) in sorted(per_file.items()):
        print(f"  {file:28} {k:4}/{n:<4} killed")
    rate = 100 * len(killed) / len(results) if results else 0.0
    print(
        f"\nmutation: {len(killed)} of {len(results)} mutants killed ({rate:.1f}%), {len(survivors)} survived"
    )
    out.write_text(
        json.dumps(
            [
                {**asdict(r.mutant), "status": r.status, "seconds": r.seconds, "failed": r.failed}
                for r in results
            ],
            indent=1,
        )
    )
    print(f"mutation: results in {out}")
    if markdown is not None:
        markdown.write_text(_markdown(results, killed, survivors, command))
        print(f"mutation: figure and survivors in {markdown}")


def _markdown(results: list[Result], killed: list[Result], survivors: list[Result], command: str) -> str:
    """The figure and the survivors, for docs/ (why each survivor is equivalent or out of reach
    is added by hand under its line)."""
    rate = 100 * len(killed) / len(results) if results else 0.0
    lines = [
        "# Mutation sample",
        "",
        f"`{command}` ({time.strftime('%Y-%m-%d')}): **{len(killed)} of {len(results)} planted bugs"
        f" caught ({rate:.1f}%)**, {len(survivors)} survived.",
        "",
        "Killed by the file's own tests unless marked *suite* (its own tests missed it, the whole"
        " suite did not).",
        "",
        "| | mutant | caught by |",
        "|---|---|---|",
    ]
    for r in results:
        where = "**survived**" if r.status == "survived" else (r.failed.split(" - ")[0] or r.status)
        if r.status == "killed by the suite":
            where = f"*suite*: {where}"
        cell = r.mutant.describe().replace("|", "\\|")
        lines.append(f"| {'✗' if r.status == 'survived' else '✓'} | `{cell}` | {where.replace('|', '/')} |")
    lines += ["", "## Survivors", ""]
    lines += [f"- `{r.mutant.describe()}`" for r in survivors] or ["None."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
