"""Real speech for lip-sync tests: espeak-ng through the espeakng_loader wheel (no system package needed).

Synthesis runs in a child process so this library's global state never meets any other in-process
user of libespeak-ng (e.g. the voice module's own tests).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np

STAGE_RATE = 44100  # the stage's audio rate in tests
FPS = 25

_CHILD = r"""
import ctypes, sys
import espeakng_loader
lib = ctypes.CDLL(espeakng_loader.get_library_path())
data = espeakng_loader.get_data_path()
parent = data.rsplit("/", 1)[0].encode()
lib.espeak_Initialize.restype = ctypes.c_int
rate = lib.espeak_Initialize(2, 0, ctypes.c_char_p(parent), 0)  # 2 = AUDIO_OUTPUT_SYNCHRONOUS
if rate <= 0:
    sys.exit("espeak_Initialize failed")
chunks = []
CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.c_void_p)
def on_audio(wav, n, events):
    if n > 0:
        chunks.append(ctypes.string_at(wav, n * 2))
    return 0
cb = CB(on_audio)
lib.espeak_SetSynthCallback(cb)
voice, speed, text = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode("utf-8")
if lib.espeak_SetVoiceByName(voice.encode()) != 0:
    sys.exit(f"espeak-ng has no voice {voice!r}")
lib.espeak_SetParameter(1, speed, 0)  # 1 = espeakRATE (words per minute)
buf = ctypes.create_string_buffer(text)
lib.espeak_Synth(buf, len(text) + 1, 0, 1, 0, 1, None, None)  # POS_CHARACTER, espeakCHARS_UTF8
lib.espeak_Synchronize()
sys.stdout.buffer.write(rate.to_bytes(4, "little") + b"".join(chunks))
"""


def synth(text: str, voice: str = "en", speed: int = 160) -> tuple[np.ndarray, int]:
    """(float32 mono PCM in [-1, 1], sample rate) of espeak-ng saying `text`."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, voice, str(speed), text], capture_output=True, timeout=60, check=False
    )
    if out.returncode != 0 or len(out.stdout) < 8:
        raise RuntimeError(f"espeak-ng synthesis failed: {out.stderr.decode(errors='replace')[-500:]}")
    rate = int.from_bytes(out.stdout[:4], "little")
    pcm = np.frombuffer(out.stdout[4:], "<i2").astype(np.float32) / 32768.0
    return pcm, rate


def resample(pcm: np.ndarray, rate: int, to: int) -> np.ndarray:
    import soxr

    return soxr.resample(pcm, rate, to).astype(np.float32)
