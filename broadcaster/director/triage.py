"""Triage of one chat event: what it asks of the room, or why it asks nothing.

`triage(event, now, cfg, ...)` is a plain function: no asyncio, no metrics, no clock of its own. It
turns an Event into one of
- a `Candidate`: a line to queue (a super chat, question or comment to answer; a super chat
  without words, thanked),
- a `Thank`: a gift or follow to batch into one thanks line, or a guard to thank on its own,
- a `Dropped` with its `Drop` reason (and for moderation, the verdict),
- a `Withdraw`: the platform deleted super chats (Bilibili SUPER_CHAT_MESSAGE_DELETE arrives as a
  SYSTEM event with extra {"type": "sc_delete", "ids": [...]}); they must not be answered.
What it remembers between events lives in the small helpers passed in (message ids already seen,
per-user rate buckets, names safe to read out); `has_room` asks the queue, before the costlier
moderation check, whether a line of that priority could get in at all.

An English room (cfg.language "en") reads chat with director/chat_en.py: emotes are taken out of the text
(a message of emotes alone is dropped), laughter and lone letters are noise, gg / W / pog are cheers kept
although short, and a question is known by its English form too. A Twitch raid (a SYSTEM event with extra
{"type": "raid", "viewers": N}) is welcomed on its own line; a paid message without words is thanked with its
amount as the platform gave it ("$10.00", "500 bits": director/wording.py).

The Director counts drops, writes the console's recent chat and the audit of blocked comments,
merges near-duplicates and queues what is left.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from broadcaster.brain.chitchat import cheer
from broadcaster.brain.intent import is_question
from broadcaster.brain.moderation import Moderator, speakable_name
from broadcaster.brain.textnorm import clean, dense, normalize, question_key
from broadcaster.director import chat_en
from broadcaster.director.config import TriageConfig
from broadcaster.director.wording import guard_text, super_chat_thanks
from broadcaster.lines import Line, LineKind, LineSource
from common.bounded import BoundedDict
from danmaku.event import MILLI_PER_CNY, Event, EventKind

# One character repeated ("啊啊啊啊", "？？？？" is too short): noise. Cheers are chit-chat the anchor acknowledges
# ("666", "888", "哈哈哈", "来了来了", "2333"): the brain thanks the friendly ones, the queue ranks them last.
_NOISE_RE = re.compile(r"^(?![\d\u3400-\u9fff])(.)\1*$")
_CHAT = frozenset({EventKind.COMMENT, EventKind.SUPER_CHAT, EventKind.VOICE})
SEEN_IDS = 4096  # platform message ids remembered to drop repeats
SAFE_NAMES = 4096  # names whose verdict is remembered


class Drop(StrEnum):
    """Why an event got no line of its own (the `drops` counters and the DROPS metric use these)."""

    DUPLICATE_ID = "duplicate_id"
    IGNORED_KIND = "ignored_kind"  # likes, enters, system notices (and follows unless thanked)
    TOO_SHORT = "too_short"
    NOISE = "noise"
    EMOTE_ONLY = "emote_only"  # an English room: emotes and nothing else
    CHIT_CHAT = "chit_chat"
    QUEUE_FULL = "queue_full"
    MODERATION = "moderation"
    RATE_LIMIT = "rate_limit"
    SMALL_GIFT = "small_gift"
    MERGED = "merged"  # folded into a waiting near-duplicate
    RECENTLY_ANSWERED = "recently_answered"
    GIFT_BATCHED = "gift_batched"  # folded into the open batch's one thanks line
    FOLLOW_BATCHED = "follow_batched"
    STALE = "stale"  # its deadline passed while it waited
    OPERATOR_OVERFLOW = "operator_overflow"
    WITHDRAWN = "withdrawn"  # a super chat the platform deleted
    ERROR = "error"  # triage failed on it


@dataclass(frozen=True, slots=True)
class TriagedLine(Line):
    """A Line with what triage knew: its kind, how many viewers asked it, and who."""

    kind: LineKind = LineKind.COMMENT
    count: int = 1
    names: tuple[str, ...] = ()
    segment: str = ""  # talk-track segment of a script line


@dataclass(frozen=True, slots=True)
class Candidate:
    """A line to queue. `key` is the normalized text near-duplicates are matched on ("" for thanks)."""

    kind: LineKind
    priority: float
    key: str
    text: str
    name: str  # safe to read out
    deadline: float
    source: LineSource = LineSource.ANSWER


@dataclass(frozen=True, slots=True)
class Thank:
    """A gift or follow for the thanks batch, or a guard (or raid) to thank on its own line (kind GIFT, FOLLOW or
    GUARD; a raid rides as GUARD with `raid` set)."""

    kind: LineKind
    name: str  # safe to read out
    gift: str = ""
    count: int = 1
    value_milli: int = 0  # Event.value_milli: converted into the room's currency, whatever the platform paid in
    guard_level: int = 0
    deadline: float = float("inf")
    guard_name: str = ""  # what the guard bought, as said ("sub", "5 gifted memberships"); "" → by guard_level
    raid: int | None = None  # a raid: the viewers it brought (0 when unknown)


@dataclass(frozen=True, slots=True)
class Withdraw:
    """Super chats the platform deleted (their `sc_id`s): not to be answered."""

    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Dropped:
    reason: Drop
    verdict: str = ""  # what moderation found, for Drop.MODERATION


# One shared result per reason (the hot path allocates nothing for a drop, and looks up no enum member).
_DUPLICATE_ID, _IGNORED_KIND, _TOO_SHORT, _NOISE, _CHIT_CHAT, _QUEUE_FULL, _RATE_LIMIT, _SMALL_GIFT, _EMOTE_ONLY = (
    Dropped(r) for r in (Drop.DUPLICATE_ID, Drop.IGNORED_KIND, Drop.TOO_SHORT, Drop.NOISE, Drop.CHIT_CHAT,
                         Drop.QUEUE_FULL, Drop.RATE_LIMIT, Drop.SMALL_GIFT, Drop.EMOTE_ONLY))
_WITHDRAWN = Dropped(Drop.WITHDRAWN)


@dataclass(slots=True)
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """A token bucket per user: at most `burst` lines, refilled at `per_min`; the last `max_users` users kept."""

    def __init__(self, burst: int, per_min: float, max_users: int) -> None:
        self.burst = float(burst)
        self.per_s = per_min / 60.0
        self.users: BoundedDict[str, _Bucket] = BoundedDict(max_users)

    def allow(self, user_id: str, now: float) -> bool:
        """Takes a token from the user's bucket; False when it is empty. An unknown user ("") is never limited."""
        if not user_id:
            return True
        b = self.users.get(user_id)
        if b is None:
            b = _Bucket(self.burst, now)
        else:
            b.tokens = min(self.burst, b.tokens + (now - b.stamp) * self.per_s)
            b.stamp = now
        self.users[user_id] = b  # the newest user: the least recently heard from is forgotten first
        if b.tokens < 1.0:
            return False
        b.tokens -= 1.0
        return True


class SafeNames:
    """A viewer's name as it may be read out or shown (thanks lines, the "answering" banner): as the viewer
    wrote it (emoji and control characters removed, case kept), at most 16 characters, ANON (这位朋友) if moderation
    objects to it — so a gift from "加微信tea888" is thanked as 这位朋友's."""

    def __init__(self, moderator: Moderator, maxlen: int = SAFE_NAMES) -> None:
        self.moderator = moderator
        self.known: BoundedDict[str, str] = BoundedDict(maxlen)

    def __call__(self, event: Event) -> str:
        raw = event.user.name if event.user is not None else ""
        safe = self.known.get(raw)
        if safe is None:
            safe = self.known[raw] = speakable_name(self.moderator, raw)
        return safe


def event_deadline(event: Event, now: float, seconds: float) -> float:
    """`seconds` after the event arrived; an arrival time from another clock counts as now."""
    t = event.received_mono
    return (t if now - 3600.0 <= t <= now else now) + seconds


def sc_id(event: Event) -> str:
    """The platform's id of a super chat ("" for anything else)."""
    return str(event.extra.get("sc_id") or "") if event.kind == EventKind.SUPER_CHAT else ""


def triage(event: Event, now: float, cfg: TriageConfig, moderator: Moderator, seen: BoundedDict[str, None],
           rates: RateLimiter, names: SafeNames,
           has_room: Callable[[float, str, float], bool],
           withdrawn: BoundedDict[str, None] | None = None) -> Candidate | Thank | Dropped | Withdraw:
    """What one event asks of the room (see the module doc). Raises only on malformed `extra` values."""
    if event.msg_id and seen.seen(event.msg_id):
        return _DUPLICATE_ID
    kind = event.kind
    if kind == EventKind.GIFT:
        if event.value_milli < cfg.gift_min_milli:
            return _SMALL_GIFT
        extra = event.extra
        return Thank(LineKind.GIFT, names(event), gift=str(extra.get("gift_name") or extra.get("gift") or "礼物"),
                     count=int(extra.get("count") or extra.get("num") or 1), value_milli=max(0, event.value_milli))
    if kind == EventKind.FOLLOW:
        return Thank(LineKind.FOLLOW, names(event)) if cfg.thank_follows else _IGNORED_KIND
    if kind == EventKind.GUARD:
        level = int(event.extra.get("guard_level") or (event.user.guard_level if event.user else 0) or 3)
        return Thank(LineKind.GUARD, names(event), guard_level=level,
                     deadline=event_deadline(event, now, cfg.deadlines.guard),
                     guard_name=guard_text(event, cfg.language) if cfg.language != "zh" else "")
    if kind not in _CHAT:
        if kind == EventKind.SYSTEM:
            what = event.extra.get("type")
            if what == "sc_delete":
                return Withdraw(tuple(str(i) for i in event.extra.get("ids") or ()))
            if what == "raid" and event.user is not None:
                # Raiders arrive now: welcomed while they are here (the follow deadline), ranked like a guard.
                return Thank(LineKind.GUARD, names(event), raid=max(0, int(event.extra.get("viewers") or 0)),
                             deadline=event_deadline(event, now, cfg.deadlines.follow))
        return _IGNORED_KIND  # likes, enters, system notices: nothing to say
    if withdrawn is not None and kind == EventKind.SUPER_CHAT and sc_id(event) in withdrawn:
        return _WITHDRAWN  # deleted before it reached us
    english = cfg.language == "en"
    said = chat_en.without_emotes(event.text, str(event.extra.get("emotes") or "")) if english else event.text
    if english and not said.strip() and event.text.strip() and kind != EventKind.SUPER_CHAT:
        return _EMOTE_ONLY
    text = normalize(said)[: cfg.chars_max]
    key = question_key(text)
    is_sc = kind == EventKind.SUPER_CHAT
    if is_sc:
        line_kind = LineKind.SUPER_CHAT
        # The converted value: a $10 Super Chat, 500 bits and a ¥30 醒目留言 compare in the room's currency.
        priority = cfg.priorities.super_chat + cfg.priorities.per_cny * (max(0, event.value_milli) / MILLI_PER_CNY)
        deadline_s = cfg.deadlines.super_chat
    else:
        reading = chat_en.reading(said) if english else None
        if reading is chat_en.Reading.NOISE:
            return _NOISE
        # (the key drops fillers — 主播好美 is keyed 美 —, so the comment's own words decide: 主播好帅 is praise)
        if len(key) < cfg.min_chars and len(dense(text)) < cfg.min_chars \
                and not (cheer(event.text, cfg.language) or reading is chat_en.Reading.CHEER):
            return _TOO_SHORT  # "❤️❤️", "👍👍", "W" are chit-chat, not too short
        if _NOISE_RE.match(key) and reading is not chat_en.Reading.CHEER:
            return _NOISE
        if is_question(text, normalized=True) or (english and chat_en.is_question(said)):
            line_kind, priority, deadline_s = LineKind.QUESTION, cfg.priorities.question, cfg.deadlines.question
        elif cfg.answer_chit_chat:
            line_kind, priority, deadline_s = LineKind.COMMENT, cfg.priorities.comment, cfg.deadlines.comment
        else:
            return _CHIT_CHAT
    if not has_room(priority, key, now):
        # Under a flood the queue is full of better lines: drop before the costlier checks.
        return _QUEUE_FULL
    if text:
        verdict = moderator.check_comment(event.text)  # as typed: normalizing squeezes "18800001111" to "188000111"
        if not verdict.ok:
            return Dropped(Drop.MODERATION, verdict.describe())  # input is never repeated, whatever the action
    if not is_sc:
        user_id = (event.user.id or event.user.name) if event.user is not None else ""
        if not rates.allow(user_id, now):
            return _RATE_LIMIT
    name = names(event)
    deadline = event_deadline(event, now, deadline_s)
    if is_sc and not text:  # a super chat without words is thanked like a guard, with its amount in English
        return Candidate(line_kind, priority, "", super_chat_thanks(name, event, cfg.language), name, deadline,
                         LineSource.THANKS)
    # The line carries what the viewer wrote (cleaned), not the normalized form used for matching.
    shown = clean(said)[: cfg.chars_max] or text
    return Candidate(line_kind, priority, key, shown, name, deadline)

