"""Keyword and question rules: a viewer's comment that names a keyword, or reads like a listed question, gets the
operator's reply instead of a generated answer — checked first, like any answer.

In a talk file:

    replies:
      - keywords: [链接, 怎么买, 小黄车]          # any of them in the comment (normalized: case, width, 繁→简)
        reply: ["点屏幕下方的小黄车就能下单哦。", "{想买的|喜欢的}朋友点下方小黄车，一号链接就是它。"]
      - questions: [发什么快递, 用什么快递]       # or a comment that contains one, or is this similar (rapidfuzz ratio)
        reply: 默认发中通，偏远地区以页面为准。
        product: cup                            # only while this product is presented

The comment must pass moderation itself (`Moderator.check_comment`); the reply, its slots filled, must pass the
grounding guard against the product's facts (`GroundingGuard.check`: no figure, promise or absolute claim the
facts do not state, no echo of the viewer's words) and moderation (`Moderator.check`), sentence by sentence.
A reply that fails is not said: the brain answers the comment as it would without the rule. Variants are drawn
from the room's repeat window like talk lines; a reply may repeat (a viewer asked), and that is counted.
Super chats are left to the brain (their answer thanks the sender first).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from rapidfuzz import fuzz

from broadcaster.brain.guard import GroundingGuard
from broadcaster.brain.textnorm import normalize, question_key
from broadcaster.director.scene import parse_variants
from broadcaster.director.triage import Candidate
from broadcaster.director.variants import Template, split_sentences
from broadcaster.lines import LineKind, LineSource

if TYPE_CHECKING:
    from broadcaster.brain.moderation import Moderator

log = logging.getLogger(__name__)

_KINDS = frozenset({LineKind.QUESTION, LineKind.COMMENT})


class RulesError(ValueError):
    """A reply rule that cannot be used; the message names the file and key."""


class Track(Protocol):
    """What a reply needs of the talk track (talk.TalkTrack): its moderator, scene, slot values, drawer and count of
    what was said (talk.py imports this module, not the other way)."""

    moderator: Any
    scene: Any
    drawer: Any
    room: str

    def values(self, now_mono: float, now_local: Any = None) -> Mapping[str, str | None]: ...
    def said(self, drawn: Any, now_mono: float, *, noted: bool = True) -> None: ...


@dataclass(frozen=True, slots=True)
class Rule:
    keywords: tuple[str, ...]  # normalized
    questions: tuple[str, ...]  # question keys
    reply: tuple[Template, ...]
    product: str
    where: str


def check_sentences(text: str, facts: tuple[str, ...], values: Mapping[str, str | None], moderator: Moderator,
                    question: str = "") -> str:
    """Why the guard or moderation refuses this text ("" when every sentence passes). Allowed: the facts and the
    slot values filled in (the room's own figures, e.g. an offer's time left)."""
    allowed = [*facts, *(v for v in values.values() if v)]
    guard = GroundingGuard(allowed, facts=facts, question=question)
    before = ""
    for sentence in split_sentences(text) or [text]:
        verdict = moderator.check(sentence)
        if not verdict.ok:
            return f"moderation: {verdict.describe()}"
        g = guard.check(sentence, before)
        if not g.ok:
            return g.reason
        before = sentence
    return ""


@dataclass
class Replies:
    rules: list[Rule]
    similarity: float = 80.0  # rapidfuzz ratio (0–100) that makes a comment one of the listed questions
    refused: dict[str, int] = field(default_factory=dict)  # rule → replies the guard or moderation refused
    said: int = 0

    @classmethod
    def parse(cls, raw: Any, where: str) -> Replies:
        if not isinstance(raw, list):
            raise RulesError(f"{where}: expected a list of rules")
        rules: list[Rule] = []
        for i, r in enumerate(raw):
            at = f"{where}[{i}]"
            if not isinstance(r, dict) or set(r) - {"keywords", "questions", "reply", "product"}:
                raise RulesError(f"{at}: expected a mapping of keywords or questions, reply, and product "
                                 f"(got {sorted(r) if isinstance(r, dict) else type(r).__name__})")
            words = _texts(r.get("keywords"), f"{at}.keywords")
            questions = _texts(r.get("questions"), f"{at}.questions")
            if not words and not questions:
                raise RulesError(f"{at}: expected keywords or questions (a non-empty list of texts)")
            try:
                templates = parse_variants(r.get("reply"), f"{at}.reply")
            except ValueError as exc:  # TalkTrackError
                raise RulesError(str(exc)) from None
            rules.append(Rule(tuple(normalize(w) for w in words), tuple(question_key(q) for q in questions),
                              templates, str(r.get("product") or ""), at))
        return cls(rules)

    def match(self, text: str, product: str = "") -> Rule | None:
        """The first rule this comment triggers while `product` is presented."""
        norm = normalize(text)
        key = question_key(text)
        for rule in self.rules:
            if rule.product and rule.product != product:
                continue
            if any(w and w in norm for w in rule.keywords):
                return rule
            if key and any(q in key or fuzz.ratio(key, q) >= self.similarity for q in rule.questions):
                return rule
        return None

    def answer(self, cand: Candidate, track: Track, now_mono: float) -> Candidate | None:
        """The reply line for a queued comment, or None (no rule, the comment or the reply refused)."""
        moderator = track.moderator
        if moderator is None or cand.kind not in _KINDS or cand.source != LineSource.ANSWER:
            return None
        scene = track.scene
        rule = self.match(cand.text, scene.product if scene is not None else "")
        if rule is None or not moderator.check_comment(cand.text).ok:
            return None
        values = track.values(now_mono)
        d = track.drawer.draw(rule.reply, values, now_mono, commit=False)
        if d is None:
            return None
        facts = scene.facts if scene is not None else ()
        why = check_sentences(d.text, facts, {k: values.get(k) for k in d.template.slots}, moderator, cand.text)
        if why:
            self.refused[rule.where] = self.refused.get(rule.where, 0) + 1
            log.warning("room %s: %s: reply %r not said (%s); the brain answers instead", track.room, rule.where,
                        d.text, why)
            return None
        track.said(d, now_mono, noted=False)
        self.said += 1
        return Candidate(cand.kind, cand.priority, cand.key, d.text, cand.name, cand.deadline, LineSource.THANKS)


def _texts(raw: Any, where: str) -> list[str]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(x, str) and x.strip() for x in raw):
        raise RulesError(f"{where}: expected a list of texts")
    return [x.strip() for x in raw]
