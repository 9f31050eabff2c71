"""Pictures of the screen compared with the approved SVGs."""
