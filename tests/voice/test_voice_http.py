"""HTTP voice backend against local aiohttp fakes speaking the OpenAI /v1/audio/speech and GPT-SoVITS-style wire formats."""

from __future__ import annotations

import asyncio
import io
import struct

import numpy as np
import pytest
from aiohttp import web

from broadcaster.lines import Line, LineSource
from broadcaster.voice import build_voice
from broadcaster.voice.audio import wav_bytes
from broadcaster.voice.backends.base import TTSError
from broadcaster.voice.backends.http import HttpBackend, WavStreamDecoder, decode_with_av
from broadcaster.voice.config import HttpVoiceConfig, VoiceConfig

RATE = 24000


def _tone(text: str, rate: int = RATE) -> np.ndarray:
    # 0.1 s per character so the length of the audio tells which text was spoken.
    t = np.arange(int(0.1 * rate * len(text))) / rate
    return (0.4 * np.sin(2 * np.pi * 200 * t)).astype(np.float32)


def _streaming_wav_header(rate: int) -> bytes:
    # As streaming servers send it: sizes unknown (0xFFFFFFFF).
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    return b"RIFF" + struct.pack("<I", 0xFFFFFFFF) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt + \
        b"data" + struct.pack("<I", 0xFFFFFFFF)


class FakeServer:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.fail_with: int | None = None
        self.hang = False
        self.hang_event = asyncio.Event()

    async def openai(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append({"auth": request.headers.get("Authorization"), "body": body})
        self.headers = dict(request.headers)
        if self.fail_with:
            return web.Response(status=self.fail_with, text="model overloaded")
        if self.hang:
            await self.hang_event.wait()
        pcm16 = (_tone(body["input"]) * 32767).astype("<i2").tobytes()
        resp = web.StreamResponse(headers={"Content-Type": "audio/wav" if body["response_format"] == "wav"
                                           else "audio/pcm"})
        await resp.prepare(request)
        if body["response_format"] == "wav":
            await resp.write(_streaming_wav_header(RATE))
        for i in range(0, len(pcm16), 4801):  # odd-sized pieces: decoders must carry half samples over
            await resp.write(pcm16[i : i + 4801])
            await asyncio.sleep(0.001)
        await resp.write_eof()
        return resp

    async def sovits(self, request: web.Request) -> web.Response:
        q = dict(request.query)
        self.requests.append({"query": q})
        return web.Response(body=wav_bytes(_tone(q["text"], 32000), 32000), content_type="audio/wav")


@pytest.fixture
async def server():
    fake = FakeServer()
    app = web.Application()
    app.router.add_post("/v1/audio/speech", fake.openai)
    app.router.add_get("/tts", fake.sovits)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    yield fake, f"http://127.0.0.1:{port}"
    fake.hang_event.set()
    await runner.cleanup()


async def test_openai_wav_streaming(server) -> None:
    fake, url = server
    b = HttpBackend(HttpVoiceConfig(url=url, model="cosy", voice="anchor", api_key="sk-test",
                                    headers={"X-Team-Token": "t0ken"}))
    await b.start()
    assert b.sample_rate == RATE
    chunks = [c async for c in b.synthesize("欢迎光临")]
    assert len(chunks) > 1  # streamed, not one blob
    pcm = np.concatenate(chunks)
    assert pcm.size == int(0.1 * RATE * 4)
    assert np.allclose(pcm, _tone("欢迎光临"), atol=1 / 16000)
    req = fake.requests[-1]
    assert req["auth"] == "Bearer sk-test" and fake.headers["X-Team-Token"] == "t0ken"
    assert "t0ken" not in repr(b.cfg) and "sk-test" not in repr(b.cfg)
    assert req["body"] == {"model": "cosy", "input": "欢迎光临", "voice": "anchor", "response_format": "wav"}
    await b.close()


async def test_openai_raw_pcm(server) -> None:
    fake, url = server
    b = HttpBackend(HttpVoiceConfig(url=url, response_format="pcm", sample_rate=RATE))
    await b.start()
    pcm = np.concatenate([c async for c in b.synthesize("你好呀")])
    assert pcm.size == int(0.1 * RATE * 3)
    assert fake.requests == [{"auth": None, "body": {"model": "tts-1", "input": "你好呀", "voice": "alloy",
                                                      "response_format": "pcm"}}]
    await b.close()


async def test_template_get_gpt_sovits_style(server) -> None:
    fake, url = server
    cfg = HttpVoiceConfig(api="template", url=url + "/tts", method="GET",
                          body={"text": "{text}", "text_language": "{language}", "speaker": "{voice}"}, voice="xiaoyu")
    b = HttpBackend(cfg, language="zh")
    await b.start()
    assert b.sample_rate == 32000
    pcm = np.concatenate([c async for c in b.synthesize("五个字的话")])
    assert pcm.size == int(0.1 * 32000 * 5)
    assert fake.requests[-1] == {"query": {"text": "五个字的话", "text_language": "zh", "speaker": "xiaoyu"}}
    await b.close()


async def test_server_error_raises_tts_error(server) -> None:
    fake, url = server
    b = HttpBackend(HttpVoiceConfig(url=url, response_format="pcm"))
    await b.start()
    fake.fail_with = 503
    with pytest.raises(TTSError, match="503: model overloaded"):
        async for _ in b.synthesize("x"):
            pass
    await b.close()


async def test_voice_over_http_with_failures_falls_back(server) -> None:
    fake, url = server
    cfg = VoiceConfig(backend="http", http={"url": url}, first_chunk_timeout_s=0.5)
    voice = build_voice(cfg, sample_rate=48000, fps=25, room="http-t")
    await voice.start()
    ok = [u async for u in voice.speak(Line("第一句。", LineSource.ANSWER))]
    assert len(ok) == 1 and voice.fallbacks == 0
    assert ok[0].pcm.size == pytest.approx(0.1 * 4 * 48000, abs=20)  # resampled 24k → 48k
    fake.fail_with = 500
    failed = [u async for u in voice.speak(Line("第二句。", LineSource.ANSWER))]
    assert len(failed) == 1 and voice.fallbacks == 1  # re-voiced by espeak
    fake.fail_with = None
    fake.hang = True
    hung = [u async for u in voice.speak(Line("第三句。", LineSource.ANSWER))]
    assert len(hung) == 1 and voice.fallbacks == 2
    await voice.close()


async def test_unreachable_server() -> None:
    b = HttpBackend(HttpVoiceConfig(url="http://127.0.0.1:9/", response_format="pcm"))
    await b.start()
    with pytest.raises(TTSError, match="unreachable"):
        async for _ in b.synthesize("x"):
            pass
    await b.close()


def test_wav_decoder_handles_byte_by_byte_and_extra_chunks() -> None:
    pcm = _tone("ab", 16000)
    data = wav_bytes(pcm, 16000)
    # Insert a LIST chunk before data, as some servers do.
    i = data.index(b"data")
    data = data[:i] + b"LIST" + struct.pack("<I", 5) + b"abcde\x00" + data[i:]
    dec = WavStreamDecoder()
    out = np.concatenate([dec.feed(data[j : j + 1]) for j in range(len(data))])
    assert dec.sample_rate == 16000 and out.size == pcm.size


def test_decode_with_av_reads_compressed_audio() -> None:
    import av

    buf = io.BytesIO()
    with av.open(buf, "w", format="mp3") as c:
        s = c.add_stream("libmp3lame", rate=22050)
        s.layout = "mono"
        tone = _tone("abcde", 22050)
        for i in range(0, tone.size, 1152):
            piece = np.zeros((1, 1152), np.float32)
            piece[0, : tone[i : i + 1152].size] = tone[i : i + 1152]
            frame = av.AudioFrame.from_ndarray(piece, format="fltp", layout="mono")
            frame.rate = 22050
            for p in s.encode(frame):
                c.mux(p)
        for p in s.encode(None):
            c.mux(p)
    pcm, rate = decode_with_av(buf.getvalue())
    assert rate == 22050 and abs(pcm.size - tone.size) < 4096
    assert np.abs(pcm).max() > 0.2
