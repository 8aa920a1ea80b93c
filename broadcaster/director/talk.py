"""The talk track: a room's YAML script (segments, loops, intervals, time-of-day windows, variants, slots) that fills silence.

File shape:

    variables: {promo: 今晚下单立减20元}
    segments:
      - name: opening          # `once`: played once, first
        once: true
        lines: ["{greeting}，欢迎来到直播间！"]
      - name: pitch            # plain segments loop, line by line, segment after segment
        lines:
          - ["这款保温杯……", "{这只|这款}杯子……"]   # a list: variants of one line
          - "{promo}！"
      - name: reminder         # `every_s`: one line whenever it is due, before the loop continues
        every_s: 300
        lines: ["点点关注不迷路～"]
      - name: night            # `between`: only inside this local time window (may wrap midnight)
        between: ["22:00", "02:00"]
        lines: ["夜深了，大家早点休息哦。"]
    thanks:                    # optional: variants of the thanks and welcome lines (else director.triage's)
      gifts: ["谢谢{names}送的{gifts}！", "{names}，{gifts}收到啦，谢谢！"]
      guard: ["感谢{name}开通{guard}！"]
      follow: ["欢迎{names}的关注！"]
    cta: ["喜欢的朋友点下方小黄车下单。"]   # after a gift or follow when no offer brings its own
    replies:                   # keyword and question rules (director/replies.py)
      - keywords: [链接, 怎么买]
        reply: ["点屏幕下方的小黄车就能下单哦。"]

Slots and alternatives are explained in director/variants.py; `{name}` placeholders not known anywhere are
left as written. Lines are drawn (variants, alternatives, paraphrases) so that no sentence is said again
within `talk.repeat_window_s`; when a line has nothing fresh left, the loop first tries the lines after it,
then says the one said longest ago (a repeat, counted in va_talk_repeats and the console).

A products room passes a `Scene` (the product on screen: its name, values, facts, own segments, offer) to
`next`; its `once` segments play when it is presented, its loop segments come before the room's.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from broadcaster import metrics
from broadcaster.director.scene import (
    POINTS,
    Offer,
    Scene,
    Segment,
    TalkLine,
    TalkTrackError,
    parse_variants,
)
from broadcaster.director.variants import (
    Drawer,
    Drawn,
    RepeatWindow,
    Template,
    TemplateError,
    capacity,
)

if TYPE_CHECKING:
    from broadcaster.brain.moderation import Moderator
    from broadcaster.director.config import TalkConfig
    from broadcaster.director.paraphrase import Paraphraser
    from broadcaster.director.replies import Replies
    from broadcaster.director.triage import Candidate
    from danmaku.event import Event

# the track's parts live in scene.py (shared with paraphrase.py and replies.py); importers may name them here
__all__ = ["Offer", "Scene", "Segment", "TalkLine", "TalkTrack", "TalkTrackError", "left_text", "load_segments",
           "material_warnings", "parse_segments", "parse_variants"]

log = logging.getLogger(__name__)

LIVE_S = 300.0  # the last gift or asker is spoken of for this long
VIEWERS_S = 600.0  # a viewer count older than this is not said


def _parse_time(value: Any, where: str) -> dt.time:
    try:
        h, m = str(value).split(":")
        return dt.time(int(h), int(m))
    except ValueError as exc:
        raise TalkTrackError(f"{where}: expected HH:MM, got {value!r}") from exc


def parse_segments(raw: Any, where: str) -> list[Segment]:
    """Segments from a talk file's `segments:` (or a product's own); TalkTrackError naming `where` and the key."""
    if not isinstance(raw, list) or not raw:
        raise TalkTrackError(f"{where}: expected a mapping with a non-empty 'segments' list")
    segments: list[Segment] = []
    for i, seg in enumerate(raw):
        at = f"{where}: segments[{i}]"
        if not isinstance(seg, dict):
            raise TalkTrackError(f"{at}: expected a mapping")
        unknown = set(seg) - {"name", "lines", "once", "every_s", "between"}
        if unknown:
            raise TalkTrackError(f"{at}: unknown key(s) {sorted(unknown)}")
        lines = seg.get("lines")
        if not isinstance(lines, list) or not lines:
            raise TalkTrackError(f"{at}.lines: expected a non-empty list of texts")
        name = str(seg.get("name", f"segment{i}"))
        items = []
        for j, line in enumerate(lines):
            variants = parse_variants(line, f"{at}.lines[{j}]")
            digest = hashlib.sha1("\x1f".join(t.text for t in variants).encode()).hexdigest()[:10]
            items.append(TalkLine(variants, f"{at}.lines[{j}]", f"{name}/{j}/{digest}"))
        between = seg.get("between")
        window = None
        if between is not None:
            if not isinstance(between, list) or len(between) != 2:
                raise TalkTrackError(f"{at}.between: expected [HH:MM, HH:MM]")
            window = (_parse_time(between[0], f"{at}.between"), _parse_time(between[1], f"{at}.between"))
        every = seg.get("every_s")
        if every is not None and (not isinstance(every, (int, float)) or every <= 0):
            raise TalkTrackError(f"{at}.every_s: expected a positive number of seconds")
        segments.append(Segment(name, items, once=bool(seg.get("once", False)), every_s=every, between=window))
    return segments


@dataclass(slots=True)
class Live:
    """What chat told the room lately, for the live slots."""

    viewers: str | None = None
    viewers_at: float = -float("inf")
    gifter: str | None = None
    gift: str | None = None
    gift_at: float = -float("inf")
    asker: str | None = None
    asker_at: float = -float("inf")


def left_text(seconds: float) -> str:
    """An offer's time left as said: 1小时5分钟, 12分钟, 不到两分钟, 不到一分钟."""
    if seconds < 60:
        return "不到一分钟"
    if seconds < 120:
        return "不到两分钟"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes}分钟"
    h, m = divmod(minutes, 60)
    return f"{h}小时{m}分钟" if m else f"{h}小时"


_DAY = [(5, "早上", "早上好"), (9, "上午", "上午好"), (11, "中午", "中午好"), (13, "下午", "下午好"),
        (17, "傍晚", "晚上好"), (19, "晚上", "晚上好"), (23, "深夜", "晚上好")]


def day_words(t: dt.time) -> tuple[str, str]:
    """(time of day, greeting) for a local time."""
    word, greeting = "深夜", "晚上好"
    for hour, w, g in _DAY:
        if t.hour >= hour:
            word, greeting = w, g
    return word, greeting


def _read(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise TalkTrackError(f"{path}: cannot read talk track: {exc}") from exc


@dataclass
class _Parts:
    segments: list[Segment] = field(default_factory=list)
    variables: dict[str, str] = field(default_factory=dict)
    thanks: dict[str, tuple[Template, ...]] = field(default_factory=dict)
    cta: tuple[Template, ...] = ()
    replies: Replies | None = None


_KEYS = {"variables", "segments", "thanks", "cta", "replies", "include"}


def _parts(data: Any, where: str, base: Path | None, seen: frozenset[Path], *, included: bool = False) -> _Parts:
    """One talk file's parts, with the files it includes (`include: [more.yaml]`, relative to it) after its own:
    their segments, thanks and calls to action added, their variables overridden by the including file's."""
    if not isinstance(data, dict):
        raise TalkTrackError(f"{where}: expected a mapping with a non-empty 'segments' list")
    unknown = set(data) - _KEYS
    if unknown:
        raise TalkTrackError(f"{where}: unknown key(s) {sorted(unknown)}")
    out = _Parts()
    if data.get("segments") is not None or not (data.get("include") or included):
        out.segments = parse_segments(data.get("segments"), where)
    out.variables = {str(k): str(v) for k, v in (data.get("variables") or {}).items()}
    raw_thanks = data.get("thanks") or {}
    if not isinstance(raw_thanks, dict) or set(raw_thanks) - {"gifts", "guard", "follow"}:
        raise TalkTrackError(f"{where}: thanks: expected a mapping of gifts, guard, follow to texts")
    for kind, raw in raw_thanks.items():
        out.thanks[kind] = parse_variants(raw, f"{where}: thanks.{kind}")
    out.cta = parse_variants(data["cta"], f"{where}: cta") if data.get("cta") is not None else ()
    if data.get("replies") is not None:
        from broadcaster.director.replies import Replies, RulesError

        try:
            out.replies = Replies.parse(data["replies"], f"{where}: replies")
        except RulesError as exc:
            raise TalkTrackError(str(exc)) from None
    includes = data.get("include") or []
    if not isinstance(includes, list) or not all(isinstance(x, str) and x.strip() for x in includes):
        raise TalkTrackError(f"{where}: include: expected a list of file names")
    for name in includes:
        path = (base / name if base is not None else Path(name)).resolve()
        if path in seen:
            raise TalkTrackError(f"{where}: include: {name} includes itself")
        sub = _parts(_read(path), str(path), path.parent, seen | {path}, included=True)
        out.segments += sub.segments
        out.variables = {**sub.variables, **out.variables}
        for kind, templates in sub.thanks.items():
            out.thanks[kind] = (*out.thanks.get(kind, ()), *templates)
        out.cta = (*out.cta, *sub.cta)
        if sub.replies is not None:
            if out.replies is None:
                out.replies = sub.replies
            else:
                out.replies.rules += sub.replies.rules
    return out


def load_segments(path: Path) -> list[Segment]:
    """The segments of a talk file and of the files it includes (a product's own talk)."""
    parts = _parts(_read(path), str(path), path.parent, frozenset({path.resolve()}))
    if not parts.segments:
        raise TalkTrackError(f"{path}: expected a mapping with a non-empty 'segments' list")
    return parts.segments


@dataclass
class Figures:
    """The room's talk figures (metrics, console)."""

    lines: int = 0
    repeats: int = 0  # lines that had to say a sentence again inside the window
    skipped: int = 0  # loop lines passed over because nothing fresh was left of them


class TalkTrack:
    def __init__(self, segments: list[Segment], variables: dict[str, str] | None = None, *,
                 thanks: Mapping[str, tuple[Template, ...]] | None = None, cta: tuple[Template, ...] = (),
                 replies: Replies | None = None, window_s: float = 600.0, seed: int | None = None,
                 room: str = "", where: str = "<talk>") -> None:
        self.segments = segments
        self.variables = dict(variables or {})
        self.thanks = dict(thanks or {})
        self.cta_templates = cta
        self.replies = replies
        self.room = room
        self.where = where
        self.window = RepeatWindow(window_s=window_s)
        self.drawer = Drawer(self.window, random.Random(seed))
        self.scene: Scene | None = None
        self.live = Live()
        self.moderator: Moderator | None = None
        self.paraphraser: Paraphraser | None = None
        self.figures = Figures()
        self.warnings: list[str] = []  # what the material lacks for the window, as `check` says it (the console)
        self._loop_pos: dict[str, int] = {}
        self._points_segments: dict[str, Segment] = {}
        self._presented = ""
        self._repeat_metric = metrics.TALK_REPEATS.labels(room or "-")
        self._distinct_metric = metrics.TALK_DISTINCT_HOUR.labels(room or "-")
        self._window_metric = metrics.TALK_REPEATS_WINDOW.labels(room or "-")

    # -- loading ------------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: Path, overrides: Mapping[str, str] | None = None, **kw: Any) -> TalkTrack:
        return cls.from_dict(_read(path), str(path), overrides, base=path.parent, **kw)

    @classmethod
    def from_dict(cls, data: Any, where: str = "<talk>", overrides: Mapping[str, str] | None = None, *,
                  base: Path | None = None, **kw: Any) -> TalkTrack:
        parts = _parts(data, where, base, frozenset())
        if not parts.segments:
            raise TalkTrackError(f"{where}: expected a mapping with a non-empty 'segments' list")
        variables = {**parts.variables, **(overrides or {})}
        return cls(parts.segments, variables, thanks=parts.thanks, cta=parts.cta, replies=parts.replies, where=where,
                   **kw)

    @classmethod
    def for_room(cls, cfg: TalkConfig, *, room: str = "", moderator: Moderator | None = None,
                 warn: bool = True) -> TalkTrack | None:
        """The room's track from its director.talk config (None without a file); logs what material is short
        (`warn=False`: the caller logs it with its products' scenes, see `log_material`)."""
        if cfg.file is None:
            return None
        track = cls.load(cfg.file, cfg.variables, window_s=cfg.repeat_window_s, seed=cfg.seed, room=room)
        track.moderator = moderator
        if warn:
            track.log_material(cfg)
        return track

    def log_material(self, cfg: TalkConfig, scenes: Sequence[Scene] = ()) -> list[str]:
        """Logs (and returns) what the track lacks for its window: once for the room alone, or per product."""
        problems = []
        for scene in scenes or (None,):
            for problem in dict.fromkeys(self.material(cfg, scene).warnings):
                at = f" (while {scene.product} is presented)" if scene is not None else ""
                log.warning("room %s: talk track %s%s: %s", self.room, self.where, at, problem)
                problems.append(problem)
        self.warnings = list(dict.fromkeys(problems))
        return problems

    def adopt(self, old: TalkTrack) -> None:
        """After a reload: what the old track said still counts against repeats; chat's live facts carry over."""
        self.window.adopt(old.window)
        self.live = old.live
        self.scene = self.scene or old.scene
        if self.moderator is None:
            self.moderator = old.moderator

    def attach_paraphraser(self, paraphraser: Paraphraser) -> None:
        self.paraphraser = paraphraser

    # -- slots ----------------------------------------------------------------------------------------

    def fill(self, text: str) -> str:
        """A text with the static variables filled (unknown placeholders left as written; the first of each
        alternative)."""
        try:
            t = Template.parse(text)
        except TemplateError:
            return text
        first = (0,) * sum(1 for p in t.parts if not p.slot and len(p.options) > 1)
        return t.render(first, self.variables)[0]

    def values(self, now_mono: float, now_local: dt.time | None = None) -> dict[str, str | None]:
        """Every slot's value now (None: the slot has no value now, lines that need it wait)."""
        now_local = now_local or dt.datetime.now().time()
        v: dict[str, str | None] = dict(self.variables)
        sc = self.scene
        offer = sc.offer if sc is not None and sc.offer is not None and sc.offer.active(now_mono) else None
        if sc is not None:
            v.update(sc.values)
            if sc.name:
                v["product"] = sc.name
            v["offer"] = (offer.text or None) if offer is not None else None
        elif "offer" not in v:
            v["offer"] = None
        ends = offer.ends_mono if offer is not None else None
        v["offer_left"] = left_text(ends - now_mono) if ends is not None else None
        v["time_of_day"], v["greeting"] = day_words(now_local)
        live = self.live
        v["viewers"] = live.viewers if now_mono - live.viewers_at <= VIEWERS_S else None
        recent_gift = now_mono - live.gift_at <= LIVE_S
        v["last_gifter"] = live.gifter if recent_gift else None
        v["last_gift"] = live.gift if recent_gift else None
        v["last_asker"] = live.asker if now_mono - live.asker_at <= LIVE_S else None
        return v

    def observe(self, event: Event, now_mono: float | None = None) -> None:
        """Every event the director is offered: the viewer count, the last gift (cheap, never raises)."""
        from danmaku.event import EventKind

        now = event.received_mono if now_mono is None else now_mono
        extra = event.extra or {}
        if event.kind == EventKind.SYSTEM and extra.get("type") == "online":
            count = extra.get("online", extra.get("display"))
            if (isinstance(count, int) and count > 0) or (isinstance(count, str) and count.strip()):
                self.live.viewers, self.live.viewers_at = str(count).strip(), now
        elif event.kind == EventKind.GIFT and event.user is not None and self.moderator is not None:
            from broadcaster.brain.moderation import ANON, speakable_name

            name = speakable_name(self.moderator, event.user.name)
            gift = str(extra.get("gift_name") or "")
            if name != ANON and gift and self.moderator.check(gift).ok:
                self.live.gifter, self.live.gift, self.live.gift_at = name, gift, now

    # -- drawing ------------------------------------------------------------------------------------

    def _present(self, scene: Scene | None) -> None:
        self.scene = scene
        key = scene.product if scene is not None else ""
        if key != self._presented:
            self._presented = key
            for seg in scene.segments if scene is not None else ():
                if seg.once:  # its intro plays again each time it is presented
                    seg.done, seg.next_index = False, 0

    def present(self, scene: Scene | None) -> None:
        """The product now on screen (also taken from each `next` call's scene)."""
        self._present(scene)

    def _templates(self, item: TalkLine) -> Sequence[Template]:
        if self.paraphraser is None:
            return item.variants
        sc = self.scene
        return (*item.variants, *self.paraphraser.ready(sc, item))

    def said(self, d: Drawn, now: float, *, noted: bool = True) -> None:
        """Counts a drawn line; `noted`: the drawer already noted its sentences (else they are noted now)."""
        if not noted:
            self.window.note(d.keys, now)
        self.figures.lines += 1
        if d.repeat:
            self.figures.repeats += 1
            self._repeat_metric.inc()
        self.update_metrics(now)

    def _draw(self, item: TalkLine, values: Mapping[str, str | None], now: float, *, fresh_only: bool) -> Drawn | None:
        d = self.drawer.draw(self._templates(item), values, now, fresh_only=fresh_only)
        if d is not None:
            self.said(d, now)
            if self.paraphraser is not None:
                self.paraphraser.used(self.scene, item, d.template, now)
        return d

    def _take(self, seg: Segment, now: float, values: Mapping[str, str | None]) -> str | None:
        """The segment's next line that can be said now (repeats allowed); advances past lines that cannot."""
        for _ in range(len(seg.items)):
            item = seg.items[seg.next_index]
            seg.next_index = (seg.next_index + 1) % len(seg.items)
            if seg.once and seg.next_index == 0:
                seg.done = True
            d = self._draw(item, values, now, fresh_only=False)
            if d is not None:
                seg.last_played = now
                return d.text
            if seg.done:
                break
        return None

    def next(self, now_mono: float, now_local: dt.time | None = None, scene: Scene | None = None) -> tuple[str, str] | None:
        """(segment name, text) of the next script line, or None when no segment is active now."""
        now_local = now_local or dt.datetime.now().time()
        if scene is not None:
            self._present(scene)
        values = self.values(now_mono, now_local)
        own = tuple(self.scene.segments) if self.scene is not None else ()
        every = [*self.segments, *own]
        for seg in every:  # unplayed `once` segments first: the room's opening, then the product's intro
            if seg.once and not seg.done and seg.active(now_local):
                text = self._take(seg, now_mono, values)
                if text is not None:
                    return seg.name, text
        for seg in every:  # then a due reminder (its clock starts at the first call)
            if seg.every_s is not None and seg.last_played == -float("inf"):
                seg.last_played = now_mono
            if seg.every_s is not None and seg.active(now_local) and now_mono - seg.last_played >= seg.every_s:
                text = self._take(seg, now_mono, values)
                if text is not None:
                    return seg.name, text
        loop = [s for s in (*own, *self._points(), *self.segments) if not s.once and s.every_s is None]
        return self._loop(loop, now_mono, now_local, values) if loop else None

    def _points(self) -> tuple[Segment, ...]:
        """With a paraphraser and a product with facts: its selling lines written from the facts, a loop segment."""
        sc = self.scene
        if self.paraphraser is None or sc is None or not sc.facts or not self.paraphraser.cfg.points:
            return ()
        seg = self._points_segments.get(sc.product)
        if seg is None:
            seg = self._points_segments[sc.product] = Segment(
                POINTS, [TalkLine((), f"{sc.product}: selling lines from its facts", POINTS)])
        return (seg,)

    def _positions(self, loop: list[Segment], pos: int, now_local: dt.time) -> Iterator[tuple[int, Segment, int]]:
        """Loop positions from where the loop is, one round: (segment's place in the loop, segment, line)."""
        n = len(loop)
        for j in range(n):
            k = (pos + j) % n
            seg = loop[k]
            if seg.active(now_local):
                for i in range(seg.next_index, len(seg.items)):
                    yield k, seg, i
        first = loop[pos % n]
        if first.active(now_local):
            for i in range(first.next_index):
                yield pos % n, first, i

    def _loop(self, loop: list[Segment], now: float, now_local: dt.time,
              values: Mapping[str, str | None]) -> tuple[str, str] | None:
        """The loop's next line with something fresh to say; when none has, the next line that can be said."""
        key = self._presented
        pos = self._loop_pos.get(key, 0) % len(loop)
        for fresh_only in (True, False):
            skipped = 0
            for k, seg, i in self._positions(loop, pos, now_local):
                d = self._draw(seg.items[i], values, now, fresh_only=fresh_only)
                if d is None:
                    skipped += 1
                    continue
                seg.next_index = (i + 1) % len(seg.items)
                seg.last_played = now
                self._loop_pos[key] = k + 1 if seg.next_index == 0 else k
                if fresh_only:
                    self.figures.skipped += skipped
                return seg.name, d.text
        return None

    # -- thanks, calls to action, replies -----------------------------------------------------------

    def thanks_templates(self, kind: str) -> tuple[Template, ...] | None:
        """The file's variants for thanks of `kind` (gifts, guard, follow), or None."""
        return self.thanks.get(kind)

    def call_to_action(self, now_mono: float, now_local: dt.time | None = None) -> str | None:
        """A call to action not said inside the window: the current offer's when it has some, else the file's."""
        sc = self.scene
        offer = sc.offer if sc is not None and sc.offer is not None and sc.offer.active(now_mono) else None
        templates: tuple[Template, ...] = self.cta_templates
        if offer is not None and offer.cta:
            try:
                templates = tuple(Template.parse(t, f"offer {offer.name}: cta") for t in offer.cta)
            except TemplateError as exc:
                log.warning("room %s: %s", self.room, exc)
        if not templates:
            return None
        d = self.drawer.draw(templates, self.values(now_mono, now_local), now_mono, fresh_only=True)
        return d.text if d is not None else None

    def reply(self, cand: Candidate, event: Event | None, now_mono: float) -> Candidate | None:
        """A keyword or question rule's reply to this comment (checked), or None: the brain answers it."""
        from broadcaster.lines import LineKind

        if cand.kind == LineKind.QUESTION and cand.name:
            self.live.asker, self.live.asker_at = cand.name, now_mono
        if self.replies is None or self.moderator is None:
            return None
        return self.replies.answer(cand, self, now_mono)

    # -- figures ----------------------------------------------------------------------------------------

    def snapshot(self, now_mono: float) -> dict[str, Any]:
        """The console's talk figures."""
        w = self.window
        out: dict[str, Any] = {
            "window_s": w.window_s,
            "distinct_sentences_hour": w.distinct_last_hour(now_mono),
            "repeats_in_window": w.repeats_in_window(now_mono),
            "repeats_total": w.repeats_total,
            "sentences_total": w.sentences_total,
            "lines": self.figures.lines,
            "skipped": self.figures.skipped,
            "product": self._presented,
            "material_warnings": list(self.warnings),
        }
        if self.paraphraser is not None:
            out["paraphrases"] = self.paraphraser.snapshot()
        return out

    def update_metrics(self, now_mono: float) -> None:
        """The window's gauges (after every line: a set over at most an hour of sentences)."""
        self._distinct_metric.set(self.window.distinct_last_hour(now_mono))
        self._window_metric.set(self.window.repeats_in_window(now_mono))

    def speakable(self) -> list[str]:
        """Sayings of the room's lines to pre-voice (a few per variant; none that need a live slot)."""
        texts = [self.fill(t) for seg in self.segments for t in seg.lines]
        return list(dict.fromkeys(texts))

    # -- material -----------------------------------------------------------------------------------

    def material(self, cfg: TalkConfig, scene: Scene | None = None) -> Material:
        """How much the window needs against what the track has (the room's warning and `check`)."""
        from broadcaster.director.pacing import Pacing

        window = cfg.repeat_window_s
        sc = scene if scene is not None else self.scene
        own = tuple(sc.segments) if sc is not None else ()
        probe = {**self.variables, **(sc.values if sc is not None else {}), "product": sc.name if sc else None,
                 "offer": "{offer}"}
        probe = {k: v for k, v in probe.items() if v is not None}
        gap = Pacing(cfg).mean_gap
        loop = [s for s in (*own, *self.segments) if not s.once and s.every_s is None and s.between is None]
        report = Material(window)
        if window <= 0:
            return report

        def seconds(item: TalkLine) -> float:
            chars = sum(len(t.text) for t in item.variants) / len(item.variants)
            return chars / cfg.chars_per_s + 0.3 + gap

        cycle = sum(seconds(item) for seg in loop for item in seg.items)
        for seg in (*own, *self.segments):
            if seg.once or seg.every_s is not None:
                continue
            # A time-of-day segment joins the loop while it is active: the loop is longer then.
            round_s = cycle + (sum(seconds(item) for item in seg.items) if seg.between is not None else 0.0)
            for item in seg.items:
                report.add(item.where, capacity(item.variants, probe), math.ceil(window / round_s) if round_s else 1,
                           f"the loop comes round every {round_s:.0f} s")
        for seg in (*own, *self.segments):
            if seg.every_s is not None:
                round_s = seg.every_s * len(seg.items)
                for item in seg.items:
                    report.add(item.where, capacity(item.variants, probe), math.ceil(window / round_s),
                               f"it is due every {round_s:.0f} s")
        per_minute = math.ceil(window / 60)
        for kind, templates in self.thanks.items():
            report.add(f"{self.where}: thanks.{kind}", capacity(templates, probe), per_minute,
                       "at one a minute")
        return report


@dataclass
class Material:
    """Per line: the sayings it has without a repeat inside the window, against those the window needs."""

    window_s: float
    rows: list[tuple[str, int, int, str]] = field(default_factory=list)

    def add(self, where: str, has: int, needs: int, why: str) -> None:
        self.rows.append((where, has, needs, why))

    @property
    def has(self) -> int:
        return sum(min(h, n) for _, h, n, _ in self.rows)

    @property
    def needs(self) -> int:
        return sum(n for _, _, n, _ in self.rows)

    @property
    def warnings(self) -> list[str]:
        minutes = f"{self.window_s / 60:g}-minute"
        out = [f"{where}: {has} way(s) to say it without a repeat; {why}, so a {minutes} window needs {needs}"
               for where, has, needs, why in self.rows if has < needs]
        if out:
            out.append(f"in all the track has {self.has} of the {self.needs} sayings a {minutes} window needs "
                       "(add variants or {a|b} alternatives, or enable director.talk.paraphrase)")
        return out


def material_warnings(cfg: TalkConfig) -> list[str]:
    """For `check`: what the room's talk track lacks for its repeat window (empty when enough, or no track)."""
    if cfg.file is None:
        return []
    track = TalkTrack.load(cfg.file, cfg.variables, window_s=cfg.repeat_window_s)
    return track.material(cfg).warnings
