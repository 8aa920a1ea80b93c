"""The audit log: one JSON line per spoken line (what was said, from which source and passages, and why), rotated.

Rotation is by size: when the next record would push the file past `rotate_bytes`, path → path.1,
path.1 → path.2, … and the oldest beyond `keep` is deleted. Writes are small, appended and flushed
line by line under a lock, so several tasks or threads may share one log.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any


class AuditLog:
    def __init__(self, path: str | os.PathLike[str], rotate_bytes: int = 20 * 1024 * 1024, keep: int = 5) -> None:
        if rotate_bytes <= 0 or keep < 1:
            raise ValueError("rotate_bytes must be positive and keep at least 1")
        self.path = Path(path)
        self.rotate_bytes = rotate_bytes
        self.keep = keep
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - held open for the log's life
        self._size = self._fh.tell()

    def write(self, record: dict[str, Any]) -> None:
        record = dict(record)
        record.setdefault("time", time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}Z")
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        data = line.encode("utf-8")
        with self._lock:
            if self._fh.closed:
                raise ValueError("audit log is closed")
            if self._size and self._size + len(data) > self.rotate_bytes:
                self._rotate()
            self._fh.write(line)
            self._fh.flush()
            self._size += len(data)

    def _rotate(self) -> None:
        self._fh.close()
        oldest = self.path.with_name(f"{self.path.name}.{self.keep}")
        if oldest.exists():
            oldest.unlink()
        for i in range(self.keep - 1, 0, -1):
            src = self.path.with_name(f"{self.path.name}.{i}")
            if src.exists():
                src.replace(self.path.with_name(f"{self.path.name}.{i + 1}"))
        self.path.replace(self.path.with_name(f"{self.path.name}.1"))
        self._fh = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        self._size = 0

    @classmethod
    def from_config(cls, cfg: Any, room: str) -> AuditLog | None:
        """The room's audit log from an AuditConfig (None when no path is set); `{room}` in the path is filled."""
        if cfg.path is None:
            return None
        path = Path(str(cfg.path).replace("{room}", room))
        return cls(path, cfg.rotate_bytes, cfg.keep)

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()

    def __enter__(self) -> AuditLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
