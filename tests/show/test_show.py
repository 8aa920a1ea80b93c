"""The Show on a real stage (small canvas, no outputs, espeak): one line-end per line, only what was heard is
audited, a skip stops producing the rest, and the next line follows."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from broadcaster.config import RoomConfig
from broadcaster.room import Room
from broadcaster.stage import StageEventKind
from tests.support.media import CardAvatar


async def _until(pred, timeout: float, what: str) -> None:
    end = asyncio.get_running_loop().time() + timeout
    while not pred():
        assert asyncio.get_running_loop().time() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def _room(tmp_path: Path) -> Room:
    cfg = RoomConfig.model_validate({
        "id": "show", "video": {"width": 160, "height": 96, "fps": 25}, "outputs": [],
        "audit": {"path": str(tmp_path / "audit.jsonl")},
    })
    return Room(cfg, avatar=CardAvatar(160, 96))


def _line_ends(room: Room) -> list:
    ends: list = []
    room.port.subscribe(lambda ev: ends.append(ev) if ev.kind == StageEventKind.LINE_END else None)
    return ends


def _audit(tmp_path: Path) -> list[dict]:
    path = tmp_path / "audit.jsonl"
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


async def test_lines_end_once_each_and_follow_back_to_back(tmp_path: Path) -> None:
    room = _room(tmp_path)
    await room.start()
    ends = _line_ends(room)
    try:
        first = room.say("第一句话。第二句话。")
        second = room.say("下一位。")
        await _until(lambda: len(ends) >= 2, 30, "both lines spoken")
        assert [e.line.id for e in ends] == [first["id"], second["id"]]
        assert [e.played for e in ends] == [2, 1] and not any(e.cut for e in ends)
        assert room.spoken_lines == 2
        await _until(lambda: len(_audit(tmp_path)) == 2, 5, "two audit records")
        records = _audit(tmp_path)
        assert [r["sentences"] for r in records] == [["第一句话。", "第二句话。"], ["下一位。"]]
        trails = room.show.trails
        assert all(t.on_stage is not None and t.first_pcm is not None for t in trails)
    finally:
        await room.stop()


async def test_skip_cuts_at_the_boundary_and_audits_only_what_was_heard(tmp_path: Path) -> None:
    room = _room(tmp_path)
    await room.start()
    ends = _line_ends(room)
    try:
        said = room.say("这是第一句比较长的话，大家听好了。第二句不该被听到。第三句也不该。")
        await _until(lambda: room.stage.current is not None, 30, "the line speaking")
        assert room.skip() >= 1
        await _until(lambda: len(ends) == 1, 15, "the cut line's end")
        assert ends[0].line.id == said["id"] and ends[0].cut and ends[0].played == 1
        await _until(lambda: len(_audit(tmp_path)) == 1, 5, "the audit record")
        assert _audit(tmp_path)[0]["sentences"] == ["这是第一句比较长的话，大家听好了。"]
        assert room.show.director.snapshot()["script_outstanding"] == 0
        nxt = room.say("还在直播。")
        await _until(lambda: len(ends) == 2, 15, "the next line")
        assert ends[1].line.id == nxt["id"] and ends[1].played == 1
    finally:
        await room.stop()


async def test_a_super_chat_deleted_while_its_answer_plays_is_cut_at_the_sentence(tmp_path: Path) -> None:
    from danmaku.event import Event, EventKind, User

    room = _room(tmp_path)
    await room.start()
    ends = _line_ends(room)
    try:
        room.show.offer(Event("bilibili", "show", EventKind.SUPER_CHAT, User("7", "大白"), "主播能介绍一下这个杯子吗",
                              30_000, extra={"sc_id": "sc-1"}))
        await _until(lambda: room.stage.current is not None, 30, "the super chat's answer speaking")
        line = room.stage.current.line
        assert line.event is not None and line.event.extra["sc_id"] == "sc-1"
        room.show.offer(Event("bilibili", "show", EventKind.SYSTEM, None, "", extra={"type": "sc_delete",
                                                                                        "ids": ["sc-1"]}))
        await _until(lambda: any(e.line.id == line.id for e in ends), 15, "the answer's end")
        end = next(e for e in ends if e.line.id == line.id)
        assert end.cut and end.played == 1  # the sentence on air finished; nothing after it was said
    finally:
        await room.stop()
