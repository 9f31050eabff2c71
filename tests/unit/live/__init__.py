"""Tests of core/live: the watcher turning file changes into events."""
