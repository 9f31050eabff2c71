"""Tests of core/listing: the store, its cache, the listing's figures."""
