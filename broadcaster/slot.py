"""A room's place on air: the Room running now, content applied live, a media change handed over with rollback.

The one owner of "what runs in this room", used by the daemon for inline rooms and by a worker process for its
room, so a reload does the same thing whichever way the room runs.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from broadcaster.config import RoomConfig
from broadcaster.room import Room
from broadcaster.show import content_changes

log = logging.getLogger(__name__)

# The room sections whose change needs a new media path (a new encoder, new sinks, a new avatar): the stream
# is republished and the recording goes on in a new file. Everything else applies live (show.CONTENT_KEYS).
MEDIA_KEYS = ("video", "audio", "outputs", "avatar")


def media_changes(old: RoomConfig, new: RoomConfig) -> list[str]:
    return new.changed(old, MEDIA_KEYS)


class RoomSlot:
    """Holds one room: `room` is the Room on air now (a media hand-over replaces it). Changes are serialized."""

    def __init__(self, cfg: RoomConfig, *, paced: bool = True, state_dir: Path | None = None, drain_s: float = 5.0):
        self.paced = paced
        self.state_dir = state_dir
        self.drain_s = drain_s  # how long a hand-over lets the old room finish its sentence (shutdown_grace_s)
        self.room = self._build(cfg)
        self._lock = asyncio.Lock()

    @property
    def id(self) -> str:
        return self.room.id

    @property
    def cfg(self) -> RoomConfig:
        return self.room.cfg

    def _build(self, cfg: RoomConfig) -> Room:
        return Room(cfg, paced=self.paced, state_dir=self.state_dir)

    async def start(self) -> None:
        async with self._lock:
            await self.room.start()

    async def stop(self, grace_s: float) -> None:
        async with self._lock:
            await self.room.stop(grace_s)

    async def apply(self, cfg: RoomConfig) -> str:
        """Applies a new config for this room: "cut" (media handed over), "live" (content applied in the
        running room) or "keep". Raises when it cannot apply; the room on air then runs its old config."""
        async with self._lock:
            if media_changes(self.room.cfg, cfg):
                await self._hand_over(cfg)
                return "cut"
            if content_changes(self.room.cfg, cfg):
                await self.room.apply(cfg)
                return "live"
            return "keep"

    async def _hand_over(self, cfg: RoomConfig) -> None:
        """A media change: the new room is prepared while the old one streams on; then the old one stops
        publishing (its sentence finished, its sinks closed: one publisher per stream key, one writer per
        file) and the new one goes live, its first frame a keyframe. Should the new room fail to go live,
        the old config is put back on air."""
        old = self.room
        new_room = self._build(cfg)
        await new_room.prepare()  # raises: nothing was touched, the old room streams on
        await old.stop_media(self.drain_s)
        if old.show is not None and new_room.show is not None:
            new_room.show.adopt(old.show)  # after the old show stopped taking chat: nothing lands in between
        try:
            await new_room.go_live()
        except Exception:
            log.exception("room %s: the new media path failed to start; putting the old config back", old.id)
            await new_room.stop(self.drain_s)
            back = self._build(old.cfg)
            await back.start()
            self.room = back
            await old.close_content()
            raise
        self.room = new_room
        await old.close_content()
