"""The Kuaishou gift catalogue: gift id → name and price in 快币, from the config and an operator's file.

The feed names a gift by id only. The operator keeps the prices in a YAML (or JSON) mapping, re-read when it
changes, so a new gift is priced without a restart:

    # gifts.yaml — Kuaishou gift id: {name, coins (快币 per gift)}
    1: {name: 玫瑰, coins: 1}
    9: {name: 小心心, coins: 1}
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError

from common.config import Model

log = logging.getLogger("danmaku.kuaishou")


class KuaishouGift(Model):
    name: str = ""
    coins: int = Field(ge=0)


def parse_catalogue(data: Any, where: str) -> dict[int, KuaishouGift]:
    """{id: {name, coins}} → gifts; ValueError naming `where`, the key and what was expected."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected a mapping of gift id → {{name, coins}}")
    out: dict[int, KuaishouGift] = {}
    for key, value in data.items():
        if isinstance(key, bool) or not (isinstance(key, int) or (isinstance(key, str) and key.isascii() and key.isdigit())):
            raise ValueError(f"{where}: key {key!r}: expected a gift id (a number)")
        try:
            out[int(key)] = KuaishouGift.model_validate(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"]) or "value"
            raise ValueError(f"{where}: key {key}: {field}: {first['msg']} (expected {{name, coins}})") from None
    return out


def load_catalogue(path: Path) -> dict[int, KuaishouGift]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not YAML/JSON ({str(exc).splitlines()[0]})") from exc
    return parse_catalogue(data, str(path))


class GiftCatalogue:
    """Looks gifts up; `refresh()` re-reads the file when it changed (at most every `check_s`), off the loop.
    A broken edit keeps the last good catalogue and says so in the log."""

    def __init__(self, inline: dict[int, KuaishouGift], path: Path | None, check_s: float) -> None:
        self.inline = inline
        self.path = path
        self.check_s = check_s
        self.gifts: dict[int, KuaishouGift] = dict(inline)
        self._mtime: float | None = None
        self._checked = float("-inf")
        self.reloads = 0
        self.last_error = ""

    def get(self, gift_id: int) -> KuaishouGift | None:
        return self.gifts.get(gift_id)

    def _read_if_changed(self) -> dict[int, KuaishouGift] | None:
        assert self.path is not None
        mtime = os.stat(self.path).st_mtime_ns
        if mtime == self._mtime:
            return None
        gifts = load_catalogue(self.path)
        self._mtime = mtime
        return gifts

    async def refresh(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.path is None or (not force and now - self._checked < self.check_s):
            return
        self._checked = now
        try:
            gifts = await asyncio.to_thread(self._read_if_changed)
        except (OSError, ValueError) as exc:
            if str(exc) != self.last_error:
                log.warning("kuaishou gift catalogue: %s; keeping the last good one (%d gifts)", exc, len(self.gifts))
            self.last_error = str(exc)
            return
        if gifts is not None:
            self.gifts = {**self.inline, **gifts}  # the file wins: it is what the operator keeps current
            self.reloads += 1
            self.last_error = ""
