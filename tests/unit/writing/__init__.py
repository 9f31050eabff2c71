"""Tests of core/writing: clipboard, trash."""
