"""The demo room's content loop on a simulated clock — its director, brain and audit log, no media and no TTS — and
the audit log read back with slot values masked: is any talk, thanks or reply sentence said twice within the window?

Shared by tests/director/test_talk_demo.py (five minutes, in the suite) and bench/bench_talk.py (an hour, outside
it). Unpaced: the director's clock, the brain's and the audit log's times are the simulation's, so an hour of air
takes seconds. The chat is the demo's replay (its replay source's file), looping with fresh message ids as the
replay source does; a line takes its text's length at the talk track's speaking rate, as the director estimates.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from broadcaster.brain import AuditLog, Brain
from broadcaster.brain.moderation import moderator_from_config
from broadcaster.config import RoomConfig, parse_config
from broadcaster.demo import DEMO_DIR, demo_config
from broadcaster.director import Director
from broadcaster.director.talk import Scene
from broadcaster.director.variants import Masker, Template
from broadcaster.lines import LineSource
from danmaku.event import Event
from danmaku.generic import event_from_obj

STEP_S = 0.1  # the simulation's tick while nothing is said
SOURCES = ("script", "thanks")  # the lines the talk machinery writes (replies and calls to action are thanks)


class SimClock:
    def __init__(self, start: dt.datetime) -> None:
        self.t = 0.0
        self.start = start

    def __call__(self) -> float:
        return self.t

    def wall(self) -> dt.datetime:
        return self.start + dt.timedelta(seconds=self.t)


def demo_room(out: Path, seed: int, demo_dir: Path | None = None) -> RoomConfig:
    """The demo's room (`demo_dir`: a copy of configs/demo to read instead, for trying material out)."""
    data = demo_config(out)
    if demo_dir is not None:
        data = json.loads(json.dumps(data, ensure_ascii=False).replace(str(DEMO_DIR), str(demo_dir)))
    room = parse_config(data, "<demo>").rooms[0]
    talk = room.director.talk.model_copy(update={"seed": seed})
    return room.model_copy(update={"director": room.director.model_copy(update={"talk": talk})})


def _chat(room: RoomConfig) -> tuple[list[tuple[float, dict[str, Any]]], float]:
    """The room's replayed chat (its replay source's file) and how long one pass of it lasts."""
    path = next((Path(s.path) for s in room.sources if getattr(s, "type", "") == "replay"), DEMO_DIR / "chat.jsonl")
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    timed = [(float(r.pop("t", 0.0)), r) for r in rows]
    return timed, max(t for t, _ in timed) + 2.0


@dataclass
class DemoRun:
    audit: Path
    director: Director
    scenes: dict[str, Scene] = field(default_factory=dict)
    lines: Counter[str] = field(default_factory=Counter)  # by line source
    seconds: float = 0.0


async def run_demo(minutes: float, out: Path, *, seed: int = 7, demo_dir: Path | None = None,
                   start: dt.datetime = dt.datetime(2026, 3, 6, 19, 30)) -> DemoRun:
    """Runs the demo room for `minutes` of simulated air; returns where its audit log is."""
    room = demo_room(out, seed, demo_dir)
    clock = SimClock(start)
    moderator = moderator_from_config(room.moderation)
    director = Director(room.id, room.director, moderator, fps_clock=clock, wall_clock=clock.wall)
    brain = Brain(room.id, room.brain, room.moderation, moderator=moderator, clock=clock)
    audit = AuditLog.from_config(room.audit, room.id)
    assert audit is not None, "the demo room writes an audit log"
    await brain.start()
    chat, chat_pass = _chat(room)
    rate = room.director.talk.chars_per_s
    run = DemoRun(audit.path, director)
    end = minutes * 60.0
    next_event = 0  # index into the endless replay: pass = i // len(chat)

    def offer_until(t: float) -> None:
        nonlocal next_event
        while True:
            p, i = divmod(next_event, len(chat))
            at, obj = chat[i]
            at += p * chat_pass
            if at > t:
                return
            clock.t = max(clock.t, at)
            ev: Event = event_from_obj(obj, room.id)
            ev = dataclasses.replace(ev, msg_id=f"{ev.msg_id or f'line{i}'}~{p}", received_mono=clock.t,
                                     received_wall=clock.wall().timestamp())
            director.offer(ev)
            next_event += 1

    try:
        while clock.t < end:
            offer_until(clock.t)
            line = director.pick()
            if line is None:
                clock.t += STEP_S
                continue
            sentences = [s async for s in brain.answer(line)]
            if director.talk is not None and director.talk.scene is not None:
                run.scenes[director.talk.scene.product] = director.talk.scene
            text = "".join(s.text for s in sentences)
            if sentences:
                record = brain.audit_record(line, sentences)
                record["time"] = clock.wall().isoformat(timespec="milliseconds")
                record["segment"] = getattr(line, "segment", "")
                audit.write(record)
                run.lines[str(line.source)] += 1
            speaking_end = clock.t + (len(text) / rate + 0.3 * len(sentences) if sentences else 0.0)
            offer_until(speaking_end)  # chat keeps coming while the anchor speaks
            clock.t = max(clock.t, speaking_end)
            director.line_done(line)
    finally:
        audit.close()
        await brain.close()
    run.seconds = clock.t
    return run


def masker_for(run: DemoRun) -> Masker:
    """Every template the room could have said, with each product's static values, to read its lines back."""
    talk = run.director.talk
    assert talk is not None
    variables: dict[str, str | None] = dict(talk.variables)
    room: list[Template] = [v for seg in talk.segments for item in seg.items for v in item.variants]
    room += [v for ts in talk.thanks.values() for v in ts] + list(talk.cta_templates)
    room += [v for ts in run.director.thanks.templates.values() for v in ts]
    if talk.replies is not None:
        room += [v for rule in talk.replies.rules for v in rule.reply]
    m = Masker(room, variables)
    for scene in run.scenes.values():
        values: dict[str, str | None] = {**variables, **scene.values, "product": scene.name or None}
        if scene.offer is not None:
            values["offer"] = scene.offer.text or None
        own = [v for seg in scene.segments for item in seg.items for v in item.variants]
        own += [Template.parse(c) for c in scene.offer.cta] if scene.offer is not None else []
        m.add([*own, *room], values)
    return m


@dataclass
class ReadBack:
    lines: int = 0
    sentences: int = 0
    repeats: list[tuple[str, float, float]] = field(default_factory=list)  # key, when, seconds since the last time
    distinct: int = 0
    by_source: Counter[str] = field(default_factory=Counter)

    def summary(self) -> dict[str, Any]:
        return {"lines": self.lines, "sentences": self.sentences, "distinct_sentences": self.distinct,
                "repeats_in_window": len(self.repeats), "by_source": dict(self.by_source),
                "repeats": [{"sentence": k, "at_s": round(t, 1), "again_after_s": round(d, 1)}
                            for k, t, d in self.repeats[:20]]}


def read_back(audit: Path, masker: Masker, window_s: float, sources: Iterable[str] = SOURCES) -> ReadBack:
    """Every talk/thanks sentence in the audit log, slots masked; those said again within `window_s`."""
    out = ReadBack()
    keep = set(sources)
    last: dict[str, float] = {}
    t0: dt.datetime | None = None
    for raw in audit.read_text(encoding="utf-8").splitlines():
        rec = json.loads(raw)
        if rec.get("line_source") not in keep or not rec.get("text"):
            continue
        when = dt.datetime.fromisoformat(rec["time"].replace("Z", "+00:00"))
        t0 = t0 or when
        t = (when - t0).total_seconds()
        out.lines += 1
        out.by_source[rec["line_source"]] += 1
        for key in masker.keys(rec["text"]):
            out.sentences += 1
            if key in last and t - last[key] < window_s:
                out.repeats.append((key, t, t - last[key]))
            last[key] = t
    out.distinct = len(last)
    return out


__all__ = ["SOURCES", "DemoRun", "LineSource", "ReadBack", "masker_for", "read_back", "run_demo"]
