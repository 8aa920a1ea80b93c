"""Audit log rotation and the talk track's schedule (once, loop, every_s, time-of-day, variables)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from broadcaster.brain.audit import AuditLog
from broadcaster.director.talk import TalkTrack, TalkTrackError


def test_audit_log_writes_json_lines_and_rotates(tmp_path: Path) -> None:
    path = tmp_path / "audit" / "room.jsonl"
    log = AuditLog(path, rotate_bytes=2048, keep=3)
    for i in range(100):
        log.write({"room": "r", "i": i, "text": "你好" * 10})
    log.close()
    files = sorted(p.name for p in path.parent.iterdir())
    assert files == ["room.jsonl", "room.jsonl.1", "room.jsonl.2", "room.jsonl.3"]
    for p in path.parent.iterdir():
        assert p.stat().st_size <= 2048
        for line in p.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            assert rec["room"] == "r" and "time" in rec
    newest = [json.loads(x)["i"] for x in path.read_text(encoding="utf-8").splitlines()]
    assert newest[-1] == 99
    # Reopening appends to the current file.
    log2 = AuditLog(path, rotate_bytes=2048, keep=3)
    log2.write({"i": 100})
    log2.close()
    assert json.loads(path.read_text(encoding="utf-8").splitlines()[-1])["i"] == 100
    with pytest.raises(ValueError):
        log2.write({"i": 101})


def test_demo_talk_track_schedule(talk_file: Path) -> None:
    t = TalkTrack.load(talk_file, {"promo": "今晚买一送一"})
    noon = dt.time(12, 0)
    got = [t.next(float(i), noon) for i in range(6)]
    assert got[0][0] == "opening" and got[0][1].endswith("暖暖保温杯。")  # {product}, in one of its ways
    assert [g[0] for g in got[1:]] == ["pitch", "pitch", "pitch", "interact", "pitch"]
    assert "今晚买一送一" in got[3][1] and "169元" not in got[3][1]  # config overrides the file's variable
    # The reminder is due every 300 s (its clock starts at the first call).
    assert t.next(301.0, noon)[0] == "reminder"
    assert t.next(302.0, noon)[0] != "reminder"
    # The night segment joins the loop only inside its window (which wraps midnight).
    seen = {t.next(400.0 + i, dt.time(23, 30))[0] for i in range(8)}
    assert "night" in seen
    seen = {t.next(500.0 + i, noon)[0] for i in range(8)}
    assert "night" not in seen


@pytest.mark.parametrize(
    ("data", "msg"),
    [
        ({}, "segments"),
        ({"segments": [{"lines": []}]}, "lines"),
        ({"segments": [{"lines": ["a"], "between": ["25:00"]}]}, "between"),
        ({"segments": [{"lines": ["a"], "every_s": -1}]}, "every_s"),
        ({"segments": [{"lines": ["a"], "loop": True}]}, "unknown"),
    ],
)
def test_bad_talk_track_errors_name_the_problem(data: dict, msg: str) -> None:
    with pytest.raises(TalkTrackError, match=msg):
        TalkTrack.from_dict(data, "talk.yaml")


def test_unknown_variables_are_left_as_written() -> None:
    t = TalkTrack.from_dict({"segments": [{"lines": ["{nope} and {x}"]}], "variables": {"x": "1"}})
    assert t.next(0.0, dt.time(12))[1] == "{nope} and 1"


def test_audit_log_from_config(tmp_path: Path) -> None:
    from broadcaster.brain.config import AuditConfig

    assert AuditLog.from_config(AuditConfig(), "r1") is None
    log = AuditLog.from_config(AuditConfig(path=tmp_path / "audit/{room}.jsonl", rotate_bytes=4096, keep=2), "r1")
    assert log is not None and log.path == tmp_path / "audit" / "r1.jsonl"
    assert log.rotate_bytes == 4096 and log.keep == 2
    log.close()
