"""An English room on air end to end: Twitch and YouTube chat at once, one stream pushed to two RTMP ingests, heard.

Real parts throughout: the Twitch IRC-over-WebSocket connector and the YouTube Data API connector against their
loopback fakes (tests/danmaku: the real wire formats), the room's money table (USD at the operator's rate, bits
at their documented default), the director ranking paid events by their converted value, espeak-ng's US English
voice with the English reading of amounts, the media clock, x264/AAC, our RTMP publisher to two listeners. What
was said is checked in the audio each ingest received, by the project's Transcriber (faster-whisper) with the
real Whisper base model, not in the room's logs; the audit log is cross-checked.

The lines heard here are the director's own (thanks); the English questions are answered by the brain reading
English (`language: en`, an English KB: tests/brain/redteam/english/kb), checked in what the room said.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from broadcaster.config import RoomConfig
from broadcaster.lines import LineSource
from broadcaster.room import Room
from tests.e2e import test_e2e_room as base
from tests.e2e.asr_support import english_listener, transcribe
from tests.e2e.e2e_support import AUDIBLE, FPS, RATE, ClockWatch, H, Received, W, until, wait_trail
from tests.support.media import probe

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "danmaku"))
from fake_pair import twitch_and_youtube
from fake_twitch import TwitchFake, privmsg  # tests/danmaku, put on the path above: the fakes import so
from fake_youtube import API_KEY, VIDEO_ID, YouTubeFake, super_chat, text

pytestmark = pytest.mark.slow
ENGLISH_KB = Path(__file__).resolve().parents[1] / "brain" / "redteam" / "english" / "kb"  # a backpack's facts

USD_RATE = "7.1"  # the operator's rate: $10 → ¥71; 500 bits at $0.01 → $5 → ¥35.5
OPENING = ("Hello everyone, and welcome to the stream. Today we have a lovely backpack for you, "
           "and it ships all over the world.")


@pytest.fixture
async def fakes() -> AsyncIterator[tuple[TwitchFake, YouTubeFake]]:
    async with twitch_and_youtube() as pair:
        yield pair


def _config(tw: TwitchFake, yt: YouTubeFake, ingests: list, audit: Path) -> RoomConfig:
    return RoomConfig.model_validate({
        "id": "en-e2e",
        "language": "en",
        "video": {"width": W, "height": H, "fps": FPS, "bitrate_kbps": 600, "preset": "ultrafast"},
        "audio": {"sample_rate": RATE},
        "outputs": [{"type": "rtmp", "url": i.url, "name": f"ingest{n}"} for n, i in enumerate(ingests)],
        "money": {"currency": "CNY", "rates": {"USD": USD_RATE}},
        "sources": [
            {"type": "twitch", "name": "tw", "channel": "somestreamer", "url": tw.ws_url, "auth_base": tw.base,
             "reconnect_delay_s": 0.1, "reconnect_max_delay_s": 0.5, "silent_after_s": None},
            {"type": "youtube", "name": "yt", "video_id": VIDEO_ID, "api_key": API_KEY, "api_base": yt.api_base,
             "quota_per_day": 10_000_000, "reconnect_delay_s": 0.1, "reconnect_max_delay_s": 0.5,
             "silent_after_s": None},
        ],
        "brain": {"kb": {"dir": str(ENGLISH_KB), "check_interval_s": 0}},
        "audit": {"path": str(audit)},
    })


def _line_audio(got: Received, starts: list, trail) -> np.ndarray:
    """The received samples from where the stage put the line's first audible sample to the end of its speech."""
    at = got.stream_at(base.stage_onset(got, starts, trail))
    seconds = sum(e.utterance.pcm.shape[0] for e in starts if e.line.id == trail.line.id) / RATE
    a = int(max(0.0, at - got.probe.audio_start) * got.probe.sample_rate)
    return got.probe.pcm[a : a + int((seconds + 0.3) * got.probe.sample_rate)]


async def test_english_room_thanks_twitch_and_youtube_by_value_in_two_streams(fakes, ffmpeg_ingest, tmp_path):
    tw, yt = fakes
    ingests = [ffmpeg_ingest(name="ingest0.flv"), ffmpeg_ingest(name="ingest1.flv")]
    audit = tmp_path / "audit.jsonl"
    room = Room(_config(tw, yt, ingests, audit), paced=True)
    ClockWatch(room)
    starts = base.start_events(room)
    listener = asyncio.create_task(english_listener(tmp_path / "whisper"))  # loads while the room starts
    await room.start()
    show = room.show
    assert show is not None
    try:
        await asyncio.wait_for(tw.joined.wait(), 30)
        await until(lambda: len(yt.list_calls()) >= 1, 30, "the YouTube chat polled")
        await until(lambda: all(s.packets_written > 0 for s in room.sinks), 30, "both sinks writing")
        for ingest in ingests:
            assert await asyncio.to_thread(ingest.wait_publisher, 15)

        # The host is speaking; meanwhile a 500-bit cheer (Twitch) comes first, then a $10 Super Chat (YouTube),
        # and a question from each chat.
        opening = show.director.say(OPENING)
        await until(lambda: room.stage.current is not None and room.stage.current.line.id == opening.id, 30,
                    "the opening line on air")
        sent = time.monotonic()
        await tw.send(privmsg("Cheer500", login="bitsfan", name="BitsFan", uid="2001", mid="cheer-1", bits=500),
                      privmsg("how much is shipping to Canada", login="maple", name="Maple", uid="2002"))
        yt.add(text("m-q1", "Rosa", "does it come in red?"), super_chat("sc-1", "Ann", 10_000_000, "USD", ""))
        await until(lambda: len(show.director.queue) >= 2, 10, "both paid events queued behind the opening line")
        assert room.stage.current is not None and room.stage.current.line.id == opening.id, \
            "the opening line ended before the paid events were in: lengthen it"

        def thanks(user: str):
            return lambda t: (t.line.source == LineSource.THANKS and t.line.event is not None
                              and t.line.event.user is not None and t.line.event.user.name == user)

        sc_trail = await wait_trail(room, thanks("Ann"), 40, "the Super Chat thanked")
        cheer_trail = await wait_trail(room, thanks("BitsFan"), 40, "the cheer thanked")
        answer_trail = await wait_trail(room, lambda t: (t.line.source == LineSource.ANSWER and t.line.event is not None
                                                         and t.line.text == "how much is shipping to Canada"),
                                        60, "the Twitch question answered")
        await asyncio.sleep(0.5)
        recent = show.director.snapshot()["recent"]
    finally:
        await room.stop()
    for ingest in ingests:
        await asyncio.to_thread(ingest.finish)

    # Ranked by converted value: the $10 Super Chat (¥71) before the 500 bits (¥35.5) that came first.
    assert sc_trail.on_stage < cheer_trail.on_stage
    assert sc_trail.line.priority > cheer_trail.line.priority
    assert sc_trail.line.event.value_milli == 71_000 and cheer_trail.line.event.value_milli == 35_500
    said = {"sc": "".join(s.text for s in sc_trail.sentences), "cheer": "".join(s.text for s in cheer_trail.sentences)}
    assert said == {"sc": "Thank you Ann for the Super Chat of $10.00!", "cheer": "Thank you BitsFan for the 500 bits!"}
    # The English question got the English fact, in English.
    answer = " ".join(s.text for s in answer_trail.sentences)
    assert "Shipping to Canada costs $12" in answer and answer.isascii(), answer
    # Both chats reached the director, their questions read as questions.
    asked = {(r["user"], r["kind"]) for r in recent}
    assert {("Maple", "question"), ("Rosa", "question")} <= asked, recent

    # Heard in both streams, in English: what a viewer hears, transcribed.
    ear = await listener
    for n in range(len(ingests)):
        got = Received.read(probe(ingests[n].out, decode_video=False), room, sink_index=n)
        heard = {}
        for key, trail in (("sc", sc_trail), ("cheer", cheer_trail)):
            pcm = _line_audio(got, starts, trail)
            assert float(np.sqrt(np.mean(pcm**2))) > AUDIBLE / 2, f"ingest{n}: {key} thanks is silent"
            heard[key] = await transcribe(ear, pcm, got.probe.sample_rate)
        print(f"ingest{n} heard: {heard}")
        assert "super chat" in heard["sc"] and ("10 dollars" in heard["sc"] or "ten dollars" in heard["sc"]
                                                 or "$10" in heard["sc"]), heard
        assert "bits" in heard["cheer"] and ("500" in heard["cheer"] or "five hundred" in heard["cheer"]), heard
        assert "thank" in heard["sc"] and "thank" in heard["cheer"], heard
    await ear.close()

    # The audit log keeps both amounts: the platform's and the converted one.
    records = [json.loads(x) for x in audit.read_text(encoding="utf-8").splitlines() if x.strip()]
    by_text = {r["text"]: r for r in records if r.get("line_source") == "thanks"}
    sc_rec, cheer_rec = by_text[said["sc"]], by_text[said["cheer"]]
    assert sc_rec["event"]["money"] == {"unit": "USD", "amount": 10_000_000, "exp": 6}
    assert cheer_rec["event"]["money"] == {"unit": "twitch_bit", "amount": 500, "exp": 0}
    assert (sc_rec["event"]["value_milli"], cheer_rec["event"]["value_milli"]) == (71_000, 35_500)
    questions = [r for r in records if r.get("asked") in ("how much is shipping to Canada", "does it come in red?")]
    print("what the brain did with the English questions:",
          [(r.get("asked"), r.get("text"), r.get("withheld") or r.get("silent") or r.get("why")) for r in questions])
    print(f"first paid event sent {sent:.3f}; Super Chat on stage +{sc_trail.on_stage - sent:.2f}s, "
          f"cheer +{cheer_trail.on_stage - sent:.2f}s")
