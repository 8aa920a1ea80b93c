"""A small real service for the mechanism's tests: scales its input arrays, records batch composition, fails on request.

Loaded by the real host process (factory "tests.services.echosvc:EchoService"); a provider function
lets a test's daemon config ask for it.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from broadcaster.services.service import Request, Result, Service, ServiceSpec

FACTORY = "tests.services.echosvc:EchoService"


class EchoService(Service):
    """Request params: {"scale": float, "sleep_ms": float, "fail": bool}; outputs: each input × scale."""

    kind = "echo"

    def load(self) -> dict[str, Any]:
        time.sleep(float(self.params.get("load_s", 0.0)))  # a model that takes a while to load
        return {"pid": os.getpid(), "tag": self.params.get("tag", "")}

    def run_batch(self, requests: list[Request]) -> list[Result]:
        if any(r.params.get("fail") for r in requests):
            # A poisoned request fails the whole forward pass, as a bad input to a real model would.
            raise ValueError("poisoned request in the batch")
        time.sleep(float(max((r.params.get("sleep_ms", 0) for r in requests), default=0)) / 1000)
        out = []
        for r in requests:
            for i in range(int(r.params.get("parts", 0))):
                r.send([np.full(4, i, np.float32)], {"part": i})
            out.append(Result([np.asarray(a, np.float32) * float(r.params.get("scale", 1.0)) for a in r.inputs],
                              {"n": len(requests), "client": r.client}))
        return out


def echo_spec(**params: Any) -> ServiceSpec:
    return ServiceSpec(kind="echo", factory=FACTORY, params=params)


def specs(config: Any) -> list[ServiceSpec]:
    """Provider: one echo service for every config (tests pass providers=["tests.services.echosvc:specs"])."""
    return [echo_spec(tag="t")]
