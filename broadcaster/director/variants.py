"""Talk material with variants and slots, drawn so that no sentence is said again within a window.

A template is one way of saying a line: text with `{slot}` placeholders and `{a|b|c}` inline alternatives
(`{|真的}` may leave a word out). A line has one or more templates (its variants). Slots are static (the
file's variables, the product's name and values, the offer's text: filled in before sentences are compared)
or dynamic (DYNAMIC: names, counts, the time of day, the viewer count, the offer's time left: masked, so
"谢谢小红送的小心心" and "谢谢小明送的辣条" are the same sentence said twice).

`RepeatWindow` remembers when each sentence (its key: the masked sentence without spaces and punctuation)
was last said, and the last hour of what was said; `Drawer` picks, among the templates whose slots can be
filled, an alternative whose sentences are all outside the window, or, when the material is used up, the
one said longest ago (a repeat, counted). `capacity` says how many times a line can be said inside one
window without a repeat: what `check` and the room's warning compare with what the window needs.
"""

from __future__ import annotations

import itertools
import random
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

# Slots whose value changes from one saying to the next: masked when sentences are compared.
DYNAMIC = frozenset({
    "names", "gifts", "name", "guard", "count",  # thanks and welcome
    "viewers", "offer_left", "time_of_day", "greeting",
    "last_gifter", "last_gift", "last_asker",
})
_BRACE = re.compile(r"\{([^{}]*)\}")
_SLOT_NAME = re.compile(r"^[\w.]+$")
_ENDERS = "。！？!?；;…～~\n"
_NOT_KEY = re.compile(r"[^\w{}]")
_WILD = r"([^，,。！？!?；;…～~\n]+?)"  # a slot's value as said: no clause or sentence mark inside
MAX_COMBOS = 4096  # alternatives enumerated at most per template (capacity, exhaustive search)


class TemplateError(ValueError):
    """A template that cannot be parsed (an unclosed brace); the message names where."""


@dataclass(frozen=True, slots=True)
class Part:
    """A literal (options of one), an inline alternative (several options) or a slot (`slot` set)."""

    options: tuple[str, ...] = ("",)
    slot: str = ""


def _parse(text: str, where: str) -> tuple[Part, ...]:
    if text.count("{") != text.count("}"):
        raise TemplateError(f"{where}: unbalanced braces in {text!r}")
    parts: list[Part] = []
    pos = 0
    for m in _BRACE.finditer(text):
        if m.start() > pos:
            parts.append(Part((text[pos : m.start()],)))
        body = m.group(1)
        if "|" in body:
            parts.append(Part(tuple(body.split("|"))))
        elif _SLOT_NAME.match(body):
            parts.append(Part(slot=body))
        else:  # "{}" or "{ x }": not ours, said as written
            parts.append(Part((m.group(0),)))
        pos = m.end()
    if pos < len(text):
        parts.append(Part((text[pos:],)))
    if any(("{" in o or "}" in o) and not _BRACE.fullmatch(o) for p in parts if not p.slot for o in p.options):
        raise TemplateError(f"{where}: nested braces in {text!r}")
    return tuple(parts)


def split_sentences(text: str) -> list[str]:
    """Sentences of a text, each with its end mark (the unit of a repeat)."""
    out: list[str] = []
    cur: list[str] = []
    for ch in text:
        cur.append(ch)
        if ch in _ENDERS:
            s = "".join(cur).strip()
            if _NOT_KEY.sub("", s):
                out.append(s)
            elif out and s:
                out[-1] += s  # "……！" after a sentence belongs to it
            cur = []
    s = "".join(cur).strip()
    if _NOT_KEY.sub("", s):
        out.append(s)
    elif out and s:
        out[-1] += s
    return out


def sentence_key(masked_sentence: str) -> str:
    """What makes two sentences the same when heard: the words, without spaces and punctuation."""
    return _NOT_KEY.sub("", masked_sentence).lower()


@dataclass(frozen=True, slots=True)
class Template:
    text: str
    parts: tuple[Part, ...]

    @classmethod
    def parse(cls, text: str, where: str = "<template>") -> Template:
        return cls(text, _parse(text, where))

    @property
    def slots(self) -> frozenset[str]:
        return frozenset(p.slot for p in self.parts if p.slot)

    @property
    def combos(self) -> int:
        n = 1
        for p in self.parts:
            n *= len(p.options)
        return n

    def fillable(self, values: Mapping[str, str | None]) -> bool:
        """Every slot it names has a value now: a dynamic slot must be given, any slot given as None has no value
        now (a static slot nobody knows is said as written)."""
        return all(values.get(s) is not None for s in self.slots if s in DYNAMIC or s in values)

    def render(self, choice: Sequence[int], values: Mapping[str, str | None]) -> tuple[str, tuple[str, ...]]:
        """(the text to say, the keys of its sentences) for one choice of alternatives."""
        said: list[str] = []
        masked: list[str] = []
        k = 0
        for p in self.parts:
            if p.slot:
                v = values.get(p.slot)
                if v is None:
                    v = "{" + p.slot + "}"
                said.append(v)
                masked.append("{" + p.slot + "}" if p.slot in DYNAMIC else v)
                continue
            o = p.options[choice[k]] if len(p.options) > 1 else p.options[0]
            if len(p.options) > 1:
                k += 1
            said.append(o)
            masked.append(o)
        keys = tuple(dict.fromkeys(sentence_key(s) for s in split_sentences("".join(masked))))
        return "".join(said), tuple(k for k in keys if k)

    def choices(self, rng: random.Random, samples: int) -> Iterable[tuple[int, ...]]:
        """Choices of alternatives: all of them when few, else `samples` random ones."""
        sizes = [len(p.options) for p in self.parts if not p.slot and len(p.options) > 1]
        if self.combos <= samples:
            yield from itertools.product(*(range(n) for n in sizes))
            return
        for _ in range(samples):
            yield tuple(rng.randrange(n) for n in sizes)


@dataclass(frozen=True, slots=True)
class Drawn:
    text: str
    keys: tuple[str, ...]
    template: Template
    repeat: bool  # some sentence of it was said inside the window (the material ran out)


@dataclass
class RepeatWindow:
    """When each sentence was last said, and the last `history_s` of sayings (the room's figures)."""

    window_s: float = 600.0
    history_s: float = 3600.0
    last: dict[str, float] = field(default_factory=dict)
    said: deque[tuple[float, str]] = field(default_factory=deque)
    repeats: deque[float] = field(default_factory=deque)  # when a sentence was said again inside the window
    repeats_total: int = 0
    sentences_total: int = 0

    def free(self, key: str, now: float) -> bool:
        t = self.last.get(key)
        return t is None or now - t >= self.window_s

    def age(self, keys: Iterable[str], now: float) -> float:
        """Seconds since the most recent of these sentences was said (inf: never)."""
        return min((now - self.last[k] for k in keys if k in self.last), default=float("inf"))

    def note(self, keys: Iterable[str], now: float) -> int:
        """These sentences were said now; returns how many of them were repeats inside the window."""
        n = 0
        for k in keys:
            if not self.free(k, now):
                n += 1
                self.repeats.append(now)
            self.last[k] = now
            self.said.append((now, k))
            self.sentences_total += 1
        self.repeats_total += n
        self._forget(now)
        return n

    def _forget(self, now: float) -> None:
        keep = max(self.window_s, self.history_s)
        while self.said and now - self.said[0][0] > keep:
            t, k = self.said.popleft()
            if self.last.get(k) == t:
                del self.last[k]
        while self.repeats and now - self.repeats[0] > self.window_s:
            self.repeats.popleft()

    def distinct_last_hour(self, now: float) -> int:
        return len({k for t, k in self.said if now - t <= self.history_s})

    def repeats_in_window(self, now: float) -> int:
        self._forget(now)
        return len(self.repeats)

    def adopt(self, old: RepeatWindow) -> None:
        """Keeps what an older window (a reload's predecessor) remembers."""
        self.last.update(old.last)
        self.said = deque(sorted([*old.said, *self.said]))
        self.repeats = deque(sorted([*old.repeats, *self.repeats]))
        self.repeats_total += old.repeats_total
        self.sentences_total += old.sentences_total


class Drawer:
    """Picks what to say among templates, keeping out of the window (see the module doc)."""

    def __init__(self, window: RepeatWindow, rng: random.Random | None = None, samples: int = 48) -> None:
        self.window = window
        self.rng = rng or random.Random()
        self.samples = samples

    def draw(self, templates: Sequence[Template], values: Mapping[str, str | None], now: float, *,
             fresh_only: bool = False, commit: bool = True) -> Drawn | None:
        """A fresh saying of one of the templates (None when none is fillable, or with `fresh_only` none is
        fresh); `commit` notes its sentences as said now."""
        usable = [t for t in templates if t.fillable(values)]
        if not usable:
            return None
        order = usable[:]
        self.rng.shuffle(order)
        oldest: tuple[float, Template, str, tuple[str, ...]] | None = None
        for t in order:
            for choice in t.choices(self.rng, self.samples):
                text, keys = t.render(choice, values)
                age = self.window.age(keys, now)
                if age >= self.window.window_s:
                    return self._done(Drawn(text, keys, t, False), now, commit)
                if oldest is None or age > oldest[0]:
                    oldest = (age, t, text, keys)
        if fresh_only or oldest is None:
            return None
        _, t, text, keys = oldest
        return self._done(Drawn(text, keys, t, True), now, commit)

    def _done(self, d: Drawn, now: float, commit: bool) -> Drawn:
        if commit:
            self.window.note(d.keys, now)
        return d


def capacity(templates: Sequence[Template], values: Mapping[str, str | None], limit: int = 200,
             seed: int = 0) -> int:
    """How many times these templates can be said inside one window without a sentence repeating (greedy
    draws from an empty window, at most `limit`). Dynamic slots count as filled."""
    probe = {**{s: "{" + s + "}" for t in templates for s in t.slots if s in DYNAMIC}, **values}
    drawer = Drawer(RepeatWindow(window_s=1.0), random.Random(seed), samples=MAX_COMBOS)
    n = 0
    while n < limit and drawer.draw(templates, probe, 0.0, fresh_only=True) is not None:
        n += 1
    return n


class Masker:
    """Reads said texts back with their dynamic slot values masked, given the templates they came from
    (an audit log read back: the bench, the tests). A text is cut into the longest template matches from its
    start; what no template matches counts sentence by sentence, as said."""

    def __init__(self, templates: Iterable[Template], values: Mapping[str, str | None]) -> None:
        self._patterns: list[tuple[re.Pattern[str], list[str]]] = []
        self.add(templates, values)

    def add(self, templates: Iterable[Template], values: Mapping[str, str | None]) -> None:
        """More templates, their static slots filled with these values (another product's, say)."""
        for t in dict.fromkeys(templates):
            rx: list[str] = []
            slots: list[str] = []
            for p in t.parts:
                v = values.get(p.slot) if p.slot else None
                if p.slot and (p.slot in DYNAMIC or v is None):
                    rx.append(_WILD)
                    slots.append(p.slot)
                elif p.slot:
                    rx.append(re.escape(v or ""))
                else:
                    rx.append("(?:" + "|".join(re.escape(o) for o in sorted(p.options, key=len, reverse=True)) + ")")
            self._patterns.append((re.compile("".join(rx), re.S), slots))

    def mask(self, text: str) -> str:
        out: list[str] = []
        pos = 0
        while pos < len(text):
            best: tuple[int, int, str] | None = None
            for rx, slots in self._patterns:
                m = rx.match(text, pos)
                if m is None or m.end() == pos:
                    continue
                if m.end() < len(text) and text[m.end() - 1] not in _ENDERS:
                    continue  # a template ends where a sentence does
                # the longest match; of those, the one whose slots took least (the more specific template)
                literal = (m.end() - pos) - sum(m.end(i) - m.start(i) for i in range(1, len(slots) + 1))
                if best is None or (m.end(), literal) > best[:2]:
                    masked = text[pos : m.end()]
                    for i in range(len(slots), 0, -1):
                        a, b = m.span(i)
                        masked = masked[: a - pos] + "{" + slots[i - 1] + "}" + masked[b - pos :]
                    best = (m.end(), literal, masked)
            if best is None:
                first = split_sentences(text[pos:])
                end = text.find(first[0], pos) + len(first[0]) if first else len(text)
                out.append(text[pos:end])
                pos = end
            else:
                pos, _, masked = best
                out.append(masked)
        return "".join(out)

    def keys(self, text: str) -> list[str]:
        """The sentence keys of a said text, slots masked (as RepeatWindow counts them)."""
        return [k for k in (sentence_key(s) for s in split_sentences(self.mask(text))) if k]
