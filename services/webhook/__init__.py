"""Shoal's admission and conversion webhook: Volcano's, Kueue's and the training operator's
webhooks (``core``), served over HTTPS (``server``) with self-managed certificates (``certs``)."""
