"""Shoal jobcontroller service."""
