"""Shared fixtures for the brain/director tests: the demo room's knowledge base and talk track."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "configs" / "demo"


@pytest.fixture
def kb_dir(tmp_path: Path) -> Path:
    """A private copy of the demo KB (tests may edit it)."""
    dst = tmp_path / "kb"
    shutil.copytree(DEMO / "kb", dst)
    return dst


@pytest.fixture
def talk_file() -> Path:
    return DEMO / "talk.yaml"
