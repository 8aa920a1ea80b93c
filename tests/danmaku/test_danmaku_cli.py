"""`tail`: a room's events and source health as JSON lines; config mistakes exit 2 with a clear message."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import logging
import re
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from pydantic import TypeAdapter

from danmaku.cli import add_commands, run_tail, setup_logging, tail_main
from danmaku.config import SourceConfig
from danmaku.event import Event, EventKind, User

_SOURCES = TypeAdapter(list[SourceConfig])


def _sources(*cfgs: dict[str, Any]) -> list[Any]:
    return _SOURCES.validate_python(list(cfgs))


async def test_tail_prints_events_and_health(tmp_path: Path) -> None:
    rec = tmp_path / "chat.jsonl"
    rows = [Event("bilibili", "x", EventKind.COMMENT, User("1", "甲"), f"第{i}条").to_json() for i in range(3)]
    rec.write_text("\n".join(json.dumps({**r, "t": i * 0.01}, ensure_ascii=False) for i, r in enumerate(rows)),
                   encoding="utf-8")
    cfgs = _sources({"type": "replay", "path": str(rec), "speed": 0})
    out, err = io.StringIO(), io.StringIO()
    code = await asyncio.wait_for(run_tail(cfgs, "demo", out=out, err=err), 10)
    assert code == 0, err.getvalue()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    events = [x for x in lines if "kind" in x]
    health = [x["health"] for x in lines if "health" in x]
    assert [e["text"] for e in events] == ["第0条", "第1条", "第2条"]
    assert all(e["room"] == "demo" and e["platform"] == "bilibili" for e in events)
    assert health[0]["source"] == "replay" and health[0]["connected"] is True
    assert health[-1]["connected"] is False


async def test_tail_webhook_until_stopped(tmp_path: Path) -> None:
    cfgs = _sources({"type": "webhook", "name": "hook", "port": 0, "token": "tk"})
    out = io.StringIO()
    stop = asyncio.Event()
    task = asyncio.create_task(run_tail(cfgs, "demo", out=out, stop=stop))
    for _ in range(200):
        if '"connected": true' in out.getvalue():
            break
        await asyncio.sleep(0.02)
    health = [json.loads(x)["health"] for x in out.getvalue().splitlines() if '"health"' in x]
    endpoint = health[-1]["endpoint"]
    assert health[-1]["source"] == "hook" and endpoint.startswith("http://127.0.0.1:") and endpoint.endswith("/events")
    async with aiohttp.ClientSession() as s, s.post(endpoint,
                                                   json={"kind": "follow", "user": {"name": "新粉"}},
                                                   headers={"Authorization": "Bearer tk"}) as r:
        assert r.status == 200
    for _ in range(200):
        if '"follow"' in out.getvalue():
            break
        await asyncio.sleep(0.02)
    stop.set()
    assert await asyncio.wait_for(task, 5) == 0
    events = [json.loads(x) for x in out.getvalue().splitlines() if '"kind"' in x]
    assert events and events[0]["kind"] == "follow" and events[0]["user"]["name"] == "新粉"


def test_tail_config_errors_come_from_the_loader(capsys: pytest.CaptureFixture[str]) -> None:
    def broken(path: str, room: str) -> list[Any]:
        raise ValueError(f"{path}: no room {room!r} (rooms: demo)")

    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command"), broken)
    args = parser.parse_args(["tail", "-c", "va.yaml", "nope"])
    assert args.func(args) == 2
    assert "error: va.yaml: no room 'nope'" in capsys.readouterr().err


async def test_tail_without_sources_exits_2() -> None:
    err = io.StringIO()
    assert await run_tail([], "demo", err=err) == 2
    assert "no sources" in err.getvalue()


def test_daemon_cli_loader_for_tail(tmp_path: Path) -> None:
    from broadcaster.cli import _tail_sources

    with pytest.raises(ValueError, match="file not found"):
        _tail_sources(str(tmp_path / "missing.yaml"), "demo")
    bad = tmp_path / "bad.yaml"
    bad.write_text("rooms:\n  - id: demo\n    sources:\n      - type: bilibili_web\n        room_id: -1\n")
    with pytest.raises(ValueError, match="room_id"):
        _tail_sources(str(bad), "demo")
    good = tmp_path / "va.yaml"
    good.write_text("rooms:\n  - id: demo\n    sources:\n      - type: replay\n        path: /dev/null\n")
    with pytest.raises(ValueError, match="no room 'nope'"):
        _tail_sources(str(good), "nope")
    assert [s.type for s in _tail_sources(str(good), "demo")] == ["replay"]


def test_tail_warnings_carry_time_and_level() -> None:
    root = logging.getLogger()
    saved, level = root.handlers[:], root.level
    root.handlers = []
    try:
        stream = io.StringIO()
        setup_logging(stream)
        logging.getLogger("danmaku").warning("demo/bilibili_web: connection closed by the server")
        line = stream.getvalue().strip()
        assert re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} WARNING danmaku: demo/bilibili_web: connection closed",
                        line), line
    finally:
        for h in root.handlers:
            if h not in saved:
                root.removeHandler(h)
        root.handlers, root.level = saved, level


def test_add_commands_registers_tail() -> None:
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command"), lambda path, room: [])
    args = parser.parse_args(["tail", "-c", "x.yaml", "room1"])
    assert (args.config, args.room) == ("x.yaml", "room1") and args.func is tail_main
