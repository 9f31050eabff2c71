"""What acts on files, only when the user asks: append, fork, export, trash, resume, clipboard."""
