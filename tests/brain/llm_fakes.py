"""Test helpers: a fake OpenAI-compatible streaming server on loopback and a tiny random transformers model."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web


@dataclass
class FakeOpenAI:
    """Speaks POST /v1/chat/completions with stream=true as SSE (`data: {...}` chunks, then `data: [DONE]`).

    `script(request_json) -> list[str]` gives the pieces to stream; `mode` switches failure behaviour:
    "ok", "hang" (headers sent, no token ever), "hang_after" (one piece then silence), "500", "bad_json".
    A request with "stream": false gets one chat.completion (the script's pieces joined) after `delay_s`.
    """

    script: Callable[[dict[str, Any]], list[str]] = lambda req: ["你好。"]
    mode: str = "ok"
    delay_s: float = 0.0
    # When set, the stream pauses after `gate_after` pieces until the test sets the event.
    gate: asyncio.Event | None = None
    gate_after: int = 1
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0
    _runner: web.AppRunner | None = None
    _tasks: set[asyncio.Task[Any]] = field(default_factory=set)

    async def start(self) -> FakeOpenAI:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def stop(self) -> None:
        for task in self._tasks:  # hung handlers: end them now rather than wait out the server's grace period
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        body = await request.json()
        self.requests.append({"body": body, "auth": request.headers.get("Authorization")})
        if self.mode == "500":
            return web.Response(status=500, text="model crashed")
        if body.get("stream") is False:  # a plain chat completion (the moderation judge asks this way)
            return await self._complete(body)
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        await resp.write(b": keep-alive\n\n")
        if self.mode == "hang":
            await asyncio.sleep(3600)
        if self.mode == "bad_json":
            await resp.write(b"data: {not json\n\n")
            return resp
        pieces = self.script(body)
        for i, piece in enumerate(pieces):
            chunk = {"id": "x", "object": "chat.completion.chunk",
                     "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            # Split one event across two writes: the client must reassemble lines.
            data = f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode()
            await resp.write(data[:7])
            await resp.write(data[7:])
            if self.gate is not None and i + 1 == self.gate_after:
                await self.gate.wait()
            if self.mode == "hang_after" and i == 0:
                await asyncio.sleep(3600)
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
        await resp.write(b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n')
        await resp.write(b"data: [DONE]\n\n")
        return resp

    async def _complete(self, body: dict[str, Any]) -> web.Response:
        if self.mode == "hang":
            await asyncio.sleep(3600)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if self.mode == "bad_json":
            return web.Response(text="{not json", content_type="application/json")
        content = "".join(self.script(body))
        return web.json_response({"id": "x", "object": "chat.completion", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]})


CORPUS = [
    "大家好，欢迎来到直播间。", "这款保温杯可以保温十二个小时。", "容量是五百毫升。", "有四种颜色可以选。",
    "全国包邮。", "下单后两天内发货。", "支持七天无理由退换货。", "有问题随时问我哦。",
]


def build_tiny_lm(path: Path, *, chat_template: bool = True) -> Path:
    """A random 2-layer Llama and a BPE tokenizer trained here on a few Chinese sentences, saved to path."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<unk>", "<s>", "</s>", "<pad>"])
    tok.train_from_iterator(CORPUS * 20 + ["system user assistant : \n"] * 5, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>", eos_token="</s>",
                                   pad_token="<pad>")
    if chat_template:
        fast.chat_template = (
            "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
            "{% if add_generation_prompt %}assistant: {% endif %}"
        )
    fast.save_pretrained(path)
    import torch

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=fast.vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                      bos_token_id=fast.bos_token_id, eos_token_id=fast.eos_token_id,
                      pad_token_id=fast.pad_token_id)
    LlamaForCausalLM(cfg).save_pretrained(path)
    return path


def build_tiny_encoder(path: Path) -> Path:
    """A random 2-layer BERT encoder and a WordPiece tokenizer trained here: a stand-in sentence-embedding model."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(handle_chinese_chars=True, lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=400, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    tok.train_from_iterator(CORPUS * 20, trainer)
    from tokenizers.processors import TemplateProcessing

    tok.post_processor = TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]")
    fast.save_pretrained(path)
    import torch

    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=fast.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=64, max_position_embeddings=512)
    BertModel(cfg).save_pretrained(path)
    return path


# The moderation judge's stand-in: which red-team class stands for which judge category.
JUDGE_CATEGORY = {"ban_contact": "contact", "ban_competitor": "competitor", "ban_insult": "insult",
                  "ban_illegal": "scam", "ban_political": "political", "ban_inject": "injection", "ban_room": "contact",
                  "ban_other": "scam"}


def stub_judge(labels: dict[str, str], *, seed: int = 23, p_banned: float = 0.9, p_clean: float = 0.02,
               seen: list[str] | None = None) -> Callable[[dict[str, Any]], list[str]]:
    """A FakeOpenAI script that judges like a good but imperfect model: it reads the numbered comments of a json-format
    request, and flags a comment whose class (`labels`: text → red-team class) is banned with probability `p_banned`,
    any other with `p_clean`. The draw is seeded by the comment's text, so a comment's verdict does not depend on
    which others share its request."""
    import random

    def script(body: dict[str, Any]) -> list[str]:
        user = body["messages"][-1]["content"]
        texts = [json.loads(line.split(". ", 1)[1]) for line in user.splitlines()[1:] if ". " in line]
        if seen is not None:
            seen.extend(texts)
        out = []
        for i, text in enumerate(texts, 1):
            cls = labels.get(text, "")
            flag = random.Random(f"{seed}:{text}").random() < (p_banned if cls.startswith("ban_") else p_clean)
            out.append({"id": i, "flag": flag, "category": JUDGE_CATEGORY.get(cls, "insult") if flag else "",
                        "reason": "stub" if flag else ""})
        return [json.dumps(out, ensure_ascii=False)]

    return script
