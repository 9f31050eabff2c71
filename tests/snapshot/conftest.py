"""The snapshot tests' fixtures: the pinned demo and an app over it (tests/helpers/snapshot.py)."""

from tests.helpers.snapshot import demo_app, pinned

__all__ = ["demo_app", "pinned"]
