"""common.devices: the one place every model (asr, llm, embed, tts, face) picks cpu or a GPU."""

from __future__ import annotations

import logging

import pytest

from common.devices import resolve_device


@pytest.mark.parametrize(("requested", "gpus", "device"), [
    ("cpu", 2, "cpu"),
    ("auto", 0, "cpu"),
    ("auto", 1, "cuda:0"),
    ("cuda", 1, "cuda:0"),
    ("cuda:1", 2, "cuda:1"),
    ("cuda:1", 1, "cpu"),  # past the last card
    ("cuda:x", 4, "cpu"),
])
def test_the_device_asked_for_when_it_is_there_else_the_cpu(requested: str, gpus: int, device: str) -> None:
    assert resolve_device(requested, lambda: gpus, what="t") == device


def test_a_broken_driver_reads_as_no_gpu_and_a_fallback_is_logged_once(caplog) -> None:
    def broken() -> int:
        raise RuntimeError("CUDA driver version is insufficient")

    caplog.set_level(logging.INFO)
    assert resolve_device("cuda:0", broken, what="face") == "cpu"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2 and "insufficient" in warnings[0].getMessage() and "face" in warnings[1].getMessage()
    caplog.clear()
    assert resolve_device("auto", lambda: 0, what="asr") == "cpu"
    assert [r.levelno for r in caplog.records] == [logging.INFO], "auto on a CPU host is no warning"
