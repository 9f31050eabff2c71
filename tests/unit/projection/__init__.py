"""Tests of core/projection: context, tokens, costs, compare, file knowledge."""
