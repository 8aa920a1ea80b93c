"""espeak-ng voice through ctypes into the libespeak-ng.so shipped by the espeakng-loader wheel (no system package).

libespeak-ng is one process-wide engine, so all EspeakBackend instances share one handle and one
lock; each synthesis selects its voice and rate, then streams the engine's callback buffers.
"""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import AsyncIterator, Iterator

import numpy as np

from broadcaster.voice.backends.base import ThreadedBackend, TTSError

log = logging.getLogger(__name__)

_AUDIO_OUTPUT_SYNCHRONOUS = 2
_INITIALIZE_DONT_EXIT = 0x8000
_POS_CHARACTER = 1
_CHARS_UTF8 = 1
_ENDPAUSE = 0x1000
_RATE = 1
_BUFFER_MS = 100  # callback granularity: first chunk after ~100 ms of audio is ready

_SynthCallback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p)


class _Engine:
    """The one libespeak-ng instance of this process."""

    _instance: _Engine | None = None
    _create_lock = threading.Lock()

    def __init__(self) -> None:
        import espeakng_loader

        self.lib = ctypes.CDLL(espeakng_loader.get_library_path())
        self.data_path = espeakng_loader.get_data_path()
        lib = self.lib
        lib.espeak_Initialize.restype = ctypes.c_int
        lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
        lib.espeak_SetSynthCallback.argtypes = [_SynthCallback]
        lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        lib.espeak_SetVoiceByName.restype = ctypes.c_int
        lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        lib.espeak_Synth.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int, ctypes.c_uint,
                                     ctypes.c_uint, ctypes.POINTER(ctypes.c_uint), ctypes.c_void_p]
        lib.espeak_Synth.restype = ctypes.c_int
        lib.espeak_Info.restype = ctypes.c_char_p
        lib.espeak_Info.argtypes = [ctypes.POINTER(ctypes.c_char_p)]
        rate = lib.espeak_Initialize(_AUDIO_OUTPUT_SYNCHRONOUS, _BUFFER_MS, self.data_path.encode(), _INITIALIZE_DONT_EXIT)
        if rate <= 0:
            raise TTSError(f"espeak-ng failed to initialize with data at {self.data_path}")
        self.sample_rate = rate
        self.version = (lib.espeak_Info(None) or b"?").decode()
        self.lock = threading.Lock()
        # The active consumer of callback buffers; set per synthesis under the lock.
        self._sink: list[np.ndarray] | None = None
        self._notify: threading.Condition | None = None
        self._abort: threading.Event | None = None
        self._cb = _SynthCallback(self._on_audio)  # keep a reference: the C side holds only the pointer
        lib.espeak_SetSynthCallback(self._cb)

    @classmethod
    def get(cls) -> _Engine:
        with cls._create_lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def _on_audio(self, wav: ctypes._Pointer, n: int, _events: int) -> int:
        if n > 0 and wav and self._sink is not None:
            # string_at copies the samples out; np.ctypeslib.as_array would create (and cache forever) a
            # new ctypes array type for every distinct chunk length: slow, unbounded memory growth.
            chunk = np.frombuffer(ctypes.string_at(wav, 2 * n), np.int16).astype(np.float32) / 32768.0
            assert self._notify is not None
            with self._notify:
                self._sink.append(chunk)
                self._notify.notify()
        return 1 if (self._abort is not None and self._abort.is_set()) else 0

    def synth(self, text: str, voice: str, rate_wpm: int, stop: threading.Event) -> Iterator[np.ndarray]:
        """Streams one synthesis. espeak_Synth runs on a helper thread so chunks can be yielded meanwhile."""
        with self.lock:
            if self.lib.espeak_SetVoiceByName(voice.encode()) != 0:
                raise TTSError(f"espeak-ng has no voice {voice!r}")
            self.lib.espeak_SetParameter(_RATE, int(rate_wpm), 0)
            sink: list[np.ndarray] = []
            cond = threading.Condition()
            done: list[int] = []
            self._sink, self._notify, self._abort = sink, cond, stop
            raw = text.encode("utf-8") + b"\0"

            def run() -> None:
                rc = -1
                try:
                    rc = self.lib.espeak_Synth(raw, len(raw), 0, _POS_CHARACTER, 0, _CHARS_UTF8 | _ENDPAUSE, None, None)
                finally:
                    with cond:
                        done.append(rc)
                        cond.notify()

            t = threading.Thread(target=run, name="espeak-synth", daemon=True)
            t.start()
            try:
                while True:
                    with cond:
                        while not sink and not done:
                            cond.wait()
                        chunks, sink[:] = list(sink), []
                        finished = bool(done)
                    yield from chunks
                    if finished:
                        break
                t.join()
                if done[0] != 0 and not stop.is_set():
                    raise TTSError(f"espeak_Synth returned {done[0]}")
            finally:
                stop.set()  # makes the callback abort if the consumer left early
                t.join()
                self._sink = self._notify = self._abort = None


class EspeakBackend(ThreadedBackend):
    name = "espeak"
    streaming = True

    def __init__(self, voice: str = "cmn", rate_wpm: int = 175) -> None:
        super().__init__()
        self.voice = voice
        self.rate_wpm = rate_wpm
        self._engine: _Engine | None = None

    @property
    def voice_id(self) -> str:
        return f"espeak:{self.voice}:{self.rate_wpm}"

    @property
    def version(self) -> str:
        return f"espeak-ng {self._engine.version if self._engine else '?'}"

    async def start(self) -> None:
        if self._engine is not None:
            return
        self._engine = await self.run(_Engine.get)
        self.sample_rate = self._engine.sample_rate
        # Warm-up: loads the voice and its dictionary once.
        async for _ in self.synthesize("一" if self.voice in ("cmn", "zh", "yue") else "a"):
            pass

    def synthesize(self, text: str) -> AsyncIterator[np.ndarray]:
        if self._engine is None:
            raise TTSError("espeak backend used before start()")
        engine = self._engine
        return self.stream(lambda stop: engine.synth(text, self.voice, self.rate_wpm, stop))
