"""A word typed by its sound is read as the facts' word; real words and function words stay."""

from __future__ import annotations

import pytest

from broadcaster.brain.homophones import mended

FACTS = ["额定功率1800瓦，烧开一满壶水约5分钟。", "恒温保温最长12小时。", "下单后48小时内发货，全国包邮。",
         "整机保修1年。", "不能放进洗碗机。"]


@pytest.mark.parametrize(("question", "read"), [
    ("功律大不大 我家电线老了", "功率大不大 我家电线老了"),  # 功律 is no word; 功率 is the facts'
    ("保文能保多久", "保温能保多久"),
    ("啥时候法货", "啥时候发货"),
])
def test_a_slip_of_the_keyboard_reads_as_the_facts_word(question: str, read: str) -> None:
    assert mended(question, FACTS) == read


@pytest.mark.parametrize("question", [
    "已下单，等发货",  # 已|下单: 以下 would cross a word
    "布能机洗吗",  # 不能 is a function word of the language, no product's word
    "料包有几个呀",  # 有 is a word on its own, not a slip for 邮
    "保修多久",  # already the facts' word
    "能放水里洗吗",  # 放水 is a word
])
def test_words_and_function_words_stay(question: str) -> None:
    assert mended(question, FACTS) == question


def test_a_sound_two_facts_words_share_is_no_guess() -> None:
    assert mended("保文多久", ["保温12小时", "保稳不漏"]) == "保文多久"


def test_no_facts_no_change() -> None:
    assert mended("功律大不大", []) == "功律大不大"
