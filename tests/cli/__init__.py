"""The command line, run in-process: every subcommand's output for people and for scripts."""
