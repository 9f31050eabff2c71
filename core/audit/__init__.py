"""What leaked and where: credential-shaped strings in sessions, and their redaction."""
