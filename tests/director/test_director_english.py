"""An English room's director: its thanks and welcome wording, names joined in English, amounts as the platform
gave them, Twitch raids welcomed, and English chat read (emotes, noise, cheers, questions, longer comments)."""

from __future__ import annotations

from typing import Any

import pytest
from director_helpers import Clock, cfg, ev, moderator

from broadcaster.config import RoomConfig
from broadcaster.director import Director
from broadcaster.director.chat_en import Reading, emote_spans, is_question, reading, without_emotes
from broadcaster.director.thanks import Thanks, join_names
from broadcaster.director.triage import Candidate, Drop, Dropped, RateLimiter, SafeNames, Thank, triage
from broadcaster.director.wording import amount_text, guard_text, super_chat_thanks
from broadcaster.lines import LineKind, LineSource
from common.bounded import BoundedDict
from danmaku.event import Event, EventKind, Money, User

MOD = moderator()


class Triage:
    def __init__(self, **triage_cfg: Any) -> None:
        self.cfg = cfg(triage={"language": "en", **triage_cfg}).triage
        self.seen: BoundedDict[str, None] = BoundedDict(4096)
        self.rates = RateLimiter(self.cfg.user_burst, self.cfg.user_rate_per_min, self.cfg.max_tracked_users)
        self.names = SafeNames(MOD)

    def __call__(self, event: Event, now: float = 1000.0) -> Candidate | Thank | Dropped:
        return triage(event, now, self.cfg, moderator=MOD, seen=self.seen, rates=self.rates, names=self.names,
                      has_room=lambda *_: True)


def _reason(got: object) -> Drop | None:
    return got.reason if isinstance(got, Dropped) else None


@pytest.mark.parametrize(("names", "text"), [
    (["Ann"], "Ann"),
    (["Ann", "Bob"], "Ann and Bob"),
    (["Ann", "Bob", "Cy"], "Ann, Bob and Cy"),
    (["Ann", "Bob", "Cy", "Di"], "Ann, Bob, Cy and 1 other"),
    (["Ann", "Bob", "Cy", "Di", "Ed"], "Ann, Bob, Cy and 2 others"),
    ([], ""),
])
def test_join_names_in_english(names: list[str], text: str) -> None:
    assert join_names(names, 3, "en") == text


def _sc(money: Money | None, **extra: Any) -> Event:
    return Event("x", "r", EventKind.SUPER_CHAT, User("1", "Ann"), "", 1, money=money, extra=extra)


@pytest.mark.parametrize(("money", "extra", "said"), [
    (Money("USD", 10_000_000, 6), {"amount_display": "$10.00"}, "$10.00"),  # YouTube: amountMicros
    (Money("USD", 5, 0), {}, "$5.00"),
    (Money("EUR", 2_500_000, 6), {}, "€2.50"),
    (Money("JPY", 1_000_000_000, 6), {"amount_display": "¥1,000"}, "1,000 JPY"),  # never a bare ¥: yen or yuan?
    (Money("CNY", 30), {}, "30 CNY"),
    (Money("twitch_bit", 500), {}, "500 bits"),
    (Money("twitch_bit", 1), {}, "1 bit"),
    (Money("kuaishou_coin", 10), {}, "10 Kuaishou coins"),
    (None, {"amount_display": "CA$5.00"}, "CA$5.00"),  # no money: the platform's own display
])
def test_amounts_are_said_in_the_platforms_unit(money: Money | None, extra: dict, said: str) -> None:
    assert amount_text(_sc(money, **extra)) == said


def test_an_amount_without_money_or_display_is_the_converted_value() -> None:
    e = Event("x", "r", EventKind.SUPER_CHAT, User("1", "Ann"), "", value_milli=71_000)
    assert amount_text(e) == "71.00 CNY"


def test_super_chat_and_cheer_thanks_in_english_and_chinese() -> None:
    usd = _sc(Money("USD", 10_000_000, 6))
    assert super_chat_thanks("Ann", usd, "en") == "Thank you Ann for the Super Chat of $10.00!"
    assert super_chat_thanks("Ann", _sc(Money("USD", 2_000_000, 6), sticker="a cat"), "en") == \
        "Thank you Ann for the Super Sticker of $2.00!"
    assert super_chat_thanks("Bo", _sc(Money("twitch_bit", 500)), "en") == "Thank you Bo for the 500 bits!"
    assert super_chat_thanks("小红", usd, "zh") == "感谢小红的醒目留言！"


@pytest.mark.parametrize(("unit", "amount", "kind", "said"), [
    ("twitch_sub_tier1", 1, "sub", "sub"),
    ("twitch_sub_prime", 1, "resub", "Prime sub"),
    ("twitch_sub_tier1", 1, "subgift", "gifted sub"),
    ("twitch_sub_tier1", 5, "submysterygift", "5 gifted subs"),
    ("youtube_membership", 1, "new_member", "membership"),
    ("youtube_membership", 10, "gift_memberships", "10 gifted memberships"),
])
def test_guard_names_in_english(unit: str, amount: int, kind: str, said: str) -> None:
    e = Event("x", "r", EventKind.GUARD, User("1", "Ann"), "", money=Money(unit, amount),
              extra={"type": kind, "count": amount})
    assert guard_text(e, "en") == said
    bili = Event("bilibili", "r", EventKind.GUARD, User("1", "Ann", guard_level=2), "")
    assert guard_text(bili, "en") == "Admiral" and guard_text(bili, "zh") == "提督"


def test_english_thanks_lines_draw_english_variants() -> None:
    t = Thanks(cfg(triage={"language": "en", "gift_batch_names": 3}).triage)
    for name, gift in (("Ann", "rose"), ("Bob", "rose"), ("Cy", "heart"), ("Di", "rose")):
        t.add(Thank(LineKind.GIFT, name, gift=gift), 0.0)
    line = t.gift_line(10.0)
    assert "Ann, Bob, Cy and 1 other" in line.text and "rose and heart" in line.text
    assert line.text.endswith("!") and not any("\u4e00" <= c <= "\u9fff" for c in line.text)
    g = t.guard(Thank(LineKind.GUARD, "Ann", guard_name="5 gifted subs", deadline=60.0), 0.0)
    assert "Ann" in g.text and "5 gifted subs" in g.text and g.kind is LineKind.GUARD
    # Three guard variants: three guard lines in a row never repeat a sentence.
    t = Thanks(cfg(triage={"language": "en"}).triage)
    texts = {t.guard(Thank(LineKind.GUARD, n, guard_name="sub", deadline=60.0), float(i)).text.replace(n, "*")
             for i, n in enumerate(("A", "B", "C"))}
    assert len(texts) == 3


def test_a_configured_template_is_used_as_written_in_an_english_room() -> None:
    t = Thanks(cfg(triage={"language": "en", "thanks_follow": "Hey {names}!"}).triage)
    t.add(Thank(LineKind.FOLLOW, "Ann"), 0.0)
    assert t.follow_line(30.0).text == "Hey Ann!"


def test_a_chinese_room_keeps_its_wording() -> None:
    t = Thanks(cfg(triage={}).triage)
    t.add(Thank(LineKind.GIFT, "小红", gift="小心心"), 0.0)
    assert t.gift_line(8.0).text == "谢谢小红送的小心心！"


def test_a_twitch_raid_is_welcomed_on_its_own_line() -> None:
    tri = Triage()
    raid = Event("twitch", "r", EventKind.SYSTEM, User("9", "BigStreamer"), "", msg_id="tw:r1",
                 extra={"type": "raid", "viewers": 120, "from_channel": "BigStreamer"}, received_mono=1000.0)
    got = tri(raid)
    assert isinstance(got, Thank) and got.raid == 120 and got.name == "BigStreamer"
    assert got.deadline == pytest.approx(1000.0 + tri.cfg.deadlines.follow)
    line = Thanks(tri.cfg).guard(got, 1000.0)
    assert line.kind is LineKind.FOLLOW and line.source is LineSource.THANKS
    assert line.priority == tri.cfg.priorities.guard and "BigStreamer" in line.text
    zh = Thanks(cfg(triage={}).triage).guard(Thank(LineKind.GUARD, "大主播", raid=30, deadline=1.0), 0.0)
    assert "大主播" in zh.text
    # Other system notices still ask nothing.
    assert _reason(tri(Event("twitch", "r", EventKind.SYSTEM, User("9", "x"), "", extra={"type": "ritual"}))) \
        is Drop.IGNORED_KIND


def test_emote_spans_from_the_twitch_tag() -> None:
    assert emote_spans("25:0-4,12-16/1902:6-10") == [(0, 5), (6, 11), (12, 17)]
    assert emote_spans("") == [] and emote_spans("garbage") == [] and emote_spans("25:9-2") == []
    text = "Kappa Keepo Kappa nice"
    assert without_emotes(text, "25:0-4,12-16/1902:6-10") == "nice"
    assert without_emotes("hello :hand-pink-waving: world") == "hello world"  # YouTube's shortcodes
    assert without_emotes("LUL that was close") == "that was close"  # known names with no tag
    assert without_emotes("kappa is a greek letter") == "kappa is a greek letter"  # names are case-sensitive


@pytest.mark.parametrize(("text", "want"), [
    ("lol", Reading.NOISE), ("LMAOOO", Reading.NOISE), ("hahaha", Reading.NOISE), ("xD", Reading.NOISE),
    ("F", Reading.NOISE), ("L", Reading.NOISE), ("???", Reading.NOISE), ("...", Reading.NOISE),
    ("ok", Reading.NOISE), ("KEKW", Reading.NOISE), ("bruh lol", Reading.NOISE),
    ("W", Reading.CHEER), ("gg", Reading.CHEER), ("POG", Reading.CHEER), ("lets gooo", Reading.CHEER),
    ("hype hype", Reading.CHEER), ("gg lol", Reading.CHEER), ("<3", Reading.CHEER),
    ("nice stream", Reading.TEXT), ("how much is shipping", Reading.TEXT), ("lol is it real leather", Reading.TEXT),
])
def test_english_chat_readings(text: str, want: Reading) -> None:
    assert reading(text) is want


@pytest.mark.parametrize(("text", "want"), [
    ("how much is shipping", True), ("is it waterproof", True), ("does it come in red", True),
    ("ships to canada right", True), ("r u live tomorrow", True), ("any discount codes", True),
    ("love the color", False), ("whatever you say lol", False), ("this is great", False),
    ("it comes in red?", True),
])
def test_english_questions_by_form(text: str, want: bool) -> None:
    assert is_question(text) is want


@pytest.mark.parametrize(("text", "extra", "expected"), [
    ("lol", {}, Drop.NOISE),
    ("F", {}, Drop.NOISE),
    ("LMAOOOO", {}, Drop.NOISE),
    ("Kappa Kappa", {}, Drop.EMOTE_ONLY),
    ("KEKW KEKW", {"emotes": "305954156:0-3,5-8"}, Drop.EMOTE_ONLY),
    (":face-with-tears-of-joy:", {}, Drop.EMOTE_ONLY),
    ("W", {}, None),
    ("gg", {}, None),
    ("nice stream", {}, None),
])
def test_english_noise_emotes_and_cheers_in_triage(text: str, extra: dict, expected: Drop | None) -> None:
    got = Triage()(ev(Clock(), EventKind.COMMENT, text, **extra))
    assert _reason(got) is expected, got
    if expected is None:
        assert isinstance(got, Candidate) and got.kind is LineKind.COMMENT


def test_english_questions_rank_as_questions_with_emotes_left_out_of_the_line() -> None:
    got = Triage()(ev(Clock(), EventKind.COMMENT, "PogChamp is it waterproof", emotes="88:0-7"))
    assert isinstance(got, Candidate) and got.kind is LineKind.QUESTION and got.text == "is it waterproof"


def test_english_comments_may_be_longer() -> None:
    long = "I have a question about the kettle: " + "does it keep water hot for a long time and " * 5 + "is it safe?"
    assert 120 < len(long) < 300
    got = Triage()(ev(Clock(), EventKind.COMMENT, long))
    assert isinstance(got, Candidate) and got.text == long
    assert cfg(triage={"language": "en", "max_chars": 40}).triage.chars_max == 40
    assert cfg(triage={}).triage.chars_max == 120


def test_a_wordless_cheer_and_super_chat_are_thanked_with_their_amounts() -> None:
    tri = Triage()
    cheer = Event("twitch", "r", EventKind.SUPER_CHAT, User("7", "Bo"), "", value_milli=35_500, msg_id="tw:c",
                  money=Money("twitch_bit", 500), extra={"bits": 500, "raw_text": "Cheer500"}, received_mono=1000.0)
    sc = Event("youtube", "r", EventKind.SUPER_CHAT, User("8", "Ann"), "", value_milli=71_000, msg_id="yt:s",
               money=Money("USD", 10_000_000, 6), extra={"amount_display": "$10.00"}, received_mono=1000.0)
    got_cheer, got_sc = tri(cheer), tri(sc)
    assert isinstance(got_cheer, Candidate) and got_cheer.text == "Thank you Bo for the 500 bits!"
    assert isinstance(got_sc, Candidate) and got_sc.text == "Thank you Ann for the Super Chat of $10.00!"
    assert got_sc.source is LineSource.THANKS and got_sc.priority > got_cheer.priority  # ¥71 > ¥35.5


def test_an_english_room_config_reaches_the_directors_wording() -> None:
    room = RoomConfig.model_validate({"id": "en", "language": "en", "director": {"triage": {"gift_batch_s": 1}}})
    assert room.director.triage.language == "en" and room.director.triage.gift_batch_s == 1
    d = Director("en", room.director, MOD, fps_clock=Clock())
    e = Event("twitch", "en", EventKind.GUARD, User("1", "Ann"), "", msg_id="tw:g", money=Money("twitch_sub_tier1", 1),
              extra={"type": "sub", "count": 1}, received_mono=1000.0)
    d.offer(e)
    line = d.pick()
    assert line is not None and line.source is LineSource.THANKS and "Ann" in line.text and "sub" in line.text


def test_the_ai_label_follows_the_language_and_the_platform() -> None:
    en = RoomConfig.model_validate({"id": "en", "language": "en", "sources": [{"type": "twitch", "channel": "abc"}]})
    assert en.avatar.overlays.label.text == "AI-generated content"
    on_bili = RoomConfig.model_validate({"id": "b", "language": "en", "sources": [
        {"type": "group", "members": [{"type": "bilibili_web", "room_id": 5}, {"type": "twitch", "channel": "abc"}]}]})
    assert on_bili.avatar.overlays.label.text == "本内容由AI生成 · AI-generated"  # a Chinese platform's label
    own = RoomConfig.model_validate({"id": "o", "language": "en",
                                     "avatar": {"overlays": {"label": {"text": "Virtual host"}}}})
    assert own.avatar.overlays.label.text == "Virtual host"
    assert RoomConfig.model_validate({"id": "z"}).avatar.overlays.label.text == "本内容由AI生成 · AI-generated"
