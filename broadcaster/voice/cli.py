"""`virtual-anchor cache warm -c FILE [ROOM]`: pre-synthesizes talk-track lines and FAQ answers into the utterance cache.

Warming pays off when the cache outlives this process, i.e. with a Redis URL (the room's redis_url or
--redis); with a memory-only cache the command still synthesizes (a useful smoke test of the voice)
but says that nothing will persist.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

# Extra texts per room (FAQ answers, canned replies): the lead wires a provider, e.g. the answer cache's.
TextsForRoom = Callable[[Any], Iterable[str]]


def add_commands(subparsers: Any, *, texts_for_room: TextsForRoom | None = None) -> None:
    """Registers `cache` with its `warm` subcommand on the top-level subparsers."""
    cache = subparsers.add_parser("cache", help="utterance cache tools")
    add_cache_subcommands(cache.add_subparsers(dest="cache_command", required=True), texts_for_room=texts_for_room)


def add_cache_subcommands(cache_sub: Any, *, texts_for_room: TextsForRoom | None = None) -> None:
    """Registers `warm` under an existing `cache` subparser group (if another area owns `cache`)."""
    p = cache_sub.add_parser("warm", help="pre-synthesize a room's talk-track lines and FAQ answers")
    p.add_argument("-c", "--config", required=True)
    p.add_argument("room", nargs="?", help="room id (default: every room)")
    p.add_argument("--redis", help="Redis URL to warm (overrides the room's redis_url)")
    p.set_defaults(func=lambda args: cmd_warm(args, texts_for_room))


def cmd_warm(args: argparse.Namespace, texts_for_room: TextsForRoom | None = None) -> int:
    from broadcaster.config import load_config

    config = load_config(args.config)
    rooms = config.rooms if not args.room else [config.room(args.room)]
    return asyncio.run(warm_rooms(rooms, texts_for_room, redis_url=args.redis))


def default_texts(room: Any) -> list[str]:
    """What every room can say without a question: its scripted lines (if the config has them) and the
    brain's canned fallback lines. Talk-track files and FAQ answers come from `texts_for_room`."""
    texts = list(getattr(room, "lines", None) or [])
    brain = getattr(room, "brain", None)
    texts += [t for t in (getattr(brain, "fallback_lines", None) or []) if "{" not in t]  # templates vary
    return texts


async def warm_rooms(rooms: Iterable[Any], texts_for_room: TextsForRoom | None = None, *,
                     redis_url: str | None = None, out: Any = None) -> int:
    from broadcaster.voice.voice import voice_for_room
    from cache.store import build_store

    out = out or sys.stdout
    for room in rooms:
        vc = room.voice
        url = redis_url or (room.redis_url.get_secret_value() if room.redis_url is not None else None)
        if not url:
            print(f"{room.id}: warning: no redis_url for this room; the warmed entries live only in this process",
                  file=out)
        store = build_store(url, memory_bytes=vc.cache.memory_mb * 1024 * 1024, prefix=vc.cache.prefix)
        texts = default_texts(room)
        if texts_for_room is not None:
            texts += [t for t in texts_for_room(room) if t]
        voice = voice_for_room(room, store=store)
        t0 = time.perf_counter()
        try:
            made = await voice.warm(texts)
        finally:
            await voice.close()
        sentences = sum(len(voice.sentences(t)) for t in texts)
        print(f"{room.id}: {len(texts)} texts, {sentences} sentences, {made} synthesized, "
              f"{sentences - made - voice.fallbacks} already cached, {voice.fallbacks} failed "
              f"({time.perf_counter() - t0:.1f}s)", file=out)
    return 0
