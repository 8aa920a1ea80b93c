"""The pure triage function: one Event → a candidate line, a thanks, or a drop reason (no asyncio, no metrics)."""

from __future__ import annotations

from typing import Any

import pytest
from director_helpers import Clock, cfg, ev, moderator

from broadcaster.brain.moderation import ANON
from broadcaster.director import triage as triage_module
from broadcaster.director.triage import Candidate, Drop, Dropped, RateLimiter, SafeNames, Thank, triage
from broadcaster.lines import LineKind, LineSource
from common.bounded import BoundedDict
from danmaku.event import Event, EventKind, User

MOD = moderator(words=["竞品"])


class Triage:
    """triage() with fresh helpers and a queue that always has room unless told otherwise."""

    def __init__(self, **triage_cfg: Any) -> None:
        self.cfg = cfg(triage=triage_cfg).triage
        self.seen: BoundedDict[str, None] = BoundedDict(4096)
        self.rates = RateLimiter(self.cfg.user_burst, self.cfg.user_rate_per_min, self.cfg.max_tracked_users)
        self.names = SafeNames(MOD)
        self.room = True
        self.asked: list[tuple[float, str, float]] = []

    def has_room(self, priority: float, key: str, now: float) -> bool:
        self.asked.append((priority, key, now))
        return self.room

    def __call__(self, event: Event, now: float) -> Candidate | Thank | Dropped:
        return triage(event, now, self.cfg, moderator=MOD, seen=self.seen, rates=self.rates, names=self.names,
                      has_room=self.has_room)


def _reason(got: object) -> Drop | None:
    return got.reason if isinstance(got, Dropped) else None


@pytest.mark.parametrize(("kind", "text", "over", "expected"), [
    (EventKind.LIKE, "", {}, Drop.IGNORED_KIND),
    (EventKind.ENTER, "", {}, Drop.IGNORED_KIND),
    (EventKind.SYSTEM, "直播开始了吗", {}, Drop.IGNORED_KIND),
    (EventKind.FOLLOW, "", {}, Drop.IGNORED_KIND),  # follows are thanked only when asked to
    (EventKind.COMMENT, "6", {}, Drop.TOO_SHORT),
    (EventKind.COMMENT, "？？", {}, Drop.TOO_SHORT),  # punctuation is not in the key
    (EventKind.COMMENT, "主播好美😍", {}, None),  # keyed 美 (fillers dropped), yet praise in its own words
    (EventKind.COMMENT, "主播好帅", {}, None),
    (EventKind.COMMENT, "aaaaaa", {}, Drop.NOISE),
    (EventKind.COMMENT, "冲冲冲", {}, None),  # a cheer of one character: chit-chat
    (EventKind.COMMENT, "❤️❤️❤️", {}, None),  # friendly emoji alone
    (EventKind.COMMENT, "6666666", {}, None),  # a cheer: chit-chat the anchor may acknowledge
    (EventKind.COMMENT, "哈哈哈哈", {}, None),
    (EventKind.COMMENT, "2333", {}, None),
    (EventKind.COMMENT, "今天心情不错", {"answer_chit_chat": False}, Drop.CHIT_CHAT),
    (EventKind.COMMENT, "你们和竞品比怎么样", {}, Drop.MODERATION),
    (EventKind.SUPER_CHAT, "竞品更便宜吗", {}, Drop.MODERATION),  # paying does not get past moderation
    (EventKind.COMMENT, "能保温多久？", {}, None),
    (EventKind.VOICE, "今天卖什么", {}, None),
    (EventKind.SUPER_CHAT, "6", {}, None),  # a super chat is never too short or noise
])
def test_drop_reasons(kind: EventKind, text: str, over: dict[str, Any], expected: Drop | None) -> None:
    t = Triage(**over)
    assert _reason(t(ev(Clock(), kind, text), 1000.0)) == expected


@pytest.mark.parametrize(("text", "kind", "priority"), [
    ("能保温多久？", LineKind.QUESTION, 40),
    ("这个杯子多少钱", LineKind.QUESTION, 40),
    ("好不好用", LineKind.QUESTION, 40),  # A不A
    ("how long does it keep warm", LineKind.QUESTION, 40),
    ("今天心情不错", LineKind.COMMENT, 20),
])
def test_questions_and_comments(text: str, kind: LineKind, priority: int) -> None:
    got = Triage()(ev(Clock(), EventKind.COMMENT, text, "小红"), 1000.0)
    assert isinstance(got, Candidate)
    assert got.kind is kind and got.priority == priority and got.source is LineSource.ANSWER
    assert got.name == "小红" and got.text == text and got.key


def test_the_line_shows_what_the_viewer_wrote_and_matches_on_the_normalized_key() -> None:
    got = Triage()(ev(Clock(), EventKind.COMMENT, "  主播这个杯子多少錢呀？？ "), 1000.0)
    assert isinstance(got, Candidate)
    assert got.text == "主播这个杯子多少錢呀？？" and got.key != got.text


def test_super_chat_priority_grows_with_its_exact_value() -> None:
    t = Triage()
    c = Clock()
    small = t(ev(c, EventKind.SUPER_CHAT, "包邮吗", "a", value_milli=30_000), c.t)
    big = t(ev(c, EventKind.SUPER_CHAT, "包邮吗", "b", value_milli=100_000), c.t)
    assert isinstance(small, Candidate) and isinstance(big, Candidate)
    assert small.kind is LineKind.SUPER_CHAT
    assert small.priority == pytest.approx(106.0) and big.priority == pytest.approx(120.0)
    assert small.deadline == c.t + 180.0


def test_a_super_chat_without_words_is_thanked() -> None:
    got = Triage()(ev(Clock(), EventKind.SUPER_CHAT, "", "小红", value_milli=30_000), 1000.0)
    assert got == Candidate(LineKind.SUPER_CHAT, pytest.approx(106.0), "", "感谢小红的醒目留言！", "小红",
                            1180.0, LineSource.THANKS)


def test_gifts_follows_and_guards_become_thanks() -> None:
    t = Triage(thank_follows=True)
    c = Clock()
    gift = t(ev(c, EventKind.GIFT, "", "小红", value_milli=100, gift_name="小心心", count=3), c.t)
    assert gift == Thank(LineKind.GIFT, "小红", gift="小心心", count=3, value_milli=100)
    assert t(ev(c, EventKind.GIFT, "", "小明", num=2), c.t) == Thank(LineKind.GIFT, "小明", gift="礼物", count=2)
    assert t(ev(c, EventKind.FOLLOW, "", "小刚"), c.t) == Thank(LineKind.FOLLOW, "小刚")
    guard = t(ev(c, EventKind.GUARD, "", "小李", guard_level=1), c.t)
    assert guard == Thank(LineKind.GUARD, "小李", guard_level=1, deadline=c.t + 60.0)
    from_user = Event("test", "room", EventKind.GUARD, User("9", "小王", guard_level=2), received_mono=c.t)
    assert t(from_user, c.t).guard_level == 2
    assert t(ev(c, EventKind.GUARD, "", "小赵"), c.t).guard_level == 3  # unknown level: 舰长


@pytest.mark.parametrize(("min_cny", "value_milli", "dropped"), [
    (0.0, 0, False),  # free gifts are thanked by default
    (0.3, 299, True),
    (0.3, 300, False),  # exactly the minimum: in (0.1 + 0.2 as floats would not be)
    (1, 999, True),
    (1, 1000, False),
])
def test_small_gifts_compare_exactly_in_milli_yuan(min_cny: float, value_milli: int, dropped: bool) -> None:
    got = Triage(gift_min_cny=min_cny)(ev(Clock(), EventKind.GIFT, "", value_milli=value_milli), 1000.0)
    assert (_reason(got) == Drop.SMALL_GIFT) is dropped


def test_repeated_message_ids_are_dropped() -> None:
    t = Triage()
    c = Clock()
    assert isinstance(t(ev(c, EventKind.COMMENT, "发货快吗", msg_id="m1"), c.t), Candidate)
    assert _reason(t(ev(c, EventKind.COMMENT, "发货快吗", msg_id="m1"), c.t)) == Drop.DUPLICATE_ID
    assert _reason(t(ev(c, EventKind.GIFT, "", msg_id="m1"), c.t)) == Drop.DUPLICATE_ID
    assert isinstance(t(ev(c, EventKind.COMMENT, "发货快吗", "v"), c.t), Candidate)  # no id: never a repeat


def test_rate_limit_per_user_but_not_for_super_chats() -> None:
    t = Triage(user_burst=2, user_rate_per_min=6)
    c = Clock()
    got = [t(ev(c, EventKind.COMMENT, f"第{i}个问题是什么", "spam"), c.t) for i in range(3)]
    assert [_reason(g) for g in got] == [None, None, Drop.RATE_LIMIT]
    assert isinstance(t(ev(c, EventKind.COMMENT, "包邮吗", "other"), c.t), Candidate)
    assert isinstance(t(ev(c, EventKind.SUPER_CHAT, "包邮吗", "spam"), c.t), Candidate)
    c.t += 10  # 6 a minute: one token back
    assert isinstance(t(ev(c, EventKind.COMMENT, "新问题是什么", "spam"), c.t), Candidate)


def test_a_full_queue_drops_before_moderation_and_the_rate_limit() -> None:
    t = Triage(user_burst=1)
    t.room = False
    c = Clock()
    assert _reason(t(ev(c, EventKind.COMMENT, "能保温多久", "a"), c.t)) == Drop.QUEUE_FULL
    assert _reason(t(ev(c, EventKind.COMMENT, "竞品好吗", "a"), c.t)) == Drop.QUEUE_FULL
    assert t.asked[0][:2] == (40, "能保温多久")
    t.room = True
    assert isinstance(t(ev(c, EventKind.COMMENT, "能保温多久", "a"), c.t), Candidate)  # no token was spent


def test_moderation_reports_the_verdict() -> None:
    got = Triage()(ev(Clock(), EventKind.COMMENT, "你们和竞品比怎么样"), 1000.0)
    assert isinstance(got, Dropped) and got.reason is Drop.MODERATION and "竞品" in got.verdict


def test_names_are_read_out_only_when_safe() -> None:
    t = Triage()
    c = Clock()
    assert t(ev(c, EventKind.COMMENT, "包邮吗", "傻逼"), c.t).name == ANON
    assert t(ev(c, EventKind.COMMENT, "包邮吗", "ｘｉａｏ红"), c.t).name == "xiao红"
    assert t(Event("test", "room", EventKind.COMMENT, None, "包邮吗"), c.t).name == ANON
    assert t(ev(c, EventKind.GIFT, "", "abcdefghijklmnopqrstuvwxyz"), c.t).name == "abcdefghijklmnop"


def test_deadlines_run_from_arrival_unless_it_is_from_another_clock() -> None:
    t = Triage()
    e = Event("test", "room", EventKind.COMMENT, User("u", "u"), "包邮吗", received_mono=990.0)
    assert t(e, 1000.0).deadline == 990.0 + 25.0
    foreign = Event("test", "room", EventKind.COMMENT, User("v", "v"), "包邮吗", received_mono=5.0)
    assert t(foreign, 10_000.0).deadline == 10_000.0 + 25.0


def test_malformed_extras_raise_for_the_director_to_count() -> None:
    with pytest.raises(ValueError):
        Triage()(ev(Clock(), EventKind.GIFT, "", count="many"), 1000.0)


def test_triage_is_pure_of_asyncio_and_metrics() -> None:
    names = vars(triage_module)
    assert "asyncio" not in names and "metrics" not in names


def test_rate_limiter_forgets_the_least_recent_user_first() -> None:
    r = RateLimiter(burst=1, per_min=1, max_users=2)
    assert r.allow("a", 0.0) and r.allow("b", 0.0)
    assert not r.allow("a", 1.0)  # a is now the most recent
    assert r.allow("c", 1.0)  # b is forgotten, not a
    assert list(r.users) == ["a", "c"]
    assert not r.allow("a", 2.0)
    assert r.allow("", 2.0) and r.allow("", 2.0)  # no id: never limited


def test_safe_names_remember_a_bounded_number_of_verdicts() -> None:
    names = SafeNames(MOD, maxlen=2)
    for n in ["甲", "乙", "丙"]:
        assert names(Event("t", "r", EventKind.GIFT, User(n, n))) == n
    assert list(names.known) == ["乙", "丙"]
