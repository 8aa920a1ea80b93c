"""Config of the shared per-host services (daemon.services): socket dir, batching, restart backoff, shared memory."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, model_validator

from common.config import Model

# A unix socket path must fit sun_path (108 bytes on Linux, NUL included); names are "<kind>-<16 hex>.sock".
_MAX_SOCKET_DIR = 107 - len("/tts-0123456789abcdef.sock") - 8


class BatchConfig(Model):
    """How one kind of service gathers requests into a batch."""

    max_batch: int = Field(8, ge=1, le=1024)  # items (TTS sentences, face frames) in one model call
    max_wait_ms: float = Field(5.0, ge=0, le=1000)  # how long the first request of a batch waits for company


class ServicesConfig(Model):
    # Where the services' unix sockets live; None: a private temp dir made for each daemon run.
    socket_dir: Path | None = None
    batch: BatchConfig = BatchConfig()  # default for every kind of service
    # Per kind ("tts", "face", …): replaces `batch` for that kind (e.g. face: {max_batch: 16, max_wait_ms: 15}).
    # TTS waits for no company: its engines say one sentence per call, so waiting would only add latency;
    # sentences that arrive while one is synthesized still form the next batch.
    # The face batches frames (one request each): 16 frames a UNet pass, gathered over at most 15 ms.
    kinds: dict[str, BatchConfig] = Field(default_factory=lambda: {"tts": BatchConfig(max_batch=8, max_wait_ms=0),
                                                                   "face": BatchConfig(max_batch=16, max_wait_ms=15)})
    restart_backoff_s: float = Field(0.5, gt=0, le=60)  # first wait before restarting a service that died
    restart_backoff_max_s: float = Field(30.0, gt=0, le=3600)
    stable_s: float = Field(30.0, gt=0)  # a service up this long has its backoff reset
    # Shared memory each client connection maps, per direction (pages are only used when touched).
    arena_mb: int = Field(64, ge=1, le=4096)
    stats_interval_s: float = Field(2.0, gt=0, le=3600)  # how often the daemon reads each service's counters
    # A service whose batch produces nothing (no partial, no answer) for this long is hung: killed and restarted.
    hang_s: float = Field(120.0, gt=0)
    stop_grace_s: float = Field(5.0, ge=0, le=120)  # SIGTERM → SIGKILL

    @model_validator(mode="after")
    def _fits(self) -> ServicesConfig:
        if self.socket_dir is not None and len(str(self.socket_dir)) > _MAX_SOCKET_DIR:
            raise ValueError(f"services.socket_dir is {len(str(self.socket_dir))} characters long; unix socket "
                             f"paths must stay under 108 bytes, so use a dir of at most {_MAX_SOCKET_DIR}")
        if self.restart_backoff_max_s < self.restart_backoff_s:
            raise ValueError("services.restart_backoff_max_s must be ≥ restart_backoff_s")
        return self

    def batching(self, kind: str) -> BatchConfig:
        return self.kinds.get(kind, self.batch)
