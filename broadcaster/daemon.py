"""The daemon: puts every configured room on air, reloads on SIGHUP (room by room, never off air), ends cleanly
on SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from broadcaster.admin import start_admin
from broadcaster.config import Config, ConfigError, RoomConfig, load_config
from broadcaster.logs import register_secrets, secrets_of
from broadcaster.room import Room
from broadcaster.show import content_changes
from broadcaster.watchdog import Watchdog

log = logging.getLogger(__name__)

# The room sections whose change needs a new media path (a new encoder, new sinks, a new avatar): the stream
# is republished and the recording goes on in a new file. Everything else applies live (show.CONTENT_KEYS).
MEDIA_KEYS = ("video", "audio", "outputs", "avatar")


def media_changes(old: RoomConfig, new: RoomConfig) -> list[str]:
    return [k for k in MEDIA_KEYS if getattr(old, k) != getattr(new, k)]


@dataclass
class RoomPlan:
    """What a reload would do to one room."""

    room: str
    action: str  # "add" | "remove" | "live" (content applied in the running room) | "cut" (media handed over) | "keep"
    sections: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"room": self.room, "action": self.action, "sections": self.sections,
                "cuts_stream": self.action in ("add", "remove", "cut")}


def plan_reload(old: Config, new: Config) -> list[RoomPlan]:
    """Per room, what applying `new` over the running `old` would do (for the reload and its --dry-run)."""
    before = {r.id: r for r in old.rooms}
    plans = [RoomPlan(rid, "remove") for rid in before if rid not in {r.id for r in new.rooms}]
    for cfg in new.rooms:
        prev = before.get(cfg.id)
        if prev is None:
            plans.append(RoomPlan(cfg.id, "add"))
        elif media := media_changes(prev, cfg):
            plans.append(RoomPlan(cfg.id, "cut", media + content_changes(prev, cfg)))
        elif content := content_changes(prev, cfg):
            plans.append(RoomPlan(cfg.id, "live", content))
        else:
            plans.append(RoomPlan(cfg.id, "keep"))
    return plans


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text and not isinstance(exc, ConfigError) else (
        text[0] if text else type(exc).__name__)


class Daemon:
    def __init__(self, config: Config, config_path: Path | None = None, *, paced: bool = True):
        self.config = config
        self.config_path = config_path
        self.paced = paced
        self.rooms: dict[str, Room] = {}
        self._stopped = asyncio.Event()
        self._reload_lock = asyncio.Lock()
        self.admin = None
        self.watchdog = None
        self.last_reload: dict[str, Any] | None = None  # the last reload's result (status, console)

    def _room(self, cfg) -> Room:
        return Room(cfg, paced=self.paced, state_dir=self.config.daemon.state_dir)

    async def start(self) -> None:
        rooms = [self._room(cfg) for cfg in self.config.rooms]
        await asyncio.gather(*(room.start() for room in rooms))
        self.rooms = {room.id: room for room in rooms}
        await self._start_services()

    async def _start_services(self) -> None:
        """Admin API (and operator console) and the systemd watchdog."""
        self.admin = await start_admin(self, self.config.daemon.admin)
        self.watchdog = Watchdog(self)
        await self.watchdog.start()

    async def stop(self) -> None:
        if self.watchdog is not None:
            await self.watchdog.stop()
        grace = self.config.daemon.shutdown_grace_s
        await asyncio.gather(*(room.stop(grace) for room in self.rooms.values()), return_exceptions=True)
        if self.admin is not None:
            await self.admin.stop()
        self._stopped.set()

    async def _load(self) -> Config:
        if self.config_path is None:
            raise ConfigError("<none>", "", "the daemon was started without a config file")
        new = await asyncio.to_thread(load_config, self.config_path)
        # Before anything is built or logged: a secret that first appears in this file is masked from here on,
        # whichever way the reload came (SIGHUP, the API) and whether or not it applies.
        register_secrets(secrets_of(new))
        return new

    async def plan(self) -> dict[str, Any]:
        """The dry run: per room, what a reload of the file as it is now would apply live and what would cut."""
        new = await self._load()
        return {"dry_run": True, "rooms": [p.to_json() for p in plan_reload(self.config, new)],
                "daemon_changes_need_restart": self._daemon_changes(new)}

    def _daemon_changes(self, new: Config) -> list[str]:
        old = self.config.daemon
        # daemon.redis_url reaches the rooms through their own redis_url (the config copies it in).
        return [k for k in type(old).model_fields if k != "redis_url" and getattr(old, k) != getattr(new.daemon, k)]

    async def reload(self) -> dict[str, Any]:
        try:
            return await self._reload()
        except ConfigError as exc:
            if self.watchdog is not None:
                self.watchdog.note(f"last reload refused, the running config stays: {exc}")
            raise

    async def _reload(self) -> dict[str, Any]:
        """Re-reads the config file and applies it room by room. A broken file (ConfigError) changes nothing.
        Per room: content changes apply inside the running room; a media change is prepared completely
        beside the old room, which keeps streaming, and only then handed over; a room whose change cannot
        be prepared keeps running as it was (listed under "failed" with why), and its running config stays
        the old one, so the next reload of a fixed file applies it."""
        async with self._reload_lock:
            new = await self._load()
            grace = new.daemon.shutdown_grace_s
            result: dict[str, Any] = {"added": [], "removed": [], "changed": [], "live": [], "unchanged": [],
                                      "failed": {}}
            running = {r.id: r for r in self.config.rooms}  # what each room runs after this reload
            for plan in plan_reload(self.config, new):
                rid = plan.room
                cfg = next((r for r in new.rooms if r.id == rid), None)
                try:
                    if plan.action == "remove":
                        await self.rooms.pop(rid).stop(grace)
                        running.pop(rid, None)
                        result["removed"].append(rid)
                    elif plan.action == "add":
                        assert cfg is not None
                        room = self._room(cfg)
                        await room.start()
                        self.rooms[rid] = room
                        running[rid] = cfg
                        result["added"].append(rid)
                    elif plan.action == "cut":
                        assert cfg is not None
                        await self._hand_over(rid, cfg, grace)
                        running[rid] = cfg
                        result["changed"].append(rid)
                    elif plan.action == "live":
                        assert cfg is not None
                        await self.rooms[rid].apply(cfg)
                        running[rid] = cfg
                        result["live"].append(rid)
                    else:
                        result["unchanged"].append(rid)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    why = _one_line(exc)
                    result["failed"][rid] = why
                    log.error("reload: room %s keeps its running config: %s could not be applied: %s", rid,
                              ", ".join(plan.sections) or plan.action, why, exc_info=not isinstance(exc, ConfigError))
            order = [r.id for r in new.rooms if r.id in running] + [rid for rid in running
                                                                      if rid not in {r.id for r in new.rooms}]
            rooms = [running[rid] for rid in order]
            self.config = new.model_copy(update={"rooms": rooms})
            restart = self._daemon_changes(new)
            if restart:
                result["needs_restart"] = restart
            self.last_reload = result
            if self.watchdog is not None:
                # Kept in systemd's STATUS until a reload applies everything: a room still on its old config
                # is something the operator must see, not a line lost in the journal.
                self.watchdog.note("last reload: " + describe_reload(result) if result["failed"] else "")
            (log.warning if result["failed"] else log.info)("config %s", describe_reload(result))
            return result

    async def _hand_over(self, rid: str, cfg: RoomConfig, grace: float) -> None:
        """A media change: the new room is prepared while the old one streams on; then the old one stops
        publishing (its sentence finished, its sinks closed: one publisher per stream key, one writer per
        file) and the new one goes live, its first frame a keyframe. Should the new room fail to go live,
        the old config is put back on air."""
        old = self.rooms[rid]
        new_room = self._room(cfg)
        await new_room.prepare()  # raises: nothing was touched, the old room streams on
        await old.stop_media(grace)
        if old.show is not None and new_room.show is not None:
            new_room.show.adopt(old.show)  # after the old show stopped taking chat: nothing lands in between
        try:
            await new_room.go_live()
        except Exception:
            log.exception("room %s: the new media path failed to start; putting the old config back", rid)
            await new_room.stop(grace)
            back = self._room(old.cfg)
            await back.start()
            self.rooms[rid] = back
            await old.close_content()
            raise
        self.rooms[rid] = new_room
        await old.close_content()

    async def run(self) -> int:
        """Runs until SIGTERM/SIGINT; returns the process exit code."""
        loop = asyncio.get_running_loop()
        stop_requested = asyncio.Event()
        loop.add_signal_handler(signal.SIGTERM, stop_requested.set)
        loop.add_signal_handler(signal.SIGINT, stop_requested.set)
        loop.add_signal_handler(signal.SIGHUP, lambda: asyncio.ensure_future(self._reload_logged()))
        await self.start()
        await stop_requested.wait()
        log.info("stopping: finishing the current sentence")
        await self.stop()
        return 0

    async def _reload_logged(self) -> None:
        """SIGHUP: reload, and tell systemd (STATUS) what truly happened."""
        if self.watchdog is not None:
            self.watchdog.reloading()
        summary = "reload failed; the running config stays"
        try:
            result = await self.reload()
            summary = describe_reload(result)
        except ConfigError as exc:
            summary = f"reload refused, the running config stays: {exc}"
            log.error("reload refused, keeping the running config: %s", exc)
        except Exception as exc:
            summary = f"reload failed, the running config stays: {_one_line(exc)}"
            log.exception("reload failed")
        finally:
            if self.watchdog is not None:
                self.watchdog.reloaded(summary)


def describe_reload(result: dict[str, Any]) -> str:
    """One line for systemd's STATUS and the log: what applied and, truthfully, what did not."""
    labels = {"added": "added", "removed": "removed", "changed": "handed over", "live": "applied live",
              "unchanged": "unchanged"}
    parts = [f"{label} {','.join(result[k])}" for k, label in labels.items() if result.get(k)]
    failed = result.get("failed") or {}
    if failed:
        parts.append("NOT applied (old config stays on air): " + "; ".join(f"{r}: {w}" for r, w in failed.items()))
    if result.get("needs_restart"):
        parts.append("daemon " + ",".join(result["needs_restart"]) + " need a restart")
    return ("reloaded with failures: " if failed else "reloaded: ") + "; ".join(parts)
