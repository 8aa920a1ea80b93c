"""Shared fixtures: real RTMP servers on loopback."""

from __future__ import annotations

import pytest

from tests.support.servers import FfmpegIngest, NginxRtmp, free_port


@pytest.fixture
def ffmpeg_ingest(tmp_path):
    made: list[FfmpegIngest] = []

    def make(port: int | None = None, name: str = "ingest.flv") -> FfmpegIngest:
        ingest = FfmpegIngest(port or free_port(), tmp_path / name).start()
        made.append(ingest)
        return ingest

    yield make
    for ingest in made:
        ingest.kill()


@pytest.fixture
def nginx_rtmp(tmp_path):
    server = NginxRtmp(tmp_path / "nginx").start()
    yield server
    server.stop()
