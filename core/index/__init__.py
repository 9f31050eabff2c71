"""The local index of every session (SQLite): file touches and commands across sessions."""
