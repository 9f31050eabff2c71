"""The one place that knows a session line: bytes to records, bodies, growth, migration."""
