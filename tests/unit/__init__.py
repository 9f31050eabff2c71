"""Core's wings tested without the app, one folder per wing."""
