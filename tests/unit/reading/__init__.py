"""Tests of core/reading: lines, records, entries, bodies, growth, migration."""
