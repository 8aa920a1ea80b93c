"""What the talk track is made of, shared by the track, its paraphrases and its reply rules: a line's variants, a
segment of lines, the product presented now (its Scene) and its offer. No logic of the track itself (talk.py)."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from broadcaster.director.variants import DYNAMIC, Template, TemplateError

SPEAKABLE_PER_TEMPLATE = 3  # sayings of a template pre-voiced into the utterance cache
POINTS = "points"  # the ident of a product's selling lines written from its facts (paraphrase.py)


class TalkTrackError(ValueError):
    """A talk track file that cannot be used; the message names the file and the problem."""


def parse_variants(raw: Any, where: str) -> tuple[Template, ...]:
    """A line: a text, or a non-empty list of texts (its variants)."""
    items = raw if isinstance(raw, list) else [raw]
    if not items or not all(isinstance(x, str) and x.strip() for x in items):
        raise TalkTrackError(f"{where}: expected a text or a non-empty list of texts")
    try:
        return tuple(Template.parse(x.strip(), where) for x in items)
    except TemplateError as exc:
        raise TalkTrackError(str(exc)) from None


@dataclass(slots=True)
class TalkLine:
    """One line of a segment: its variants; `ident` keys its paraphrases (changes when its texts change)."""

    variants: tuple[Template, ...]
    where: str
    ident: str


@dataclass(slots=True)
class Segment:
    name: str
    items: list[TalkLine]
    once: bool = False
    every_s: float | None = None
    between: tuple[dt.time, dt.time] | None = None
    # state
    next_index: int = 0
    last_played: float = -float("inf")
    done: bool = False

    def active(self, now_local: dt.time) -> bool:
        if self.between is None:
            return True
        start, end = self.between
        if start <= end:
            return start <= now_local < end
        return now_local >= start or now_local < end  # wraps midnight

    @property
    def lines(self) -> list[str]:
        """A few sayings of each variant without live slots (static variables not yet filled: see `fill`)."""
        out: list[str] = []
        for item in self.items:
            for t in item.variants:
                if t.slots & DYNAMIC:
                    continue
                rng = random.Random(0)
                out += list(dict.fromkeys(t.render(c, {})[0] for c in t.choices(rng, SPEAKABLE_PER_TEMPLATE)))[
                    :SPEAKABLE_PER_TEMPLATE]
        return out


@dataclass(frozen=True, slots=True)
class Offer:
    """What the talk track needs of the current offer (the products side builds it)."""

    name: str
    text: str = ""  # {offer}
    ends_mono: float | None = None  # on the director's clock; None: no end ({offer_left} then has no value)
    cta: tuple[str, ...] = ()  # calls to action (templates), rotated after gifts and follows

    def active(self, now_mono: float) -> bool:
        return self.ends_mono is None or now_mono < self.ends_mono


@dataclass(frozen=True, slots=True)
class Scene:
    """The product presented now, for slots, product segments, the guard and the paraphrase cache."""

    product: str = ""
    name: str = ""  # {product}
    values: Mapping[str, str] = field(default_factory=dict)  # more static slots ({price} …)
    facts: tuple[str, ...] = ()  # the product's fact texts: what paraphrases and replies may state
    facts_version: str = ""
    segments: tuple[Segment, ...] = ()
    offer: Offer | None = None
