"""The shared PostgreSQL store: push session files, read them back (psycopg imported in functions only)."""
