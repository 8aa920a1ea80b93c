"""Sentence splitting: CJK punctuation, decimals, abbreviations, streaming equivalence, long sentences."""

from __future__ import annotations

import random

import pytest

from broadcaster.brain.sentences import SentenceSplitter, split_sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("这款保温杯售价199.9元。现在下单还送杯套！你们觉得怎么样？",
         ["这款保温杯售价199.9元。", "现在下单还送杯套！", "你们觉得怎么样？"]),
        ("他说：“好的。”然后走了", ["他说：“好的。”", "然后走了"]),
        ("等等……真的吗？！好吧", ["等等……", "真的吗？！", "好吧"]),
        ("Hello Mr. Smith. It costs 3.5 dollars! See example.com now", ["Hello Mr. Smith.", "It costs 3.5 dollars!", "See example.com now"]),
        ("Meet at 3 p.m. today. Bring e.g. a cup.", ["Meet at 3 p.m. today.", "Bring e.g. a cup."]),
        ("1. 第一点\n2. 第二点", ["1. 第一点", "2. 第二点"]),
        ("价格1,000元；包邮", ["价格1,000元；", "包邮"]),
        ("**重点**：包邮。", ["重点：包邮。"]),
        ("。。！", []),
        ("", []),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_long_sentence_is_cut_at_commas_not_inside_numbers() -> None:
    text = "这是一个非常非常长的句子，里面有很多很多的逗号，价格是1,299元，我们需要把它切开，不然语音合成会等太久，观众会觉得卡顿。"
    parts = split_sentences(text, max_chars=20)
    assert len(parts) > 1
    assert "".join(parts) == text
    assert all(len(p) <= 20 for p in parts)
    assert any("1,299" in p for p in parts)
    assert all(p.endswith(("，", "。")) for p in parts)


def test_long_text_without_commas_is_hard_cut() -> None:
    parts = split_sentences("啊" * 130, max_chars=50)
    assert [len(p) for p in parts] == [50, 50, 30]


@pytest.mark.parametrize("seed", range(20))
def test_streaming_matches_whole_text_for_any_chunking(seed: int) -> None:
    text = ("欢迎来到直播间！这款杯子售价199.9元，保温12小时。Mr. Li asked: is it 3.5 kg? "
            "不是的，只有0.35kg……还有问题吗？“没有了。”好的\n下一位")
    rng = random.Random(seed)
    splitter = SentenceSplitter()
    got: list[str] = []
    i = 0
    while i < len(text):
        step = rng.randint(1, 4)
        got.extend(splitter.feed(text[i : i + step]))
        i += step
    got.extend(splitter.flush())
    assert got == split_sentences(text)


def test_first_sentence_is_available_before_the_stream_ends() -> None:
    splitter = SentenceSplitter()
    assert splitter.feed("这款保温杯售价199") == []
    assert splitter.feed(".") == []  # could be a decimal point
    assert splitter.feed("9元。") == []  # a closing quote may still follow
    assert splitter.feed("现在") == ["这款保温杯售价199.9元。"]
    assert splitter.flush() == ["现在"]


def test_long_pending_sentence_is_emitted_early_at_a_comma() -> None:
    splitter = SentenceSplitter(max_chars=12)
    out = splitter.feed("今天给大家介绍一款杯子，它可以保温十二个小时，")
    assert out and out[0] == "今天给大家介绍一款杯子，"
    rest = splitter.feed("非常好用。") + splitter.flush()
    assert "".join(out + rest) == "今天给大家介绍一款杯子，它可以保温十二个小时，非常好用。"


def test_eager_mode_emits_at_a_terminator_without_waiting_for_the_next_token() -> None:
    splitter = SentenceSplitter(eager=True)
    assert splitter.feed("杯身有一年保修哦！") == ["杯身有一年保修哦！"]
    assert splitter.feed("价格199.") == []  # '.' still waits: it may be a decimal point
    assert splitter.feed("9元。") == ["价格199.9元。"]
    assert splitter.feed("”然后呢") == []  # the late closing quote is dropped, not spoken alone
    assert splitter.flush() == ["然后呢"]
