"""The daemon: puts every configured room on air (each in its own worker process, or inline), reloads on SIGHUP
or a changed config file (room by room, never off air), ends cleanly on SIGTERM/SIGINT."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from broadcaster import metrics
from broadcaster.admin import start_admin
from broadcaster.config import MAX_FILE_BYTES, Config, ConfigError, RoomConfig, load_config
from broadcaster.logs import register_secrets, secrets_of
from broadcaster.paths import ensure_room_writable, ensure_writable
from broadcaster.services import HostServices
from broadcaster.show import content_changes
from broadcaster.slot import RoomSlot, media_changes
from broadcaster.supervisor import SparePool, WorkerHandle
from broadcaster.watchdog import Watchdog, update_process_metrics
from broadcaster.worker import RemoteError
from broadcaster.worker import one_line as _one_line

log = logging.getLogger(__name__)

WATCH_EVERY_S = 2.0


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


def _digest(path: Path, rooms: Sequence[RoomConfig] = ()) -> str:
    """The config file's content hash, read through any symlinks (a ConfigMap swaps its `..data` link), and the
    state of every file its rooms name (a words file or talk track edited in place, or in the same ConfigMap)."""
    with open(path, "rb") as f:
        h = hashlib.sha256(f.read(MAX_FILE_BYTES + 1))
    h.update(repr([r.files_now() for r in rooms]).encode())
    return h.hexdigest()


Runner = RoomSlot | WorkerHandle


class Daemon:
    def __init__(self, config: Config, config_path: Path | None = None, *, paced: bool = True):
        self.config = config
        self.config_path = config_path
        self.paced = paced
        self.runners: dict[str, Runner] = {}  # per room: its slot (inline) or its worker's handle
        self._stopped = asyncio.Event()
        self._reload_lock = asyncio.Lock()
        self.admin = None
        self.watchdog = None
        self.stopping = False
        self.last_reload: dict[str, Any] | None = None  # the last reload's result (status, console)
        self._config_hash: str | None = None  # of the file the running config was last loaded from
        self._watched: Sequence[RoomConfig] = config.rooms  # whose named files the watcher also watches
        self._watcher: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[Any]] = set()
        self.services: HostServices | None = None
        workers = config.daemon.workers
        self.spares = SparePool(self._worker_env) if workers.mode == "process" and workers.spare else None

    @property
    def rooms(self) -> Mapping[str, Any]:
        """What the admin API and the watchdog see per room: the Room itself (inline) or its worker's handle."""
        return {rid: r.room if isinstance(r, RoomSlot) else r for rid, r in self.runners.items()}

    def _runner(self, cfg: RoomConfig) -> Runner:
        d = self.config.daemon
        if d.workers.mode == "inline":
            return RoomSlot(cfg, paced=self.paced, state_dir=d.state_dir, drain_s=d.shutdown_grace_s)
        return WorkerHandle(cfg, d, paced=self.paced, secrets=lambda: secrets_of(self.config),
                            env=self._worker_env, stopping=lambda: self.stopping, spares=self.spares)

    def _worker_env(self) -> dict[str, str]:
        """Environment every room worker gets on top of the daemon's (shared host services' addresses)."""
        return self.services.env() if self.services is not None else {}

    async def start(self) -> None:
        # Before anything goes on air: every folder the config makes the daemon write is tried (UnwritablePaths,
        # a ConfigError, names each that fails; `run` prints them and exits 2).
        await asyncio.to_thread(ensure_writable, self.config, self.config_path or "<config>")
        if self.config_path is not None:
            try:
                self._config_hash = await asyncio.to_thread(_digest, self.config_path, self._watched)
            except OSError:
                self._config_hash = None
        # The shared services first: the rooms' voices find them through the environment it sets.
        self.services = HostServices(self.config)
        await self.services.start()
        try:
            await self.services.wait_ready(self.config.daemon.workers.start_timeout_s)
        except Exception as exc:  # a room whose service is late speaks once it is up; never keep rooms off air
            log.warning("shared services not all ready, putting the rooms on air anyway: %s", _one_line(exc))
        runners = [self._runner(cfg) for cfg in self.config.rooms]
        results = await asyncio.gather(*(r.start() for r in runners), return_exceptions=True)
        failed = [(r, e) for r, e in zip(runners, results, strict=True) if isinstance(e, BaseException)]
        if failed:  # nothing half-started stays behind: the rooms that did go on air are stopped again
            grace = self.config.daemon.shutdown_grace_s
            await asyncio.gather(*(r.stop(grace) for r, e in zip(runners, results, strict=True) if e is None),
                                 return_exceptions=True)
            await self.services.stop()
            raise failed[0][1]
        self.runners = {r.id: r for r in runners}
        await self._start_services()
        if self.spares is not None:
            self.spares.fill()

    async def _start_services(self) -> None:
        """Admin API (and operator console), the systemd watchdog, and the config file watcher."""
        self.admin = await start_admin(self, self.config.daemon.admin)
        self.watchdog = Watchdog(self)
        await self.watchdog.start()
        if self.config_path is not None and self.config.daemon.watch_config:
            self._watcher = asyncio.create_task(self._watch_config(), name="config-watcher")

    async def stop(self) -> None:
        self.stopping = True
        if self._watcher is not None:
            self._watcher.cancel()
        if self.watchdog is not None:
            await self.watchdog.stop()
        grace = self.config.daemon.shutdown_grace_s
        await asyncio.gather(*(r.stop(grace) for r in self.runners.values()), return_exceptions=True)
        if self.spares is not None:
            await self.spares.close()
        if self.services is not None:
            await self.services.stop()
        if self.admin is not None:
            await self.admin.stop()
        self._stopped.set()

    async def scrape(self) -> bytes:
        """One /metrics scrape: the daemon's series and every room worker's, merged (see metrics.exposition)."""
        rooms = self.rooms
        update_process_metrics(rooms)
        handles = [r for r in self.runners.values() if isinstance(r, WorkerHandle)]
        if not handles:
            return await asyncio.to_thread(metrics.exposition, [])
        metrics.ROOMS_ON_AIR.set(sum(1 for h in handles if h.status().get("on_air")))
        texts = await asyncio.gather(*(h.metrics_text() for h in handles), return_exceptions=True)
        for h, t in zip(handles, texts, strict=True):
            if isinstance(t, BaseException):  # restarting: its series are missing from this one scrape
                log.debug("room %s: no metrics this scrape: %s", h.id, t)
        return await asyncio.to_thread(metrics.exposition, [t for t in texts if isinstance(t, str)])

    async def _load(self, *, remember: bool = False) -> Config:
        if self.config_path is None:
            raise ConfigError("<none>", "", "the daemon was started without a config file")
        path = self.config_path

        def read() -> Config:
            if remember:
                # Before parsing: a file refused once is not tried again by the watcher until it changes.
                try:
                    self._config_hash = _digest(path, self._watched)
                except OSError:
                    self._config_hash = None
            new = load_config(path)
            if remember:
                self._watched = new.rooms  # from now on the watcher watches the files the new rooms name
                if self._config_hash is not None:
                    self._config_hash = _digest(path, new.rooms)
            return new

        new = await asyncio.to_thread(read)
        # Before anything is built or logged: a secret that first appears in this file is masked from here on,
        # whichever way the reload came (SIGHUP, the API, the file watcher) and whether or not it applies.
        register_secrets(secrets_of(new))
        return new

    async def _watch_config(self) -> None:
        """Polls the config file's content (not its mtime: a ConfigMap update is an atomic symlink swap) and
        reloads exactly as SIGHUP does when it changed."""
        assert self.config_path is not None
        unreadable = False
        while True:
            await asyncio.sleep(WATCH_EVERY_S)
            try:
                digest = await asyncio.to_thread(_digest, self.config_path, self._watched)
            except OSError as exc:
                if not unreadable:
                    log.warning("config file %s cannot be read (%s); keeping the running config", self.config_path,
                                exc.strerror or exc)
                unreadable = True
                continue
            unreadable = False
            if digest != self._config_hash and not self.stopping:
                log.info("config file %s changed; reloading", self.config_path)
                await self._reload_logged()

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
        Per room (in its worker, or inline): content changes apply inside the running room; a media change is
        prepared completely beside the old room, which keeps streaming, and only then handed over; a room
        whose change cannot be prepared keeps running as it was (listed under "failed" with why), and its
        running config stays the old one, so the next reload of a fixed file applies it. Rooms added or
        removed start or stop their workers; the other rooms' workers are not touched."""
        async with self._reload_lock:
            new = await self._load(remember=True)
            grace = new.daemon.shutdown_grace_s
            result: dict[str, Any] = {"added": [], "removed": [], "changed": [], "live": [], "unchanged": [],
                                      "failed": {}}
            running = {r.id: r for r in self.config.rooms}  # what each room runs after this reload
            if self.services is not None:
                # Services for both configs while the rooms change over (a room that keeps its old config
                # still needs its old voice); the unused ones stop once the reload is done.
                await self.services.update(new.model_copy(update={"rooms": [*new.rooms, *self.config.rooms]}))
            for plan in plan_reload(self.config, new):
                rid = plan.room
                cfg = next((r for r in new.rooms if r.id == rid), None)
                try:
                    if plan.action == "remove":
                        await self.runners.pop(rid).stop(grace)
                        running.pop(rid, None)
                        result["removed"].append(rid)
                    elif plan.action == "add":
                        assert cfg is not None
                        await self._probe(new, cfg)
                        runner = self._runner(cfg)
                        await runner.start()
                        self.runners[rid] = runner
                        running[rid] = cfg
                        result["added"].append(rid)
                    elif plan.action in ("cut", "live"):
                        assert cfg is not None
                        if plan.action == "cut":
                            await self._probe(new, cfg)
                        await self.runners[rid].apply(cfg)
                        running[rid] = cfg
                        result["changed" if plan.action == "cut" else "live"].append(rid)
                    else:
                        result["unchanged"].append(rid)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    why = _one_line(exc)
                    result["failed"][rid] = why
                    log.error("reload: room %s keeps its running config: %s could not be applied: %s", rid,
                              ", ".join(plan.sections) or plan.action, why,
                              exc_info=not isinstance(exc, ConfigError | RemoteError))
            order = [r.id for r in new.rooms if r.id in running] + [rid for rid in running
                                                                      if rid not in {r.id for r in new.rooms}]
            rooms = [running[rid] for rid in order]
            restart = self._daemon_changes(new)
            # The daemon's own settings apply at its next start; until then it runs (and reports) the old ones.
            self.config = new.model_copy(update={"rooms": rooms, "daemon": self.config.daemon if restart else new.daemon})
            if restart:
                result["needs_restart"] = restart
            self.last_reload = result
            if self.services is not None:
                await self.services.update(self.config)
            if self.watchdog is not None:
                # Kept in systemd's STATUS until a reload applies everything: a room still on its old config
                # is something the operator must see, not a line lost in the journal.
                self.watchdog.note("last reload: " + describe_reload(result) if result["failed"] else "")
            (log.warning if result["failed"] else log.info)("config %s", describe_reload(result))
            return result

    async def _probe(self, new: Config, cfg: RoomConfig) -> None:
        """A room about to start or have its media handed over: the folders it will write are tried first, so a
        broken one is refused (the room keeps its running config) instead of retried on air forever."""
        prefix = f"rooms[{next(i for i, r in enumerate(new.rooms) if r.id == cfg.id)}]"
        await asyncio.to_thread(ensure_room_writable, cfg, self.config_path or "<config>", prefix)

    async def run(self) -> int:
        """Runs until SIGTERM/SIGINT; returns the process exit code."""
        loop = asyncio.get_running_loop()
        stop_requested = asyncio.Event()

        def request_stop() -> None:
            # At once, in the handler: a worker that got the same SIGTERM (systemd signals the whole cgroup)
            # and exits must not be restarted.
            self.stopping = True
            stop_requested.set()

        loop.add_signal_handler(signal.SIGTERM, request_stop)
        loop.add_signal_handler(signal.SIGINT, request_stop)
        loop.add_signal_handler(signal.SIGHUP, self._sighup)
        await self.start()
        await stop_requested.wait()
        log.info("stopping: finishing the current sentence")
        await self.stop()
        return 0

    def _sighup(self) -> None:
        task = asyncio.ensure_future(self._reload_logged())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _reload_logged(self) -> None:
        """SIGHUP or a changed file: reload, and tell systemd (STATUS) what truly happened."""
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
