"""Debugging tools behind ``shoal simulate``, ``replay`` and ``explain``: the services' pure
cores run on manifests or on the recorded log."""
