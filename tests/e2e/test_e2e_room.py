"""On air end to end: comments typed into a (fake) Bilibili room are answered in the stream an RTMP ingest receives.

Real parts throughout: the Bilibili web connector against the loopback fake from the danmaku tests
(bootstrap, WBI, WS auth, brotli frames), the room's Show (director → brain → voice with espeak →
stage), the media clock, x264/AAC encoding, our RTMP publisher against FFmpeg's RTMP listener, and
a recording. Every answer is found in the audio the ingest received (speech onsets at silent gaps),
never in the room's own logs; the room's latency trail is cross-checked against it. Latencies are
printed (`-s`), not asserted: budgets live in bench/e2e_latency.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from broadcaster.lines import LineSource
from broadcaster.room import Room
from tests.danmaku.dm_fakes import BiliWebFake
from tests.e2e.e2e_support import (
    AUDIBLE,
    BANNED,
    RATE,
    Chat,
    ClockWatch,
    Received,
    TimedLLM,
    asked,
    gift,
    handed_latency,
    room_config,
    super_chat,
    trail_of,
    trail_source,
    until,
    wait_ready,
    wait_trail,
)
from tests.support.media import probe

pytestmark = pytest.mark.slow

CACHE_Q = "这个杯子多少钱"  # in the FAQ: the answer cache
KB_Q = "杯盖能单独买吗"  # only in the KB's policy passage: extractive answer
BURST_Q = "可以开发票吗"  # KB
LLM_Q = "这个杯子适合送给爸妈吗"  # no FAQ entry: the LLM answers, grounded on the product passage
PLAIN_QS = ["包邮吗", "能装多少水", "有什么颜色", "什么时候发货", "可以退货吗"]  # FAQ
SC_Q = "能保温多久"

TALK = """
segments:
  - name: opening
    once: true
    lines:
      - 大家好，欢迎来到直播间，今天给大家带来的是暖暖保温杯，喜欢的朋友可以先点个关注
  - name: pitch
    lines:
      - 这款保温杯的内胆是不锈钢的，热水能保温很久，上班上学出门带着都刚刚好，大家可以多看看
"""


@pytest.fixture
async def fake() -> AsyncIterator[BiliWebFake]:
    f = BiliWebFake()
    await f.start()
    yield f
    await f.stop()


def audit_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def start_events(room: Room) -> list:
    """The stage's start events, to cross-check the received audio against where the stage put speech."""
    starts: list = []
    room.port.subscribe(lambda ev: starts.append(ev) if ev.kind == "start" else None)
    return starts


def stage_onset(got: Received, starts: list, trail) -> float:
    """Monotonic time the stage was due to play the first audible sample of a line."""
    ev = next(e for e in starts if e.line.id == trail.line.id)
    first = int(np.flatnonzero(np.abs(ev.utterance.pcm) > AUDIBLE)[0])
    return got.t0 + (ev.sample + first) / RATE


def check_onset(got: Received, starts: list, trail, after: float, label: str) -> float:
    """The line's speech onset in the received audio: the first speech after `after`. It must sit where the
    stage put the line (to one AAC frame), and the trail's hand-off must follow it by less than a second
    (encoder delay plus a late clock). Returns the received onset (monotonic)."""
    found = got.onset_after(after)
    assert found is not None, f"{label}: no speech in the received stream after the comment"
    onset = found[0]
    assert abs(onset - stage_onset(got, starts, trail)) < 1024 / RATE + 1e-3, f"{label}: speech not where staged"
    handed = min(trail.handed.values())
    assert -0.005 < handed - onset < 1.0, f"{label}: trail hand-off {handed - onset:+.3f}s from the received onset"
    if trail.received is not None:
        print(f"{label:>24}: received audio {onset - trail.received:.3f}s, trail hand-off "
              f"{handed_latency(trail):.3f}s ({trail.latencies()})")
    else:
        print(f"{label:>24}: received audio {onset - after:.3f}s after the last chat was sent")
    return onset


def check_heard(got: Received, starts: list, trail, label: str) -> None:
    """A line that followed another back to back (no silent gap to find): speech is in the received audio
    from the moment the stage put its first audible sample there."""
    at = got.stream_at(stage_onset(got, starts, trail))
    assert got.probe.rms(at, at + 0.15) > AUDIBLE, f"{label}: no speech in the received stream where staged"
    assert min(trail.handed.values()) >= got.mono(at) - 0.005


async def test_idle_room_answers_by_source_and_triages_chat(fake, ffmpeg_ingest, tmp_path):
    """Idle anchor (no talk track), so the received audio is silent except for what chat caused:
    cache hit and KB extractive answers are heard; a banned comment is not (and is audited as blocked);
    a burst of one question is answered once; gifts from three viewers are thanked in one line."""
    ingest = ffmpeg_ingest()
    audit = tmp_path / "audit.jsonl"
    cfg = room_config(fake, outputs=[{"type": "rtmp", "url": ingest.url, "name": "ingest"},
                                     {"type": "record", "path": str(tmp_path / "rec.flv"), "name": "rec"}],
                      audit=audit)
    room = Room(cfg, paced=True)
    ClockWatch(room)
    starts = start_events(room)
    chat = Chat(fake)
    sent: dict[str, float] = {}
    await room.start()
    try:
        await wait_ready(room, fake)
        assert await asyncio.to_thread(ingest.wait_publisher, 15)
        await asyncio.sleep(0.3)
        for q in (CACHE_Q, KB_Q):
            sent[q] = await chat.say(q)
            await wait_trail(room, asked(q), 20, f"the answer to {q!r} played")
            await asyncio.sleep(0.6)  # a silent gap after each answer

        sent["banned"] = await chat.say(f"{BANNED}领红包，私聊我")
        await asyncio.sleep(2.0)

        # Five viewers type the same question within half a second.
        sent["burst"] = await chat.send(*[chat.comment(BURST_Q if i % 2 else f"{BURST_Q}？") for i in range(5)])
        await wait_trail(room, lambda t: t.line.event is not None and BURST_Q in t.line.text, 20, "burst answered")
        await asyncio.sleep(2.5)  # any second answer to the burst would have started by now

        sent["gifts"] = await chat.send(
            gift(chat.next_uid(), "星星", "小心心", 1, 0, "g1"),
            gift(chat.next_uid(), "月亮", "小心心", 10, 100, "g2"),
            gift(chat.next_uid(), "太阳", "辣条", 5, 0, "g3"),
            gift(chat.next_uid(), "星星", "小心心", 2, 0, "g4"),
        )
        await wait_trail(room, lambda t: t.line.source == LineSource.THANKS, 20, "gifts thanked")
        await asyncio.sleep(2.5)  # a second thanks line would be due within one more batch window (2 s)
    finally:
        await room.stop()
    await asyncio.to_thread(ingest.finish)
    got = Received.read(probe(ingest.out, decode_video=False), room)
    assert got.segments, "the ingest received no speech at all"
    show = room.show
    assert show is not None

    # The recording holds the same speech at the same clock times as the ingest.
    rec = Received.read(probe(str(tmp_path / "rec.flv"), decode_video=False), room, sink_index=1)
    for q, want in ((CACHE_Q, "cache"), (KB_Q, "kb")):
        trail = trail_of(room, asked(q))
        assert trail is not None and trail_source(trail) == want
        onset = check_onset(got, starts, trail, sent[q], f"{want} {q}")
        in_rec = rec.onset_after(sent[q])
        assert in_rec is not None and abs(in_rec[0] - onset) < 1024 / RATE

    # Banned: nothing voiced for it (silence in the stream until the burst), and audited as blocked.
    assert got.speech_between(sent["banned"], sent["burst"] - 0.05) == []
    assert not any(BANNED in s.text for t in show.trails for s in t.sentences)
    records = audit_records(audit)
    blocked = [r for r in records if r.get("blocked")]
    assert len(blocked) == 1 and BANNED in blocked[0]["asked"] and blocked[0]["text"] == ""
    assert "加微信" in json.dumps(blocked[0]["verdicts"], ensure_ascii=False)

    # Burst: one answer, said once; the director folded the other four into it.
    burst = [t for t in show.trails if t.line.event is not None and BURST_Q in t.line.text]
    assert len(burst) == 1
    assert show.director.drops.get("merged", 0) + show.director.drops.get("recently_answered", 0) == 4
    onset = check_onset(got, starts, burst[0], sent["burst"], "burst (kb)")
    heard = got.speech_between(sent["burst"], sent["gifts"] - 0.05)
    burst_s = sum(e.utterance.pcm.shape[0] for e in starts if e.line.id == burst[0].line.id) / RATE
    assert heard and heard[0][0] == onset
    assert heard[-1][1] - onset < burst_s + 0.1, "more speech after the burst than its one answer"

    # Gifts: exactly one thanks line naming all three viewers, and one stretch of speech in the stream.
    thanks = [t for t in show.trails if t.line.source == LineSource.THANKS]
    assert len(thanks) == 1
    said = "".join(s.text for s in thanks[0].sentences)
    assert all(name in said for name in ("星星", "月亮", "太阳")), said
    assert said.count("星星") == 1
    check_onset(got, starts, thanks[0], sent["gifts"], "gift thanks")
    assert len(got.speech_between(sent["gifts"], got.mono(got.stream_time(got.probe.pcm.shape[0])))) == 1

    # The audit log has one record per spoken line, with its latency trail.
    spoken = [r for r in records if not r.get("blocked") and r.get("line_source") != "silent"]
    assert len(spoken) == len(show.trails) == 4
    # …and one per comment that got no line of its own, saying why (the burst's repeats were merged or answered)
    silent = [r for r in records if r.get("line_source") == "silent"]
    assert sum(r["silent"].startswith(("merged", "recently")) for r in silent) == 4, silent
    assert all(r["latency_s"].get("handed_ingest_s") is not None for r in spoken)


async def test_talk_track_room_llm_answer_super_chat_first_and_talk_resumes(fake, ffmpeg_ingest, tmp_path):
    """Anchor with a talk track and an LLM (fake OpenAI server at a fixed token rate): an LLM answer in the
    track's quiet gap is heard before the model finished writing; the talk track resumes after the answers;
    a super chat sent after five plain questions, all during one talk-track sentence, is answered first."""
    talk = tmp_path / "talk.yaml"
    talk.write_text(TALK, encoding="utf-8")
    llm = await TimedLLM(answer="这款杯子很适合上班族和学生。出差的时候带着也很方便，放在包里不占地方，喝水也方便。",
                         token_s=0.05).start()
    ingest = ffmpeg_ingest()
    audit = tmp_path / "audit.jsonl"
    cfg = room_config(fake, outputs=[{"type": "rtmp", "url": ingest.url, "name": "ingest"}], audit=audit,
                      llm_url=llm.base_url, talk=talk, talk_gap_s=2.5)
    room = Room(cfg, paced=True)
    ClockWatch(room)
    starts = start_events(room)
    chat = Chat(fake)
    sent: dict[str, float] = {}
    show = None

    def lines(source: LineSource) -> list:
        return [t for t in show.trails if t.line.source == source]

    try:
        await room.start()
        show = room.show
        assert show is not None
        await wait_ready(room, fake)
        assert await asyncio.to_thread(ingest.wait_publisher, 15)

        # The opening line plays; in the quiet gap after it a viewer asks what only the LLM answers.
        await until(lambda: len(lines(LineSource.SCRIPT)) >= 1, 30, "the opening talk line played")
        sent["llm"] = await chat.say(LLM_Q)
        llm_trail = await wait_trail(room, asked(LLM_Q), 30, "the LLM answer played")

        # During the next talk sentence: five plain questions, then a super chat.
        await until(lambda: room.stage.current is not None and room.stage.current.line.source == LineSource.SCRIPT,
                    30, "the talk track speaking again")
        talk_line = room.stage.current.line
        for q in PLAIN_QS:
            sent[q] = await chat.say(q)
            await asyncio.sleep(0.1)
        sent["sc"] = await chat.send(super_chat(901, chat.next_uid(), "大白", SC_Q, 30))
        assert room.stage.current is not None and room.stage.current.line.id == talk_line.id, \
            "the talk sentence ended before the chat was in: lengthen it"
        sc_trail = await wait_trail(room, lambda t: t.line.event is not None and t.line.text == SC_Q, 40,
                                    "the super chat answered")

        # Questions still waiting are answered (or go stale: a question's deadline is 25 s); then talk resumes.
        def resumed() -> bool:
            answered = [t.on_stage for t in lines(LineSource.ANSWER)]
            return not show.director.snapshot()["queue"] and any(
                t.on_stage > max(answered) for t in lines(LineSource.SCRIPT))

        await until(resumed, 60, "the talk track resumed after the answers")
        await asyncio.sleep(0.5)
    finally:
        await room.stop()
        await llm.stop()
    await asyncio.to_thread(ingest.finish)
    got = Received.read(probe(ingest.out, decode_video=False), room)

    # LLM: heard after the model wrote its first sentence, and before it finished writing the answer.
    assert trail_source(llm_trail) == "llm" and len(llm.requests) == 1
    onset = check_onset(got, starts, llm_trail, sent["llm"], "llm")
    req = llm.requests[0]
    assert onset > req + llm.ttfs_s
    assert onset < req + len(llm.answer) * llm.token_s, "the first sentence waited for the whole answer"

    # Every answer and the talk track after them are in the received audio where the stage put them.
    answers = {t.line.text: t for t in lines(LineSource.ANSWER) if t.line.text in PLAIN_QS}
    assert answers, "none of the five questions was answered"
    for q, t in answers.items():
        check_heard(got, starts, t, f"queued {q}")
    check_heard(got, starts, sc_trail, "super chat")
    last = max([sc_trail, *answers.values()], key=lambda t: t.on_stage)
    resumed_lines = [t for t in lines(LineSource.SCRIPT) if t.on_stage > last.on_stage]
    assert resumed_lines
    check_heard(got, starts, resumed_lines[0], "talk resumed")
    problems = []
    resumed_at = stage_onset(got, starts, resumed_lines[0])
    before = got.speech_between(resumed_at - 2.0, resumed_at - 0.05)  # talk.gap_s is 2.5 s of quiet
    if before:
        problems.append("the talk track resumed with less than 2 s of quiet after the last answer "
                        "(talk.gap_s is 2.5 s)")

    # The plain questions are answered in arrival order; the super chat before all of them, right at the
    # end of the talk sentence it arrived in.
    order = sorted([sc_trail, *answers.values()], key=lambda t: t.on_stage)
    assert [t.line.text for t in order if t is not sc_trail] == [q for q in PLAIN_QS if q in answers]
    assert sc_trail.sentences[0].text.startswith("感谢大白的醒目留言")
    if order[0] is not sc_trail:
        problems.append(f"the super chat was not answered first: {[t.line.text for t in order]}")
    assert not problems, "; ".join(problems)


async def test_super_chat_beats_questions_that_came_first_during_a_talk_sentence(tmp_path):
    """The same rule on a smaller rig (events offered straight to the show; no platform, no sinks): questions
    and then a super chat arrive while a talk-track sentence plays; the super chat is the next line heard."""
    from broadcaster.config import RoomConfig
    from broadcaster.demo import DEMO_DIR
    from danmaku.event import Event, EventKind, User
    from tests.support.media import CardAvatar

    talk = tmp_path / "talk.yaml"
    talk.write_text(TALK, encoding="utf-8")
    cfg = RoomConfig.model_validate({
        "id": "sc", "video": {"width": 320, "height": 180, "fps": 25}, "outputs": [],
        "brain": {"kb": {"dir": str(DEMO_DIR / "kb"), "check_interval_s": 0}},
        "director": {"talk": {"file": str(talk)}},
    })
    room = Room(cfg, avatar=CardAvatar(320, 180))
    try:
        await room.start()
        show = room.show
        assert show is not None
        await until(lambda: room.stage.current is not None, 30, "the talk track speaking")
        talk_id = room.stage.current.line.id
        for i, q in enumerate(PLAIN_QS):
            show.offer(Event("test", "sc", EventKind.COMMENT, User(str(i), f"u{i}"), q))
            await asyncio.sleep(0.1)
        show.offer(Event("test", "sc", EventKind.SUPER_CHAT, User("99", "大白"), SC_Q, value_milli=30_000))
        assert room.stage.current is not None and room.stage.current.line.id == talk_id
        first = await wait_trail(room, lambda t: t.line.event is not None, 40, "the first answer played")
    finally:
        await room.stop()
    assert first.line.text == SC_Q, f"{first.line.text!r} went before the super chat"
