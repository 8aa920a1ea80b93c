"""The daemon: puts every configured room on air, reloads on SIGHUP, ends cleanly on SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import logging
import signal
from pathlib import Path

from broadcaster.admin import start_admin
from broadcaster.config import Config, ConfigError, load_config
from broadcaster.room import Room
from broadcaster.watchdog import Watchdog

log = logging.getLogger(__name__)


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

    async def reload(self) -> dict:
        """Re-reads the config file: adds, removes and restarts changed rooms; unchanged rooms keep streaming."""
        async with self._reload_lock:
            if self.config_path is None:
                raise ConfigError("<none>", "", "the daemon was started without a config file")
            new = await asyncio.to_thread(load_config, self.config_path)
            old = {r.id: r for r in self.config.rooms}
            fresh = {r.id: r for r in new.rooms}
            result: dict[str, list[str]] = {"added": [], "removed": [], "changed": [], "unchanged": []}
            for rid in old.keys() - fresh.keys():
                await self.rooms.pop(rid).stop(new.daemon.shutdown_grace_s)
                result["removed"].append(rid)
            for rid, cfg in fresh.items():
                if rid not in old:
                    room = self._room(cfg)
                    await room.start()
                    self.rooms[rid] = room
                    result["added"].append(rid)
                elif cfg != old[rid]:
                    await self.rooms[rid].stop(new.daemon.shutdown_grace_s)
                    room = self._room(cfg)
                    await room.start()
                    self.rooms[rid] = room
                    result["changed"].append(rid)
                else:
                    result["unchanged"].append(rid)
            self.config = new
            log.info("config reloaded: %s", result)
            return result

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
        if self.watchdog is not None:
            self.watchdog.reloading()
        summary = "reload failed; the running config stays"
        try:
            result = await self.reload()
            summary = "reloaded: " + ", ".join(f"{k} {','.join(v)}" for k, v in result.items() if v)
        except ConfigError as exc:
            log.error("reload refused, keeping the running config: %s", exc)
        except Exception:
            log.exception("reload failed")
        finally:
            if self.watchdog is not None:
                self.watchdog.reloaded(summary)
