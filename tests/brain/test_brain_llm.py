"""LLM backends: OpenAI-compatible SSE streaming, deadlines, circuit breaker, and the real transformers path."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from llm_fakes import FakeOpenAI, build_tiny_lm

from broadcaster.brain.llm import LLMError, OpenAIBackend, TransformersBackend, guarded_stream
from common.breaker import CircuitBreaker

MSGS = [{"role": "system", "content": "你是主播"}, {"role": "user", "content": "多少钱"}]


async def _collect(agen) -> list[str]:
    return [p async for p in agen]


async def test_openai_backend_streams_sse_pieces() -> None:
    server = await FakeOpenAI(script=lambda req: ["到手价", "169元。", "全国包邮！"]).start()
    backend = OpenAIBackend(server.base_url, "qwen-test", api_key="sk-test")
    try:
        pieces = await _collect(backend.stream(MSGS, max_tokens=50, temperature=0.2))
        assert pieces == ["到手价", "169元。", "全国包邮！"]
        req = server.requests[0]
        assert req["auth"] == "Bearer sk-test"
        assert req["body"]["stream"] is True and req["body"]["model"] == "qwen-test"
        assert req["body"]["messages"] == MSGS and req["body"]["max_tokens"] == 50
    finally:
        await backend.close()
        await server.stop()


@pytest.mark.parametrize(("mode", "kind"), [("500", "http"), ("bad_json", "protocol")])
async def test_openai_backend_errors(mode: str, kind: str) -> None:
    server = await FakeOpenAI(mode=mode).start()
    backend = OpenAIBackend(server.base_url, "m")
    try:
        with pytest.raises(LLMError) as err:
            await _collect(backend.stream(MSGS, max_tokens=10, temperature=0))
        assert err.value.kind == kind
    finally:
        await backend.close()
        await server.stop()


async def test_connection_refused_is_an_http_error() -> None:
    backend = OpenAIBackend("http://127.0.0.1:9/v1", "m")
    try:
        with pytest.raises(LLMError) as err:
            await _collect(guarded_stream(backend, MSGS, max_tokens=10, temperature=0,
                                          first_token_timeout_s=2, total_timeout_s=3))
        assert err.value.kind in ("http", "error")
    finally:
        await backend.close()


@pytest.mark.parametrize(("mode", "kind"), [("hang", "timeout_first"), ("hang_after", "timeout_total")])
async def test_hung_server_hits_the_deadlines(mode: str, kind: str) -> None:
    server = await FakeOpenAI(mode=mode, script=lambda req: ["第一句。", "第二句。"]).start()
    backend = OpenAIBackend(server.base_url, "m")
    got: list[str] = []
    t0 = time.monotonic()
    try:
        with pytest.raises(LLMError) as err:
            async for piece in guarded_stream(backend, MSGS, max_tokens=10, temperature=0,
                                              first_token_timeout_s=0.3, total_timeout_s=0.6):
                got.append(piece)
        assert err.value.kind == kind
        assert time.monotonic() - t0 < 2.0
        assert got == ([] if mode == "hang" else ["第一句。"])
    finally:
        await backend.close()
        await server.stop()


async def test_circuit_opens_after_failures_and_recovers() -> None:
    now = [0.0]
    breaker = CircuitBreaker(failures=2, reset_s=10.0, clock=lambda: now[0])
    server = await FakeOpenAI(mode="500").start()
    backend = OpenAIBackend(server.base_url, "m")

    async def call() -> str:
        try:
            await _collect(guarded_stream(backend, MSGS, max_tokens=5, temperature=0, first_token_timeout_s=1,
                                          total_timeout_s=2, breaker=breaker))
            return "ok"
        except LLMError as exc:
            return exc.kind

    try:
        assert [await call(), await call()] == ["http", "http"]
        assert breaker.state == "open"
        n = len(server.requests)
        assert await call() == "circuit_open"
        assert len(server.requests) == n  # open circuit: the server is not called at all
        now[0] = 11.0
        assert breaker.state == "half_open"
        assert await call() == "http"  # the trial fails: open again for a full period
        assert breaker.state == "open"
        now[0] = 22.0
        server.mode = "ok"
        assert await call() == "ok"
        assert breaker.state == "closed"
        assert await call() == "ok"
    finally:
        await backend.close()
        await server.stop()


async def test_consumer_stopping_early_is_not_a_failure() -> None:
    breaker = CircuitBreaker(failures=1, reset_s=60)
    server = await FakeOpenAI(script=lambda req: ["一。", "二。", "三。"], delay_s=0.05).start()
    backend = OpenAIBackend(server.base_url, "m")
    try:
        agen = guarded_stream(backend, MSGS, max_tokens=5, temperature=0, first_token_timeout_s=1,
                              total_timeout_s=5, breaker=breaker)
        assert await agen.__anext__() == "一。"
        await agen.aclose()
        assert breaker.state == "closed"
    finally:
        await backend.close()
        await server.stop()


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory) -> Path:
    return build_tiny_lm(tmp_path_factory.mktemp("tiny-lm"))


async def test_transformers_backend_streams_what_generate_produces(tiny_lm: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    backend = TransformersBackend(tiny_lm, device="auto")
    await asyncio.to_thread(backend.load)
    assert backend.device == ("cuda:0" if torch.cuda.is_available() else "cpu")
    pieces = await _collect(guarded_stream(backend, MSGS, max_tokens=12, temperature=0, first_token_timeout_s=30,
                                           total_timeout_s=60))
    assert pieces
    # The same greedy generation without streaming gives the same text.
    tok = AutoTokenizer.from_pretrained(tiny_lm)
    lm = AutoModelForCausalLM.from_pretrained(tiny_lm)
    ids = tok.apply_chat_template(MSGS, add_generation_prompt=True, return_tensors="pt", return_dict=True)["input_ids"]
    out = lm.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=12, do_sample=False,
                      pad_token_id=tok.pad_token_id)
    expected = tok.decode(out[0, ids.shape[1]:], skip_special_tokens=True)
    assert "".join(pieces).strip() == expected.strip()
    await backend.close()


async def test_transformers_without_chat_template_and_early_stop(tmp_path: Path) -> None:
    path = build_tiny_lm(tmp_path / "plain", chat_template=False)
    backend = TransformersBackend(path, device="cpu")
    agen = backend.stream(MSGS, max_tokens=200, temperature=0.8)
    first = await agen.__anext__()
    assert isinstance(first, str) and first
    await agen.aclose()  # sets the stop flag: generation ends without producing 200 tokens
    await backend.close()


async def test_transformers_missing_model_is_an_llm_error(tmp_path: Path) -> None:
    backend = TransformersBackend(tmp_path / "nope", device="cpu")
    with pytest.raises(LLMError) as err:
        await _collect(guarded_stream(backend, MSGS, max_tokens=5, temperature=0, first_token_timeout_s=10,
                                      total_timeout_s=10))
    assert err.value.kind == "generate"
