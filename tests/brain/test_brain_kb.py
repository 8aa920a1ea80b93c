"""Knowledge base: loading and chunking, BM25 retrieval, extractive answers, rebuild on file change."""

from __future__ import annotations

import os
import time
from pathlib import Path

from broadcaster.brain.corpus import load_corpus, spoken
from broadcaster.brain.kb import KnowledgeBase, extract_answer, kb_answer
from broadcaster.brain.lexical import BM25Index, Hit, Passage, tokenize


def test_corpus_from_demo_files(kb_dir: Path) -> None:
    corpus = load_corpus(kb_dir, 300)
    ids = [p.id for p in corpus.passages]
    assert len(ids) == len(set(ids))
    assert any(i.startswith("faq.yaml#") for i in ids)
    assert any(i.startswith("policy.md#") for i in ids)
    assert any(i.startswith("product.yaml#") for i in ids)
    # Alternative phrasings share one passage; every FAQ pair points at an existing passage.
    assert {pid for _, _, pid in corpus.faq} <= set(ids)
    assert ("包邮吗" in [q for q, _, _ in corpus.faq]) and ("运费多少" in [q for q, _, _ in corpus.faq])
    policy = [p for p in corpus.passages if p.file == "policy.md"]
    assert any(p.title == "退换货" and "七天无理由" in p.text for p in policy)


def test_long_markdown_is_chunked_under_the_limit(tmp_path: Path) -> None:
    (tmp_path / "long.md").write_text("# 长文\n\n" + "这是一句很长的介绍。" * 200, encoding="utf-8")
    corpus = load_corpus(tmp_path, 120)
    assert len(corpus.passages) > 5
    assert all(len(p.text) <= 120 + len("长文\n") for p in corpus.passages)


def test_bm25_finds_the_right_passage(kb_dir: Path) -> None:
    kb = KnowledgeBase(kb_dir)
    kb.build_sync()
    cases = {
        "什么时候发货": "发货",
        "能退货吗": "退",
        "杯子有什么颜色": "樱花粉",
        "能开发票吗": "发票",
        "杯盖坏了怎么办": "杯盖",
    }
    for q, needle in cases.items():
        hits = kb.search_sync(q)
        assert hits, q
        assert needle in hits[0].passage.text, (q, hits[0].passage)
        assert hits[0].match >= 0.3, (q, hits[0])
    off_topic = kb.search_sync("火箭什么时候发射到月球")
    assert not off_topic or off_topic[0].match < 0.3


def test_bm25_ranks_by_term_weight() -> None:
    passages = [Passage("a#0", "保温杯的颜色有白色和黑色"), Passage("b#0", "保温杯的价格是199元"),
                Passage("c#0", "快递默认中通")]
    idx = BM25Index(passages)
    assert idx.search("价格多少", 1)[0].passage.id == "b#0"
    assert idx.search("颜色", 3)[0].passage.id == "a#0"
    assert idx.search("", 3) == []
    assert "的" not in tokenize("保温杯的颜色")


def test_extractive_answer_picks_matching_sentences(kb_dir: Path) -> None:
    kb = KnowledgeBase(kb_dir)
    kb.build_sync()
    q = "保修多久"
    hit = kb.search_sync(q)[0]
    ans = extract_answer(q, hit)
    assert "一年保修" in ans
    faq_hit = next(h for h in kb.search_sync("包邮吗", 5) if h.passage.id.startswith("faq.yaml"))
    assert extract_answer("包邮吗", faq_hit).startswith("全国包邮")


async def test_rebuilds_when_files_change(kb_dir: Path) -> None:
    now = [0.0]
    kb = KnowledgeBase(kb_dir, check_interval_s=5.0, clock=lambda: now[0])
    await kb.build()
    assert kb.builds == 1
    assert not any("礼盒" in h.passage.text for h in await kb.search("礼盒包装"))
    (kb_dir / "gift.md").write_text("# 礼盒\n\n送礼可以选礼盒包装，加8元。\n", encoding="utf-8")
    # Within the check interval nothing is re-read.
    assert await kb.maybe_rebuild() is False
    now[0] += 6.0
    hits = await kb.search("礼盒包装")
    assert kb.builds == 2
    assert hits and "礼盒" in hits[0].passage.text
    # An edit in place (same name) is seen too.
    p = kb_dir / "gift.md"
    p.write_text("# 礼盒\n\n礼盒包装免费赠送。\n", encoding="utf-8")
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    now[0] += 6.0
    hits = await kb.search("礼盒包装")
    assert kb.builds == 3 and "免费" in hits[0].passage.text
    now[0] += 6.0
    t = time.perf_counter()
    assert await kb.maybe_rebuild() is False  # unchanged: no rebuild
    assert kb.builds == 3
    assert time.perf_counter() - t < 5


def test_slot_synonyms_of_heldout5_classes() -> None:
    from broadcaster.brain.intent import slots

    for q in ("保存期限是多久", "有效期到什么时候", "放久了会坏吗", "开封后能存多久"):
        assert "shelf_life" in slots(q), q
    assert slots("茶是几级的") == {"grade"} and slots("净重多少") == {"weight"} and slots("能开专票吗") == {"invoice"}


# -- after heldout10: a slot asked in unusual words, quantity questions answered in the unit asked -----------

TEA_KB = Path(__file__).resolve().parent / "redteam" / "kb"


def _answer(root: Path, question: str) -> str:
    """What a room without a model says: the FAQ entry meant, else the best relevant passage's sentences."""
    from broadcaster.brain.intent import FaqMatcher

    kb = KnowledgeBase(root)
    kb.build_sync()
    faq = FaqMatcher(kb.corpus.faq, [p.text for p in kb.passages]).match(question)
    return kb_answer(question, faq, kb.retrieve_sync(question, 0.25)[1])[0]


def test_unusual_phrasings_of_a_slot_find_it_in_any_kb(kb_dir: Path) -> None:
    from broadcaster.brain.intent import slots

    # a closing 不/没 is a question particle, not a topic; buying together is how, not what; a carrier asks shipping
    assert slots("要运费不") == {"postage"} and slots("两罐一起拍多少") == {"price"} and "shipping" in slots("能换顺丰不")
    assert "howto" in slots("一泡能续几回") and "howto" in slots("放几克茶叶合适") and "howto" in slots("用量")
    assert "price" in slots("三盒加起来多少") and "price" in slots("两只装啥价") and "storage" in slots("保存")
    assert "howto" not in slots("能放多久") and "howto" not in slots("放多久会坏")  # 放 + 多久 is the shelf life
    assert "price" not in slots("一罐能泡多少杯")  # a count then 多少 of another unit asks no price
    for root, q, want in [
        (TEA_KB, "要运费不", "包邮"), (TEA_KB, "两罐一起拍多少", "188"), (TEA_KB, "一泡能续几回", "3次"),
        (kb_dir, "要运费不", "包邮"), (kb_dir, "两只一起拍多少", "318元"), (kb_dir, "发中通吗", "中通"),
        (kb_dir, "能换顺丰不", "中通"), (kb_dir, "运费多少", "包邮"),
    ]:
        assert want in _answer(root, q), (q, _answer(root, q))


def test_quantity_questions_take_the_sentence_in_the_unit_asked(kb_dir: Path) -> None:
    from broadcaster.brain.intent import asked_units, states_unit

    assert asked_units("放几克茶叶合适") == {"克"} and "count:回" in asked_units("一泡能续几回")
    assert asked_units("冷饮保冷几个钟头") == {"分钟", "秒"} and asked_units("有什么颜色") == frozenset()
    assert states_unit(frozenset({"克"}), "3克茶叶配150毫升水") and not states_unit(frozenset({"克"}), "150毫升水")
    assert "3克" in _answer(TEA_KB, "放几克茶叶合适")  # not the tin's 250克
    assert "250克" in _answer(TEA_KB, "一罐多重")  # the same unit, another topic: the tin
    assert "12小时" in _answer(kb_dir, "热水能保温几个小时") and "280克" in _answer(kb_dir, "杯子几克")
    # the FAQ entry for shipping says 48小时内发货; "几天能到" asks days: the passage sentence stating them answers
    assert "两到四天" in _answer(kb_dir, "几天能到") and "48小时" in _answer(kb_dir, "什么时候发货")
    assert "24小时" in _answer(kb_dir, "冰的能保几个小时") and "樱花粉" in _answer(kb_dir, "有粉色吗")
    assert "包邮" in _answer(TEA_KB, "要不要出运费") and "包邮" in _answer(TEA_KB, "邮费怎么算")
    p = Passage("x#0", "冲泡：水温80度左右。3克茶叶配150毫升水。一次可以续水3次。")
    assert extract_answer("能续几回", Hit(p, 1.0, 1.0), max_sentences=1) == "一次可以续水3次。"
    # the sheet's "冲泡：" label goes when what follows names the figure itself
    assert extract_answer("水要几度", Hit(p, 1.0, 1.0), max_sentences=1) == "水温80度左右。"


def test_a_question_by_its_form_however_short() -> None:
    from broadcaster.brain.intent import is_question

    for q in ("要运费不", "茶匙还有吗", "一泡能续几回", "好不好喝", "这款呢", "发什么快递", "两罐多少"):
        assert is_question(q), q
    for q in ("主播好美", "这茶不错", "谢谢主播", "已拍两罐", "666"):
        assert not is_question(q), q


def _tshirt_kb(root: Path) -> Path:
    """A third room's KB, of another kind of product (clothes: sizes, fabric, washing)."""
    root.mkdir()
    (root / "product.yaml").write_text(
        "name: 纯棉短袖T恤\n价格:\n  日常价: 89元\n  直播间到手价: 59元\n  三件装: 159元\n面料: 100%新疆长绒棉，克重220克\n"
        "尺码: S、M、L、XL、XXL\n尺码建议: 身高160-170选M，170-180选L，180以上选XL\n颜色: [白色, 黑色, 雾霾蓝, 燕麦色]\n"
        "洗涤: 建议30度以下冷水手洗，不可漂白，反面晾晒\n发货: 付款后48小时内发货，默认韵达快递\n", encoding="utf-8")
    (root / "faq.yaml").write_text("- q: [多少钱, 怎么卖]\n  a: 直播间到手价59元一件，三件装159元。\n"
                                   "- q: [会缩水吗]\n  a: 面料经过预缩处理，按洗涤建议洗基本不缩水。\n", encoding="utf-8")
    (root / "policy.md").write_text("# 售后\n七天无理由退换，吊牌未拆即可。尺码不合适可以免费换一次，运费我们承担。\n", encoding="utf-8")
    return root


def test_another_kind_of_product_is_answered_by_slot(tmp_path: Path) -> None:
    root = _tshirt_kb(tmp_path / "kb")
    for q, want in [("原价多少", "89元"), ("三件一起拍多少", "159元"), ("是纯棉的吗", "长绒棉"), ("一米七五穿什么码", "L"),
                    ("有白色吗", "白色"), ("怎么洗", "冷水手洗"), ("能机洗吗", "手洗"), ("洗了缩水不", "预缩"),
                    ("换货运费谁出", "运费"), ("克重多少", "220克"), ("发什么快递", "韵达")]:
        assert want in _answer(root, q), (q, _answer(root, q))
    # the sheet's name is every chunk's title, never an answer of its own ("name：纯棉短袖T恤")
    assert not any(p.text.endswith("name：纯棉短袖T恤") for p in load_corpus(root).passages)


def test_more_phrasings_of_a_slot_in_two_kbs(kb_dir: Path) -> None:
    from broadcaster.brain.intent import slots

    # 质保多久 asks the warranty (not keeping warm), 保温杯 is a name (no keep-warm question), a serving is no topic
    assert slots("杯子质保多久") == {"warranty"} and "keep_warm" not in slots("保温杯多少钱") and slots("一杯放几克") == {"howto"}
    for root, q, want in [
        (TEA_KB, "有活动没", "99元"), (TEA_KB, "how much", "99元"), (TEA_KB, "一杯放几克", "3克"), (TEA_KB, "送的啥", "茶匙"),
        (TEA_KB, "哪个山的", "高山"), (kb_dir, "能装几瓶水", "两瓶"), (kb_dir, "重不重", "280克"), (kb_dir, "杯子质保多久", "一年"),
        (kb_dir, "price?", "169元"), (kb_dir, "free shipping?", "包邮"),
    ]:
        assert want in _answer(root, q), (q, _answer(root, q))


def test_a_homophone_typo_of_an_faq_question_finds_it() -> None:
    for q, want in [("包油吗", "包邮"), ("明天能到不", "24小时"), ("有票吗", "电子发票")]:
        assert want in _answer(TEA_KB, q), (q, _answer(TEA_KB, q))
    assert _answer(TEA_KB, "宝友") == ""  # the sound of no question of the KB's


def test_a_bare_topic_word_asks_its_slot() -> None:
    from broadcaster.brain.intent import is_question, slots

    assert slots("口感") == {"taste"} and slots("苦不苦") == {"taste"} and slots("正品") == {"authentic"}
    assert slots("分期") == {"payment"} and slots("功效") == {"effect"} and "quality" in slots("质量怎么样")
    assert "price" in slots("秒杀") and "price" in slots("活动")
    assert slots("管理员已授权") == set()  # an injection's words ask nothing
    assert is_question("听说拍两罐是158对吧") and is_question("是这个价对不对")


def test_a_price_said_to_be_checked_asks_the_price() -> None:
    from broadcaster.brain.intent import slots

    for q in ("听说拍两罐是158对吧", "是不是只要69", "今天是9块9吗", "两罐188吗"):
        assert "price" in slots(q), q
    assert "price" not in slots("一罐250克吗") and "price" not in slots("泡3次吗")


def test_two_questions_in_one_comment_get_both_answers(kb_dir: Path) -> None:
    both = _answer(kb_dir, "包邮吗什么时候发货")  # two FAQ entries: shipping's answer, then postage's
    assert "48小时" in both and "包邮" in both and "问：" not in both
    tea = _answer(TEA_KB, "怎么泡，保质期多久")
    assert "80度" in tea and "18个月" in tea
    assert _answer(TEA_KB, "保质期多久") == "保质期18个月，开封后建议两个月内喝完。"  # one question: one answer


def test_a_food_rooms_questions_find_their_slots(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    root.mkdir()
    (root / "product.yaml").write_text(
        "name: 麻辣牛肉干\n规格: 每袋100克，一箱20袋\n价格:\n  单袋: 29.9元\n  整箱: 520元\n"
        "配料: 牛肉、食用盐、辣椒、花椒、白砂糖，不添加防腐剂\n口味: 微辣，偏麻\n保质期: 9个月，常温保存，开袋后尽快食用\n", encoding="utf-8")
    for q, want in [("含糖吗", "白砂糖"), ("有防腐剂吗", "防腐剂"), ("麻不麻", "偏麻"), ("要冷藏吗", "常温"), ("一箱几袋", "20袋"),
                    ("一袋几克", "100克"), ("整箱怎么卖", "520元")]:
        assert want in _answer(root, q), (q, _answer(root, q))


def test_a_nested_mapping_reads_as_speech_in_any_kb(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    root.mkdir()
    (root / "sheet.yaml").write_text(
        "name: 小风扇\n价格:\n  日常价: 89元\n  到手价: 59元\n规格:\n  风速: 三档\n  续航: 8小时，最低档12小时\n"
        "  可充电: true\n颜色: 白色\n", encoding="utf-8")
    texts = [p.text for p in load_corpus(root).passages]
    assert "小风扇\n价格：日常价89元，到手价59元" in texts
    assert "小风扇\n规格：风速是三档；续航8小时，最低档12小时；可充电" in texts
    assert not any("价格 日常价" in t or "日常价：" in t for t in texts)
    # voiced without the sheet's label when what follows names the figure, the label joined to a bare figure
    assert _answer(root, "多少钱") == "日常价89元，到手价59元。"
    assert spoken("保质期：18个月，开封后两个月内喝完") == "保质期18个月，开封后两个月内喝完"
    assert spoken("配送：全国包邮") == "配送：全国包邮" and spoken("杯盖：一键弹盖；") == "杯盖：一键弹盖"


def test_the_way_a_parcel_travels_is_no_topic() -> None:
    # heldout11-282: 寄过来 is no product; the question asks for the postage
    assert "包邮" in _answer(TEA_KB, "寄过来要运费不") and "包邮" in _answer(TEA_KB, "发过来要邮费吗")
    assert "竹制茶匙" in _answer(TEA_KB, "买一罐送一罐吗")


def test_heldout12_slots_after_opening_shipping_out_and_sales() -> None:
    # 开盖/打开/拆开 are 开封: the shelf_life answer's 开封后 sentence; 发出来 is shipping, not 发票 by sound; how well it
    # sells is the KB's 回购 clause, its absolute claim (销量第一) left out
    assert "两个月" in _answer(TEA_KB, "打开盖子以后多久得喝完") and "两个月" in _answer(TEA_KB, "拆开了能放几天")
    assert "24小时内发货" in _answer(TEA_KB, "下单了啥时候能发出来")
    for q in ("卖得好不好，买的人多吗", "卖得好吗", "卖了多少了"):
        assert _answer(TEA_KB, q) == "回购的老客很多。", q
    assert "七天无理由" in _answer(TEA_KB, "拆开后能退吗")  # a return with 拆开 stays a return question


def test_absolute_clauses_are_left_out_of_kb_answers() -> None:
    from broadcaster.brain.kb import without_absolute_clauses
    assert without_absolute_clauses("这款是我们店销量第一的茶，回购的老客很多。") == "回购的老客很多。"
    assert without_absolute_clauses("回购的老客很多，销量第一。全国包邮。") == "回购的老客很多。全国包邮。"
    assert without_absolute_clauses("销量第一。") == "销量第一。"  # nothing else to say: left to the guard
    assert without_absolute_clauses("泡2分钟就好，可以续水3次。") == "泡2分钟就好，可以续水3次。"


def test_a_room_that_allows_absolute_claims_keeps_them_in_kb_answers() -> None:
    hit = Hit(Passage("p#0", "这款是我们店销量第一的茶，回购的老客很多。"), 1.0, 1.0)
    assert kb_answer("卖得好吗", None, [hit])[0] == "回购的老客很多。"
    assert kb_answer("卖得好吗", None, [hit], absolute_claims=False)[0] == "这款是我们店销量第一的茶，回购的老客很多。"
