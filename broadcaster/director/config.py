"""Config of a room's director: triage of chat, the talk track and operator lines."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pydantic import Field

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

    @cached_property
    def gift_min_milli(self) -> int:
        """gift_min_cny as the exact integer Event.value_milli is compared with."""
        return cny_to_milli(self.gift_min_cny)


class TalkConfig(Model):
    file: Path | None = None  # YAML talk track
    variables: dict[str, str] = Field(default_factory=dict)  # override the file's variables
    max_ahead: int = Field(1, ge=1, le=5)  # script lines handed out and not yet spoken
    gap_s: float = Field(1.5, ge=0)  # silence after the last line before a script line starts
    chars_per_s: float = Field(4.5, gt=0)  # speaking rate used to estimate when a line is over


class OperatorConfig(Model):
    priority: int = 1000
    queue_max: int = Field(20, ge=1)


class DirectorConfig(Model):
    triage: TriageConfig = TriageConfig()
    talk: TalkConfig = TalkConfig()
    operator: OperatorConfig = OperatorConfig()
