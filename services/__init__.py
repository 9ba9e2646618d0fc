"""Shoal services: one package per service; only services.cli imports them all."""
