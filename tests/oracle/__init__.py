"""Our results against pi 1.6.0's own, file by file of the corpus."""
