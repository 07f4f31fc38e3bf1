"""Embedded default configuration (``default.toml``)."""
