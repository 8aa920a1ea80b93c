"""A knowledge base's files read into passages: Markdown per heading, YAML sheets per key, FAQ files per pair.

Passages get stable ids (`relative/path.md#3`). FAQ files (YAML lists of {q, a}, or a mapping with a `faq:` list)
become one passage per pair. Product sheets (YAML mappings) are flattened to lines of speech and chunked per top-level
key. Markdown is chunked per heading, paragraphs packed up to `chunk_chars`, each chunk carrying its heading.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from broadcaster.brain.lexical import Passage
from broadcaster.brain.sentences import split_sentences

log = logging.getLogger(__name__)

_SUFFIXES = (".md", ".markdown", ".yaml", ".yml", ".txt")


@dataclass(slots=True)
class Corpus:
    passages: list[Passage] = field(default_factory=list)
    faq: list[tuple[str, str, str]] = field(default_factory=list)  # (question, answer, passage id)
    names: list[str] = field(default_factory=list)  # what the KB sells: sheets' name/title, Markdown files' # heading


# -- loading ----------------------------------------------------------------------------------------------


def _chunk_paragraphs(paragraphs: Iterable[str], limit: int) -> list[str]:
    chunks: list[str] = []
    cur = ""
    for para in paragraphs:
        para = para.strip()
        if not para:
            continue
        while len(para) > limit:  # an overlong paragraph is cut at sentence ends
            pieces = split_sentences(para, max_chars=limit)
            first = ""
            for p in pieces:
                if len(first) + len(p) > limit and first:
                    break
                first += p
            if not first:
                first = para[:limit]
            if cur:
                chunks.append(cur)
                cur = ""
            chunks.append(first)
            para = para[len(first) :].strip() if para.startswith(first) else para[limit:]
        if cur and len(cur) + len(para) + 1 > limit:
            chunks.append(cur)
            cur = ""
        cur = f"{cur}\n{para}" if cur else para
    if cur:
        chunks.append(cur)
    return chunks


_LIST_ITEM = re.compile(r"^\s*(?:[-*+•·]|\d+[.)、])\s+")


def _list_items(paragraph: str) -> list[str]:
    """A Markdown list is one item a unit for chunking: a chunk ends between two facts, never inside one."""
    lines = paragraph.splitlines()
    if len(lines) > 1 and sum(bool(_LIST_ITEM.match(x)) for x in lines) >= len(lines) // 2 + 1:
        items: list[str] = []
        for x in lines:
            if _LIST_ITEM.match(x) or not items:
                items.append(x)
            else:
                items[-1] += "\n" + x  # a continuation line belongs to its item
        return items
    return [paragraph]


def _markdown(text: str, limit: int) -> list[tuple[str, str]]:
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in text.splitlines():
        m = re.match(r"^\s{0,3}#{1,6}\s+(.*)$", line)
        if m:
            sections.append((m.group(1).strip(), []))
        else:
            sections[-1][1].append(line)
    out: list[tuple[str, str]] = []
    for title, lines in sections:
        paragraphs = [item for para in re.split(r"\n\s*\n", "\n".join(lines)) for item in _list_items(para)]
        for chunk in _chunk_paragraphs(paragraphs, limit):
            out.append((title, chunk))
    return out


_STARTS_WITH_FIGURE = re.compile(r"^(?:[\d.¥￥$]|约|仅|只|[零〇一二两三四五六七八九十百千万]+[个只罐瓶盒件袋包年月天周小分克斤两元块种款次度毫升]|"
                                  r"半[个年月天小斤])")


def _said_with(key: str, value: Any) -> str:
    """One key of a nested mapping said as speech: "日常价" + 128元 → "日常价128元", "颜色" + 黑色 → "颜色是黑色"."""
    v = str(value).strip()
    if isinstance(value, bool):  # 可充电: true → "可充电", 赠品: false → "没有赠品"
        return key if value else f"没有{key}"
    if not v or _STARTS_WITH_FIGURE.match(v) or key.endswith(("是", "为", "：", ":")):
        return f"{key}{v}"
    return f"{key}是{v}"


def _flatten(node: Any, prefix: str = "") -> list[str]:
    """A YAML value as lines of text. A mapping of plain values under a key reads as one line of speech ("价格：
    日常价128元，直播间到手价99元"), not one "价格 日常价：128元" line per key, so a sentence taken from it for an
    extractive answer (or quoted by a model) sounds like someone talking."""
    if isinstance(node, dict) and prefix and node and all(not isinstance(v, (dict, list)) for v in node.values()):
        # values that have commas of their own are kept apart by semicolons (each a sentence to pick)
        sep = "；" if any(re.search(r"[，,]", str(v)) for v in node.values()) else "，"
        return [f"{prefix}：{sep.join(_said_with(str(k), v) for k, v in node.items())}"]
    if isinstance(node, dict):
        lines: list[str] = []
        for k, v in node.items():
            lines.extend(_flatten(v, f"{prefix}{k}" if not prefix else f"{prefix} {k}"))
        return lines
    if isinstance(node, list):
        if all(not isinstance(v, (dict, list)) for v in node):
            return [f"{prefix}：{'、'.join(str(v) for v in node)}"]
        lines = []
        for v in node:
            lines.extend(_flatten(v, prefix))
        return lines
    return [f"{prefix}：{node}" if prefix else str(node)]


def faq_pairs(data: Any) -> list[tuple[str, str]] | None:
    items = data.get("faq") if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        return None
    pairs: list[tuple[str, str]] = []
    for item in items:
        if not isinstance(item, dict):
            return None
        q = item.get("q", item.get("question"))
        a = item.get("a", item.get("answer"))
        if not q or not a:
            return None
        for question in q if isinstance(q, list) else [q]:
            pairs.append((str(question), str(a)))
    return pairs


def kb_files(root: Path) -> list[Path]:
    """The KB's files, sorted (so ids are stable). Hidden paths are skipped: a Kubernetes ConfigMap mount holds
    every file twice, once more under its ..<timestamp> folder, and editors leave .swp/.~ files."""
    if root.is_file():  # a product's facts may be one file
        return [root] if root.suffix.lower() in _SUFFIXES else []
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in _SUFFIXES
                  and not any(part.startswith(".") for part in p.relative_to(root).parts))


def load_corpus(root: Path, chunk_chars: int = 300) -> Corpus:
    """Reads every Markdown/YAML/text file under root into passages."""
    corpus = Corpus()
    for path in kb_files(root):
        rel = path.name if root.is_file() else path.relative_to(root).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("kb: cannot read %s: %s", path, exc)
            continue
        chunks: list[tuple[str, str]] = []
        if path.suffix.lower() in (".yaml", ".yml"):
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                log.warning("kb: %s is not valid YAML (%s); skipped", path, exc)
                continue
            pairs = faq_pairs(data)
            if pairs is not None:
                seen: dict[str, str] = {}
                for q, a in pairs:
                    pid = seen.get(a, "")
                    if not pid:  # alternative phrasings of one question share one passage
                        pid = seen[a] = f"{rel}#{len(seen)}"
                        corpus.passages.append(Passage(pid, f"问：{q}\n答：{a}", q, rel))
                    corpus.faq.append((q, a, pid))
                continue
            if isinstance(data, dict):
                title = str(data.get("name", data.get("title", path.stem)))
                if "name" in data or "title" in data:
                    corpus.names.append(title)
                for key, value in data.items():
                    if key in ("name", "title") and isinstance(value, str):
                        continue  # the sheet's title, carried by every chunk; "name：…" is nothing to say
                    lines = _flatten(value, str(key))
                    for chunk in _chunk_paragraphs(lines, chunk_chars):
                        chunks.append((title, chunk))
            elif data is not None:
                chunks = [(path.stem, c) for c in _chunk_paragraphs(_flatten(data), chunk_chars)]
        elif path.suffix.lower() in (".md", ".markdown"):
            h1 = re.search(r"^\s{0,3}#\s+(.+)$", text, re.M)
            if h1:
                corpus.names.append(h1.group(1).strip())
            chunks = _markdown(text, chunk_chars)
        else:
            chunks = [(path.stem, c) for c in _chunk_paragraphs(re.split(r"\n\s*\n", text), chunk_chars)]
        for i, (title, chunk) in enumerate(chunks):
            body = chunk if not title or chunk.startswith(title) else f"{title}\n{chunk}"
            corpus.passages.append(Passage(f"{rel}#{i}", body, title, rel))
    return corpus


def files_signature(root: Path) -> tuple[tuple[str, int, int], ...]:
    """(path, mtime_ns, size) of every KB file: any edit, addition or removal changes it."""
    if not root.exists():
        return ()
    out = []
    for p in kb_files(root):
        st = p.stat()
        out.append((p.as_posix(), st.st_mtime_ns, st.st_size))
    return tuple(out)


def body(p: Passage) -> str:
    """A passage without the title line every chunk of its file carries (a product's name says nothing of a slot)."""
    return p.text.split("\n", 1)[1] if p.title and p.text.startswith(p.title + "\n") else p.text


_LABELLED = re.compile(r"^([^，。；：:\s]{1,10})[：:]\s*(.+)$", re.S)


def spoken(sentence: str) -> str:
    """A sheet line as speech: its "key：" label goes when what follows says it better ("价格：日常价128元，…" →
    "日常价128元，…", "冲泡：水温80度…" → "水温80度…"), and joins a figure it names ("保质期：18个月" → "保质期18个月");
    a label before words is kept ("配送：全国包邮")."""
    sentence = sentence.strip().rstrip("；;")
    m = _LABELLED.match(sentence)
    if m is None:
        return sentence
    label, rest = m.groups()
    if _STARTS_WITH_FIGURE.match(rest):
        return label + rest
    first = re.split(r"[，,；;。]", rest, maxsplit=1)[0]
    return rest if re.search(r"\d", first) else sentence


