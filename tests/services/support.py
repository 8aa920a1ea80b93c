"""Support for the services tests: a small real service (scales its inputs, fails on request) and an async wait.

EchoService is loaded by the real host process (factory "tests.services.support:EchoService"); the
provider function `specs` lets a test's HostServices ask for it.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from broadcaster.services.service import Request, Result, Service, ServiceSpec

FACTORY = "tests.services.support:EchoService"


class EchoService(Service):
    """Request params: {"scale": float, "sleep_ms": float, "fail": bool, "parts": int, "objects": bool};
    outputs: each input × scale (after `parts` partial answers)."""

    kind = "echo"

    def load(self) -> dict[str, Any]:
        time.sleep(float(self.params.get("load_s", 0.0)))  # a model that takes a while to load
        return {"pid": os.getpid(), "tag": self.params.get("tag", "")}

    def gauges(self) -> dict[str, float]:
        return {"model_bytes": 1234.0}

    def run_batch(self, requests: list[Request]) -> list[Result]:
        if any(r.params.get("fail") for r in requests):
            # A poisoned request fails the whole forward pass, as a bad input to a real model would.
            raise ValueError("poisoned request in the batch")
        time.sleep(float(max((r.params.get("sleep_ms", 0) for r in requests), default=0)) / 1000)
        out = []
        for r in requests:
            for i in range(int(r.params.get("parts", 0))):
                r.send([np.full(4, i, np.float32)], {"part": i})
            if r.params.get("objects"):  # a service bug: an array that cannot cross processes
                out.append(Result([np.array([object()], dtype=object)]))
                continue
            out.append(Result([np.asarray(a, np.float32) * float(r.params.get("scale", 1.0)) for a in r.inputs],
                              {"n": len(requests), "client": r.client, "np_meta": np.float32(0.5)}))
        return out


def echo_spec(**params: Any) -> ServiceSpec:
    return ServiceSpec(kind="echo", factory=FACTORY, params=params)


def specs(config: Any) -> list[ServiceSpec]:
    """Provider: one echo service for every config (tests pass providers=["tests.services.support:specs"])."""
    return [echo_spec(tag="t")]


async def until(predicate: Callable[[], object], timeout_s: float, what: str = "") -> None:
    """Waits (without blocking the loop) until `predicate()` is true; fails the test after `timeout_s`."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout_s
    while not predicate():
        if loop.time() > end:
            raise AssertionError(f"timed out after {timeout_s}s waiting for {what or predicate}")
        await asyncio.sleep(0.05)
