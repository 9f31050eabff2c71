"""Tests of core/search: pi's matcher, in-session search, the sidebar's search."""
