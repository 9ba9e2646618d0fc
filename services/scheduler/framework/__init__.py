"""The session framework: statuses, extension points, registry, statement and session."""
