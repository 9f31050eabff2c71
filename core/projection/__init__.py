"""What the model saw at an entry, and every figure derived from it: tokens, window, costs, files."""
