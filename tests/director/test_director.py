"""Director triage: ranking, merging, rate limits, gifts, operator lines, talk track pacing, and a 60 s flood."""

from __future__ import annotations

import asyncio
import datetime as dt
import gc
import random
import sys
import types
from pathlib import Path

import pytest
from director_helpers import Clock, cfg, director, ev, metric_drops, moderator

from broadcaster.director import Director, TriagedLine
from broadcaster.lines import LineKind, LineSource
from danmaku.event import Event, EventKind, User


def _deep_size(root: object) -> int:
    """Bytes of every object reachable from root (modules, classes and functions excluded)."""
    seen: set[int] = set()
    stack = [root]
    total = 0
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total


def test_ranking_super_chat_guard_gift_question_comment() -> None:
    c = Clock()
    d = director("rank", c, triage={"gift_batch_s": 0})
    d.offer(ev(c, EventKind.COMMENT, "今天心情不错", "a"))
    d.offer(ev(c, EventKind.COMMENT, "能保温多久？", "b"))
    d.offer(ev(c, EventKind.GIFT, "", "c", gift_name="小心心"))
    d.offer(ev(c, EventKind.GUARD, "", "d", guard_level=3))
    d.offer(ev(c, EventKind.SUPER_CHAT, "有没有大容量的", "e", value_milli=30_000))
    d.offer(ev(c, EventKind.SUPER_CHAT, "包邮吗", "f", value_milli=100_000))
    kinds = []
    while (line := d.pick()) is not None:
        kinds.append((line.kind, line.source))
    assert kinds == [
        (LineKind.SUPER_CHAT, LineSource.ANSWER),  # the ¥100 one first
        (LineKind.SUPER_CHAT, LineSource.ANSWER),
        (LineKind.GUARD, LineSource.THANKS),
        (LineKind.GIFT, LineSource.THANKS),
        (LineKind.QUESTION, LineSource.ANSWER),
        (LineKind.COMMENT, LineSource.ANSWER),
    ]
    assert all(type(kind) is LineKind for kind, _ in kinds)


def test_near_duplicates_merge_with_counts_and_answered_ones_are_not_repeated() -> None:
    c = Clock()
    d = director("merge", c)
    for user, text in [("a", "这个杯子多少钱？"), ("b", "主播这个杯子多少钱呀"), ("c", "杯子多少钱!!"),
                       ("d", "这个杯子多少錢")]:
        d.offer(ev(c, EventKind.COMMENT, text, user))
    d.offer(ev(c, EventKind.COMMENT, "什么时候发货", "e"))
    line = d.pick()
    assert isinstance(line, TriagedLine)
    assert line.count == 4 and line.names == ("a", "b", "c", "d") and "等4人" in line.banner
    assert d.drops["merged"] == 3
    c.t += 5
    d.offer(ev(c, EventKind.COMMENT, "杯子多少钱", "z"))  # answered moments ago
    assert d.drops["recently_answered"] == 1
    assert d.pick().text == "什么时候发货"


def test_rate_limit_noise_duplicates_and_moderation_are_counted() -> None:
    c = Clock()
    d = director("limits", c, triage={"user_burst": 2, "user_rate_per_min": 6})
    before = metric_drops("limits", "rate_limit")
    for i in range(6):
        d.offer(ev(c, EventKind.COMMENT, f"第{i}个问题是什么呢", "spammer"))
    assert d.drops["rate_limit"] == 4 and metric_drops("limits", "rate_limit") == before + 4
    c.t += 10  # 6/min refills one token in 10 s
    d.offer(ev(c, EventKind.COMMENT, "新的问题是什么呢", "spammer"))
    assert d.drops["rate_limit"] == 4
    d.offer(ev(c, EventKind.COMMENT, "aaaaaa", "x"))
    d.offer(ev(c, EventKind.COMMENT, "zzzz", "x"))
    assert d.drops["noise"] == 2
    d.offer(ev(c, EventKind.COMMENT, "发货快吗", "y", msg_id="m1"))
    d.offer(ev(c, EventKind.COMMENT, "发货快吗", "y", msg_id="m1"))
    assert d.drops["duplicate_id"] == 1
    d.offer(ev(c, EventKind.COMMENT, "主播是 傻 逼", "troll"))
    d.offer(ev(c, EventKind.LIKE, "", "fan"))
    assert d.drops["moderation"] == 1 and d.drops["ignored_kind"] == 1
    snap = d.snapshot()
    verdicts = {r["user"]: r["verdict"] for r in snap["recent"]}
    assert verdicts["troll"].startswith("blocked: 傻逼")
    assert verdicts["spammer"] in ("ok", "rate limited")


def test_gifts_are_thanked_in_batches() -> None:
    c = Clock()
    d = director("gifts", c, triage={"gift_batch_s": 8, "gift_batch_names": 3})
    d.offer(ev(c, EventKind.GIFT, "", "小红", gift_name="小心心"))
    d.offer(ev(c, EventKind.GIFT, "", "小红", gift_name="小心心"))
    d.offer(ev(c, EventKind.GIFT, "", "小明", gift_name="辣条", count=5))
    assert d.pick() is None  # the batch is still open
    c.t += 8
    line = d.pick()
    assert line.source == LineSource.THANKS and line.text == "谢谢小红和小明送的辣条和小心心！"
    assert line.count == 3 and d.drops["gift_batched"] == 2
    for name in ["甲", "乙", "丙", "丁"]:
        d.offer(ev(c, EventKind.GIFT, "", name, gift_name="荧光棒"))
    line = d.pick()  # three names reached: no need to wait out the window
    assert line.text.startswith("谢谢甲、乙和丙") or line.text.startswith("谢谢甲、乙、丙")
    d.offer(ev(c, EventKind.GIFT, "", "傻逼", gift_name="荧光棒"))  # a rude name is never read out
    c.t += 8
    assert "这位朋友" in d.pick().text


def test_operator_lines_jump_the_queue_and_stale_lines_are_dropped() -> None:
    c = Clock()
    d = director("op", c)
    d.offer(ev(c, EventKind.SUPER_CHAT, "能保温多久", "rich", value_milli=500_000))
    d.offer(ev(c, EventKind.COMMENT, "什么时候发货呢", "q"))
    op = d.say("  插播一条：今晚十点有抽奖！ ")
    assert op.source == LineSource.OPERATOR and op.text == "插播一条：今晚十点有抽奖！"
    assert d.urgent_waiting()
    assert d.pick() is op
    assert d.pick().kind is LineKind.SUPER_CHAT
    c.t += 60  # the question's 25 s deadline passed
    stale = metric_drops("op", "stale")
    assert d.pick() is None
    assert d.drops["stale"] == 1 and metric_drops("op", "stale") == stale + 1


def test_talk_track_fills_silence_one_line_ahead_at_most(talk_file: Path) -> None:
    c = Clock()
    d = Director("talk", cfg(talk={"file": str(talk_file), "gap_s": 1.0}), moderator(), fps_clock=c,
                 wall_clock=lambda: dt.datetime(2026, 1, 1, 12, 0))
    first = d.pick()
    assert first.source == LineSource.SCRIPT and first.kind is LineKind.SCRIPT and first.segment == "opening"
    # While it is (estimated to be) spoken, asking again gives nothing: script never queues up.
    for _ in range(5):
        assert d.pick() is None
    assert d.snapshot()["script_outstanding"] == 1
    # A viewer's question is not held back by the script.
    d.offer(ev(c, EventKind.COMMENT, "能保温多久", "v"))
    assert d.urgent_waiting()
    answer = d.pick()
    assert answer.source == LineSource.ANSWER
    # The stage says the first line ended: the answer (handed out after it) is still playing.
    d.line_done(first)
    c.t += 3.0
    assert d.pick() is None
    # The stage says the answer is over; after the gap the track continues where it was.
    d.line_done(answer)
    c.t += 0.5
    assert d.pick() is None  # still inside the gap
    c.t += 0.6
    nxt = d.pick()
    assert nxt.source == LineSource.SCRIPT and nxt.segment == "pitch"
    assert d.pick() is None
    # Without hints from the stage, the estimated speaking time paces the track.
    c.t += len(nxt.text) / 4.5 + 0.3 + 1.0 + 0.01
    assert d.pick().segment == "pitch"


async def test_next_line_waits_for_events_and_times_out() -> None:
    d = director("wait")
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    assert await d.next_line(timeout=0.05) is None
    assert loop.time() - t0 >= 0.04

    async def later() -> None:
        await asyncio.sleep(0.05)
        d.offer(Event("test", "wait", EventKind.COMMENT, User("1", "a"), "可以退货吗"))

    task = asyncio.create_task(later())
    line = await d.next_line(timeout=5)
    await task
    assert line is not None and line.text == "可以退货吗"
    assert await d.next_line(timeout=0) is None


def test_flood_of_1000_events_per_second_for_60_seconds() -> None:
    """60 s of 1,000 events/s on a simulated clock; the anchor takes a line every 4 s."""
    c = Clock(0.0)
    queue_max = 24
    d = director("flood", c, triage={"queue_max": queue_max, "gift_batch_s": 5, "max_tracked_users": 500})
    rng = random.Random(7)
    questions = ["多少钱", "包邮吗", "能保温多久", "什么颜色好看", "什么时候发货", "可以退货吗", "有发票吗",
                 "容量多大", "杯盖漏水吗", "能装咖啡吗"]
    chatter = ["主播好", "来了来了", "666", "哈哈哈哈", "好看", "冲冲冲", "支持一下", "晚上好呀"]
    offered = sc_offered = 0
    picked = []
    sc_waits: list[float] = []
    pending_sc: dict[str, float] = {}
    max_queue = 0
    size_30s = 0
    stale_before = metric_drops("flood", "stale")
    for ms in range(60_000):
        c.t = ms / 1000.0
        r = rng.random()
        user = f"user{rng.randrange(2000)}"
        if r < 0.0001:  # a super chat every ~10 s
            text = f"请问{rng.choice(questions)}？第{ms}号"
            d.offer(ev(c, EventKind.SUPER_CHAT, text, user, value_milli=rng.choice([30_000, 50_000, 100_000])))
            pending_sc[text] = c.t
            sc_offered += 1
        elif r < 0.02:
            d.offer(ev(c, EventKind.GIFT, "", user, gift_name=rng.choice(["小心心", "辣条"])))
        elif r < 0.25:
            d.offer(ev(c, EventKind.COMMENT, rng.choice(questions) + rng.choice(["", "？", "呀", "啊主播"]), user))
        elif r < 0.6:
            d.offer(ev(c, EventKind.COMMENT, rng.choice(chatter) + str(rng.randrange(100000)), user))
        elif r < 0.8:
            d.offer(ev(c, EventKind.ENTER, "", user))
        else:
            d.offer(ev(c, EventKind.COMMENT, f"随便聊聊第{ms}条弹幕内容", user))
        offered += 1
        max_queue = max(max_queue, len(d.queue))
        if ms % 4000 == 3999:  # the anchor finishes a line every 4 s
            line = d.pick()
            if line is not None:
                picked.append(line)
                if line.kind is LineKind.SUPER_CHAT:
                    sc_waits.append(c.t - pending_sc.pop(line.event.text))
                elif pending_sc:
                    raise AssertionError(f"{line.kind} answered while a super chat waited")
        if ms == 30_000:  # every bounded structure is full by now (2,000 viewers, 500 tracked)
            size_30s = _deep_size(d)
    size_end = _deep_size(d)
    # Bounded: the queue never exceeded its limit; per-user and per-message state is capped, and
    # everything the director holds (queue, users, message ids, recent chat, …) stopped growing.
    assert max_queue <= queue_max
    assert len(d.seen_ids) <= 4096 and len(d.rates.users) <= d.tcfg.max_tracked_users
    assert len(d._recent) <= d.tcfg.recent_chat and len(d.queue.answered) <= 1000
    assert size_end < size_30s * 1.25 + 64 * 1024, (size_30s, size_end)
    # Super chats first: no other line was taken while one waited (checked above); after the flood
    # the anchor works through the rest, and none of them went stale.
    while pending_sc:
        c.t += 4.0
        line = d.pick()
        assert line is not None and line.kind is LineKind.SUPER_CHAT, line
        sc_waits.append(c.t - pending_sc.pop(line.event.text))
        picked.append(line)
    assert sc_offered >= 3 and max(sc_waits) < d.tcfg.deadlines.super_chat
    # Stale lines were dropped and counted, in the director and in the metric.
    assert d.drops.get("stale", 0) > 0
    assert metric_drops("flood", "stale") - stale_before == d.drops["stale"]
    assert d.drops["queue_full"] > 0 and d.drops["merged"] > 0 and d.drops["ignored_kind"] > 0
    # Every event is accounted for: a line, a drop with its reason, or still waiting.
    in_lines = sum(1 for line in picked)
    waiting = len(d.queue) + (1 if d.thanks.gifts is not None else 0)
    assert offered == in_lines + sum(d.drops.values()) + waiting


@pytest.mark.parametrize("kind", [EventKind.COMMENT, EventKind.SUPER_CHAT])
def test_garbage_events_never_raise(kind: EventKind) -> None:
    d = director("garbage")
    for text in ["", " ", "\x00\x01", "🙂" * 500, "a" * 10000, "\ud800"]:
        d.offer(Event("test", "garbage", kind, None, text))
    d.offer(Event("test", "garbage", EventKind.GIFT, None, "", extra={"count": "many"}))
    d.pick()
    assert sum(d.drops.values()) >= 1


def test_a_malformed_gift_is_counted_as_an_error_and_leaves_no_empty_batch() -> None:
    c = Clock()
    d = director("badgift", c, triage={"gift_batch_s": 1})
    d.offer(ev(c, EventKind.GIFT, "", "甲", count="many"))
    assert d.drops == {"error": 1} and d.snapshot()["gift_batch"] is None
    c.t += 5
    assert d.pick() is None  # the old director built an empty batch here and raised when it came due


def test_blocked_comments_go_to_on_blocked_and_the_console() -> None:
    c = Clock()
    d = director("blocked", c, moderation={"words": ["竞品"]})
    seen: list[tuple[str, str]] = []
    d.on_blocked = lambda event, verdict: seen.append((event.text, verdict))
    d.offer(ev(c, EventKind.COMMENT, "你们和竞品比怎么样？", "v"))
    assert len(seen) == 1 and seen[0][0] == "你们和竞品比怎么样？" and "竞品" in seen[0][1]
    recent = d.snapshot()["recent"]
    assert recent[-1]["kind"] == "comment" and recent[-1]["verdict"] == seen[0][1]
    assert d.pick() is None and d.drops == {"moderation": 1}


def test_gift_money_is_exact_in_the_console_and_the_minimum() -> None:
    c = Clock()
    d = director("money", c, triage={"gift_min_cny": 0.3, "gift_batch_s": 8})
    d.offer(ev(c, EventKind.GIFT, "", "甲", value_milli=299))
    for _ in range(3):
        d.offer(ev(c, EventKind.GIFT, "", "乙", value_milli=300))
    snap = d.snapshot()
    assert d.drops == {"small_gift": 1, "gift_batched": 2}
    assert snap["gift_batch"]["value_cny"] == 0.9 and snap["gift_batch"]["people"] == ["乙"]
    assert set(snap) == {"room", "queue", "operator", "gift_batch", "recent", "drops", "script_outstanding"}
