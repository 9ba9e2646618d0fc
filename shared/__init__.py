"""Shoal common library: models, quantities, events, bus, config, logging, metrics, runtime."""
