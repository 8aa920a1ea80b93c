"""Dense retrieval and embedding cache matches through a local sentence-embedding model (tiny, built here)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from llm_fakes import build_tiny_encoder

from broadcaster.brain import Brain
from broadcaster.brain.config import BrainConfig, ModerationConfig
from broadcaster.brain.embed import Embedder
from broadcaster.brain.kb import KnowledgeBase
from broadcaster.brain.textnorm import question_key


@pytest.fixture(scope="module")
def encoder(tmp_path_factory) -> Path:
    return build_tiny_encoder(tmp_path_factory.mktemp("tiny-encoder"))


def test_embedder_gives_unit_vectors_deterministically(encoder: Path) -> None:
    emb = Embedder(encoder, "cpu", batch_size=2)
    vecs = emb(["全国包邮。", "支持七天无理由退换货。", "全国包邮。"])
    assert vecs.shape == (3, 32) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vecs[0], vecs[2], atol=1e-6)
    assert not np.allclose(vecs[0], vecs[1])
    assert emb([]).shape[0] == 0


def test_dense_index_is_fused_with_bm25(encoder: Path, kb_dir: Path) -> None:
    kb = KnowledgeBase(kb_dir, top_k=3, embed=Embedder(encoder, "cpu"))
    kb.build_sync()
    assert kb.dense is not None and kb.dense.matrix.shape == (len(kb.passages), 32)
    # A passage's own text is its own nearest neighbour, whatever the (random) weights.
    target = kb.passages[4]
    assert kb.dense.search(target.text, 1)[0].passage.id == target.id
    hits = kb.search_sync("什么时候发货")
    assert len(hits) == 3 and len({h.passage.id for h in hits}) == 3
    assert any("发货" in h.passage.text for h in hits)  # BM25's top hit survives the fusion


async def test_brain_uses_the_local_model_for_kb_and_cache(encoder: Path, kb_dir: Path) -> None:
    cfg = BrainConfig.model_validate({
        "kb": {"dir": str(kb_dir), "dense_model_path": str(encoder)},
        "cache": {"embed_model_path": str(encoder), "embed_similarity": 0.999, "similarity": 0.99},
    })
    brain = Brain("dense", cfg, ModerationConfig())
    await brain.start()
    try:
        assert brain.kb.dense is not None and brain.cache is not None and brain.cache.embed is not None
        await brain.cache.put("杯子能不能进洗碗机", "不建议放进洗碗机。")
        asked = "洗碗机能不能洗杯子"  # same words, other order: the character ratio misses
        a, b = brain.embedder([question_key("杯子能不能进洗碗机"), question_key(asked)])
        cos = float(a @ b)
        brain.cache.embed_similarity = cos + 1e-3
        assert await brain.cache.get(asked) is None
        brain.cache.embed_similarity = cos - 1e-3
        hit = await brain.cache.get(asked)
        assert hit is not None and hit.kind == "embedding" and abs(hit.score - cos) < 1e-4
        hits = await brain.kb.search("杯盖坏了怎么办")
        assert hits and all(h.passage.id for h in hits)
    finally:
        await brain.close()
