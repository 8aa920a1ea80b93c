"""Bilibili connectors: web client and open platform, sharing the packet framing."""
