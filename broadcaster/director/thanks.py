"""Thanks: gifts and follows batched into one line per window, and a guard's own thanks line.

A batch opens with its first gift (or follow) and is ready `gift_batch_s` later, or as soon as it
names `gift_batch_names` people; its line names them ("谢谢小红和小明送的辣条和小心心！") and the two
gifts given most. Money is summed exactly, in Event.value_milli: the value converted into the room's
accounting currency (danmaku/money.py), whatever unit the platform paid in. A raid (Twitch) is welcomed on a
line of its own, like a guard.

The room's language (director.triage.language) picks the default wording (director/wording.py): an English
room says "Thank you A, B and C for the roses!"; a thanks_* template set in the config is used as written.

The wording is drawn from variants (the talk file's `thanks:`, else director.triage's thanks_* templates) so
that no thanks sentence repeats within the room's repeat window while there are enough of them (names and
gifts masked); with a talk track, a gift or follow thanks ends with a call to action not said lately (the
current offer's, rotated).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from broadcaster.director.config import TriageConfig
from broadcaster.director.triage import Candidate, Thank, TriagedLine
from broadcaster.director.variants import Drawer, RepeatWindow, Template
from broadcaster.director.wording import GIFT_DEFAULT, GIFT_JOIN, GUARD_NAMES, TEMPLATES, join_names
from broadcaster.lines import LineKind, LineSource
from danmaku.event import MILLI_PER_CNY

if TYPE_CHECKING:
    from broadcaster.director.talk import TalkTrack

__all__ = ["Batch", "Thanks", "join_names"]
MAX_LINE_NAMES = 20  # names a thanks line carries (for the console and audit)


@dataclass(slots=True)
class Batch:
    started: float
    people: dict[str, dict[str, int]] = field(default_factory=dict)  # name → gift → count, in order of arrival
    value_milli: int = 0
    events: int = 0


# When every configured variant names a slot a thanks line has no value for (a live slot that is empty now): the
# language's first template whose slots the line always fills.
_FALLBACK = {lang: {kind: (Template.parse(by_kind[kind][0]),) for kind in ("gifts", "guard", "follow")}
             | {"raid": (Template.parse(by_kind["raid"][1]),)}
             for lang, by_kind in TEMPLATES.items()}


def _templates(raw: str | list[str] | tuple[str, ...], where: str) -> tuple[Template, ...]:
    return tuple(Template.parse(t, where) for t in ([raw] if isinstance(raw, str) else raw))


def _configured(cfg: TriageConfig, kind: str) -> str | list[str] | tuple[str, ...]:
    """The config's thanks_<kind> when it sets one (or the room speaks Chinese), else the language's defaults."""
    field = f"thanks_{kind}"
    if kind != "raid" and (field in cfg.model_fields_set or cfg.language == "zh"):
        return getattr(cfg, field)
    return TEMPLATES[cfg.language][kind]


class Thanks:
    def __init__(self, cfg: TriageConfig, talk: TalkTrack | None = None) -> None:
        self.cfg = cfg
        self.talk = talk
        self.gifts: Batch | None = None
        self.follows: Batch | None = None
        # Without a talk track the thanks keep a window of their own (the default ten minutes).
        self.drawer = talk.drawer if talk is not None else Drawer(RepeatWindow())
        self.language = cfg.language
        self.templates = {
            kind: (talk.thanks_templates(kind) if talk is not None else None)
            or _templates(_configured(cfg, kind), f"director.triage.thanks_{kind}")
            for kind in ("gifts", "guard", "follow", "raid")
        }

    def _say(self, kind: str, values: dict[str, str | None], now: float, cta: bool) -> str:
        d = (self.drawer.draw(self.templates[kind], values, now)
             or self.drawer.draw(_FALLBACK[self.language][kind], values, now))
        assert d is not None  # the fallback's slots are all given
        if self.talk is None:
            return d.text
        self.talk.said(d, now)
        extra = self.talk.call_to_action(now) if cta else None
        return d.text + extra if extra else d.text

    @property
    def open(self) -> bool:
        """A gift or follow batch is collecting (the talk track waits for its thanks)."""
        return self.gifts is not None or self.follows is not None

    def add(self, thank: Thank, now: float) -> bool:
        """Adds a gift or follow to its batch; True when an open batch's line already covers it."""
        if thank.kind == LineKind.GIFT:
            if self.gifts is None:
                self.gifts = Batch(now)
            batch = self.gifts
            gifts = batch.people.setdefault(thank.name, {})
            gifts[thank.gift] = gifts.get(thank.gift, 0) + thank.count
            batch.value_milli += thank.value_milli
        else:
            if self.follows is None:
                self.follows = Batch(now)
            batch = self.follows
            batch.people.setdefault(thank.name, {})
        batch.events += 1
        return batch.events > 1

    def guard(self, thank: Thank, now: float | None = None) -> Candidate:
        """A guard is thanked on its own line, ranked in the queue with the answers; so is a raid, welcomed."""
        if now is None:  # it arrived a deadline before its deadline
            now = thank.deadline - self.cfg.deadlines.guard if thank.deadline != float("inf") else 0.0
        if thank.raid is not None:
            text = self._say("raid", {"name": thank.name, "count": str(thank.raid) if thank.raid else None}, now,
                             cta=False)
            return Candidate(LineKind.FOLLOW, self.cfg.priorities.guard, "", text, thank.name, thank.deadline,
                             LineSource.THANKS)
        guard = thank.guard_name or GUARD_NAMES[self.language].get(thank.guard_level, GUARD_NAMES[self.language][3])
        text = self._say("guard", {"name": thank.name, "guard": guard}, now, cta=False)
        return Candidate(LineKind.GUARD, self.cfg.priorities.guard, "", text, thank.name, thank.deadline,
                         LineSource.THANKS)

    def _ready(self, batch: Batch | None, now: float) -> bool:
        if batch is None:
            return False
        return now - batch.started >= self.cfg.gift_batch_s or len(batch.people) >= self.cfg.gift_batch_names

    def gifts_ready(self, now: float) -> bool:
        return self._ready(self.gifts, now)

    def follows_ready(self, now: float) -> bool:
        return self._ready(self.follows, now)

    def gift_line(self, now: float) -> TriagedLine:
        """Closes the gift batch into its thanks line."""
        batch = self.gifts
        assert batch is not None
        self.gifts = None
        totals: dict[str, int] = {}
        for gifts in batch.people.values():
            for g, c in gifts.items():
                totals[g] = totals.get(g, 0) + c
        top = sorted(totals, key=lambda g: -totals[g])[:2]
        names = list(batch.people)
        lang = self.language
        text = self._say("gifts", {"names": join_names(names, self.cfg.gift_batch_names, lang),
                                   "gifts": GIFT_JOIN[lang].join(top) if top else GIFT_DEFAULT[lang]}, now, cta=True)
        return self._line(text, batch, LineKind.GIFT, self.cfg.priorities.gift, self.cfg.deadlines.gift, now)

    def follow_line(self, now: float) -> TriagedLine:
        """Closes the follow batch into its welcome line."""
        batch = self.follows
        assert batch is not None
        self.follows = None
        text = self._say("follow", {"names": join_names(list(batch.people), self.cfg.gift_batch_names, self.language)},
                         now, cta=True)
        return self._line(text, batch, LineKind.FOLLOW, self.cfg.priorities.follow, self.cfg.deadlines.follow, now)

    @staticmethod
    def _line(text: str, batch: Batch, kind: LineKind, priority: int, deadline_s: float, now: float) -> TriagedLine:
        return TriagedLine(text=text, source=LineSource.THANKS, priority=priority,
                           deadline_mono=batch.started + deadline_s, created_mono=now,
                           kind=kind, count=batch.events, names=tuple(list(batch.people)[:MAX_LINE_NAMES]))

    def due_in(self, now: float) -> list[float]:
        """Seconds until each open batch's window ends."""
        return [b.started + self.cfg.gift_batch_s - now for b in (self.gifts, self.follows) if b is not None]

    def snapshot(self, now: float) -> dict[str, Any] | None:
        """The open gift batch, for the console."""
        b = self.gifts
        if b is None:
            return None
        return {"people": list(b.people), "events": b.events,
                "value_cny": round(b.value_milli / MILLI_PER_CNY, 2), "age_s": round(now - b.started, 2)}
