"""Fixtures for the director tests: a small talk track of their own (the demo's wording may change)."""

from __future__ import annotations

from pathlib import Path

import pytest

TALK = """\
variables: {product: 保温杯}
segments:
  - name: opening
    once: true
    lines: ["大家好，欢迎来到直播间！"]
  - name: pitch
    lines: ["这款{product}能保温十二个小时。", "容量五百毫升，带着刚刚好。"]
"""


@pytest.fixture
def talk_file(tmp_path: Path) -> Path:
    path = tmp_path / "talk.yaml"
    path.write_text(TALK, encoding="utf-8")
    return path
