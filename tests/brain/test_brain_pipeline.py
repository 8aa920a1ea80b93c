"""Director → Brain → audit log, the way the room loop uses them: one audit record per spoken line."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from broadcaster.brain import AuditLog, Brain
from broadcaster.brain.moderation import moderator_from_config
from broadcaster.config import parse_config
from broadcaster.director import Director
from danmaku.event import Event, EventKind, User


async def test_room_loop_decides_says_and_audits(kb_dir: Path, talk_file: Path, tmp_path: Path) -> None:
    cfg = parse_config({"rooms": [{
        "id": "pipe",
        "brain": {"kb": {"dir": str(kb_dir), "check_interval_s": 0}},
        "director": {"talk": {"file": str(talk_file)}, "triage": {"gift_batch_s": 0}},
        "audit": {"path": str(tmp_path / "audit/{room}.jsonl")},
    }]}).rooms[0]
    now = [100.0]
    moderator = moderator_from_config(cfg.moderation)
    director = Director("pipe", cfg.director, moderator, fps_clock=lambda: now[0],
                        wall_clock=lambda: dt.datetime(2026, 1, 1, 12))
    brain = Brain("pipe", cfg.brain, cfg.moderation, moderator=moderator)
    await brain.start()
    audit = AuditLog.from_config(cfg.audit, "pipe")
    assert audit is not None

    def ev(kind: EventKind, text: str, user: str, value: int = 0, **extra) -> Event:
        return Event("test", "pipe", kind, User(user, user), text, value, extra=extra, received_mono=now[0])

    for e in [ev(EventKind.COMMENT, "这个杯子多少钱？", "a"), ev(EventKind.COMMENT, "杯子多少钱呀", "b"),
              ev(EventKind.COMMENT, "什么时候发货呢", "c"), ev(EventKind.SUPER_CHAT, "能保温多久", "d", 50_000),
              ev(EventKind.GIFT, "", "e", gift_name="小心心"), ev(EventKind.COMMENT, "加 微 信 领红包", "spam")]:
        director.offer(e)
    spoken = []
    for _ in range(6):
        line = await director.next_line(timeout=0)
        if line is None:
            break
        sentences = [s async for s in brain.answer(line)]
        audit.write(brain.audit_record(line, sentences, decide_s=0.001))
        spoken.append((line, sentences))
        now[0] += 8.0  # each line takes a while to say (questions wait at most 25 s)
    audit.close()
    await brain.close()

    kinds = [getattr(line, "kind", "") for line, _ in spoken]
    assert kinds[:4] == ["super_chat", "gift", "question", "question"]
    assert kinds[4] == "script"  # the queue ran dry: the talk track fills the silence
    records = [json.loads(x) for x in (tmp_path / "audit" / "pipe.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == len(spoken)
    sc = records[0]
    assert sc["sentences"][0] == "感谢d的醒目留言！" and "12小时" in sc["text"] and sc["source"] == ["script", "cache"]
    assert records[1]["line_source"] == "thanks" and "小心心" in records[1]["text"]
    price = next(r for r in records if r["asked"] and "多少钱" in r["asked"])
    assert "169元" in price["text"] and price["passage_ids"] == ["faq.yaml#0"] and price["cache_hit"] == "exact"
    assert price["event"]["user"]["name"] == "a"
    assert all(r["latency_s"] == {"decide_s": 0.001} for r in records)
    assert not any("微信" in r["text"] for r in records)  # the spam never became a line
    assert director.drops["moderation"] == 1 and director.drops["merged"] == 1
