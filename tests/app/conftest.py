"""The app tests' shared fixtures: `bin_dir`, a PATH of stand-in tools (tests/helpers/stand_ins.py)."""

from tests.helpers.stand_ins import bin_dir

__all__ = ["bin_dir"]
