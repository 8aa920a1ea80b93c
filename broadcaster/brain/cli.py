"""`virtual-anchor kb index|query` and `virtual-anchor moderate`: try a room's knowledge base and moderation from a shell.

`kb query --explain` says why: the question's slots and the words added for retrieval, each
passage's matching terms, the FAQ entry an intent match found (and why), and which sentence was
chosen. `moderate` prints the verdict for a comment (and a user name, and an answer sentence) and
which rule fired, exiting 1 when it is blocked; `moderate --eval FILE.jsonl` runs a labelled red-team file through
the room's whole stack (rules, the posture of silence, the judge when configured) and prints precision and recall
by class, the figures tests/brain/test_redteam.py computes (broadcaster/brain/redteam.py).
"""

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
    p.add_argument("--explain", action="store_true", help="why each passage matched and why the answer was chosen")
    p.set_defaults(func=cmd_query)

    p = subparsers.add_parser("moderate", help="a room's moderation verdict for a text, and which rule fired; "
                                               "--eval: precision and recall on a labelled file")
    p.add_argument("-c", "--config", required=True)
    p.add_argument("room")
    p.add_argument("text", nargs="?")
    p.add_argument("--eval", type=Path, metavar="FILE.jsonl",
                   help="a red-team file (tests/brain/redteam/README.md): measure the room's stack on it")
    p.add_argument("--failures", action="store_true", help="with --eval: list every item that went wrong")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_moderate)


def _room(args: argparse.Namespace) -> Any:
    cfg = load_config(args.config)
    try:
        return cfg.room(args.room)
    except KeyError:
        raise ConfigError(args.config, "rooms", f"no room with id {args.room!r}") from None


def _room_kb(args: argparse.Namespace) -> Any:
    from broadcaster.brain.embed import Embeddings, build_backend
    from broadcaster.brain.kb import KnowledgeBase

    room = _room(args)
    kb_cfg = room.brain.kb
    if kb_cfg.dir is None:
        raise ConfigError(args.config, f"rooms[{args.room}].brain.kb.dir", "not set: this room has no knowledge base")
    base = Path(args.config).resolve().parent
    root = kb_cfg.dir if kb_cfg.dir.is_absolute() else base / kb_cfg.dir
    if not root.is_dir():
        raise ConfigError(args.config, f"rooms[{args.room}].brain.kb.dir", f"directory {str(root)!r} does not exist")
    embeddings = Embeddings(build_backend(room.brain.embed), room=room.id)
    embeddings.load_sync()
    if not embeddings.available and room.brain.embed.backend != "none":
        print(f"embeddings unavailable ({embeddings.reason}): words only", file=sys.stderr)
    kb = KnowledgeBase(root, chunk_chars=kb_cfg.chunk_chars, top_k=kb_cfg.top_k, embed=embeddings)
    t0 = time.perf_counter()
    kb.build_sync()
    return kb, room.brain, time.perf_counter() - t0


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
    from broadcaster.brain.intent import FaqMatcher, evidence, retrieval_query, slots
    from broadcaster.brain.kb import kb_answer
    from broadcaster.brain.lexical import explain_terms
    from broadcaster.brain.sentences import split_sentences

    kb, brain_cfg, _ = _room_kb(args)
    kb_cfg = brain_cfg.kb
    t0 = time.perf_counter()
    hits, relevant = kb.retrieve_sync(args.text, kb_cfg.min_match, args.k)  # as the room retrieves
    took_ms = (time.perf_counter() - t0) * 1000
    query = retrieval_query(args.text)
    # The room without an LLM (kb_answer, as the room answers): the FAQ entry meant, unless it does not say what the
    # question asks and a relevant passage does; else the best relevant passage.
    faq = FaqMatcher(kb.corpus.faq, [p.text for p in kb.passages]).match(args.text)
    answer, pid = kb_answer(args.text, faq, relevant, absolute_claims=brain_cfg.guard.absolute_claims)
    if not answer:
        source = ""
    elif faq is not None and pid == faq.passage_id and answer.startswith(faq.answer):
        source = f"FAQ {faq.passage_id} ({faq.question!r}: {faq.why})"
    else:
        source = f"passage {pid}" + (f" (the FAQ entry {faq.passage_id} does not say what is asked)" if faq else "")
    wanted = sorted(slots(args.text))
    explain = {
        "slots": wanted,
        "search_with_slot_words": query,
        "faq": None if faq is None else {"id": faq.passage_id, "question": faq.question, "why": faq.why},
        "terms": {h.passage.id: [[t, round(c, 3)] for t, c in explain_terms(kb.bm25, args.text, h.passage.id)
                                 or explain_terms(kb.bm25, query, h.passage.id)] for h in hits},
        "sentences": [{"text": s, "answers_slot": [w for w in wanted if evidence(w, s)]}
                      for s in split_sentences(answer)],
        "facts": _fact_explain(kb, args.text),
    }
    if args.json:
        out = {
            "query": args.text,
            "took_ms": round(took_ms, 3),
            "hits": [{"id": h.passage.id, "score": round(h.score, 4), "match": round(h.match, 3),
                      "relevant": h.match >= kb_cfg.min_match, "text": h.passage.text} for h in hits],
            "answer": answer,
            "source": source,
        }
        if args.explain:
            out["explain"] = explain
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print(f"{len(hits)} hits in {took_ms:.2f} ms (relevant when match ≥ {kb_cfg.min_match})")
    for h in hits:
        mark = "*" if h.match >= kb_cfg.min_match else " "
        snippet = h.passage.text.replace("\n", " / ")
        print(f"{mark} {h.passage.id:<24} score={h.score:7.3f} match={h.match:.2f}  {snippet[:80]}")
        if args.explain:
            terms = ", ".join(f"{t} {c:.2f}" for t, c in explain["terms"][h.passage.id][:8])
            print(f"      matched terms: {terms or '(dense match only)'}")
    if args.explain:
        print(f"slots: {', '.join(wanted) or '(none)'} (passages carrying the slot's answer come first; "
              f"with none relevant the search adds: {query[len(args.text):].strip() or '-'})")
        print(f"FAQ intent match: {faq.passage_id + ' ' + repr(faq.question) + ' — ' + faq.why if faq else '(none)'}")
        for s in explain["sentences"]:
            why = f"answers {', '.join(s['answers_slot'])}" if s["answers_slot"] else "shares words with the question"
            print(f"  chosen: {s['text']}  ({why})")
        f = explain["facts"]
        print(f"facts (embedding {f['embeddings']}): {'answers' if f['confident'] else 'no fact answers'} — {f['why']}")
        for r in f["ranked"]:
            print(f"  z {r['z']:5.2f}  dense z {r['dense_z']:5.2f}  words {r['words']:.2f}  {r['fact'][:70]}")
    print(f"answer without LLM: {answer or '(none: no relevant passage; the room would use a fallback line)'}")
    if source:
        print(f"from: {source}")
    return 0


def _fact_explain(kb: Any, question: str) -> dict[str, Any]:
    """The facts' reading of a question (brain/facts.py): each fact's combined z-score, embedding z, word share, and
    whether the best leads the next by the margin."""
    from broadcaster.brain.facts import reading_texts, split_rows

    emb = kb.embed
    texts, whole = reading_texts(question)
    vecs = emb.query_sync(texts) if emb is not None and emb.available else None
    # as the room reads it (understand.Understanding.read)
    c = kb.facts.choose(question, *split_rows(vecs, whole))
    return {"embeddings": (emb.backend.name if emb is not None and emb.available else "none: words only"),
            "confident": c.confident, "anchored": c.anchored, "margin": round(c.margin, 3), "why": c.why,
            "fact": c.fact.text if c.fact else None, "also": c.also.text if c.also else None,
            "ranked": [{"fact": f.text, "z": round(z, 3), "dense_z": round(dz, 3), "words": round(w, 3)}
                       for f, z, dz, w in c.ranked]}


def cmd_moderate(args: argparse.Namespace) -> int:
    """The room's verdict on a text as a comment, as a user name and as an answer sentence, and the line the comment
    would get (or why none), through the room's own director triage and brain with no model; 1 when blocked."""
    import asyncio

    from broadcaster.brain.guard_rules import absolute_claim
    from broadcaster.brain.moderation import moderator_from_config

    if args.eval is not None:
        return cmd_eval(args)
    if args.text is None:
        print("moderate: give a text to check, or --eval FILE.jsonl", file=sys.stderr)
        return EXIT_USAGE
    room = _room(args)
    moderator = moderator_from_config(room.moderation, room.language)
    v = moderator.check_comment(args.text)
    claim = absolute_claim(args.text) if room.brain.guard.absolute_claims else ""
    hits = [{"word": w, "rule": h, "found": s} for w, h, s in zip(v.matched, v.how, v.spans, strict=True)]
    line = asyncio.run(_would_say(room, moderator, args.text)) if v.ok else {"said": [], "why": "blocked by moderation"}
    if args.json:
        print(json.dumps({"text": args.text, "ok": v.ok, "hits": hits, "action": v.action if not v.ok else "",
                          "absolute_claim": claim, "line": line["said"], "why": line["why"],
                          "reading": line.get("reading")}, ensure_ascii=False))
        return 0 if v.ok else 1
    if v.ok:
        print("ok: a comment, a user name or an answer sentence with this text passes moderation")
    else:
        print("blocked:")
        for h in hits:
            found = f" (found {h['found']!r})" if h["found"] and h["found"] != h["word"] else ""
            print(f"  {h['word']}: rule {h['rule']}{found}")
        print("  as a comment: never answered; as a user name: read out as 这位朋友; "
              f"in an answer: {'replaced by the safe line' if v.action == 'replace' else 'dropped'}")
    if claim:
        print(f"as an answer sentence it is withheld by the guard: absolute claim {claim!r} "
              "(brain.guard.absolute_claims)")
    if v.ok:
        r = line.get("reading") or {}
        if r:
            print(f"reading: question={r['question']} slots={','.join(r['slots']) or '-'} friendly={r['friendly']} "
                  f"problem={r['problem']} on_topic={r['on_topic']} unsafe={r['unsafe']} ({r['unsafe_class']})")
            print(f"  fact: {r['fact']!r} ({'answers' if r['fact_confident'] else 'no answer'}: {r['fact_why']})")
        if line["said"]:
            print("the comment would get: " + "".join(line["said"]) + (f"  [{line['why']}]" if line["why"] else ""))
        else:
            print(f"the comment would get no line: {line['why']}")
    return 0 if v.ok else 1


async def _would_say(room: Any, moderator: Any, text: str) -> dict[str, Any]:
    """What the room would say to a comment, through its director's triage and its brain with no model."""
    from broadcaster.brain import Brain
    from broadcaster.director import Director
    from danmaku.event import Event, EventKind, User

    brain_cfg = room.brain.model_copy(update={"llm": room.brain.llm.model_copy(update={"backend": "none"}),
                                              "cache": room.brain.cache.model_copy(update={"enabled": False})})
    brain = Brain(room.id, brain_cfg, room.moderation, moderator=moderator, language=room.language)
    director = Director(room.id, room.director, moderator)
    silent: list[str] = []
    director.on_silent = lambda event, why: silent.append(why)
    await brain.start()
    try:
        director.offer(Event("cli", room.id, EventKind.COMMENT, User("viewer", "观众"), text, received_mono=time.monotonic()))
        line = director.pick()
        while line is not None and line.event is None:  # the talk track's own lines
            line = director.pick()
        if line is None:
            return {"said": [], "why": silent[0] if silent else "no line picked"}
        said = [s.text for s in [s async for s in brain.answer(line)]]
        reading = brain.reading_of(line)
        why = brain.silence_of(line) if not said else ""
        return {"said": said, "why": why, "reading": reading.describe() if reading else None}
    finally:
        await brain.close()


def cmd_eval(args: argparse.Namespace) -> int:
    """Precision and recall by class of the room's stack on a labelled file, with the red-team test's figures."""
    import asyncio

    from broadcaster.brain.redteam import Rig, by_class, issue22_targets, load_items, metrics_of

    room = _room(args)
    try:
        items = load_items(args.eval)
    except OSError as exc:
        raise ConfigError(str(args.eval), "--eval", f"cannot read the red-team file: {exc.strerror}") from None
    except ValueError as exc:
        raise ConfigError(str(args.eval), "--eval", str(exc)) from None

    async def run() -> list[Any]:
        async with Rig(room) as rig:
            return await rig.run_all(items)

    outcomes = asyncio.run(run())
    figures = {"by class": by_class(outcomes), "red-team": metrics_of(outcomes), "issue 22": issue22_targets(outcomes)}
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
        return 0
    judge = "judge " + (room.moderation.judge.model or room.brain.llm.model) if room.moderation.judge.enabled else "no judge"
    print(f"{args.eval}: {len(items)} items through room {room.id} (rules, the posture of silence, {judge})")
    print(f"{'class':16} {'n':>4} {'precision':>9} {'recall':>7}   rules judge posture line")
    for c, f in figures["by class"].items():
        st = f["stack"]
        print(f"{c:16} {f['n']:4} {f['precision']:9.3f} {f['recall']:7.3f}   {st['rules']:5} {st['judge']:5} "
              f"{st['posture']:7} {st['line']:4}")
    mod = figures["red-team"]["moderation (banned comments)"]
    print(f"banned comments: precision {mod['precision']:.3f}, recall {mod['recall']:.3f} "
          f"({mod['fn']} got a line, {mod['fp']} clean near-misses blocked)")
    for k, v in figures["issue 22"].items():
        if not k.startswith("per class"):
            print(f"  {k}: {v}")
    print(f"  failures: {figures['red-team']['failures']} of {figures['red-team']['items']}")
    if args.failures:
        for o in outcomes:
            for p in o.faults:
                print(f"{o.item['id']} [{o.item['class']}] {o.item.get('text', '')!r}: {p}")
    return 0
