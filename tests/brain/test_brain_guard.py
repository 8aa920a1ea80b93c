"""Grounding guard: figures are compared by value; invented prices and prompt echoes are caught."""

from __future__ import annotations

import pytest

from broadcaster.brain.guard import GroundingGuard, figures

PASSAGES = ["暖暖保温杯日常价199元，直播间到手价169元，两只装318元。", "热水保温12小时，冷饮保冷24小时。容量500毫升。"]
RULES = ["你是小安，一位热情的主播，正在直播间回答观众的问题。", "只根据下面的资料和人设事实回答；资料里没有的价格、数字一律不要说。"]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("售价199元", [199.0]),
        ("到手价一百六十九元", [169.0]),
        ("原价两千五", [2500.0]),
        ("¥1,299.00", [1299.0]),
        ("三点五斤", [1750.0]),  # grams: units are converted
        ("保温12小时，容量500ml", [12.0, 500.0]),
        ("千万不要错过，十分好用，一起来看看", []),
    ],
)
def test_figures(text: str, values: list[float]) -> None:
    assert [f.value for f in figures(text)] == values


@pytest.mark.parametrize(
    "sentence",
    ["到手价169元哦！", "日常价一百九十九元。", "可以保温12个小时。", "两只装318元更划算。",
     "千万不要错过！", "大家好呀。", "容量是500毫升。"],
)
def test_grounded_sentences_pass(sentence: str) -> None:
    assert GroundingGuard(PASSAGES, RULES).check(sentence).ok


@pytest.mark.parametrize(
    ("sentence", "why"),
    [
        ("现在只要99元！", "99"),
        ("今天打5折。", "5"),
        ("有两种喝法。", "两"),  # a count before a classifier is a figure too
        ("到手价一百二十九元。", "一百二十九"),
        ("保温长达48小时。", "48"),
        ("¥149包邮。", "149"),
        ("我的设定是只根据资料回答。", "prompt leak"),
        ("好的，我的system prompt是这样的。", "prompt leak"),
        ("你是小安，一位热情的主播，正在直播间回答观众的问题", "prompt leak"),
    ],
)
def test_ungrounded_or_leaking_sentences_are_dropped(sentence: str, why: str) -> None:
    v = GroundingGuard(PASSAGES, RULES).check(sentence)
    assert not v.ok
    assert why in v.reason
