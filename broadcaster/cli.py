"""The `virtual-anchor` command: run, demo, check, capacity, and the subcommands of each area."""

from __future__ import annotations

import argparse
import asyncio
import faulthandler
import json
import os
import sys
from pathlib import Path

from broadcaster import faults
from broadcaster.config import ConfigError, dump_redacted, load_config, parse_config

EXIT_CONFIG = 2


def _setup_logging(level: str = "info", fmt: str = "text") -> None:
    from broadcaster.logs import setup_logging

    setup_logging(level, fmt)


def _cmd_check(args: argparse.Namespace) -> int:
    from broadcaster.paths import ensure_writable

    config = load_config(args.config)
    ensure_writable(config, args.config)  # every folder it will write, tried: all that fail are printed
    for room in config.rooms:
        try:
            problems = _talk_warnings(room)
        except ValueError as exc:  # a product the room could not present (a figure its facts do not state …)
            print(f"config error: {args.config}: rooms[{room.id}]: {exc}", file=sys.stderr)
            return EXIT_CONFIG
        for problem in problems:
            print(f"warning: room {room.id}: {problem}", file=sys.stderr)
    sys.stdout.write(dump_redacted(config))
    return 0


def _talk_warnings(room) -> list[str]:
    """What the room's talk lacks for its repeat window; with products, with each product's lines in the loop (the
    products are loaded as the room loads them, so a product it could not present is a ValueError here)."""
    from broadcaster.director.talk import TalkTrack, material_warnings

    talk = room.director.talk
    if not room.director.products.items:
        return material_warnings(talk)
    import time

    from broadcaster.director.desk import ProductDesk

    track = TalkTrack.for_room(talk, room=room.id, warn=False) or TalkTrack(
        [], dict(talk.variables), window_s=talk.repeat_window_s, room=room.id)
    desk = ProductDesk(room.director.products, track, clock=time.monotonic, where=f"rooms[{room.id}].director.products")
    return list(dict.fromkeys(w for scene in desk.scenes() for w in track.material(talk, scene).warnings))


def _cmd_run(args: argparse.Namespace) -> int:
    from broadcaster.daemon import Daemon
    from broadcaster.logs import register_secrets, secrets_of

    config = load_config(args.config)
    register_secrets(secrets_of(config))  # exact secret values are masked in every log line from here on
    _setup_logging(config.daemon.log_level, config.daemon.log_format)
    faults.arm_from_env()  # chaos tests only: VA_FAULTS unset arms nothing
    faulthandler.enable()  # a watchdog SIGABRT leaves every thread's stack in the journal
    # Absolute, not resolved: a Kubernetes ConfigMap file is a symlink into a ..<timestamp> folder that the
    # kubelet replaces at every edit; the watcher must keep reading the path the operator named.
    return asyncio.run(Daemon(config, Path(os.path.abspath(args.config))).run())


def _cmd_demo(args: argparse.Namespace) -> int:
    from broadcaster.daemon import Daemon
    from broadcaster.demo import demo_config

    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    config = parse_config(demo_config(out, args.rtmp, args.width, args.height), "<demo>")
    _setup_logging(config.daemon.log_level, "text")

    async def main() -> int:
        daemon = Daemon(config, None)
        if args.duration is None:
            return await daemon.run()
        await daemon.start()
        await asyncio.sleep(args.duration)
        await daemon.stop()
        return 0

    code = asyncio.run(main())
    print(f"recorded to {out / 'demo.flv'}", file=sys.stderr)
    return code


def _cmd_capacity(args: argparse.Namespace) -> int:
    from broadcaster import capacity

    config = load_config(args.config)
    print(f"measuring: {args.warmup:g} s warm-up, then {args.seconds:g} s …", file=sys.stderr)
    try:
        cost = capacity.measure(config, args.room, args.seconds, args.warmup)
    except ValueError as exc:
        print(f"capacity: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except RuntimeError as exc:
        print(f"capacity: {exc}", file=sys.stderr)
        return 1
    host = capacity.this_host()
    fit = capacity.fit(cost, host, args.headroom)
    if args.json:
        print(json.dumps(capacity.to_json(cost, host, fit), indent=2))
    else:
        print(capacity.report(cost, host, fit))
    return 0


def _cmd_present(args: argparse.Namespace) -> int:
    """Exit 0 when the product was taken (it comes on screen at the next line boundary), 1 when refused."""
    import urllib.parse

    from broadcaster import admin_client

    target = admin_client.resolve_target(args)
    room = urllib.parse.quote(args.room, safe="")
    if args.product == "next":
        result = admin_client.call(target, "POST", f"/api/rooms/{room}/products/next", {})
    else:
        result = admin_client.call(target, "POST", f"/api/rooms/{room}/products/present", {"product": args.product})
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        view = result.get("products") or {}
        names = {p["id"]: p["name"] for p in view.get("products") or []}
        chosen = result.get("result")
        print(f"{args.room}: {chosen} ({names.get(chosen, '?')}) comes on screen at the next line boundary; "
              f"on screen now: {view.get('on_screen') or '-'}")
    return 0


def _share(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a share in (0, 1], got {text}")
    return value


def _tail_sources(config_path: str, room_id: str) -> list:
    """`tail`'s view of the daemon config: one room's source configs (ValueError, one line, on a mistake);
    logging as the daemon's (secrets masked), on stderr because stdout carries the events."""
    from broadcaster.logs import register_secrets, secrets_of, setup_logging

    try:
        config = load_config(config_path)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    try:
        room = config.room(room_id)
    except KeyError:
        raise ValueError(f"{config_path}: no room {room_id!r} (rooms: {', '.join(r.id for r in config.rooms)})"
                         ) from None
    if not room.sources:
        raise ValueError(f"{config_path}: room {room_id!r} has no sources")
    register_secrets(secrets_of(config))
    setup_logging(config.daemon.log_level, "text", stream=sys.stderr)
    return list(room.sources)


def _speakable_texts(room):
    from broadcaster.show import speakable_texts  # the whole content layer: only for `cache warm`

    return speakable_texts(room)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="virtual-anchor", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="put the configured rooms on air")
    p.add_argument("-c", "--config", required=True)
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("check", help="validate a config, try every folder it writes, print it resolved, secrets redacted")
    p.add_argument("-c", "--config", required=True)
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser("demo", help="the built-in demo room (records to ./out; add an RTMP URL to push)")
    p.add_argument("rtmp", nargs="?", help="rtmp://host/app/key to push to as well")
    p.add_argument("--out", default="out")
    p.add_argument("--duration", type=float, default=None, help="stop after this many seconds")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("capacity", help="run one room here for real (publishing nothing) and print how many fit")
    p.add_argument("-c", "--config", required=True)
    p.add_argument("--room", help="the room to measure (default: the first)")
    p.add_argument("--seconds", type=float, default=30.0, help="measured after the warm-up (default 30)")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds on air before measuring (default 5)")
    p.add_argument("--headroom", type=_share, default=0.8,
                   help="share of this host's cores and memory given to rooms (default 0.8)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(func=_cmd_capacity)

    from broadcaster import admin_client, avatar_cli
    from broadcaster.brain import cli as kb_cli
    from broadcaster.voice import cli as voice_cli
    from danmaku import cli as danmaku_cli

    danmaku_cli.add_commands(sub, _tail_sources)  # tail
    kb_cli.add_commands(sub)  # kb index | kb query | moderate
    voice_cli.add_commands(sub, texts_for_room=_speakable_texts)  # cache warm
    admin_client.add_commands(sub)  # status | say | reload
    p = sub.add_parser("present", help="present a product of a running room (at the next line boundary)")
    admin_client._common(p)  # --config, --admin-url, --token, --json, as status and say take them
    p.add_argument("room", help="room id")
    p.add_argument("product", help="product id, or 'next' for the next product in stock")
    p.set_defaults(func=admin_client._wrap(_cmd_present), command_name="present")
    avatar_cli.add_commands(sub)  # avatar preview
    return parser


def main(argv: list[str] | None = None) -> int:
    # Models load from local paths only: a hub download at run time would be a silent network dependency.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ConfigError as exc:
        for problem in getattr(exc, "problems", [exc]):  # paths.UnwritablePaths: one line each
            print(f"config error: {problem}", file=sys.stderr)
        return EXIT_CONFIG


if __name__ == "__main__":
    sys.exit(main())
