"""`virtual-anchor status|say|reload`: command-line client of the running daemon's admin API."""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from broadcaster.admin import TOKEN_FILE
from broadcaster.logs import redact

DEFAULT_URL = "http://127.0.0.1:8717"
DEFAULT_CONFIG = Path("/etc/virtual-anchor/config.yaml")


class ClientError(Exception):
    """A failed call, worded for a person (exit code 1)."""


@dataclass(frozen=True, slots=True)
class Target:
    url: str
    token: str


def resolve_target(args: argparse.Namespace) -> Target:
    """Admin URL and token from flags, then $VA_ADMIN_URL / $VA_ADMIN_TOKEN, then the daemon's config file."""
    url = getattr(args, "admin_url", None) or os.environ.get("VA_ADMIN_URL")
    token = getattr(args, "token", None) or os.environ.get("VA_ADMIN_TOKEN")
    config_path = getattr(args, "config", None)
    if config_path is None and DEFAULT_CONFIG.exists():
        config_path = DEFAULT_CONFIG
    if config_path is not None and (url is None or token is None):
        from broadcaster.config import ConfigError, load_config  # only when needed: flags alone need none

        try:
            cfg = load_config(config_path).daemon
        except ConfigError as exc:
            raise ClientError(f"cannot read the admin address from the config: {exc}") from None
        if url is None:
            host = "127.0.0.1" if cfg.admin.host in ("0.0.0.0", "::", "") else cfg.admin.host
            url = f"http://{f'[{host}]' if ':' in host else host}:{cfg.admin.port}"
        if token is None:
            if cfg.admin.token is not None and cfg.admin.token.get_secret_value():
                token = cfg.admin.token.get_secret_value()
            else:
                token = _read_token_file(cfg.state_dir / TOKEN_FILE)
    if token is None:
        token = _read_token_file(Path("/var/lib/virtual-anchor") / TOKEN_FILE)
    if token is None:
        raise ClientError("no admin token: pass --token, set VA_ADMIN_TOKEN, or point --config at the daemon's config")
    return Target((url or DEFAULT_URL).rstrip("/"), token)


def _read_token_file(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def call(target: Target, method: str, path: str, body: dict[str, Any] | None = None, timeout: float = 10.0) -> Any:
    data = json.dumps(body).encode("utf-8") if body is not None else None
    req = urllib.request.Request(target.url + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {target.token}")
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as exc:
        try:
            detail = json.loads(exc.read()).get("error", exc.reason)
        except (ValueError, AttributeError):
            detail = exc.reason
        if exc.code == 401:
            raise ClientError(f"{target.url}: the admin token was refused") from None
        raise ClientError(f"{target.url}{path}: HTTP {exc.code}: {detail}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ClientError(f"cannot reach the daemon at {target.url}: {reason}") from None


# ------------------------------------------------------------------------------------------- commands


def _fmt_room(r: dict[str, Any]) -> list[str]:
    flags = ["ON AIR" if r.get("on_air") else "off air"]
    if r.get("paused"):
        flags.append("paused")
    if r.get("speaking"):
        flags.append("speaking")
    out = [f"{r.get('id')}: {', '.join(flags)}  frames={r.get('frames', 0)} late={r.get('late_frames', 0)}"
           f"  queue={len(r.get('queue') or [])}  clock_age={r.get('clock_age_s')}s"]
    worker = r.get("worker") or {}
    if worker.get("mode") == "process":
        rss = worker.get("rss_bytes")
        last = worker.get("last_restart") or {}
        out.append(f"  worker pid={worker.get('pid')} {worker.get('state', '')} restarts={worker.get('restarts', 0)}"
                   + (f" rss={rss / 2**20:.0f}MiB" if isinstance(rss, int | float) else "")
                   + (f" last: {last.get('reason')} ({last.get('detail')})" if last else ""))
    current = r.get("current") or r.get("current_text") or r.get("text")
    if isinstance(current, dict):
        current = current.get("text")
    if current:
        out.append(f"  saying: {current}")
    for sink in r.get("sinks") or []:
        state = "connected" if sink.get("connected") else "DOWN"
        out.append(f"  sink {sink.get('name')}: {state} reconnects={sink.get('reconnects', 0)} "
                   f"dropped={sink.get('dropped_packets', sink.get('dropped', 0))}")
    return out


def cmd_status(args: argparse.Namespace) -> int:
    target = resolve_target(args)
    if args.room:
        data: Any = call(target, "GET", f"/api/rooms/{urllib.request.quote(args.room, safe='')}")
        rooms = [data]
    else:
        data = call(target, "GET", "/api/rooms")
        rooms = data["rooms"]
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        for r in rooms:
            print("\n".join(_fmt_room(r)))
    return 0 if rooms and all(r.get("on_air") for r in rooms) else 3


def cmd_say(args: argparse.Namespace) -> int:
    target = resolve_target(args)
    text = " ".join(args.text).strip()
    if text == "-":
        text = sys.stdin.read().strip()
    if not text:
        raise ClientError("nothing to say")
    room = args.room
    if room is None:
        rooms = call(target, "GET", "/api/rooms")["rooms"]
        if len(rooms) != 1:
            raise ClientError("the daemon runs several rooms; choose one with --room " +
                              "|".join(str(r.get("id")) for r in rooms))
        room = rooms[0]["id"]
    result = call(target, "POST", f"/api/rooms/{urllib.request.quote(room, safe='')}/say", {"text": text})
    print(json.dumps(result, ensure_ascii=False) if args.json else f"{room}: queued: {text}")
    return 0


_WHAT = {"add": "starts (new stream and recording)", "remove": "stops (its stream ends)",
         "live": "applies live, no cut", "cut": "CUTS the stream (republish; the recording starts a new file)",
         "keep": "unchanged"}


def cmd_reload(args: argparse.Namespace) -> int:
    """Exit 0 when everything applied, 1 when a room kept its old config (or the file was refused)."""
    target = resolve_target(args)
    if args.dry_run:
        plan = call(target, "POST", "/api/reload", {"dry_run": True}, timeout=60.0)
        if args.json:
            print(json.dumps(plan, ensure_ascii=False, indent=2))
            return 0
        for room in plan.get("rooms") or []:
            sections = f" ({', '.join(room['sections'])})" if room.get("sections") else ""
            print(f"{room['room']}: {_WHAT.get(room['action'], room['action'])}{sections}")
        if plan.get("daemon_changes_need_restart"):
            print(f"daemon: {', '.join(plan['daemon_changes_need_restart'])} changed: needs a restart")
        return 0
    result = call(target, "POST", "/api/reload", {}, timeout=300.0)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        for key, label in (("added", "added"), ("removed", "removed"), ("live", "applied live"),
                           ("changed", "handed over (cut)"), ("unchanged", "unchanged")):
            print(f"{label}: {', '.join(result.get(key) or []) or '-'}")
        for rid, why in (result.get("failed") or {}).items():
            print(f"NOT applied, {rid} stays on air with its old config: {why}")
        if result.get("needs_restart"):
            print(f"daemon: {', '.join(result['needs_restart'])} changed: needs a restart")
    return 1 if result.get("failed") else 0


def _common(p: argparse.ArgumentParser) -> None:
    # SUPPRESS: never overwrite a --config the top-level parser may already have parsed.
    p.add_argument("--config", "-c", type=Path, default=argparse.SUPPRESS,
                   help="the daemon's config file (admin address and token are read from it)")
    p.add_argument("--admin-url", default=None, help=f"admin API base URL (default {DEFAULT_URL} or from --config)")
    p.add_argument("--token", default=None, help="admin bearer token (or $VA_ADMIN_TOKEN)")
    p.add_argument("--json", action="store_true", help="print the raw JSON answer")


def _wrap(fn: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        try:
            return int(fn(args))
        except ClientError as exc:
            print(f"virtual-anchor {args.command_name}: {redact(str(exc))}", file=sys.stderr)
            return 1

    return run


def add_commands(subparsers: Any) -> None:
    """Registers status, say and reload; each sets `func(args) -> int` (the exit code)."""
    p = subparsers.add_parser(
        "status", help="show every room's state from the running daemon (exit 3 when a room is off air)"
    )
    _common(p)
    p.add_argument("--room", default=None, help="one room only (adds recent chat with --json)")
    p.set_defaults(func=_wrap(cmd_status), command_name="status")

    p = subparsers.add_parser("say", help="make the anchor say a line now (operator priority)")
    _common(p)
    p.add_argument("--room", default=None, help="room id (needed when the daemon runs several)")
    p.add_argument("text", nargs="+", help="the line to say ('-' reads stdin)")
    p.set_defaults(func=_wrap(cmd_say), command_name="say")

    p = subparsers.add_parser("reload", help="re-read the config file in the running daemon")
    _common(p)
    p.add_argument("--dry-run", action="store_true",
                   help="show per room what would apply live and what would cut the stream; change nothing")
    p.set_defaults(func=_wrap(cmd_reload), command_name="reload")


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (tests, or before the main CLI wires these in)."""
    parser = argparse.ArgumentParser(prog="virtual-anchor")
    add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
