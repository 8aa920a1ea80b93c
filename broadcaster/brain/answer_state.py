"""What a line's answer carries while it is produced: the sentences said (with why), the judge's hold on them, and
the per-answer state the checks keep (what was said, withheld, held back for the next sentence)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from broadcaster.brain.guard import GroundingGuard
from broadcaster.brain.judge_prompt import Verdict as JudgeVerdict
from broadcaster.brain.products import Scope
from broadcaster.lines import Line

SOURCES = ("cache", "kb", "llm", "fallback", "script", "operator", "thanks")
# Characters of the next sentence seen before a held sentence is voiced: a listed word begun at a sentence's end
# (its last two or three characters) is complete within this many more.
HOLD_LOOKAHEAD = 4


@dataclass(slots=True)
class Sentence:
    """One speakable sentence and why it is being said."""

    text: str
    source: str  # one of SOURCES
    passage_ids: tuple[str, ...] = ()
    verdicts: tuple[str, ...] = ()  # e.g. "moderation: ok", "grounding: ok"
    model: str = ""
    llm_ttft_s: float | None = None
    index: int = 0  # position within its line
    line_id: int = 0
    cache_hit: str = ""  # "exact" | "similar" | "embedding" for cache answers
    # Sentences withheld before this one (since the previous yielded sentence), each {"text", "reason"}.
    dropped: tuple[dict[str, str], ...] = ()
    judge_wait_s: float | None = None  # the line's first sentence: how long it waited for the judge's verdict


@dataclass(slots=True)
class Hold:
    """A line's question to the judge: its sentences wait for the verdict from the first one on."""

    pending: Any = None  # judge._Pending once asked
    verdict: JudgeVerdict | None = None


@dataclass(slots=True)
class AnswerState:
    """Per-answer state while sentences are being produced."""

    line: Line
    source: str
    scope: Scope | None = None  # the knowledge bases this answer may draw on (a product's and the shop's)
    passage_ids: tuple[str, ...] = ()
    model: str = ""
    ttft: float | None = None
    cache_hit: str = ""
    index: int = 0
    pending_drops: list[dict[str, str]] = field(default_factory=list)
    all_drops: list[dict[str, str]] = field(default_factory=list)
    replaced: bool = False
    spoken: list[str] = field(default_factory=list)  # the answer's own sentences (not the preface)
    said: str = ""  # everything voiced for the line so far (whole-answer moderation)
    abandoned: bool = False  # the model's first sentence was withheld: the KB answers instead
    salvage_done: bool = False  # abandoned and a later sentence failed too: stop reading the model
    salvage: list[str] = field(default_factory=list)  # after an abandoned first sentence, the model's rest (unchecked)
    guard: GroundingGuard | None = None  # the model answer's guard: salvage is checked once the KB's answer is said
    held: str = ""  # a model sentence whose end may begin a listed word ("去淘。"), voiced once the next is seen
    patched: bool = False  # a word split across a cut was withheld and the answer went on after the room's line
