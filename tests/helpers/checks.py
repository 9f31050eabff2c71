"""Small checks that also tell the type checker what a test already knows."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def known(value: T | None) -> T:
    """`value`, which must not be None (a summary, a leaf, a report the test expects)."""
    assert value is not None
    return value
