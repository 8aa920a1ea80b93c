"""Shared per-host services: what is loaded once per host (a TTS voice, the neural face) and used by every room.

Pieces (each module's docstring says more):
  config.py   ServicesConfig: daemon.services (socket dir, batching per kind, restart backoff, arena size)
  service.py  ServiceSpec (what to run, keyed by its params), Service (load + run_batch), Request, Result,
              PROVIDERS (which functions list the services a config needs)
  host.py     the service process: socket, handshake, batching across clients, deadlines, stats
  protocol.py JSON headers on a unix socket + memfd shared-memory arenas for arrays
  client.py   ServiceClient: a room's async connection (lazy connect, reconnect, fail fast)
  manager.py  HostServices: the daemon's supervisor of service processes, env for rooms, /metrics
  tts.py      the first user: a shared Piper/Coqui voice

A new kind of service: subclass Service in a module (load / run_batch), add a provider function
`specs(config) -> list[ServiceSpec]` to PROVIDERS, and on the room side build the same spec and talk
to `client_for(spec, name=room_id)` (a ServiceClient on $VA_SERVICES_DIR/<kind>-<key>.sock).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from broadcaster.services.client import Reply, ServiceClient, ServiceError, ServiceUnavailable, client_for
    from broadcaster.services.manager import HostServices
    from broadcaster.services.service import ENV_DIR, Request, Result, Service, ServiceSpec, socket_path

_WHERE = {
    "HostServices": "manager", "ServiceClient": "client", "ServiceError": "client", "ServiceUnavailable": "client",
    "Reply": "client", "Request": "service", "Result": "service", "Service": "service", "ServiceSpec": "service",
    "socket_path": "service", "ENV_DIR": "service", "client_for": "client",
}
__all__ = ["ENV_DIR", "HostServices", "Reply", "Request", "Result", "Service", "ServiceClient", "ServiceError",
           "ServiceSpec", "ServiceUnavailable", "client_for", "socket_path"]


def __getattr__(name: str) -> Any:
    # Lazy: importing broadcaster.services.config (the daemon's config) must not pull prometheus or numpy.
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f"broadcaster.services.{_WHERE[name]}"), name)
    raise AttributeError(name)
