"""HTTP voice servers: OpenAI-compatible /v1/audio/speech, or a configurable request template (CosyVoice, GPT-SoVITS).

Audio is streamed as it arrives: raw 16-bit PCM and WAV (header parsed, samples passed on as they
come; streaming servers send a data size of 0 or 0xFFFFFFFF) are decoded incrementally; other
formats (mp3, ogg, flac) are decoded with PyAV once the body is complete.
"""

from __future__ import annotations

import io
import json
import logging
import struct
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import numpy as np

from broadcaster.voice.backends.base import TTSBackend, TTSError
from broadcaster.voice.config import HttpVoiceConfig

log = logging.getLogger(__name__)


class WavStreamDecoder:
    """Incremental RIFF/WAVE parser: feed bytes, get float32 mono samples once the header is known."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self.sample_rate = 0
        self.channels = 0
        self.width = 0
        self._in_data = False
        self._fmt_tag = 1

    def feed(self, data: bytes) -> np.ndarray:
        self._buf += data
        if not self._in_data and not self._parse_header():
            return np.zeros(0, np.float32)
        frame = self.channels * self.width
        n = len(self._buf) // frame * frame
        if n == 0:
            return np.zeros(0, np.float32)
        raw = bytes(self._buf[:n])
        del self._buf[:n]
        return self._decode(raw)

    def _parse_header(self) -> bool:
        b = self._buf
        if len(b) < 12:
            return False
        if b[:4] != b"RIFF" or b[8:12] != b"WAVE":
            raise TTSError("voice server did not return a WAV file")
        pos = 12
        while len(b) >= pos + 8:
            cid, size = b[pos : pos + 4], struct.unpack_from("<I", b, pos + 4)[0]
            if cid == b"data":
                if not self.sample_rate:
                    raise TTSError("WAV data before its fmt chunk")
                del b[: pos + 8]
                self._in_data = True
                return True
            if len(b) < pos + 8 + size:
                return False
            if cid == b"fmt ":
                self._fmt_tag, self.channels, self.sample_rate = struct.unpack_from("<HHI", b, pos + 8)
                self.width = struct.unpack_from("<H", b, pos + 22)[0] // 8
                if self._fmt_tag == 0xFFFE and size >= 40:  # WAVE_FORMAT_EXTENSIBLE: the real tag is in the GUID
                    self._fmt_tag = struct.unpack_from("<H", b, pos + 32)[0]
                if self._fmt_tag not in (1, 3) or self.width not in (2, 4):
                    raise TTSError(f"unsupported WAV format tag {self._fmt_tag} width {self.width}")
            pos += 8 + size + (size & 1)
        return False

    def _decode(self, raw: bytes) -> np.ndarray:
        if self._fmt_tag == 3:
            x = np.frombuffer(raw, "<f4").astype(np.float32)
        elif self.width == 2:
            x = np.frombuffer(raw, "<i2").astype(np.float32) / 32768.0
        else:
            x = np.frombuffer(raw, "<i4").astype(np.float32) / float(1 << 31)
        if self.channels > 1:
            x = x.reshape(-1, self.channels).mean(axis=1)
        return x


def decode_with_av(data: bytes) -> tuple[np.ndarray, int]:
    """Any container/codec PyAV knows → float32 mono at its own rate."""
    import av

    with av.open(io.BytesIO(data)) as c:
        stream = c.streams.audio[0]
        resampler = av.AudioResampler(format="flt", layout="mono", rate=stream.rate)
        out = []
        for frame in c.decode(stream):
            for f in resampler.resample(frame):
                out.append(f.to_ndarray().reshape(-1))
        for f in resampler.resample(None):
            out.append(f.to_ndarray().reshape(-1))
        rate = stream.rate
    return (np.concatenate(out) if out else np.zeros(0, np.float32)).astype(np.float32), rate


class HttpBackend(TTSBackend):
    name = "http"
    streaming = True

    def __init__(self, cfg: HttpVoiceConfig, *, language: str = "zh") -> None:
        self.cfg = cfg
        self.language = language
        self.sample_rate = cfg.sample_rate  # replaced by the WAV header's rate on the first response
        self._session = None
        self._rate_known = cfg.response_format == "pcm"

    @property
    def _url(self) -> str:
        url = self.cfg.url.get_secret_value()
        if self.cfg.api == "openai" and not url.rstrip("/").endswith("/audio/speech"):
            url = url.rstrip("/") + "/v1/audio/speech"
        return url

    @property
    def voice_id(self) -> str:
        host = urlsplit(self.cfg.url.get_secret_value()).netloc.rsplit("@", 1)[-1]
        return f"http:{self.cfg.api}:{host}:{self.cfg.model}:{self.cfg.voice}"

    @property
    def version(self) -> str:
        return f"http {self.cfg.api} {self.cfg.model} {self.cfg.response_format}"

    async def start(self) -> None:
        import aiohttp

        if self._session is None:
            timeout = aiohttp.ClientTimeout(total=None, sock_connect=min(10.0, self.cfg.timeout_s),
                                            sock_read=self.cfg.timeout_s)
            self._session = aiohttp.ClientSession(timeout=timeout)
        if not self._rate_known:
            # One short request learns the server's sample rate (WAV header) and warms the server.
            async for _ in self.synthesize("你好" if self.language.startswith("zh") else "hello"):
                pass

    def _request(self, text: str) -> dict:
        headers = {k: v.get_secret_value() for k, v in self.cfg.headers.items()}
        if self.cfg.api_key is not None:
            headers["Authorization"] = f"Bearer {self.cfg.api_key.get_secret_value()}"
        if self.cfg.api == "openai":
            body = {"model": self.cfg.model, "input": text, "voice": self.cfg.voice,
                    "response_format": self.cfg.response_format}
            return {"method": "POST", "url": self._url, "json": body, "headers": headers}
        fields = {"text": text, "voice": self.cfg.voice, "model": self.cfg.model, "language": self.language}
        filled = {k: (v.format(**fields) if isinstance(v, str) else v) for k, v in self.cfg.body.items()}
        if self.cfg.method == "GET":
            params = {k: (json.dumps(v) if isinstance(v, bool) else str(v)) for k, v in filled.items()}
            return {"method": "GET", "url": self._url, "params": params, "headers": headers}
        return {"method": "POST", "url": self._url, "json": filled, "headers": headers}

    async def synthesize(self, text: str) -> AsyncIterator[np.ndarray]:
        import aiohttp

        if self._session is None:
            raise TTSError("http backend used before start()")
        req = self._request(text)
        try:
            async with self._session.request(**req) as resp:
                if resp.status // 100 != 2:
                    detail = (await resp.text(errors="replace"))[:200]
                    raise TTSError(f"voice server answered {resp.status}: {detail}")
                ctype = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
                if self.cfg.response_format == "pcm" and not ctype.startswith(("audio/wav", "audio/x-wav",
                                                                                "audio/wave")):
                    rest = b""
                    async for data in resp.content.iter_any():
                        data = rest + data
                        cut = len(data) // 2 * 2
                        rest = data[cut:]
                        if cut:
                            yield np.frombuffer(data[:cut], "<i2").astype(np.float32) / 32768.0
                    return
                if ctype in ("", "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave",
                             "application/octet-stream"):
                    dec = WavStreamDecoder()
                    async for data in resp.content.iter_any():
                        samples = dec.feed(data)
                        if dec.sample_rate and dec.sample_rate != self.sample_rate:
                            if self._rate_known:
                                raise TTSError(f"voice server changed its rate to {dec.sample_rate}")
                            self.sample_rate = dec.sample_rate
                        if dec.sample_rate:
                            self._rate_known = True
                        if samples.size:
                            yield samples
                    return
                body = await resp.read()
                pcm, rate = decode_with_av(body)
                if not self._rate_known:
                    self.sample_rate, self._rate_known = rate, True
                elif rate != self.sample_rate:
                    raise TTSError(f"voice server changed its rate to {rate}")
                yield pcm
        except aiohttp.ClientError as exc:
            raise TTSError(f"voice server unreachable: {type(exc).__name__}: {exc}") from exc

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
