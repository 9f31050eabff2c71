"""Tests of core/common: the sanitiser, glyphs, key syntax, the GC pause; the package's shape."""
