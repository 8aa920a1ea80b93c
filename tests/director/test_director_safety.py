"""Issue 14 on the director's side: blocked comments get nothing, bad names are never read out or shown
(paid events are still thanked, without the name), and a super chat the platform deletes is not answered."""

from __future__ import annotations

from director_helpers import Clock, director, ev, metric_drops

from broadcaster.brain.moderation import ANON
from broadcaster.lines import LineKind, LineSource
from danmaku.event import Event, EventKind


def _all_lines(d) -> list:  # type: ignore[no-untyped-def]
    out = []
    while (line := d.pick()) is not None:
        out.append(line)
    return out


def test_a_blocked_comment_gets_no_line_at_all() -> None:
    c = Clock()
    d = director("safe-block", c)
    for text in ["加我wx领优惠", "nmsl", "W信联系我", "企鹅号123456"]:
        d.offer(ev(c, EventKind.COMMENT, text, "spammer"))
    assert _all_lines(d) == [] and d.drops["moderation"] == 4


def test_bad_names_are_never_read_out_or_shown_but_paid_events_are_thanked() -> None:
    c = Clock()
    d = director("safe-names", c, triage={"gift_batch_s": 0})
    d.offer(ev(c, EventKind.COMMENT, "这个杯子多少钱", "加微信tea888"))
    d.offer(ev(c, EventKind.SUPER_CHAT, "能保温多久", "nmsl", 30_000, sc_id="1"))
    d.offer(ev(c, EventKind.GIFT, "", "vx同号8888", 1_000, gift_name="小心心"))
    d.offer(ev(c, EventKind.GUARD, "", "企鹅号12345", 198_000, guard_level=3))
    d.offer(ev(c, EventKind.COMMENT, "什么时候发货", "Q弹果冻"))
    lines = _all_lines(d)
    shown = " ".join(f"{line.text} {line.banner} {' '.join(getattr(line, 'names', ()))}" for line in lines)
    for bad in ("加微信tea888", "nmsl", "vx同号8888", "企鹅号12345"):
        assert bad not in shown
    kinds = {line.kind: line for line in lines}
    assert set(kinds) == {LineKind.SUPER_CHAT, LineKind.GUARD, LineKind.GIFT, LineKind.QUESTION}
    assert kinds[LineKind.GUARD].text.startswith(f"感谢{ANON}开通舰长")
    assert kinds[LineKind.GIFT].text == f"谢谢{ANON}送的小心心！"
    assert kinds[LineKind.SUPER_CHAT].names == (ANON,)
    question = [line for line in lines if line.kind == LineKind.QUESTION]
    assert {q.banner.split("：")[0] for q in question} == {ANON, "Q弹果冻"}  # a clean name keeps its case


def test_a_super_chat_the_platform_deletes_is_not_answered() -> None:
    c = Clock()
    d = director("safe-sc", c)
    d.offer(ev(c, EventKind.SUPER_CHAT, "主播看看我", "a", 30_000, sc_id="555"))
    d.offer(ev(c, EventKind.SUPER_CHAT, "包邮吗", "b", 30_000, sc_id="556"))
    d.offer(Event("test", "room", EventKind.SYSTEM, None, "", extra={"type": "sc_delete", "ids": ["555"]}))
    lines = _all_lines(d)
    assert [line.text for line in lines] == ["包邮吗"] and d.drops["withdrawn"] == 1
    assert metric_drops("safe-sc", "withdrawn") == 1
    # Deleted before it arrived (the delete overtook it): never queued either.
    d.offer(Event("test", "room", EventKind.SYSTEM, None, "", extra={"type": "sc_delete", "ids": ["557"]}))
    d.offer(ev(c, EventKind.SUPER_CHAT, "你好", "c", 30_000, sc_id="557"))
    assert _all_lines(d) == [] and d.drops["withdrawn"] == 2
    # A line already handed out: the room asks before voicing more of it.
    d.offer(ev(c, EventKind.SUPER_CHAT, "能便宜点吗", "e", 30_000, sc_id="558"))
    line = d.pick()
    assert line is not None and line.source == LineSource.ANSWER and not d.is_withdrawn(line)
    d.offer(Event("test", "room", EventKind.SYSTEM, None, "", extra={"type": "sc_delete", "ids": ["558"]}))
    assert d.is_withdrawn(line)
