"""Shoal binder service."""
