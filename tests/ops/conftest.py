"""Fixtures for the ops tests (the helpers live in ops_support, importable by the test modules)."""

from ops_support import abstract_notify_socket, notify_socket

__all__ = ["abstract_notify_socket", "notify_socket"]
