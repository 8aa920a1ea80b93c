"""The talk track with variants: no sentence twice inside the window when there is material (and a warning that
says how much when there is not), live slots, products presented with their offers, thanks with calls to
action, keyword and question replies checked by the guard and moderation, and pauses without a beat."""

from __future__ import annotations

import datetime as dt
import random
import statistics
from pathlib import Path

import pytest
from director_helpers import Clock, cfg, moderator

from broadcaster.director.config import TalkConfig, TriageConfig
from broadcaster.director.pacing import Pacing
from broadcaster.director.talk import (
    Offer,
    Scene,
    TalkTrack,
    TalkTrackError,
    load_segments,
    material_warnings,
    parse_segments,
)
from broadcaster.director.thanks import Thanks
from broadcaster.director.triage import Candidate, Thank
from broadcaster.director.variants import Masker, Template
from broadcaster.lines import Line, LineKind, LineSource
from danmaku.event import Event, EventKind, User

NOON = dt.time(12, 0)
FACTS = ("暖暖保温杯，直播间到手价169元，日常价199元。", "容量500毫升，热水保温12小时。", "内胆316不锈钢，外壳304不锈钢。",
         "默认发中通快递，付款后48小时内发货。")

RICH = {
    "variables": {"shop": "暖暖小店"},
    "segments": [
        {"name": "opening", "once": True, "lines": [["{greeting}，欢迎来到{shop}！", "欢迎{各位|大家}来到{shop}，{time_of_day}好呀！"]]},
        {"name": "pitch", "lines": [
            "{这款|这只|咱家这个}杯子{内胆|里面}是316不锈钢{的|}，{用着放心|喝着安心|装什么都放心}。",
            "热水{能|可以}保温12小时，{冬天|出门|上班}{带着|拿着}{刚好|正合适|特别方便}。",
            "容量500毫升，{一天的水|一上午的水|一下午的水}{都|}{够喝|装得下}{了|啦}。",
        ]},
        {"name": "interact", "lines": [
            "{有问题|想了解什么}{可以|都可以}打在公屏上，{我来回答|我一个个回答|主播来解答}。",
            "现在有{viewers}位朋友在{看|直播间}，{欢迎欢迎|大家好呀|谢谢捧场|感谢支持|欢迎新朋友}！",
        ]},
    ],
    "thanks": {"gifts": ["{谢谢|感谢|多谢}{names}送的{gifts}{！|，太暖心了！|，爱你们！|，破费啦！}"]},
    "cta": ["{喜欢的|想要的|需要的}朋友{可以|}点{下方|屏幕下面的}小黄车{下单|拍}。"],
}


def _track(data: dict | None = None, **kw) -> TalkTrack:
    kw.setdefault("seed", 5)
    t = TalkTrack.from_dict(data or RICH, "talk.yaml", **kw)
    t.moderator = moderator()
    return t


def _masker(track: TalkTrack, *extra: Template) -> Masker:
    templates = [v for seg in track.segments for item in seg.items for v in item.variants]
    templates += [v for ts in track.thanks.values() for v in ts] + list(track.cta_templates) + list(extra)
    return Masker(templates, track.variables)


def _repeats(said: list[tuple[float, str]], masker: Masker, window: float) -> list[str]:
    """Sentences said again inside the window, read back from what was said (slots masked)."""
    last: dict[str, float] = {}
    out = []
    for t, text in said:
        for k in masker.keys(text):
            if k in last and t - last[k] < window:
                out.append(k)
            last[k] = t
    return out


def test_half_an_hour_of_talk_repeats_no_sentence_inside_ten_minutes() -> None:
    t = _track()
    t.observe(Event("douyin", "r", EventKind.SYSTEM, None, extra={"type": "online", "online": 321}, received_mono=0.0))
    said = []
    now = 0.0
    while now < 1800:
        got = t.next(now, NOON)
        assert got is not None
        said.append((now, got[1]))
        now += len(got[1]) / 4.5 + 0.3 + 1.8
        t.observe(Event("douyin", "r", EventKind.SYSTEM, None, extra={"type": "online", "online": 300 + int(now) % 50},
                        received_mono=now))
    assert len(said) > 200
    assert _repeats(said, _masker(t), 600) == []
    assert t.window.repeats_total == 0
    snap = t.snapshot(now)
    assert snap["repeats_in_window"] == 0 and snap["distinct_sentences_hour"] >= 90
    counts = [text for _, text in said if "位朋友在" in text]
    assert counts and all(any(f"有{n}位" in text for n in range(300, 350)) for text in counts)  # the live count


def test_thin_material_repeats_the_oldest_counts_it_and_the_warning_says_how_much() -> None:
    data = {"segments": [{"name": "pitch", "lines": ["第一句。", ["第二句。", "第二句的另一种说法。"]]}]}
    t = _track(data)
    said = [t.next(float(i) * 5, NOON)[1] for i in range(6)]
    assert said[:3] == ["第一句。", "第二句。", "第二句的另一种说法。"] or said[:3] == ["第一句。", "第二句的另一种说法。", "第二句。"]
    assert said[3] == "第一句。"  # nothing fresh left: the line said longest ago
    assert t.window.repeats_total >= 3 and t.figures.repeats >= 3
    warnings = t.material(TalkConfig(chars_per_s=4.5, gap_s=1.5)).warnings
    assert any("segments[0].lines[0]: 1 way(s) to say it" in w and "needs" in w for w in warnings)
    summary = warnings[-1]
    assert "sayings a 10-minute window needs" in summary
    # the rich track has what the window needs
    assert _track().material(TalkConfig()).warnings == []


def test_check_reads_the_material_warning_from_the_room_config(tmp_path: Path) -> None:
    path = tmp_path / "talk.yaml"
    path.write_text("segments:\n  - name: pitch\n    lines: [只有一句。]\n", encoding="utf-8")
    (warning, summary) = material_warnings(TalkConfig(file=path))
    assert "talk.yaml: segments[0].lines[0]: 1 way(s)" in warning and "needs" in summary
    assert material_warnings(TalkConfig()) == []


def test_talk_file_errors_name_file_and_key() -> None:
    with pytest.raises(TalkTrackError, match=r"talk.yaml: segments\[0\].lines\[1\]: expected a text"):
        TalkTrack.from_dict({"segments": [{"lines": ["好", []]}]}, "talk.yaml")
    with pytest.raises(TalkTrackError, match=r"talk.yaml: thanks"):
        TalkTrack.from_dict({"segments": [{"lines": ["好"]}], "thanks": {"gift": ["x"]}}, "talk.yaml")
    with pytest.raises(TalkTrackError, match=r"replies\[0\]: expected keywords or questions"):
        TalkTrack.from_dict({"segments": [{"lines": ["好"]}], "replies": [{"reply": "x"}]}, "talk.yaml")
    with pytest.raises(TalkTrackError, match=r"segments\[0\].lines\[0\]: unbalanced"):
        TalkTrack.from_dict({"segments": [{"lines": ["{好"]}]}, "talk.yaml")


def test_live_slots_wait_for_their_values() -> None:
    data = {"segments": [{"name": "s", "lines": ["现在有{viewers}位朋友在看。", "刚才{last_gifter}送了{last_gift}，谢谢！",
                                                 "{time_of_day}好，{greeting}！"]}]}
    t = _track(data)
    # no viewer count, no gift yet: only the time-of-day line can be said
    assert t.next(0.0, dt.time(8, 30))[1] == "早上好，早上好！"
    assert t.next(100.0, dt.time(21, 0))[1] == "晚上好，晚上好！"
    gift = Event("bilibili", "r", EventKind.GIFT, User("9", "小红"), extra={"gift_name": "小心心"}, received_mono=100.0)
    t.observe(gift)
    t.observe(Event("kuaishou", "r", EventKind.SYSTEM, None, extra={"type": "online", "display": "1.2万"},
                    received_mono=100.0))
    said = {t.next(101.0 + i, NOON)[1] for i in range(2)}
    assert said == {"现在有1.2万位朋友在看。", "刚才小红送了小心心，谢谢！"}
    # an advertiser's name is never read out: the gift is not spoken of
    t2 = _track(data)
    t2.observe(Event("bilibili", "r", EventKind.GIFT, User("8", "加微信tea888"), extra={"gift_name": "小心心"},
                     received_mono=0.0))
    assert t2.values(1.0, NOON)["last_gifter"] is None


def test_a_product_is_presented_with_its_intro_segments_and_offer() -> None:
    t = _track({"segments": [{"name": "room", "lines": ["有问题打在公屏上。"]}]})
    cup = parse_segments([{"name": "intro", "once": True, "lines": ["接下来看这款{product}！"]},
                          {"name": "cup", "lines": ["{offer}，还剩{offer_left}。"]}], "products.yaml: products[0].talk")
    tea = parse_segments([{"name": "tea", "lines": ["这款{product}，{price}一罐。"]}], "products.yaml: products[1].talk")
    clock = Clock(0.0)
    offer = Offer("今晚专享", "今晚直播间到手价169元", ends_mono=clock.t + 125.0)
    a = Scene("cup", "暖暖保温杯", facts=FACTS, facts_version="v1", segments=tuple(cup), offer=offer)
    b = Scene("tea", "山野红茶", values={"price": "59元"}, segments=tuple(tea))
    assert t.next(0.0, NOON, a) == ("intro", "接下来看这款暖暖保温杯！")
    assert t.next(1.0, NOON, a) == ("cup", "今晚直播间到手价169元，还剩2分钟。")
    assert t.next(2.0, NOON, a)[0] == "room"
    assert t.next(70.0, NOON, a) == ("cup", "今晚直播间到手价169元，还剩不到一分钟。")
    # the offer has ended: its line is never said again
    assert all(t.next(130.0 + i, NOON, a)[0] == "room" for i in range(3))
    assert t.next(140.0, NOON, b) == ("tea", "这款山野红茶，59元一罐。")
    # presented again: its intro plays again
    assert t.next(150.0, NOON, a) == ("intro", "接下来看这款暖暖保温杯！")


def test_thanks_rotate_their_variants_and_end_with_the_offers_call_to_action() -> None:
    t = _track()
    tcfg = TriageConfig(gift_batch_s=1.0)
    thanks = Thanks(tcfg, t)
    t.present(Scene("cup", "暖暖保温杯", facts=FACTS,
                    offer=Offer("今晚专享", "到手价169元", cta=("{现在下单|这会儿下单}就是{offer}。", "库存不多，{抓紧|赶紧}下单。"))))
    texts = []
    for i in range(6):
        now = 100.0 * i
        thanks.add(Thank(LineKind.GIFT, f"观众{i}", gift="小心心"), now)
        texts.append((now, thanks.gift_line(now + 1).text))
    masker = _masker(t, *(Template.parse(c) for c in t.scene.offer.cta))
    assert _repeats(texts, masker, 600) == []
    ctas = [text for _, text in texts if "下单" in text]
    # the offer has four sayings of its calls to action: the first four thanks carry one each, in no fixed order
    assert [text for _, text in texts[:4]] == ctas and sum("到手价169元" in c for c in ctas) == 2
    # used up inside the window: the next thanks come without one, until the first is ten minutes old
    assert all("下单" not in text for _, text in texts[4:])
    thanks.add(Thank(LineKind.GIFT, "观众9", gift="辣条"), 601.0)
    assert "下单" in thanks.gift_line(602.0).text
    # without a talk track the thanks still rotate their own variants
    plain = Thanks(TriageConfig(gift_batch_s=1.0, thanks_gifts=["谢谢{names}送的{gifts}！", "{names}的{gifts}收到啦！"]))
    seen = []
    for i in range(2):
        plain.add(Thank(LineKind.GIFT, f"v{i}", gift="花"), float(i))
        seen.append(plain.gift_line(float(i)).text)
    assert seen[0] != seen[1].replace("v1", "v0") and {s[0] for s in seen} <= {"谢", "v"}
    guard = plain.guard(Thank(LineKind.GUARD, "舰长甲", guard_level=3, deadline=60.0))
    assert guard.text == "感谢舰长甲开通舰长，欢迎上船！" and guard.source == LineSource.THANKS


REPLIES = {
    "segments": [{"name": "s", "lines": ["好。"]}],
    "replies": [
        {"keywords": ["链接", "怎么买"], "reply": ["点下方小黄车就能下单哦。", "{想买的|喜欢的}朋友点下方小黄车。"]},
        {"questions": ["发什么快递"], "reply": "默认发中通快递。"},
        {"keywords": ["价格"], "reply": "{product}到手价99元！"},  # a figure the facts do not state
        {"keywords": ["保温多久"], "reply": "{product}热水保温12小时。", "product": "cup"},
    ],
}


def _cand(text: str, kind: LineKind = LineKind.QUESTION) -> Candidate:
    return Candidate(kind, 40, text, text, "小明", 100.0)


def test_keyword_and_question_rules_reply_after_the_guard_and_moderation() -> None:
    t = _track(REPLIES)
    t.present(Scene("cup", "暖暖保温杯", facts=FACTS))
    got = t.reply(_cand("链接在哪里呀"), None, 1.0)
    assert got is not None and "小黄车" in got.text and got.source == LineSource.THANKS and got.name == "小明"
    assert got.priority == 40 and got.key == "链接在哪里呀"
    second = t.reply(_cand("主播怎么买"), None, 2.0)
    assert second is not None and second.text != got.text  # rotated
    assert t.reply(_cand("你们发什么快递啊"), None, 3.0).text == "默认发中通快递。"
    assert t.reply(_cand("能保温多久"), None, 4.0).text == "暖暖保温杯热水保温12小时。"
    # a reply with a figure the facts do not state is not said: the brain answers instead
    assert t.reply(_cand("价格多少"), None, 5.0) is None
    assert t.replies.refused == {"talk.yaml: replies[2]": 1}
    # the triggering comment must pass moderation itself
    assert t.reply(_cand("加微信给我链接"), None, 6.0) is None
    # a rule for one product stays silent while another is presented
    t.present(Scene("tea", "山野红茶"))
    assert t.reply(_cand("能保温多久"), None, 7.0) is None
    # super chats go to the brain (it thanks the sender first)
    assert t.reply(_cand("链接呢", LineKind.SUPER_CHAT), None, 8.0) is None


def test_the_pause_between_lines_has_no_beat() -> None:
    p = Pacing(cfg(talk={"gap_range_s": [1.0, 2.6], "seed": 1}).talk)
    gaps = []
    for i in range(400):
        line = Line(text="一二三", source=LineSource.SCRIPT)
        p.handed(line, 10.0 * i)
        gaps.append(p.gap)
    assert min(gaps) >= 1.0 and max(gaps) <= 2.6
    assert statistics.pstdev(gaps) > 0.35 and len({round(g, 2) for g in gaps}) > 100
    # a configured gap_s is a fixed pause (for rooms and tests that need one)
    fixed = Pacing(cfg(talk={"gap_s": 1.5}).talk)
    fixed.handed(Line(text="一", source=LineSource.SCRIPT), 0.0)
    assert fixed.gap == 1.5 and fixed.mean_gap == 1.5


def test_seeded_tracks_draw_the_same_and_unseeded_ones_differ() -> None:
    a = [_track(seed=9).next(float(i) * 9, NOON)[1] for i in range(1)]
    b = [_track(seed=9).next(float(i) * 9, NOON)[1] for i in range(1)]
    assert a == b
    runs = set()
    for _ in range(8):
        t = _track(seed=random.randrange(1 << 30))
        runs.add(tuple(t.next(float(i) * 9, NOON)[1] for i in range(4)))
    assert len(runs) > 1


def test_talk_files_include_others(tmp_path: Path) -> None:
    (tmp_path / "more").mkdir()
    (tmp_path / "main.yaml").write_text(
        "variables: {shop: 小店}\ninclude: [more/thanks.yaml, more/lines.yaml]\n"
        "segments:\n  - name: a\n    lines: ['欢迎来到{shop}。']\n", encoding="utf-8")
    (tmp_path / "more" / "thanks.yaml").write_text(
        "thanks: {gifts: ['{names}的{gifts}收到啦！']}\ncta: [点小黄车。]\n"
        "replies:\n  - keywords: [链接]\n    reply: 点下方小黄车。\n", encoding="utf-8")
    (tmp_path / "more" / "lines.yaml").write_text(
        "variables: {shop: 别的店, city: 杭州}\nsegments:\n  - name: b\n    lines: ['{shop}在{city}。']\n", encoding="utf-8")
    t = TalkTrack.load(tmp_path / "main.yaml", seed=1)
    assert [s.name for s in t.segments] == ["a", "b"]
    assert t.variables == {"shop": "小店", "city": "杭州"}  # the including file's variables win
    assert [x.text for x in t.thanks["gifts"]] == ["{names}的{gifts}收到啦！"] and len(t.cta_templates) == 1
    assert t.replies is not None and len(t.replies.rules) == 1
    assert [t.next(float(i), NOON)[1] for i in range(2)] == ["欢迎来到小店。", "小店在杭州。"]
    assert [s.name for s in load_segments(tmp_path / "more" / "lines.yaml")] == ["b"]
    (tmp_path / "loop.yaml").write_text("include: [loop.yaml]\nsegments:\n  - lines: [好]\n", encoding="utf-8")
    with pytest.raises(TalkTrackError, match="includes itself"):
        TalkTrack.load(tmp_path / "loop.yaml")
    with pytest.raises(TalkTrackError, match=r"missing\.yaml: cannot read talk track"):
        TalkTrack.from_dict({"include": ["missing.yaml"], "segments": [{"lines": ["好"]}]}, "x.yaml", base=tmp_path)


def test_the_talk_figures_reach_the_metrics() -> None:
    from broadcaster import metrics

    t = TalkTrack.from_dict({"segments": [{"name": "s", "lines": ["一句。", "两句。"]}]}, "talk.yaml", room="figs",
                            seed=1)
    before = metrics.TALK_REPEATS.labels("figs")._value.get()
    for i in range(5):
        t.next(float(i), NOON)
    assert metrics.TALK_DISTINCT_HOUR.labels("figs")._value.get() == 2
    assert metrics.TALK_REPEATS.labels("figs")._value.get() == before + 3
    assert metrics.TALK_REPEATS_WINDOW.labels("figs")._value.get() == 3
    assert t.snapshot(5.0)["repeats_in_window"] == 3 and t.snapshot(700.0)["repeats_in_window"] == 0
