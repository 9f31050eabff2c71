"""One session in memory: its tree, what a refresh changed, and its rows and words."""
