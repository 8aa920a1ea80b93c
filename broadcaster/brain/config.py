"""Config of a room's brain (answer sources) and director (triage, talk track)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from common.config import Model, Secret, SecretURL


class PrioritiesConfig(Model):
    """Rank of each kind of line; higher is answered first. Operator lines always go first."""

    super_chat: int = 100
    guard: int = 80
    gift: int = 60
    question: int = 40
    comment: int = 20
    follow: int = 10
    # Extra priority per CNY of a super chat, so a ¥100 SC beats a ¥30 one.
    per_cny: float = Field(0.2, ge=0)


class DeadlinesConfig(Model):
    """Seconds after the event arrives by which its line must have started; older lines are dropped."""

    super_chat: float = Field(180.0, gt=0)
    guard: float = Field(60.0, gt=0)
    gift: float = Field(45.0, gt=0)
    question: float = Field(25.0, gt=0)
    comment: float = Field(12.0, gt=0)
    follow: float = Field(20.0, gt=0)
    operator: float = Field(60.0, gt=0)
    script: float = Field(30.0, gt=0)


class TriageConfig(Model):
    queue_max: int = Field(32, ge=1, le=10000)
    priorities: PrioritiesConfig = PrioritiesConfig()
    deadlines: DeadlinesConfig = DeadlinesConfig()
    # Near-duplicates (normalized similarity ≥ this, 0–1) within the window merge into one line with a count.
    merge_similarity: float = Field(0.8, ge=0.5, le=1.0)
    merge_window_s: float = Field(30.0, ge=0)
    # Per-user token bucket: at most `user_burst` lines, refilled at `user_rate_per_min`.
    user_rate_per_min: float = Field(4.0, gt=0)
    user_burst: int = Field(2, ge=1)
    max_tracked_users: int = Field(20000, ge=100)
    min_chars: int = Field(2, ge=1)
    max_chars: int = Field(120, ge=8)
    answer_chit_chat: bool = True
    thank_follows: bool = False
    # Gifts are thanked in batches: one line per window, naming up to `gift_batch_names` people.
    gift_batch_s: float = Field(8.0, ge=0)
    gift_batch_names: int = Field(3, ge=1, le=20)
    gift_min_cny: float = Field(0.0, ge=0)
    thanks_gifts: str = "谢谢{names}送的{gifts}！"
    thanks_guard: str = "感谢{name}开通{guard}，欢迎上船！"
    thanks_follow: str = "欢迎{names}的关注！"
    recent_chat: int = Field(100, ge=0, le=10000)  # kept for the operator console


class ModerationConfig(Model):
    words: list[str] = Field(default_factory=list)  # the room's own list
    words_file: Path | None = None  # one word per line, '#' comments
    use_global: bool = True  # also the built-in global list
    allow: list[str] = Field(default_factory=list)  # phrases that contain a listed word but are fine
    pinyin: bool = True  # catch pinyin spellings and same-sound (homophone) substitutes
    action: Literal["drop", "replace", "hold"] = "replace"
    replace_line: str = "这个话题我们换一个吧，大家可以问问产品相关的问题哦。"
    hold_max: int = Field(50, ge=1)


class AnswerCacheConfig(Model):
    enabled: bool = True
    redis_url: SecretURL | None = None  # shared by all daemons of a fleet; memory when unset or down
    ttl_s: float = Field(6 * 3600.0, gt=0)
    similarity: float = Field(0.86, ge=0.5, le=1.0)  # character n-gram similarity for a hit
    max_entries: int = Field(5000, ge=10)
    faq_files: list[Path] = Field(default_factory=list)  # YAML lists of {q, a}; default: kb dir's faq*.yaml
    embed_model_path: Path | None = None  # local sentence-transformers style model dir
    embed_similarity: float = Field(0.9, ge=0.0, le=1.0)
    embed_device: str = "cpu"
    store_retry_s: float = Field(5.0, gt=0)


class KBConfig(Model):
    dir: Path | None = None
    chunk_chars: int = Field(300, ge=40, le=4000)
    top_k: int = Field(3, ge=1, le=20)
    min_match: float = Field(0.25, ge=0.0, le=1.0)  # share of the query's IDF mass a passage must cover
    dense_model_path: Path | None = None  # local sentence-transformers style model dir
    dense_device: str = "cpu"
    check_interval_s: float = Field(5.0, ge=0)  # how often file changes are looked for


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


class TalkConfig(Model):
    file: Path | None = None  # YAML talk track
    variables: dict[str, str] = Field(default_factory=dict)  # override the file's variables
    max_ahead: int = Field(1, ge=1, le=5)  # script lines handed out and not yet spoken
    gap_s: float = Field(1.5, ge=0)  # silence after the last line before a script line starts
    chars_per_s: float = Field(4.5, gt=0)  # speaking rate used to estimate when a line is over


class AuditConfig(Model):
    path: Path | None = None
    rotate_bytes: int = Field(20 * 1024 * 1024, ge=1024)
    keep: int = Field(5, ge=1, le=100)


class OperatorConfig(Model):
    priority: int = 1000
    queue_max: int = Field(20, ge=1)


class BrainConfig(Model):
    triage: TriageConfig = TriageConfig()
    moderation: ModerationConfig = ModerationConfig()
    cache: AnswerCacheConfig = AnswerCacheConfig()
    kb: KBConfig = KBConfig()
    llm: LLMConfig = LLMConfig()
    persona: PersonaConfig = PersonaConfig()
    talk: TalkConfig = TalkConfig()
    audit: AuditConfig = AuditConfig()
    operator: OperatorConfig = OperatorConfig()
    fallback_lines: list[str] = Field(
        default_factory=lambda: ["这个问题我先记下来，稍后再给大家详细说明哦。", "好问题！我确认一下再告诉你。"],
        min_length=1,
    )
    # Replies to chit-chat (not a question) when neither the KB nor an LLM has anything; {name} = viewer.
    chit_chat_lines: list[str] = Field(default_factory=lambda: ["谢谢{name}的支持！", "欢迎{name}，有问题随时问我哦。"])
    max_sentence_chars: int = Field(60, ge=8, le=400)
