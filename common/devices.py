"""Which device a model loads on (cpu | cuda | cuda:N | auto), falling back to the CPU with one log line."""

from __future__ import annotations

import logging
from collections.abc import Callable

log = logging.getLogger(__name__)


def resolve_device(requested: str, gpu_count: Callable[[], int], *, what: str) -> str:
    """The device to load on. auto and cuda mean cuda:0; a GPU that is not there (no CUDA, a broken driver,
    an index past the last card) means the CPU, logged: info for auto, a warning when a GPU was asked for."""
    if requested == "cpu":
        return "cpu"
    try:
        count = int(gpu_count())
    except Exception as exc:  # a broken CUDA install reads as "no GPU"
        log.warning("%s: checking for a GPU failed: %s", what, exc)
        count = 0
    want = "cuda:0" if requested in ("auto", "cuda") else requested
    head, _, index = want.partition(":")
    if head == "cuda" and index.isdigit() and int(index) < count:
        return want
    if requested == "auto":
        log.info("%s: no GPU available, running on the CPU", what)
    else:
        log.warning("%s: %s requested but %d GPU(s) usable; falling back to the CPU", what, requested, count)
    return "cpu"


def torch_gpu_count() -> int:
    """CUDA devices torch can use (0 without CUDA)."""
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0
