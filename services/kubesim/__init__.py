"""Shoal kubesim service."""
