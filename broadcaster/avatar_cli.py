"""`virtual-anchor avatar preview -c CONFIG ROOM [--out DIR]`: check a room's avatar before going live.

Writes a contact sheet (neutral, every viseme wide open, mid-blink, detected landmarks), the
landmarks as JSON (portrait) and a 10 s clip of the avatar speaking with the room's espeak voice
(the voice that needs no model weights), all under --out.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

import numpy as np

_TEXT = {
    "zh": "大家好，欢迎来到直播间！今天给大家介绍一款新手机，性价比非常高，有问题可以在弹幕里问我哦。",
    "en": "Hello everyone, welcome to the live room! Today we look at a new phone, and it is really good value. "
    "Ask me anything in the chat.",
}


def add_commands(subparsers: Any) -> None:
    """Registers `avatar` with its `preview` subcommand on the top-level subparsers."""
    avatar = subparsers.add_parser("avatar", help="avatar tools")
    sub = avatar.add_subparsers(dest="avatar_command", required=True)
    p = sub.add_parser("preview", help="contact sheet + 10 s speaking clip of a room's avatar")
    p.add_argument("-c", "--config", required=True)
    p.add_argument("room", help="room id")
    p.add_argument("--out", default="avatar-preview", help="output folder (default: ./avatar-preview)")
    p.add_argument("--text", default=None, help="what the avatar says in the clip")
    p.add_argument("--seconds", type=float, default=10.0)
    p.set_defaults(func=cmd_preview)


async def _espeak(text: str, voice: str, rate_wpm: int) -> tuple[np.ndarray, int]:
    from broadcaster.voice.backends.espeak import EspeakBackend

    backend = EspeakBackend(voice=voice, rate_wpm=rate_wpm)
    await backend.start()
    try:
        chunks = [c async for c in backend.synthesize(text)]
    finally:
        await backend.close()
    pcm = np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, np.float32)
    return pcm, backend.sample_rate


def cmd_preview(args: argparse.Namespace) -> int:
    from broadcaster.config import load_config
    from renderer.errors import AvatarError
    from renderer.factory import build_avatar
    from renderer.preview import preview

    config = load_config(args.config)
    room = config.room(args.room)
    vc = room.voice
    espeak_voice = vc.voice if vc.backend == "espeak" else (vc.fallback_voice or "cmn")
    text = args.text or (_TEXT["zh"] if vc.language.startswith("zh") else _TEXT["en"])
    try:
        avatar = build_avatar(
            room.avatar,
            room.video.width,
            room.video.height,
            room.video.fps,
            # The room's own landmark cache (when its state dir exists here): the preview shows what
            # the room will use, and the room then skips detection.
            cache_dir=config.daemon.state_dir if config.daemon.state_dir.is_dir() else None,
        )
    except AvatarError as exc:
        print(f"avatar error: {exc}", file=sys.stderr)
        return 2
    pcm, rate = asyncio.run(_espeak(text, espeak_voice, vc.rate_wpm))
    paths = preview(
        avatar,
        Path(args.out),
        pcm,
        rate,
        lead_frames=room.avatar.lead_frames,
        seconds=args.seconds,
        subtitle=text[:24],
    )
    for what, path in paths.items():
        print(f"{what}: {path}")
    return 0
