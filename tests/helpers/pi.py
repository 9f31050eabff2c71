"""Where the tests find the installed command, the pi package and the oracle's pi 1.6.0."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "pi-package"
COMMAND = REPO / ".venv" / "bin" / "pi-sessions"
# The oracle's pi (../shared/oracle after its setup.sh), beside the repository or beside the
# worktrees' folder.
ORACLES = [REPO.parent / "shared" / "oracle", REPO.parent.parent / "shared" / "oracle"]
PI = next((o / "pi" for o in ORACLES if (o / "node_modules/@earendil-works/pi-coding-agent").is_dir()), None)
