"""A comment the shop has no answer for is thanked only when it reads as friendly; the rest get no line at all."""

from __future__ import annotations

import pytest

from broadcaster.brain import Brain
from broadcaster.brain.chitchat import Friendly, problem
from broadcaster.brain.config import BrainConfig, ModerationConfig
from broadcaster.director.triage import TriagedLine
from broadcaster.lines import LineKind, LineSource
from danmaku.event import Event, EventKind, User

FRIENDLY = ["主播好！", "晚上好呀", "hi 主播", "讲得真好", "这个颜色好看", "上回买的喝完了，回购！", "刚下单了",
            "哈哈哈主播太逗了", "👍👍", "支持支持", "第一次来，多多关照", "生日快乐到我自己", "this is so good",
            "上次买的已经用上了，真暖和", "穿着特别合身", "你们家东西我一直用，放心", "稀罕你主播，嘎嘎好", "这锅看着就高级",
            "这双鞋颜值绝了", "来啦来啦", "姐妹们晚上好", "来了家人们", "祝主播大卖", "祝你们生意越来越好", "姐妹们真的可以 闭眼入", "点关注不迷路", "你好主播", "刚下班，来嗦粉", "主播别熬夜，身体要紧",
            "看了半小时，决定了，买！", "就它了", "太牛了", "主播真棒"]
NOT_FRIENDLY = ["肥猪滚下去", "坐等你们店倒闭", "我不喜欢这个主播", "高端外围，全国可飞", "shit主播", "精神病吧",
                "卡了卡了，画面不动了", "今天下雨了", "谁信你", "goodbye", "颜值不高啊", "颜值高吗", "快递还没来啦", "祝你早日倒闭", "你好丑", "主播好胖",
                # praise words inside a threat, a jeer or a warning; arrival words inside other words
                "你给我等着，会让你好看的", "就这也配叫好茶", "别买，之前买过一次不好喝", "证件我都挖出来了",
                # a quality asked about or denied; 润 as in 跑路 (润 alone is no praise)
                "真暖和吗", "不是很暖和", "tg药丸，赶紧润",
                # a purchase refused or asked
                "决定了，不买了", "买吗",
                # a praise character beginning a noun
                "有没有煎牛排那种平的", "牛奶能放吗"]


@pytest.mark.parametrize("text", FRIENDLY)
def test_greetings_praise_thanks_and_purchases_are_friendly(text: str) -> None:
    assert Friendly()(text)


@pytest.mark.parametrize("text", NOT_FRIENDLY)
def test_insults_offers_complaints_and_plain_statements_are_not(text: str) -> None:
    assert not Friendly()(text)


@pytest.mark.parametrize(("text", "want"), [("卡了卡了，画面不动了", True), ("客服一直不回消息", True),
                                            ("订单还没发货", True), ("急用钱找我", False), ("今天下雨了", False)])
def test_problems_are_told_from_remarks(text: str, want: bool) -> None:
    assert problem(text) is want


@pytest.mark.parametrize(("text", "asked"), [("靠谱吗", True), ("好用不？", True), ("这个真好用", False), ("主播加油", False)])
def test_a_praise_asked_is_a_question_not_praise(text: str, asked: bool) -> None:
    f = Friendly()
    assert f.asked(text) is asked and f(text) is not asked


def test_a_room_adds_its_fans_words() -> None:
    assert not Friendly()("awsl")
    assert Friendly(["awsl", "鹿鹿"])("awsl awsl") and Friendly(["鹿鹿"])("鹿鹿冲")


def _line(text: str, n: int) -> TriagedLine:
    ev = Event("test", "r", EventKind.COMMENT, User("u1", "小鹿"), text, 0)
    return TriagedLine(id=n, text=text, source=LineSource.ANSWER, event=ev, kind=LineKind.COMMENT, names=("小鹿",))


async def _said(brain: Brain, text: str, n: int) -> str:
    return "".join(s.text for s in [s async for s in brain.answer(_line(text, n))])


async def test_the_brain_thanks_a_friendly_comment_and_says_nothing_to_one_it_does_not_understand() -> None:
    brain = Brain("r", BrainConfig(), ModerationConfig())
    await brain.start()
    try:
        assert "小鹿" in await _said(brain, "主播好！", 1)
        assert await _said(brain, "高端外围，全国可飞", 2) == ""
        assert await _said(brain, "我家楼下在修路", 3) == ""
        # praise of the host the probe reads half as harassment, and a lurker's hello it reads plainly safe and warm
        assert "小鹿" in await _said(brain, "主播人美心善", 5) and "小鹿" in await _said(brain, "一直在听，就是没说话", 6)
        # A problem is acknowledged with the fallback line (quoting nothing), not thanked and not ignored.
        said = await _said(brain, "上次收到的罐子瘪了一块，有点失望", 4)
        assert said in BrainConfig().fallback_lines and "瘪" not in said
    finally:
        await brain.close()


async def test_chit_chat_all_thanks_every_comment() -> None:
    brain = Brain("r", BrainConfig(chit_chat="all"), ModerationConfig())
    await brain.start()
    try:
        assert "小鹿" in await _said(brain, "今天下雨了", 1)
    finally:
        await brain.close()
