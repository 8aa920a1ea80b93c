"""Kuaishou web live chat connector (WebSocket protobuf feed)."""
