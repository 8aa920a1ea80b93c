"""`virtual-anchor kb index|query`: build a room's knowledge base and try questions against it from a shell."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from broadcaster.config import ConfigError, load_config

EXIT_USAGE = 2


def add_commands(subparsers: Any) -> None:
    """Registers `kb index` and `kb query` on the CLI's subparsers."""
    kb = subparsers.add_parser("kb", help="a room's knowledge base: index it, query it")
    kb_sub = kb.add_subparsers(dest="kb_command", required=True)

    p = kb_sub.add_parser("index", help="read the room's KB files and report passages and FAQ pairs")
    p.add_argument("-c", "--config", required=True)
    p.add_argument("room")
    p.add_argument("--json", action="store_true", help="print the passages as JSON lines")
    p.set_defaults(func=cmd_index)

    p = kb_sub.add_parser("query", help="retrieve passages for a question (and the answer without an LLM)")
    p.add_argument("-c", "--config", required=True)
    p.add_argument("room")
    p.add_argument("text")
    p.add_argument("-k", type=int, default=None, help="passages to show (default: the room's kb.top_k)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_query)


def _room_kb(args: argparse.Namespace) -> Any:
    from broadcaster.brain.kb import KnowledgeBase

    cfg = load_config(args.config)
    try:
        room = cfg.room(args.room)
    except KeyError:
        raise ConfigError(args.config, "rooms", f"no room with id {args.room!r}") from None
    kb_cfg = room.brain.kb
    if kb_cfg.dir is None:
        raise ConfigError(args.config, f"rooms[{args.room}].brain.kb.dir", "not set: this room has no knowledge base")
    base = Path(args.config).resolve().parent
    root = kb_cfg.dir if kb_cfg.dir.is_absolute() else base / kb_cfg.dir
    if not root.is_dir():
        raise ConfigError(args.config, f"rooms[{args.room}].brain.kb.dir", f"directory {str(root)!r} does not exist")
    kb = KnowledgeBase(root, chunk_chars=kb_cfg.chunk_chars, top_k=kb_cfg.top_k)
    if kb_cfg.dense_model_path is not None:
        from broadcaster.brain.embed import Embedder

        path = kb_cfg.dense_model_path if kb_cfg.dense_model_path.is_absolute() else base / kb_cfg.dense_model_path
        kb.embed = Embedder(path, kb_cfg.dense_device)
    t0 = time.perf_counter()
    kb.build_sync()
    return kb, kb_cfg, time.perf_counter() - t0


def cmd_index(args: argparse.Namespace) -> int:
    kb, _, took = _room_kb(args)
    files = sorted({p.file for p in kb.passages})
    if args.json:
        for p in kb.passages:
            print(json.dumps({"id": p.id, "title": p.title, "text": p.text}, ensure_ascii=False))
    print(f"{len(kb.passages)} passages from {len(files)} files, {len(kb.corpus.faq)} FAQ questions, "
          f"built in {took:.2f}s ({kb.root})", file=sys.stderr if args.json else sys.stdout)
    if not args.json:
        for f in files:
            print(f"  {f}: {sum(1 for p in kb.passages if p.file == f)} passages")
    return 0


def cmd_query(args: argparse.Namespace) -> int:
    from broadcaster.brain.kb import extract_answer

    kb, kb_cfg, _ = _room_kb(args)
    t0 = time.perf_counter()
    hits = kb.search_sync(args.text, args.k)
    took_ms = (time.perf_counter() - t0) * 1000
    relevant = [h for h in hits if h.match >= kb_cfg.min_match]
    answer = extract_answer(args.text, relevant[0]) if relevant else ""
    if args.json:
        print(json.dumps({
            "query": args.text,
            "took_ms": round(took_ms, 3),
            "hits": [{"id": h.passage.id, "score": round(h.score, 4), "match": round(h.match, 3),
                      "relevant": h.match >= kb_cfg.min_match, "text": h.passage.text} for h in hits],
            "answer": answer,
        }, ensure_ascii=False))
        return 0
    print(f"{len(hits)} hits in {took_ms:.2f} ms (relevant when match ≥ {kb_cfg.min_match})")
    for h in hits:
        mark = "*" if h.match >= kb_cfg.min_match else " "
        snippet = h.passage.text.replace("\n", " / ")
        print(f"{mark} {h.passage.id:<24} score={h.score:7.3f} match={h.match:.2f}  {snippet[:80]}")
    print(f"answer without LLM: {answer or '(none: no relevant passage; the room would use a fallback line)'}")
    return 0
