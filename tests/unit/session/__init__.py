"""Tests of core/session: the tree, moves along it, what an entry copies."""
