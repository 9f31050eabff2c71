"""pi-sessions: browse, understand and resume the sessions of the pi coding agent."""

__version__ = "0.1.0"
