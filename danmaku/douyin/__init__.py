"""Douyin connectors: webcast WebSocket (unofficial) and the official open-platform data push."""
