"""`kb index` / `kb query` on a room config that points at the demo knowledge base."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from broadcaster.brain.cli import add_commands
from broadcaster.config import ConfigError


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


@pytest.fixture
def config(tmp_path: Path, kb_dir: Path) -> Path:
    cfg = tmp_path / "anchor.yaml"
    cfg.write_text("rooms:\n  - id: demo\n    brain:\n      kb:\n        dir: kb\n  - id: bare\n", encoding="utf-8")
    return cfg


def test_kb_index_reports_passages(config: Path, capsys) -> None:
    assert _run(["kb", "index", "-c", str(config), "demo"]) == 0
    out = capsys.readouterr().out
    assert "passages from 3 files" in out and "faq.yaml" in out and "policy.md" in out
    assert _run(["kb", "index", "-c", str(config), "demo", "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows and all({"id", "title", "text"} <= set(r) for r in rows)


def test_kb_query_shows_hits_and_the_extractive_answer(config: Path, capsys) -> None:
    assert _run(["kb", "query", "-c", str(config), "demo", "能开发票吗", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["hits"][0]["id"].startswith("policy.md#") and res["hits"][0]["relevant"]
    assert "电子发票" in res["answer"]
    assert _run(["kb", "query", "-c", str(config), "demo", "火箭发射", "-k", "2"]) == 0
    assert "no relevant passage" in capsys.readouterr().out


def test_kb_commands_name_config_mistakes(config: Path) -> None:
    with pytest.raises(ConfigError, match="no room with id 'nope'"):
        _run(["kb", "index", "-c", str(config), "nope"])
    with pytest.raises(ConfigError, match=r"brain\.kb\.dir: not set"):
        _run(["kb", "query", "-c", str(config), "bare", "多少钱"])


@pytest.fixture
def tea_config(tmp_path: Path) -> Path:
    cfg = tmp_path / "tea.yaml"
    kb = Path(__file__).resolve().parent / "redteam" / "kb"
    cfg.write_text(f"rooms:\n  - id: tea\n    brain:\n      kb:\n        dir: {kb}\n    moderation:\n      words: [淘宝]\n",
                   encoding="utf-8")
    return cfg


def test_moderate_prints_the_verdict_and_the_rule(tea_config: Path, capsys) -> None:
    assert _run(["moderate", "-c", str(tea_config), "tea", "W信联系我"]) == 1
    out = capsys.readouterr().out
    assert "blocked" in out and "rule initial" in out and "w信" in out
    assert _run(["moderate", "-c", str(tea_config), "tea", "t宝搜同款", "--json"]) == 1
    res = json.loads(capsys.readouterr().out)
    assert res["hits"] == [{"word": "淘宝", "rule": "initial", "found": "t宝"}]
    assert _run(["moderate", "-c", str(tea_config), "tea", "销量第一的茶"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok") and "absolute claim '第一'" in out
    assert _run(["moderate", "-c", str(tea_config), "tea", "我家楼下在修路"]) == 0
    out = capsys.readouterr().out
    # what the room would say, through its own director and brain: a remark it does not understand gets nothing
    assert "the comment would get no line: not understood" in out
    assert _run(["moderate", "-c", str(tea_config), "tea", "主播讲得真好", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["line"] and res["reading"]["friendly"] is True
    assert _run(["moderate", "-c", str(tea_config), "tea", "茶叶保质期多久"]) == 0
    out = capsys.readouterr().out
    assert "the comment would get: " in out and "18个月" in out and "slots=shelf_life" in out


@pytest.mark.parametrize("text", ["主播胸多大啊？", "主播三围多少", "你多重啊", "主播住哪个小区"])
def test_a_question_about_the_hosts_person_gets_no_fact(tea_config: Path, capsys, text: str) -> None:
    # 罩杯多大 is no capacity question, 多重 about the host no weight question: the facts speak of the goods
    assert _run(["moderate", "-c", str(tea_config), "tea", text]) in (0, 1)
    out = capsys.readouterr().out
    assert "the comment would get no line" in out, out


def test_kb_query_explain_says_why(tea_config: Path, capsys) -> None:
    assert _run(["kb", "query", "-c", str(tea_config), "tea", "怎么泡比较好喝", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "FAQ intent match: faq.yaml#1 '怎么泡'" in out and "slot howto" in out and "80度" in out
    assert "matched terms:" in out
    assert _run(["kb", "query", "-c", str(tea_config), "tea", "这茶咋卖", "--explain", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["explain"]["slots"] == ["price"] and "99元" in res["answer"]
    assert res["explain"]["sentences"][0]["answers_slot"] == ["price"]


@pytest.mark.parametrize("question", ["几天能到", "多少钱", "能保温多久", "可以开发票吗", "有什么颜色", "包邮吗什么时候发货"])
async def test_kb_query_answers_what_the_room_says_without_a_model(config: Path, question: str, capsys) -> None:
    """The operator's tool and the room agree: `kb query`'s answer is the one the room's brain (no LLM) speaks."""
    from broadcaster.brain import Brain
    from broadcaster.config import load_config
    from broadcaster.director.triage import TriagedLine
    from broadcaster.lines import LineKind, LineSource
    from danmaku.event import Event, EventKind, User

    assert _run(["kb", "query", "-c", str(config), "demo", question, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)["answer"]
    room = load_config(config).room("demo")
    brain = Brain("demo", room.brain.model_copy(update={"cache": room.brain.cache.model_copy(update={"enabled": False})}),
                  room.moderation)
    await brain.start()
    try:
        ev = Event("test", "demo", EventKind.COMMENT, User("u", "小鹿"), question, 0)
        line = TriagedLine(id=1, text=question, source=LineSource.ANSWER, event=ev, kind=LineKind.QUESTION)
        spoken = "".join(s.text for s in [s async for s in brain.answer(line)])
    finally:
        await brain.close()
    assert answer and spoken.startswith(answer.rstrip("。")), (answer, spoken)
