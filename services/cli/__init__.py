"""Shoal cli service."""
