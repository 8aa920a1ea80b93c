"""`virtual-anchor tail -c FILE ROOM`: print a room's chat events and source health changes as JSON lines.

danmaku knows nothing of the daemon's config file: the daemon CLI registers `tail` with a loader that turns
(config path, room id) into that room's source configs (and sets up logging as the daemon's).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from danmaku.config import SourceConfig
from danmaku.source import Source, SourceHealth

# (config path, room id) → the room's source configs; raises ValueError with a one-line message on a mistake.
SourceLoader = Callable[[str, str], Sequence[SourceConfig]]

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def add_commands(subparsers: Any, load_sources: SourceLoader) -> None:
    """Registers `tail` on the daemon CLI's subparsers (argparse); the handler is `args.func(args) -> int`."""
    p = subparsers.add_parser(
        "tail",
        help="print a room's chat events as JSON lines (and source health changes)",
        description="Connects the room's chat sources and prints each Event as one JSON line, plus a "
        '{"health": …} line whenever a source connects, drops, goes silent or warns. Ctrl-C stops.',
    )
    p.add_argument("-c", "--config", required=True, metavar="FILE", help="daemon YAML config")
    p.add_argument("room", metavar="ROOM", help="room id from the config")
    p.set_defaults(func=tail_main, load_sources=load_sources)


def setup_logging(stream: TextIO) -> None:
    """Warnings (reconnects, undecodable input) go to stderr with time and level, unless logging is set up."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
        root.addHandler(handler)
        root.setLevel(logging.INFO)


def tail_main(args: argparse.Namespace) -> int:
    try:
        sources = list(args.load_sources(args.config, args.room))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    setup_logging(sys.stderr)
    try:
        return asyncio.run(run_tail(sources, args.room))
    except KeyboardInterrupt:
        return 130


def _health_key(h: SourceHealth) -> tuple[Any, ...]:
    # What counts as a change worth a line (message age and error counts move all the time).
    return (h.connected, h.silent, h.last_warning, h.reconnects, h.active)


async def run_tail(
    source_cfgs: Sequence[SourceConfig],
    room_id: str,
    *,
    out: TextIO | None = None,
    err: TextIO | None = None,
    stop: asyncio.Event | None = None,
    max_events: int | None = None,
) -> int:
    """Runs until `stop` is set, SIGINT/SIGTERM, `max_events` printed, or every source has ended (replays).

    Returns a process exit code: 0 fine, 2 when there is no source to tail (the message goes to `err`).
    """
    from danmaku.sources import open_source

    out = out or sys.stdout
    err = err or sys.stderr
    if not source_cfgs:
        print(f"error: room {room_id!r} has no sources", file=err)
        return 2

    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    installed = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)

    def write(obj: Any) -> None:
        out.write(json.dumps(obj, ensure_ascii=False, default=str) + "\n")
        out.flush()

    sources: list[Source] = [open_source(s, room_id) for s in source_cfgs]
    last: dict[str, tuple[Any, ...]] = {}

    def on_health(h: SourceHealth) -> None:
        key = _health_key(h)
        if last.get(h.name) != key:
            last[h.name] = key
            write({"health": h.to_json()})

    for src in sources:
        src.add_health_listener(on_health)

    printed = 0
    done = asyncio.Event()

    async def pump(src: Source) -> None:
        nonlocal printed
        async for ev in src.events():
            write(ev.to_json())
            printed += 1
            if max_events is not None and printed >= max_events:
                done.set()
                return

    pumps = [asyncio.create_task(pump(s)) for s in sources]
    all_ended = asyncio.ensure_future(asyncio.gather(*pumps, return_exceptions=True))
    waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(done.wait()), all_ended]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits[:2]:
            w.cancel()
        await asyncio.gather(*(s.stop() for s in sources), return_exceptions=True)
        for t in pumps:
            t.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)
        for sig in installed:
            loop.remove_signal_handler(sig)
    return 0
