"""Every session under a folder, listed as pi lists them, cached, and shaped into sidebar rows."""
