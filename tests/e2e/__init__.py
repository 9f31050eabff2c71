"""The installed command in a real terminal (tmux)."""
