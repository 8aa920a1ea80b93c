"""Config of a room's director: triage of chat, the talk track, operator lines and the products it presents."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from broadcaster.director.products import ProductsConfig
from broadcaster.director.wording import TEMPLATES
from common.config import Model
from danmaku.event import cny_to_milli


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
    # The room's `language` (RoomConfig sets it): the wording of thanks and welcome lines, how chat is read
    # (English noise, cheers and emotes), and the default max_chars.
    language: Literal["zh", "en"] = "zh"
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
    max_chars: int = Field(120, ge=8)  # an English room's default is 300 (see chars_max): words are longer
    answer_chit_chat: bool = True
    thank_follows: bool = False
    # Gifts are thanked in batches: one line per window, naming up to `gift_batch_names` people.
    gift_batch_s: float = Field(8.0, ge=0)
    gift_batch_names: int = Field(3, ge=1, le=20)
    gift_min_cny: float = Field(0.0, ge=0)
    # Thanks and welcome: one template or a list of variants (`{a|b}` alternatives inside; see director/variants.py),
    # drawn so none is said twice within talk.repeat_window_s when there are enough; a talk file's `thanks:` wins.
    # Unset in an English room: English variants (director/wording.py).
    thanks_gifts: str | list[str] = TEMPLATES["zh"]["gifts"][0]
    thanks_guard: str | list[str] = TEMPLATES["zh"]["guard"][0]
    thanks_follow: str | list[str] = TEMPLATES["zh"]["follow"][0]
    recent_chat: int = Field(100, ge=0, le=10000)  # kept for the operator console

    @field_validator("thanks_gifts", "thanks_guard", "thanks_follow")
    @classmethod
    def _variants(cls, v: str | list[str]) -> str | list[str]:
        if isinstance(v, list) and (not v or not all(x.strip() for x in v)):
            raise ValueError("expected a template or a non-empty list of non-empty templates")
        return v

    @cached_property
    def chars_max(self) -> int:
        """max_chars as set, else the language's default (Chinese 120 characters, English 300: about 50 words)."""
        return self.max_chars if "max_chars" in self.model_fields_set or self.language == "zh" else 300

    @cached_property
    def gift_min_milli(self) -> int:
        """gift_min_cny as the exact integer Event.value_milli is compared with."""
        return cny_to_milli(self.gift_min_cny)


class ParaphraseConfig(Model):
    """Paraphrases of talk lines and selling lines from the product's facts, written ahead by the room's LLM
    (brain.llm), checked by the guard and moderation, cached per product and facts version (talk/paraphrase.py)."""

    enabled: bool = False
    per_line: int = Field(4, ge=1, le=50)  # paraphrases kept per talk line
    points: int = Field(6, ge=0, le=200)  # selling lines written from the product's facts (0: none)
    timeout_s: float = Field(30.0, gt=0)  # one LLM call; a slow one is abandoned (never waited for on air)
    max_chars: int = Field(80, ge=8, le=400)
    cache_dir: Path | None = None  # where accepted paraphrases are kept across restarts (None: memory only)


class TalkConfig(Model):
    file: Path | None = None  # YAML talk track
    variables: dict[str, str] = Field(default_factory=dict)  # override the file's variables
    max_ahead: int = Field(1, ge=1, le=5)  # script lines handed out and not yet spoken
    # Silence after the last line before a script line starts: drawn anew for every pause from gap_range_s (so the
    # track has no fixed beat); a gap_s set here is a fixed pause instead.
    gap_s: float | None = Field(None, ge=0)
    gap_range_s: tuple[float, float] = (1.0, 2.6)
    chars_per_s: float = Field(4.5, gt=0)  # speaking rate used to estimate when a line is over
    # No talk, thanks or welcome sentence is said again within this window (slot values masked) while the track
    # has enough material; `check` and the room warn when it has not.
    repeat_window_s: float = Field(600.0, ge=0, le=86400)
    seed: int | None = None  # variants, pauses: None draws afresh each run; a number repeats a run (tests)
    paraphrase: ParaphraseConfig = ParaphraseConfig()

    @field_validator("gap_range_s")
    @classmethod
    def _gap_range(cls, v: tuple[float, float]) -> tuple[float, float]:
        if not 0 <= v[0] <= v[1] <= 60:
            raise ValueError(f"expected [min, max] seconds with 0 <= min <= max <= 60, got {list(v)}")
        return v


class OperatorConfig(Model):
    priority: int = 1000
    queue_max: int = Field(20, ge=1)


class DirectorConfig(Model):
    triage: TriageConfig = TriageConfig()
    talk: TalkConfig = TalkConfig()
    operator: OperatorConfig = OperatorConfig()
    products: ProductsConfig = ProductsConfig()  # the products it presents, one at a time (director/products.py)
