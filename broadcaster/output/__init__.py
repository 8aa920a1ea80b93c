"""Encoding once and muxing to every sink."""
