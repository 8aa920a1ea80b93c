"""`tail`: a room's events and source health as JSON lines; config mistakes exit 2 with a clear message."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
from pathlib import Path

import aiohttp

from danmaku.cli import add_commands, run_tail
from danmaku.event import Event, EventKind, User


def _config(tmp_path: Path, sources: str) -> Path:
    p = tmp_path / "va.yaml"
    p.write_text(f"rooms:\n  - id: demo\n    sources:\n{sources}", encoding="utf-8")
    return p


async def test_tail_prints_events_and_health(tmp_path: Path) -> None:
    rec = tmp_path / "chat.jsonl"
    rows = [Event("bilibili", "x", EventKind.COMMENT, User("1", "甲"), f"第{i}条").to_json() for i in range(3)]
    rec.write_text("\n".join(json.dumps({**r, "t": i * 0.01}, ensure_ascii=False) for i, r in enumerate(rows)),
                   encoding="utf-8")
    cfg = _config(tmp_path, f"      - type: replay\n        path: {rec}\n        speed: 0\n")
    out, err = io.StringIO(), io.StringIO()
    code = await asyncio.wait_for(run_tail(str(cfg), "demo", out=out, err=err), 10)
    assert code == 0, err.getvalue()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    events = [x for x in lines if "kind" in x]
    health = [x["health"] for x in lines if "health" in x]
    assert [e["text"] for e in events] == ["第0条", "第1条", "第2条"]
    assert all(e["room"] == "demo" and e["platform"] == "bilibili" for e in events)
    assert health[0]["source"] == "replay" and health[0]["connected"] is True
    assert health[-1]["connected"] is False


async def test_tail_webhook_until_stopped(tmp_path: Path) -> None:
    cfg = _config(tmp_path, "      - type: webhook\n        name: hook\n        port: 0\n        token: tk\n")
    out = io.StringIO()
    stop = asyncio.Event()
    task = asyncio.create_task(run_tail(str(cfg), "demo", out=out, stop=stop))
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


async def test_tail_config_errors(tmp_path: Path) -> None:
    err = io.StringIO()
    assert await run_tail(str(tmp_path / "missing.yaml"), "demo", err=err) == 2
    assert "file not found" in err.getvalue()
    cfg = _config(tmp_path, "      - type: bilibili_web\n        room_id: -1\n")
    err = io.StringIO()
    assert await run_tail(str(cfg), "demo", err=err) == 2
    assert "room_id" in err.getvalue()
    cfg = _config(tmp_path, "      - type: replay\n        path: /dev/null\n")
    err = io.StringIO()
    assert await run_tail(str(cfg), "nope", err=err) == 2
    assert "no room 'nope'" in err.getvalue()


def test_add_commands_registers_tail() -> None:
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["tail", "-c", "x.yaml", "room1"])
    assert (args.config, args.room) == ("x.yaml", "room1") and callable(args.func)
