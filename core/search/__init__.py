"""pi's search rules: queries, texts, matching, hits and excerpts, in one session or across many."""
