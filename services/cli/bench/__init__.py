"""Benchmarks behind ``shoal bench``: each measures one part (or the whole system) as deployed."""
