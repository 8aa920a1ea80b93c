"""Table-driven tests of the Chinese speech normalization (what a host would say for each written form)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcaster.voice.textnorm import int_zh, normalize, normalize_zh, number_zh

CASES = [
    # prices
    ("只要¥199.9", "只要一百九十九点九元"),
    ("现价￥199.90元", "现价一百九十九点九元"),
    ("到手价 ¥1,299", "到手价一千二百九十九元"),
    ("$5 一杯", "五美元一杯"),
    ("¥2.5万", "二点五万元"),
    ("199元包邮", "一百九十九元包邮"),
    ("0.05元", "零点零五元"),
    # percentages
    ("打折50%", "打折百分之五十"),
    ("增长12.5%", "增长百分之十二点五"),
    ("下降-3%", "下降负百分之三"),
    ("含量100％", "含量百分之一百"),
    ("千分之 5‰", "千分之千分之五"),
    # dates and times
    ("2024年5月1日开播", "二零二四年五月一日开播"),
    ("2024-05-01上架", "二零二四年五月一日上架"),
    ("2026/11/29", "二零二六年十一月二十九日"),
    ("6月18号大促", "六月十八号大促"),
    ("2025年", "二零二五年"),
    ("今晚20:30开抢", "今晚二十点三十分开抢"),
    ("8:05见", "八点零五分见"),
    ("12:00整", "十二点整"),
    ("20:30:15", "二十点三十分十五秒"),
    # phone numbers, digit by digit
    ("电话13812345678", "电话幺三八幺二三四五六七八"),
    ("拨打138-1234-5678", "拨打幺三八幺二三四五六七八"),
    ("客服400-820-8820", "客服四零零八二零八八二零"),
    ("订单号1234567890", "订单号一二三四五六七八九零"),
    # units
    ("净重5kg", "净重五千克"),
    ("500ml装", "五百毫升装"),
    ("续航3km", "续航三公里"),
    ("10cm长", "十厘米长"),
    ("5000mAh大电池", "五千毫安时大电池"),
    ("室温25℃", "室温二十五摄氏度"),
    ("256GB", "二百五十六G B"),
    ("3-5天发货", "三到五天发货"),
    ("1/3的人", "三分之一的人"),
    # model numbers and English letters
    ("RTX4090显卡", "R T X四零九零显卡"),
    ("iPhone15", "iPhone十五"),
    ("Mate60 Pro", "Mate六十 Pro"),
    ("GPU很强", "G P U很强"),
    ("买2件", "买两件"),
    ("第2名", "第二名"),
    ("¥59/件", "五十九元一件"),
    ("拍2单", "拍两单"),
    ("x2", "乘二"),
    ("No.1好物", "第一好物"),
    ("618大促", "六一八大促"),
    ("PM2.5过滤", "P M二点五过滤"),
    ("-5℃", "负五摄氏度"),
    ("比分3:2", "比分三比二"),
    ("买1+1", "买一加一"),
    ("销量10w+", "销量十万加"),
    ("95后", "九五后"),
    # plain numbers
    ("10", "十"),
    ("15", "十五"),
    ("110", "一百一十"),
    ("1005", "一千零五"),
    ("10086", "一万零八十六"),
    ("20000", "二万"),
    ("100000000", "一亿"),
    ("3.14", "三点一四"),
    # dropped and names
    ("看这里https://example.com/a?b=1 好", "看这里好"),
    ("链接 www.taobao.com 下单", "链接下单"),
    ("哈哈😂😂太好了👍", "哈哈太好了"),
    ("主播好[doge]", "主播好"),
    ("@小明 欢迎你", "小明，欢迎你"),
    ("@Alice: hello", "Alice，hello"),
    ("ＡＢＣ１２３", "A B C一二三"),
    ("好评★★★★★", "好评"),
    ("@主播 @小红：你好", "主播，小红，你好"),
]


@pytest.mark.parametrize(("written", "spoken"), CASES)
def test_normalize_zh_table(written: str, spoken: str) -> None:
    assert normalize_zh(written) == spoken


# 2 is read 两 only as a count before a measure word; never in ordinals, months, grades, clock times,
# decimals, negative numbers or longer (phone-like) digit strings.
TWO_CASES = [
    ("买2件", "买两件"),
    ("2个", "两个"),
    ("2个月", "两个月"),
    ("2天发货", "两天发货"),
    ("2小时", "两小时"),
    ("2分钟", "两分钟"),
    ("拍2单", "拍两单"),
    ("第2件", "第二件"),
    ("第2天", "第二天"),
    ("第2次", "第二次"),
    ("第 2件", "第二件"),
    ("No.2件", "第二件"),
    ("第12件", "第十二件"),
    ("2月", "二月"),
    ("2年级", "二年级"),
    ("2年", "两年"),
    ("八点2分", "八点二分"),
    ("2楼", "二楼"),
    ("2号", "二号"),
    ("12个", "十二个"),
    ("22个", "二十二个"),
    ("0.2个", "零点二个"),
    ("2.5斤", "二点五斤"),
    ("-2个", "负二个"),
    ("13812345672个", "幺三八幺二三四五六七二个"),
]


@pytest.mark.parametrize(("written", "spoken"), TWO_CASES)
def test_two_is_liang_only_as_a_count(written: str, spoken: str) -> None:
    assert normalize_zh(written) == spoken


@pytest.mark.parametrize(
    ("n", "zh"),
    [(0, "零"), (7, "七"), (10, "十"), (11, "十一"), (20, "二十"), (101, "一百零一"), (1010, "一千零一十"),
     (10001, "一万零一"), (100010, "十万零一十"), (120000, "十二万"), (1000000, "一百万"),
     (100000001, "一亿零一"), (-42, "负四十二")],
)
def test_int_zh(n: int, zh: str) -> None:
    assert int_zh(n) == zh


def test_number_zh_decimals() -> None:
    assert number_zh("199.90") == "一百九十九点九"
    assert number_zh("-0.5") == "负零点五"
    assert number_zh("1,000,000") == "一百万"


def test_english_cleans_then_reads_english() -> None:
    assert normalize("Price is $5 😀 see https://x.io @Bob", "en") == "Price is five dollars see Bob"
    assert normalize("Prix 5 € 😀", "fr") == "Prix 5 €"  # other languages: the cleanup only


def test_no_digits_left_in_zh_output() -> None:
    text = "今天2024年11月29日，RTX4090只要¥12999，打9折，电话13800001111，净重1.5kg，20:00开抢，还剩37件！"
    out = normalize_zh(text)
    assert not any(c.isdigit() for c in out), out

_ALPHABET = st.sampled_from(list("0123456789.,:%¥$-+/xX@ kgmlLAaBbZz年月日号点元件个天后你好的是，。！？😀[]"))


@settings(max_examples=300, deadline=None)
@given(st.text(_ALPHABET, max_size=40))
def test_any_text_normalizes_without_digits_or_errors(text: str) -> None:
    out = normalize_zh(text)
    assert not any(c.isdigit() for c in out), (text, out)
