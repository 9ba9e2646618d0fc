"""Shoal watcher service."""
