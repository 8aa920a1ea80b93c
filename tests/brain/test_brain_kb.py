"""Knowledge base: loading and chunking, BM25 retrieval, extractive answers, rebuild on file change."""

from __future__ import annotations

import os
import time
from pathlib import Path

from broadcaster.brain.kb import BM25Index, KnowledgeBase, Passage, extract_answer, load_corpus, tokenize


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
