"""Shoal scheduler service."""
