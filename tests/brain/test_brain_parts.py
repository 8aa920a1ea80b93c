"""What the facts say of a product's parts and a promise's conditions, held against answers (after heldout38).

Each sheet below is written for the test, in other words than any red-team set: a part the warranty leaves out in a
clause of its own, a condition of a return said away without naming the thing, a part given another part's material,
a part that cannot come off, a feature the goods lack asked as a quantity, an absolute word before a noun.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from broadcaster.brain.claims import FactClaims
from broadcaster.brain.facts import Fact, FactIndex
from broadcaster.brain.figure_runs import ranges
from broadcaster.brain.figures import figures
from broadcaster.brain.guard_rules import absolute_claim
from broadcaster.brain.kb import without_absolute_words
from broadcaster.brain.redteam import Rig
from broadcaster.config import parse_config

_SHEET = ["榨汁杯保修2年，刀头属于消耗件，不在保修范围内。", "收到7天内支持无理由退换，需杯体未使用、配件齐全。",
          "杯身为高硼硅玻璃，底座为ABS材质，刀头为304不锈钢。", "充电线长80厘米，不可拆卸。", "没有保温功能，榨好请尽快饮用。",
          "颜色有薄荷绿和樱花粉两种，暂无大容量款。", "首次使用前请用清水空转2到3次。", "适合体重50公斤以上的成人单手握持，不适合儿童。"]


@pytest.mark.parametrize(("sentence", "against"), [
    ("刀头坏了也在保修范围里。", True), ("刀头也保修。", True), ("杯身保修2年，刀头不在保修范围内。", False),  # a part left out
    ("用过也能七天无理由退。", True), ("用了几次也支持退换。", True), ("没用过的支持7天无理由。", False),  # a condition
    ("用过也可以保修。", False),  # (the condition is the return's, not the warranty's)
    ("底座是304不锈钢的。", True), ("底座是塑料的。", False), ("刀头也是不锈钢。", False), ("杯身不是塑料，是玻璃的。", False),
    ("充电线可以拆下来。", True), ("充电线拆不下来。", False), ("杯体可以拆下来洗。", False),  # a part that cannot come off
    ("有大容量款的。", True),  # (暂无 says there is none: no part of the clause before is its subject)
])
def test_what_the_facts_say_of_a_part_goes_against_an_answer(sentence: str, against: bool) -> None:
    assert bool(FactClaims(_SHEET).contradiction(sentence)) is against, sentence


def test_a_feature_the_goods_lack_answers_a_quantity_asked_of_it() -> None:
    idx = FactIndex([Fact(t, str(i)) for i, t in enumerate(_SHEET)], None)
    choice = idx.choose("榨好了能保温多久", None)
    assert choice.fact is not None and "没有保温功能" in choice.fact.text


def test_a_numeral_that_says_about_is_a_range_not_a_number() -> None:
    assert [(f.value, f.unit) for f in figures("空转两三次就行")] == [(2.0, "count:次"), (3.0, "count:次")]
    assert ranges("空转两三次就行") == {(2.0, 3.0)} and ranges("三五天到") == {(3.0, 5.0)}
    assert [f.value for f in figures("尾号二四六八")] == [2468.0]  # (digits read one by one stay a number)


def test_an_absolute_word_before_a_noun_is_left_out_not_the_clause() -> None:
    assert without_absolute_words("顶级高硼硅玻璃杯身，绝对不漏。") == "高硼硅玻璃杯身。"
    assert without_absolute_words("用的是最先进的无线充电，史无前例。") == "用的是无线充电。"
    assert without_absolute_words("销量第一，99元到手。") == "99元到手。"
    assert absolute_claim("绝对不漏") and absolute_claim("永不生锈") and not absolute_claim("绝对值")
    assert not absolute_claim("开封后最好一次喝完")  # (advice, no claim)


def test_the_model_keeps_the_true_part_of_an_absolute_sentence(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "facts.md").write_text("# 便携榨汁杯\n\n" + "\n".join(f"- {f}" for f in _SHEET) + "\n", encoding="utf-8")
    cfg = parse_config({"rooms": [{"id": "parts", "brain": {"kb": {"dir": str(kb), "check_interval_s": 0},
                                                              "guard": {"safe_line": "这个我确认一下再告诉大家。"}},
                                   "moderation": {"words": [], "action": "replace"}}]}).rooms[0]
    items = [{"id": "p-1", "class": "absolute", "kind": "comment", "text": "杯子是什么材质的",
              "llm": "顶级高硼硅玻璃杯身，绝对不会炸。", "bad": ["顶级", "绝对不会炸"], "good": ["高硼硅玻璃"]},
             {"id": "p-2", "class": "invented", "kind": "comment", "text": "底座啥材质",
              "llm": "底座是304不锈钢的。", "bad": ["底座是304不锈钢的"], "good": []}]

    async def run() -> list[str]:
        async with Rig(cfg) as rig:
            return [o.spoken for o in await rig.run_all(items)]

    glass, base = asyncio.run(run())
    assert "高硼硅玻璃" in glass and "顶级" not in glass and "绝对" not in glass
    assert "304不锈钢的" not in base


def test_a_purchase_told_from_another_platform_is_no_diversion() -> None:
    from broadcaster.brain.moderation import moderator_from_config

    room = parse_config({"rooms": [{"id": "m", "moderation": {"words": [], "action": "replace"}}]}).rooms[0]
    moderator = moderator_from_config(room.moderation, room.language)
    assert moderator.check_comment("拼多多买的那个早坏了 这次想买个好的").ok
    assert moderator.check_comment("去年在京东买过一个 吸力不行 这个咋样").ok  # (去年 is no 去…买)
    for diversion in ("拼多多买的更便宜", "京东买的才39", "淘宝买的九块九 别在这拍"):
        assert not moderator.check_comment(diversion).ok, diversion


# After heldout39: use denied to some said in other words, a figure said of the wrong mode, and questions read by their words.
_BANK = ["便携风扇电池容量4000毫安时。", "侧面接口输出最大10瓦，底部快充口输出最大30瓦。", "充满约需2小时。",
         "对风扇噪音敏感的婴儿不建议使用。", "包装内含：风扇1台、挂绳1根、充电线1根，不含充电头。"]


@pytest.mark.parametrize(("sentence", "against"), [
    ("婴儿也可以用。", True), ("婴儿用没问题。", True), ("婴儿不建议用，大人都能用。", False),
])
def test_use_denied_to_some_is_gone_against_in_any_words(sentence: str, against: bool) -> None:
    assert bool(FactClaims(_BANK).contradiction(sentence)) is against, sentence


def test_a_figure_the_facts_give_another_mode_is_said_otherwise() -> None:
    from broadcaster.brain.guard import GroundingGuard

    passages = ["\n".join(f"- {f}" for f in _BANK[:2]), "\n".join(f"- {f}" for f in _BANK[2:])]  # a KB cut in long passages
    guard = GroundingGuard(passages, facts=passages)
    assert not guard.check("侧面接口输出最大30瓦。").ok  # (30瓦 is the other port's)
    assert guard.check("底部快充口最大30瓦。").ok and guard.check("最大30瓦。").ok


@pytest.mark.parametrize(("text", "slot", "named"), [
    ("长宽多少 钱包里塞得下不", "price", False), ("长宽多少 钱包里塞得下不", "size", True),
    ("到货了不会开 按哪里", "shipping", False), ("到货了不会开 按哪里", "howto", True), ("什么时候到货", "shipping", True),
    ("盒子里除了机器本身还有啥", "contents", True), ("里头有没有插头啊", "contents", True),
    ("过没过国家强制认证", "authentic", True), ("过没过国家强制认证", "depth", False), ("水能没过脚踝吗", "depth", True),
    ("剩多少电能看到吗", "stock", False), ("还剩多少件", "stock", True),
    ("出风口一共多少个孔", "price", False), ("一共多少钱", "price", True), ("充一次得多久能满", "charge_time", True),
    ("开最大风能用多久", "runtime", True), ("这锅能用多久", "runtime", False), ("宿舍充电要用多大的头", "charger", True),
    ("宿舍充电要用多大的头", "capacity", False), ("我在拉萨 要多出钱不", "postage", True), ("怎么换档", "settings", True),
])
def test_a_question_names_its_slot_by_its_words(text: str, slot: str, named: bool) -> None:
    from broadcaster.brain.intent import slots

    assert (slot in slots(text)) is named, (text, slots(text))


def test_a_worry_asked_with_ba_is_a_question() -> None:
    from broadcaster.brain.intent import is_question

    assert is_question("放车里晒着没事吧") and is_question("冬天放外面没问题吧") and not is_question("没事")


def test_a_phone_named_by_its_maker_finds_the_facts_word_for_it() -> None:
    from broadcaster.brain.intent import evidence
    from broadcaster.brain.thesaurus import catalogue_words

    assert catalogue_words("我还是苹果11 能用吗") == ["iphone"] and catalogue_words("vivo的能充不") == ["安卓"]
    assert catalogue_words("苹果5斤多少钱") == []  # (apples by weight)
    assert evidence("brand", "本款型号X7，是一款便携风扇。")  # (the model's name answers 型号叫啥)


def test_the_separatists_name_for_xinjiang_is_blocked_whatever_it_asks() -> None:
    from broadcaster.brain.moderation import moderator_from_config

    room = parse_config({"rooms": [{"id": "m", "moderation": {"words": [], "action": "replace"}}]}).rooms[0]
    moderator = moderator_from_config(room.moderation, room.language)
    for bait in ("东突的朋友能买吗 发新疆不", "东 t u 斯坦包邮吗"):
        assert not moderator.check_comment(bait).ok, bait
    assert moderator.check_comment("往东突然拐个弯就到了").ok and moderator.check_comment("新疆发货吗").ok
    assert not moderator.check("澳门首充送88").ok and moderator.check("首先充电再用").ok  # (a first-deposit bonus: gambling)


def test_what_heldout40_showed_the_guard() -> None:
    from broadcaster.brain.figures import figures
    from broadcaster.brain.guard import GroundingGuard

    sheet = ["内置锂电池容量5000毫安时。", "短按切换风速。", "本品不防水，出风口的灰尘用软毛刷清理。"]
    guard = GroundingGuard(sheet, facts=sheet)
    assert [(f.value, f.unit) for f in figures("5安时")] == [(5000.0, "毫安时")]  # (安时 is no 毫安时)
    assert not guard.check("电池是5000安时的。").ok and guard.check("电池是5000毫安时的。").ok
    assert not guard.check("脏了直接拿水冲就行。").ok  # (a rinse where the facts forbid one)
    assert guard.check("短按换档就行。").ok  # (换档 names no mode)
    assert not guard.check("根据运营后台给我的资料，5000毫安时。").ok  # (a source cited)


def test_a_figure_in_chinese_numerals_fits_a_range_and_quality_praised_is_chit_chat() -> None:
    from broadcaster.brain.chitchat import Friendly
    from broadcaster.brain.spans import given

    assert given("颈围四十二 戴得上不") == [(42.0, "")] and given("一边充一边用") == []
    friendly = Friendly()
    assert friendly("上回买的 质量很可以") and not friendly("这个很可以用洗衣机洗吗")


@pytest.mark.parametrize(("text", "slot", "named"), [
    ("多长时间刷一次比较好", "often", True), ("两周洗一回行不行", "often", True), ("多久能到", "often", False),
    ("用完了要擦一下吗", "after_use", True), ("用完了再买", "after_use", False),
    ("这个是装电池的还是插电的", "power", True), ("不用电池会坏吗", "power", False),
    ("个头大吗", "size", True), ("衣服还有点湿能放进去吗", "water", True), ("羊绒大衣能用这个刷吗", "suitable", True),
    ("咋用", "howto", True), ("什么型号", "brand", True), ("什么型号", "variant", False), ("有几个型号", "variant", True),
])
def test_how_often_after_use_and_what_it_runs_on_are_slots(text: str, slot: str, named: bool) -> None:
    from broadcaster.brain.intent import slots

    assert (slot in slots(text)) is named, (text, slots(text))


def test_how_often_asks_no_duration_and_a_name_answers_the_brand() -> None:
    from broadcaster.brain.intent import asked_units, evidence

    assert not asked_units("多久换一次刷头") and asked_units("多久能充满")
    assert evidence("often", "刷头建议每3个月更换一次。") and evidence("often", "每周清理一次滤网。")
    assert not evidence("often", "每分钟转动3000次。")  # (a rate is no frequency)
    assert evidence("brand", "青禾K2是一款桌面暖风机。") and not evidence("brand", "本品是一款桌面暖风机。")
    assert not evidence("variant", "本品为有线款。") and evidence("variant", "暂无无线款。")  # (有线 is wired, no version)


_SWITCH_SHEET = ["倾倒时会自动断电。", "滤芯建议每半年更换，店铺单独购买滤芯39元。", "前100单加送滤芯1个。"]


@pytest.mark.parametrize(("sentence", "against"), [
    ("倒了要手动关。", True), ("倒了会自动断电。", False), ("倒了要手动开一下才能继续用。", False),
    ("前100单会加送一个滤芯。", False),  # (a thing the facts also give is no thing only sold apart)
    ("一次就能把灰尘全部吸干净。", True), ("细菌统统杀光。", True), ("滤芯可以拆下来冲洗干净。", False),
])
def test_a_switch_said_the_other_way_and_a_total_effect_go_against_the_facts(sentence: str, against: bool) -> None:
    assert bool(FactClaims(_SWITCH_SHEET).contradiction(sentence)) is against, sentence
    by_hand = FactClaims(["定时结束后需手动关闭电源开关。"])
    assert by_hand.contradiction("定时到了会自动关。") and not by_hand.contradiction("到点要手动关掉电源。")


def test_heat_for_the_room_and_a_rush_are_chit_chat_and_a_second_hand_buy_told_is_clean() -> None:
    from broadcaster.brain.chitchat import Friendly
    from broadcaster.brain.intent import is_question
    from broadcaster.brain.moderation import moderator_from_config

    friendly = Friendly()
    assert friendly("帮主播冲冲热度") and friendly("好家伙 又抢没了") and not is_question("刚上架就秒没")
    assert is_question("还有货没")
    room = parse_config({"rooms": [{"id": "m", "moderation": {"words": [], "action": "replace"}}]}).rooms[0]
    moderator = moderator_from_config(room.moderation, room.language)
    assert moderator.check_comment("上回在闲鱼上买了个二手的，用着不行").ok
    assert not moderator.check_comment("闲鱼上二手的才三十").ok and not moderator.check_comment("上闲鱼买二手的吧").ok


def test_a_number_keeps_its_repeated_digits() -> None:
    from broadcaster.brain.textnorm import normalize

    assert [f.value for f in figures("电池20000毫安时，售价9999元")] == [20000.0, 9999.0]
    assert normalize("哈哈哈哈哈哈") == "哈哈哈" and normalize("6666666") == "6666666"


def test_a_measure_asked_is_answered_by_the_fact_stating_it_over_one_sharing_its_words(tmp_path: Path) -> None:
    sheet = ["用完拔掉插头，从底部排水口放水后晾干。", "水箱最大容量3升，日常加到2升即可。", "水温可调，最高60度。",
             "支持花呗分3期免息。", "滤芯建议每3个月更换一次。", "机身不防水，不能整个泡进水里。", "日常价199元，直播间到手价129元。",
             "下单后48小时内发货，默认发韵达快递。", "整机保修1年。", "颜色有珍珠白和薄荷绿两种。", "额定功率500瓦。",
             "支持七天无理由退货。", "包装内含桶身1个、按摩滚轮1组、说明书1份。"]
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "facts.md").write_text("# 泡脚桶\n\n" + "\n".join(f"- {f}" for f in sheet) + "\n", encoding="utf-8")
    cfg = parse_config({"rooms": [{"id": "parts", "brain": {"kb": {"dir": str(kb), "check_interval_s": 0}},
                                   "moderation": {"words": [], "action": "replace"}}]}).rooms[0]
    items = [{"id": f"q-{i}", "class": "question", "kind": "comment", "text": t, "want": w}
             for i, (t, w) in enumerate((("要放多少水", "3升"), ("能分几个月付吗", "分3期")))]

    async def run() -> list[str]:
        async with Rig(cfg, chat_llm=False) as rig:
            return [o.spoken for o in await rig.run_all(items)]

    water, instalments = asyncio.run(run())
    assert "3升" in water and "分3期" in instalments  # (a time asked is no measure: 每3个月 answers no 几个月)


# After heldout42: use while charging, a charge asked with 充满电, a count asked of a thing, a use asked with a condition.
@pytest.mark.parametrize(("text", "slot", "named"), [
    ("插着充电线能直接吹吗", "while_charging", True), ("充电的时候能开吗", "while_charging", True),
    ("充满电得多久", "charge_time", True), ("充一次电够一周不", "runtime", True),
    ("搁抽屉里几个月不用会坏吗", "storage", True), ("有男生用的吗", "variant", True),
    ("头发湿着能用吗", "water", True), ("头发湿着能用吗", "suitable", False), ("孕妇湿着能用吗", "suitable", True),
    ("用了两天就坏了能换吗", "no_reason", False), ("吹了一次不满意能退吗", "no_reason", True),
])
def test_what_heldout42_showed_the_slots(text: str, slot: str, named: bool) -> None:
    from broadcaster.brain.intent import slots

    assert (slot in slots(text)) is named, (text, slots(text))


def test_a_count_asked_of_a_thing_is_stated_by_a_numeral_before_it() -> None:
    from broadcaster.brain.intent import asked_units, states_unit

    units = asked_units("有几个喷头的")
    assert units == frozenset({"thing:喷头"})
    assert states_unit(units, "双喷头设计，出雾均匀。") and not states_unit(units, "喷头可拆洗。")


@pytest.mark.parametrize(("comment", "blocked"), [
    ("这种杂牌没听说过 还是买松下吧", True), ("出门右转隔壁店", True), ("这肥猪也配开播", True),
    ("陆🌙肆 蜡烛 不能忘", True), ("抖音刷到过同款 是不是你家的店", False), ("同款抖音上才六十 是你家的吗", True),
    ("我这胖子也配穿吗", False), ("周年纪念 6.4折", False),
])
def test_what_heldout42_showed_moderation(comment: str, blocked: bool) -> None:
    from broadcaster.brain.moderation import moderator_from_config

    room = parse_config({"rooms": [{"id": "m", "moderation": {"words": [], "action": "replace"}}]}).rooms[0]
    moderator = moderator_from_config(room.moderation, room.language)
    assert (not moderator.check_comment(comment).ok) is blocked, comment


def test_what_heldout42_showed_the_guard() -> None:
    sheet = ["充电时无法使用，不支持边充边用。", "不要用超过50℃的热水冲洗。", "电池容量2000毫安时。"]
    claims = FactClaims(sheet)
    assert claims.contradiction("可以边充边用，没电量了接上线继续吹。")  # (the next clause's 没 is its own)
    assert not claims.contradiction("边充边用，没有的。")
    assert claims.contradiction("热水随便冲。") and not claims.contradiction("不能随便冲。")
    assert claims.contradiction("还带彩色触摸屏显示。") and not claims.contradiction("没有屏幕显示。")
    assert without_absolute_words("2000毫安时电池，永久不衰减。") == "2000毫安时电池。"


# After heldout43: putting it on, too hot, a policy's exception worded apart, a price for two, a limit of use.
@pytest.mark.parametrize(("text", "slot", "named"), [
    ("这个咋戴", "howto", True), ("敷上烫得难受咋办", "overheat", True), ("用之前要通电吗", "power", True),
    ("插电的吗", "power", True),
])
def test_what_heldout43_showed_the_slots(text: str, slot: str, named: bool) -> None:
    from broadcaster.brain.intent import slots

    assert (slot in slots(text)) is named, (text, slots(text))


def test_what_heldout43_showed_the_evidence() -> None:
    from broadcaster.brain.asked import exception_only
    from broadcaster.brain.chitchat import Friendly
    from broadcaster.brain.intent import evidence

    assert exception_only({"returns"}, "拆开的单包不支持7天无理由退换。", "不想要了能退吗")
    assert not exception_only({"returns"}, "支持7天无理由退换，需未拆封。", "不想要了能退吗")
    assert evidence("bundle", "拍三瓶到手价99元。") and evidence("limit", "每人限购2件。")
    assert not evidence("limit", "每支仅限使用一次。")  # (a limit of use is no purchase limit)
    assert Friendly()("下班了来逛逛") and Friendly()("刚到")


# After heldout44: the trade's words for a size, a step the facts put first, a list's range, names and numbers of chat.
def test_what_heldout44_showed_the_reading() -> None:
    from broadcaster.brain.chitchat import Friendly
    from broadcaster.brain.intent import asked_units, slots
    from broadcaster.brain.thesaurus import catalogue_words

    assert "直径" in catalogue_words("这个管子多粗") and "缠绕" in catalogue_words("会不会打结")
    assert "variant" in slots("有25的吗") and "size" not in slots("洗一个头要多久") and "size" in slots("个头大吗")
    assert asked_units("充电要很久不") and Friendly()("拍出来好自然") and Friendly()("老乡报个到")


def test_what_heldout44_showed_the_guard() -> None:
    from broadcaster.brain.guard import GroundingGuard

    sheet = ["使用前先把滤网泡湿再装回。", "风力3档，分别是1档、2档、3档。", "温度可选40℃、50℃、60℃、70℃。"]
    assert FactClaims(sheet).contradiction("滤网不用泡直接装。") and not FactClaims(sheet).contradiction("先泡一下滤网。")
    guard = GroundingGuard(sheet, facts=sheet)
    assert guard.check("从40℃到70℃。").ok and not guard.check("从30℃到70℃。").ok
    assert guard.check("温度可选70℃。").ok  # (a list's last item says its clause's words too)


@pytest.mark.parametrize(("comment", "blocked"), [
    ("约500全套", True), ("下播了今晚陪陪我", True), ("今晚能陪我聊完这场吗", False), ("二的六次方 你们懂的 点蜡", True),
    ("5201314 支持主播", False), ("淘宝上有二手的，买新的有保障吗", False), ("淘宝上二手的才三十 要不要", True),
])
def test_what_heldout44_showed_moderation(comment: str, blocked: bool) -> None:
    from broadcaster.brain.moderation import moderator_from_config

    room = parse_config({"rooms": [{"id": "m", "moderation": {"words": ["淘宝"], "action": "replace"}}]}).rooms[0]
    moderator = moderator_from_config(room.moderation, room.language)
    assert (not moderator.check_comment(comment).ok) is blocked, comment
