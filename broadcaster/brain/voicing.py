"""The checks every sentence passes before it is voiced, as the Brain's mixin: moderation on its own and joined to what
was said before (a listed word split across a sentence cut), the guard for the sources' sentences, the one-sentence
look-ahead for a model sentence whose end may begin a listed word, the safe line in place of a withheld sentence (never
silence mid-answer), an absolute claim left out on its own, and the model's rest salvaged after the KB answered."""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import AsyncIterator, Iterator, Sequence

from broadcaster import metrics
from broadcaster.brain.answer_state import HOLD_LOOKAHEAD, AnswerState, Sentence
from broadcaster.brain.config import BrainConfig, ModerationConfig
from broadcaster.brain.guard import GroundingGuard, GuardVerdict
from broadcaster.brain.guard_rules import citation
from broadcaster.brain.kb import (
    KnowledgeBase,
    without_absolute_clauses,
    without_absolute_words,
    without_clauses,
)
from broadcaster.brain.moderation import Moderator, fold
from broadcaster.brain.products import Catalogue, names_ended
from broadcaster.brain.sentences import split_sentences
from broadcaster.brain.textnorm import dense
from broadcaster.lines import Line
from broadcaster.voice.sentences_en import split_sentences_en
from common.bounded import BoundedDict

log = logging.getLogger(__name__)
UNSUPPORTED = "unsupported: the facts say none of it"


def _each_clause_supported(text: str, guard: GroundingGuard) -> bool:
    """Whether the facts say something of every clause of a text (GroundingGuard.unsupported of none of them)."""
    return not any(guard.unsupported(c) for c in re.split(r"[，,；;]", text) if c.strip("。！？!? "))


class Voicing:
    """Sentence checks of the Brain (broadcaster/brain/core.py), which holds what they read."""

    room: str
    cfg: BrainConfig
    moderation: ModerationConfig
    moderator: Moderator
    kb: KnowledgeBase
    products: Catalogue
    _withheld: BoundedDict[int, list[dict[str, str]]]
    _kb_chars_cache: frozenset[str]
    _kb_chars_of: str
    language: str  # zh | en

    def _split(self, text: str) -> list[str]:
        """A text's sentences, cut as the room's language is (an English text with its own splitter)."""
        if self.language == "en":
            return split_sentences_en(text, self.cfg.max_sentence_chars)
        return split_sentences(text, self.cfg.max_sentence_chars)

    def _drop(self, ans: AnswerState, text: str, reason: str) -> None:
        record = {"text": text, "reason": reason}
        ans.pending_drops.append(record)
        ans.all_drops.append(record)
        if ans.line.id not in self._withheld:
            self._withheld[ans.line.id] = []
        self._withheld[ans.line.id].append(record)
        log.info("room %s: withheld %r: %s", self.room, text, reason)

    def _emit(self, ans: AnswerState, text: str, source: str, verdicts: tuple[str, ...], *, content: bool = True) -> Sentence:
        s = Sentence(text=text, source=source, passage_ids=ans.passage_ids, verdicts=verdicts, model=ans.model,
                     llm_ttft_s=ans.ttft, index=ans.index, line_id=ans.line.id, cache_hit=ans.cache_hit,
                     dropped=tuple(ans.pending_drops))
        ans.pending_drops.clear()
        ans.index += 1
        if content:
            ans.spoken.append(text)
        ans.said += text
        return s

    def _moderated(self, ans: AnswerState, text: str, source: str, *, content: bool = True) -> Sentence | None:
        v = self.moderator.check(text)
        if v.ok and ans.said:
            # Joined to what was said before: a listed word split across the sentence cut ("加我微。信号…").
            joined = self.moderator.check(ans.said + text)
            if not joined.ok:
                v = dataclasses.replace(joined, how=tuple("split" for _ in joined.how))
        if v.ok:
            return self._emit(ans, text, source, ("moderation: ok",), content=content)
        metrics.MODERATION_BLOCKS.labels(self.room, "output").inc()
        self._drop(ans, text, f"moderation: {v.describe()}")
        if v.action == "replace" and not ans.replaced:
            ans.replaced = True
            return self._emit(ans, self.moderation.replace_line, "fallback", ("moderation: replaced",), content=False)
        return None

    def _withhold(self, ans: AnswerState, text: str, reason: str) -> Sentence:
        """A withheld answer sentence: the room's safe line takes its place and the answer ends."""
        self._drop(ans, text, reason)
        ans.replaced = True
        return self._emit(ans, self.cfg.guard.safe_line, "fallback", ("guard: replaced",), content=False)

    def _ended(self, ans: AnswerState) -> tuple[str, ...]:
        """What the answer's product's ended offers are said with (never voiced again)."""
        product = self.products.items.get(ans.scope.product or "") if ans.scope is not None and self.products else None
        return self.products.ended(product) if product is not None else ()

    def _checked(self, ans: AnswerState, text: str, source: str, guard: GroundingGuard) -> Sentence | None:
        """An answer sentence from the cache or the KB: an ended offer, absolute claims and leaks, then moderation."""
        ended = names_ended(text, self._ended(ans))
        if ended:
            return self._withhold(ans, text, f"guard: an offer that has ended: {ended}")
        g = guard.check_claims(text)
        if g.ok:
            leak = guard._leak(text)
            if leak:
                g = GuardVerdict(False, f"prompt leak: {leak}")
        if not g.ok:
            if g.reason.startswith("absolute claim"):
                self._drop(ans, text, f"guard: {g.reason}")  # said on its own: only this sentence goes
                return None
            return self._withhold(ans, text, f"guard: {g.reason}")
        return self._moderated(ans, text, source)

    def _grounded_held(self, ans: AnswerState, text: str, guard: GroundingGuard) -> list[Sentence]:
        """A model sentence through the guard and moderation, with a one-sentence look-ahead: a sentence
        whose end may begin a listed word ("可以去淘。" + "宝搜…", "欢迎来加。" + "群里…") is held until the
        next one shows whether the two spell it across the cut; if they do, neither is voiced."""
        outs: list[Sentence] = []
        if ans.held:
            held, ans.held = ans.held, ""
            joined = self.moderator.check(held + text)
            if not joined.ok:  # spelled across the cut (or the next one is bad itself): neither is voiced
                reason = f"moderation: {joined.describe()} (split across a sentence cut)"
                metrics.MODERATION_BLOCKS.labels(self.room, "output").inc()
                self._drop(ans, held, reason)
                if ans.patched:  # a second split word in one answer: the model is spelling it on purpose
                    return [self._withhold(ans, text, reason)]
                # Only the two halves go: the safe line takes their place (never silence mid-answer) and the
                # answer's true sentences around them ("…。保质期18个月。") are still said.
                self._drop(ans, text, reason)
                ans.patched = True
                return [self._emit(ans, self.cfg.guard.safe_line, "fallback", ("moderation: replaced",), content=False)]
            out = self._voiced(ans, held)
            if out is not None:
                outs.append(out)
            if ans.replaced:
                return outs
        out = self._grounded(ans, text, guard)
        if out is not None:
            outs.append(out)
        return outs

    def _release_held(self, ans: AnswerState, pending: str) -> Sentence | None:
        """A held sentence is voiced as soon as the first characters of the next one show that no listed word runs
        across the cut: the look-ahead costs a few tokens, not a whole sentence (the answer's first sentence is what
        the viewer waits for). Undecided (too little seen, or the two spell a listed word): it stays held."""
        ahead = dense(fold(pending))
        if (len(ahead) < HOLD_LOOKAHEAD or self.moderator.runs_on(ans.held, ahead)
                or not self.moderator.check(ans.held + ahead).ok):
            return None
        held, ans.held = ans.held, ""
        return self._voiced(ans, held)

    def _salvaged(self, ans: AnswerState, texts: Sequence[str]) -> Iterator[Sentence]:
        """The model's sentences after its withheld first one, each through the guard (with the sentence said
        before it: the KB's answer, or the last of these), the split-word look-ahead and moderation; one that fails
        is left out and the rest are still checked (a true sentence after an invented one is said: heldout14 lost
        "不含酒精和香精" to the two inventions before it)."""
        for i, text in enumerate(texts):
            if ans.replaced or len(ans.spoken) >= self.cfg.llm.max_answer_sentences:
                return
            g = ans.guard.check(text, before=ans.spoken[-1] if ans.spoken else "") if ans.guard else GuardVerdict(True)
            if not g.ok or (ans.guard is not None and ans.guard.unsupported(text)):
                self._drop(ans, text, f"grounding: {g.reason or UNSUPPORTED}")
                continue
            if i + 1 < len(texts) and self._dangling(text):
                joined = self.moderator.check(text + texts[i + 1])
                if not joined.ok:
                    reason = f"moderation: {joined.describe()} (split across a sentence cut)"
                    self._drop(ans, text, reason)
                    self._drop(ans, texts[i + 1], reason)
                    return
            out = self._moderated(ans, text, "llm")
            if out is not None:
                yield out

    def _dangling(self, text: str) -> bool:
        """True when the sentence's end may begin a listed word or nickname: its last word is a listed word's start
        (去淘。, 就是脑。) or its last two or three characters begin one even as a harmless word of their own (玩百家。
        → 百家乐, 加我的绿泡。 → 绿泡泡). Such a sentence is held until the next one's first characters rule a split
        out (_release_held); voicing it at once would leave the next sentence to complete the word on air."""
        return self.moderator.dangling(text) or self.moderator.tail_begins(text)

    def _grounded(self, ans: AnswerState, text: str, guard: GroundingGuard) -> Sentence | None:
        if ans.abandoned:
            # The KB answers first; the model's rest is checked after it (a restriction the KB's answer says,
            # "拆封后有质量问题也可以退。" + "运费由我们承担。", counts for the sentence after it).
            ans.salvage.append(text)
            ans.salvage_done = len(ans.salvage) >= self.cfg.llm.max_answer_sentences
            return None
        g = guard.check(text, before=ans.spoken[-1] if ans.spoken else "")  # a return's condition in the sentence before
        ended = names_ended(text, self._ended(ans))
        if ended:
            g = GuardVerdict(False, f"an offer that has ended: {ended}")
        if g.ok and guard.unsupported(text) and self.moderator.check(text).ok and not self._dangling(text):
            # an addition no fact says is left out and the answer goes on (a banned word, or half of one, is moderation's)
            self._drop(ans, text, f"grounding: {UNSUPPORTED}")
            return None
        if not g.ok:
            absolute = g.reason.startswith("absolute claim")
            rests = (without_absolute_words(text), without_absolute_clauses(text)) if absolute else \
                (without_clauses(text, citation),) if g.reason.startswith("prompt leak") else ()
            if absolute or any(r != text for r in rests):
                # An absolute claim, or the sources cited ("根据知识库第21条，"), is a word or a clause to leave out, not a
                # sign the model invents: the answer goes on without it ("顶级食品级硅胶密封圈" → "食品级硅胶密封圈";
                # "销量第一，99元到手。" → "99元到手。"), the rest of the sentence checked again; the rest of an absolute
                # claim is said when the facts say something of each of its clauses ("丽水高山茶，别家都是假的" is not),
                # a citation's only in the facts' own words
                self._drop(ans, text, f"grounding: {g.reason}")
                before = ans.spoken[-1] if ans.spoken else ""
                for rest in dict.fromkeys(r for r in rests if r != text):
                    said = self._in_the_facts(rest) or (absolute and _each_clause_supported(rest, guard))
                    if said and guard.check(rest, before=before).ok:
                        return self._voiced(ans, rest)
                return None
            if not ans.spoken:
                # Nothing of the model's answer said yet: drop the model and answer from the KB instead; the
                # model's later sentences are kept (not voiced) in case the KB has no answer (see _without_llm).
                self._drop(ans, text, f"grounding: {g.reason}")
                ans.abandoned = True
                return None
            return self._withhold(ans, text, f"grounding: {g.reason}")
        if self._dangling(text) and self.moderator.check(text).ok:
            ans.held = text  # its end may begin a listed word: wait for the next sentence
            return None
        return self._voiced(ans, text)

    def _in_the_facts(self, text: str) -> bool:
        """Whether what is left of a sentence says the facts' own words (most of its characters are in them): the rest
        of a sentence that lost an absolute claim is voiced only then ("销量第一，99元到手" → "99元到手", but not
        "最正宗的，别家都是假的" → "别家都是假的")."""
        chars = [c for c in text if "\u4e00" <= c <= "\u9fff"]
        known = self._kb_chars
        return bool(chars) and sum(c in known for c in chars) / len(chars) >= 0.8

    @property
    def _kb_chars(self) -> frozenset[str]:
        if self._kb_chars_of != self.kb.version:
            self._kb_chars_cache = frozenset("".join(p.text for p in self.kb.passages))
            self._kb_chars_of = self.kb.version
        return self._kb_chars_cache

    def _voiced(self, ans: AnswerState, text: str) -> Sentence | None:
        """A model sentence the guard passed, through moderation (its verdicts say both checks passed)."""
        out = self._moderated(ans, text, "llm")
        if out is not None and out.source == "llm":
            out.verdicts = ("moderation: ok", "grounding: ok")
        return out

    async def _scripted(self, line: Line, source: str) -> AsyncIterator[Sentence]:
        ans = AnswerState(line, source=source)
        for text in self._split(line.text):
            out = self._moderated(ans, text, source)
            if out is not None:
                yield out
            if ans.replaced:
                return
