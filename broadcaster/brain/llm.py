"""LLM backends that stream text: OpenAI-compatible HTTP (SSE) and local transformers; timeouts and a circuit breaker.

A backend's `stream(messages)` yields text pieces as they are generated. `guarded_stream` wraps a
backend with the room's limits: the first piece must come within `first_token_timeout_s`, the whole
answer within `total_timeout_s`, and consecutive failures open a circuit that makes calls fail
fast (kind "circuit_open") until `reset_s` has passed, when one trial call may close it again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import aiohttp

from common.breaker import CircuitBreaker
from common.devices import resolve_device, torch_gpu_count

log = logging.getLogger(__name__)

Message = dict[str, str]


class LLMError(Exception):
    """An LLM call that produced no usable answer; `kind` labels the metric."""

    def __init__(self, kind: str, detail: str = "") -> None:
        self.kind = kind
        super().__init__(f"{kind}: {detail}" if detail else kind)


class Backend(Protocol):
    name: str
    model: str

    def stream(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> AsyncIterator[str]: ...

    async def close(self) -> None: ...


# -- OpenAI-compatible HTTP -------------------------------------------------------------------------------


class OpenAIBackend:
    """POST {base_url}/chat/completions with stream=true; parses `data:` SSE events until [DONE].

    Works with vLLM, llama.cpp server, Ollama (/v1) and hosted APIs. The session is reused across
    calls; a broken stream raises LLMError("http"|"protocol").
    """

    name = "openai"

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *, connect_timeout_s: float = 3.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._api_key = api_key
        self._connect_timeout_s = connect_timeout_s
        self._session: aiohttp.ClientSession | None = None

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            timeout = aiohttp.ClientTimeout(total=None, sock_connect=self._connect_timeout_s)
            self._session = aiohttp.ClientSession(timeout=timeout)
        return self._session

    async def stream(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> AsyncIterator[str]:
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        body = {
            "model": self.model,
            "messages": list(messages),
            "stream": True,
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        try:
            async with self._http().post(f"{self.base_url}/chat/completions", json=body, headers=headers) as resp:
                if resp.status != 200:
                    text = (await resp.text())[:200]
                    raise LLMError("http", f"status {resp.status}: {text}")
                buffer = b""
                async for chunk in resp.content.iter_any():
                    buffer += chunk
                    while b"\n" in buffer:
                        raw, buffer = buffer.split(b"\n", 1)
                        line = raw.strip()
                        if not line.startswith(b"data:"):
                            continue  # comments (": keep-alive"), event:, id: lines
                        data = line[5:].strip()
                        if data == b"[DONE]":
                            return
                        piece = _delta_text(data)
                        if piece:
                            yield piece
        except aiohttp.ClientError as exc:
            raise LLMError("http", f"{type(exc).__name__}: {exc}") from exc

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def _delta_text(data: bytes) -> str:
    try:
        event = json.loads(data)
    except ValueError as exc:
        raise LLMError("protocol", f"bad SSE JSON: {data[:80]!r}") from exc
    if "error" in event:
        raise LLMError("http", str(event["error"])[:200])
    choices = event.get("choices") or []
    if not choices:
        return ""
    choice = choices[0]
    delta = choice.get("delta") or {}
    text = delta.get("content")
    if text is None:
        text = choice.get("text")  # completions-style servers
    return text or ""


# -- local transformers -----------------------------------------------------------------------------------


class TransformersBackend:
    """A local causal LM loaded once with from_pretrained; generation streams from a worker thread.

    fp16 on GPU, fp32 on CPU. The chat template of the tokenizer is used when it has one, a plain
    "role: text" transcript otherwise. A consumer that stops early (timeout) sets a stop flag that
    the generation loop checks on every token, so the thread ends promptly.
    """

    name = "transformers"

    def __init__(self, model_path: Path, device: str = "auto") -> None:
        self.model_path = Path(model_path)
        self.model = self.model_path.name
        self.device_request = device
        self.device = "cpu"
        self._tok: Any = None
        self._lm: Any = None
        self._load_lock = threading.Lock()
        self._gen_lock = threading.Lock()  # one generation at a time per loaded model

    def load(self) -> None:
        with self._load_lock:
            if self._lm is not None:
                return
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            self.device = resolve_device(self.device_request, torch_gpu_count, what="llm")
            dtype = torch.float16 if self.device.startswith("cuda") else torch.float32
            tok = AutoTokenizer.from_pretrained(self.model_path)
            lm = AutoModelForCausalLM.from_pretrained(self.model_path, dtype=dtype)
            lm.to(self.device)
            lm.eval()
            self._tok, self._lm = tok, lm
            log.info("llm: loaded %s on %s (%s)", self.model_path, self.device, dtype)

    def _prompt_ids(self, messages: Sequence[Message]) -> Any:
        tok = self._tok
        if getattr(tok, "chat_template", None):
            ids = tok.apply_chat_template(list(messages), add_generation_prompt=True, return_tensors="pt",
                                          return_dict=True)
            return ids["input_ids"]
        text = "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant: "
        return tok(text, return_tensors="pt")["input_ids"]

    def _generate(self, messages: Sequence[Message], max_tokens: int, temperature: float,
                  put: Callable[[object], None], stop: threading.Event) -> None:
        try:
            import torch
            from transformers import StoppingCriteria, StoppingCriteriaList, TextIteratorStreamer

            self.load()

            class _Stop(StoppingCriteria):
                def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
                    return torch.full((input_ids.shape[0],), stop.is_set(), dtype=torch.bool,
                                      device=input_ids.device)

            with self._gen_lock:
                input_ids = self._prompt_ids(messages).to(self.device)
                streamer = TextIteratorStreamer(self._tok, skip_prompt=True, skip_special_tokens=True)
                kwargs: dict[str, Any] = {
                    "input_ids": input_ids,
                    "attention_mask": torch.ones_like(input_ids),
                    "max_new_tokens": max_tokens,
                    "streamer": streamer,
                    "stopping_criteria": StoppingCriteriaList([_Stop()]),
                    "pad_token_id": self._tok.pad_token_id if self._tok.pad_token_id is not None
                    else self._tok.eos_token_id,
                }
                if temperature > 0:
                    kwargs.update(do_sample=True, temperature=temperature)
                else:
                    kwargs.update(do_sample=False)
                error: list[BaseException] = []

                def run() -> None:
                    try:
                        with torch.inference_mode():
                            self._lm.generate(**kwargs)
                    except BaseException as exc:  # surfaced to the consumer below
                        error.append(exc)
                        streamer.end()

                worker = threading.Thread(target=run, name="llm-generate", daemon=True)
                worker.start()
                for piece in streamer:
                    if stop.is_set():
                        break
                    if piece:
                        put(piece)
                worker.join()
                if error:
                    raise error[0]
            put(None)
        except BaseException as exc:
            put(exc)

    async def stream(self, messages: Sequence[Message], *, max_tokens: int, temperature: float) -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[object] = asyncio.Queue()
        stop = threading.Event()

        def put(item: object) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is gone (shutdown): nobody is listening any more
                stop.set()

        thread = threading.Thread(target=self._generate, args=(messages, max_tokens, temperature, put, stop),
                                  name="llm-stream", daemon=True)
        thread.start()
        try:
            while True:
                item = await queue.get()
                if item is None:
                    return
                if isinstance(item, BaseException):
                    raise LLMError("generate", f"{type(item).__name__}: {item}") from item
                yield str(item)
        finally:
            stop.set()

    async def close(self) -> None:
        self._lm = None
        self._tok = None
        try:
            import torch

            if torch.cuda.is_available():
                torch.cuda.empty_cache()
        except Exception:
            log.debug("cuda cache release failed", exc_info=True)


# -- limits -----------------------------------------------------------------------------------------------


async def guarded_stream(backend: Backend, messages: Sequence[Message], *, max_tokens: int, temperature: float,
                         first_token_timeout_s: float, total_timeout_s: float,
                         breaker: CircuitBreaker | None = None,
                         on_first_token: Callable[[float], None] | None = None) -> AsyncIterator[str]:
    """The backend's stream under the deadlines and the circuit breaker; raises LLMError.

    The consumer may stop early (aclose); that counts as success. A stream that ends with nothing
    generated counts as a failure ("empty").
    """
    if breaker is not None and not breaker.allow():
        raise LLMError("circuit_open")
    loop = asyncio.get_running_loop()
    start = loop.time()
    deadline = start + total_timeout_s
    first_deadline = start + first_token_timeout_s
    agen = backend.stream(messages, max_tokens=max_tokens, temperature=temperature).__aiter__()
    got_any = False
    ok = False
    try:
        while True:
            limit = (first_deadline if not got_any else deadline) - loop.time()
            if limit <= 0:
                raise LLMError("timeout_first" if not got_any else "timeout_total")
            try:
                piece = await asyncio.wait_for(agen.__anext__(), limit)
            except StopAsyncIteration:
                break
            except TimeoutError as exc:
                raise LLMError("timeout_first" if not got_any else "timeout_total") from exc
            if not got_any:
                got_any = True
                if on_first_token is not None:
                    on_first_token(loop.time() - start)
            yield piece
        if not got_any:
            raise LLMError("empty")
        ok = True
    except GeneratorExit:
        ok = True  # the consumer had enough
        raise
    except LLMError:
        raise
    except Exception as exc:
        raise LLMError("error", f"{type(exc).__name__}: {exc}") from exc
    finally:
        if breaker is not None:
            if ok:
                breaker.success()
            else:
                breaker.failure()
        try:
            await agen.aclose()
        except Exception:
            log.debug("closing llm stream failed", exc_info=True)


def build_backend(cfg: Any) -> Backend | None:
    """The configured backend (cfg is LLMConfig), or None for `none`."""
    if cfg.backend == "openai":
        key = cfg.api_key.get_secret_value() if cfg.api_key is not None else None
        return OpenAIBackend(cfg.base_url, cfg.model, key)
    if cfg.backend == "transformers":
        return TransformersBackend(cfg.model_path, cfg.device)
    return None
