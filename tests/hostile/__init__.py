"""Hostile input: nothing a session, a settings file or a page sends may hang, crash or reach the terminal raw."""
