"""Twitch chat connector (IRC over WebSocket)."""
