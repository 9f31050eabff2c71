"""pi-sessions core: pure Python reading, tree, projection, listing and watching logic.

Nothing here imports textual or rich; widgets render what this package computes.
"""
