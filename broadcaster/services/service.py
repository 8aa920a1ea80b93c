"""What a shared service is: its spec (what to load, how to batch), the Service class it implements, Request/Result.

A service is a class with `load()` and `run_batch(requests) -> results` (each either a plain method,
run on the service's one worker thread, or a coroutine, awaited on its event loop). The host process
(broadcaster.services.host) does everything else: the socket, shared memory, gathering requests of
every client into batches (max_batch / max_wait_ms, round-robin across clients), deadlines,
cancellation, and isolating a failing request (a batch that raises is re-run one request at a
time, so one bad request fails alone).

Which services a daemon runs comes from PROVIDERS: "module:function" paths, each a function
`(broadcaster.config.Config) -> list[ServiceSpec]` that reads the rooms' configs. A room computes
the same spec from its own config and so finds the same socket: `socket_path(dir, spec)`.

A new kind, in full (service side, provider, room side):

    class Upper(Service):                                   # broadcaster/services/upper.py
        kind = "upper"
        def load(self): self.model = load_model(self.params["path"]); return {"version": self.model.v}
        def run_batch(self, requests):                      # 1..max_batch items, several rooms mixed
            out = self.model(np.stack([r.inputs[0] for r in requests]))     # one forward pass
            return [Result([o], {"ok": True}) for o in out]                 # one Result per request, in order
    def specs(config):                                      # add "broadcaster.services.upper:specs" to PROVIDERS
        return [ServiceSpec(kind="upper", factory="broadcaster.services.upper:Upper", params={"path": "/m"})]
    # in a room: reply = await client_for(spec, name=room_id).call({}, [frame], timeout_s=0.2, items=1)
    # reply.outputs[0] is the array; ServiceUnavailable (dead/restarting) or ServiceError (this request failed)
"""

from __future__ import annotations

import hashlib
import importlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

# Functions listing the services a config needs. A new kind of service adds its own here.
PROVIDERS: list[str] = ["broadcaster.services.tts:specs", "broadcaster.services.face:specs"]

ENV_DIR = "VA_SERVICES_DIR"  # the env var that tells a room's process where the services' sockets are


class ServiceSpec(BaseModel):
    """One service process: `factory` ("module:Class") built with `params` (JSON), batched as configured.

    Rooms that compute equal (kind, factory, params) share one process: that is the key.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str = Field(pattern=r"^[a-z][a-z0-9_]{0,15}$")  # "tts", "face": picks the batch config
    factory: str = Field(pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    params: dict[str, Any] = Field(default_factory=dict)
    max_batch: int = Field(8, ge=1)
    max_wait_ms: float = Field(5.0, ge=0)
    log_level: str = "info"
    log_format: str = "json"

    @property
    def key(self) -> str:
        blob = json.dumps([self.kind, self.factory, self.params], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.key[:8]}"


def socket_path(dir: Path | str, spec: ServiceSpec) -> Path:
    return Path(dir) / f"{spec.kind}-{spec.key}.sock"


def resolve(path: str) -> Any:
    """"package.module:attr" → the attribute."""
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(eq=False)
class Request:
    """One client's request as a service sees it. `inputs` are read in place from shared memory and are
    valid until run_batch returns (copy what you keep). `send(outputs, meta)` streams a partial answer
    now (from any thread); the Result returned by run_batch is the final one."""

    id: int
    client: str  # the connection's name (the room id)
    params: dict[str, Any]
    inputs: list[np.ndarray]
    deadline: float  # time.monotonic() by which the answer is useful
    arrived: float
    items: int = 1  # what it weighs against max_batch (frames in a face request; 1 for a TTS sentence)
    _send: Callable[[Request, list[np.ndarray], dict[str, Any]], None] | None = field(default=None, repr=False)
    _cancelled: threading.Event = field(default_factory=threading.Event, repr=False)
    _owner: Any = field(default=None, repr=False)  # the host's connection this request came on

    @property
    def cancelled(self) -> bool:
        """True once the client gave up (cancel, disconnect): stop working on it."""
        return self._cancelled.is_set()

    @property
    def expired(self) -> bool:
        return time.monotonic() > self.deadline

    def send(self, outputs: list[np.ndarray], meta: dict[str, Any] | None = None) -> None:
        """A partial answer (e.g. one PCM chunk). The arrays must not be changed afterwards."""
        if self._send is not None and not self.cancelled:
            self._send(self, outputs, meta or {})


@dataclass
class Result:
    """The final answer to one request: arrays (through shared memory) and small JSON meta, or an error."""

    outputs: list[np.ndarray] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class Service:
    """Base of a service. Subclasses set `kind` and implement load() and run_batch() (sync or async).

    `load()` returns JSON-able info every client gets at connect (sample rate, model version, …).
    `run_batch()` gets 1..max_batch requests, possibly from several rooms, and returns one Result per
    request in the same order; raising fails the batch, which the host then retries one by one.
    """

    kind: str = "service"

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params

    def load(self) -> Any:
        raise NotImplementedError

    def run_batch(self, requests: list[Request]) -> Any:
        raise NotImplementedError

    def close(self) -> Any:
        """Frees the model (called once at shutdown; sync or async)."""

    def gauges(self) -> dict[str, float]:
        """Extra figures for the daemon's /metrics as va_service_gauge{service, name} (e.g. GPU memory in bytes).
        Called on the host's loop when the daemon polls: keep it cheap and non-blocking."""
        return {}
