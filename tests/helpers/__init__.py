"""What tests share: session builders, app and command-line drivers, the corpus, hostile text."""
