"""Following files while pi writes them: the watcher, what a change means for a pane, who is writing."""
