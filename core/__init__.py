"""pi-sessions core: pure Python, in wings that import only the wings below them.

writing > search | live > projection | listing > session > reading > common (pyproject's
import contracts enforce the order, and that nothing here imports textual or rich).
"""
