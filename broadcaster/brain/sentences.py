"""Splits text (whole or streamed token by token) into speakable sentences, CJK punctuation aware."""

from __future__ import annotations

import re

# Hard sentence ends. ASCII '.' is decided separately (decimals, abbreviations, URLs).
_TERMINATORS = frozenset("。！？；!?;…\n")
_EAGER = frozenset("。！？；!?;")
# Characters that belong to the sentence they close: quotes and brackets after the terminator.
_CLOSERS = frozenset("」』”’\"')）】》〉]｝}")
# Soft breaks where an overly long sentence may be cut (kept at the end of the first piece).
_SOFT_BREAKS = frozenset("，,、：:—")
# Words ending in '.' that do not end a sentence (compared lower-case, without the dot).
_ABBREVIATIONS = frozenset(
    {
        "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "no", "inc", "ltd", "co",
        "corp", "dept", "approx", "fig", "vol", "ca", "cf", "al", "e.g", "i.e", "a.m", "p.m", "u.s",
        "u.k", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    }
)
_SPEAKABLE = re.compile(r"[0-9A-Za-z\u00c0-\u024f\u0400-\u04ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_LEADING_MARKUP = re.compile(r"^(?:[-*•#>]+\s*)+")
_EMPHASIS = re.compile(r"\*\*|__|`")


def _is_cjk(c: str) -> bool:
    o = ord(c)
    return (
        0x3400 <= o <= 0x9FFF
        or 0xF900 <= o <= 0xFAFF
        or 0x3040 <= o <= 0x30FF
        or 0xAC00 <= o <= 0xD7AF
        or 0x3000 <= o <= 0x303F
        or 0xFF00 <= o <= 0xFFEF
    )


def _clean(text: str) -> str:
    """Strips whitespace and Markdown noise an LLM likes to emit (bullets, emphasis, code ticks).

    Closing quotes or stray terminators at the start (left over when a sentence was emitted
    eagerly) are dropped too.
    """
    text = _EMPHASIS.sub("", text.strip())
    text = text.lstrip("".join(_CLOSERS) + "。！？；!?;").strip()
    return _LEADING_MARKUP.sub("", text).strip()


def _split_long(text: str, max_chars: int) -> list[str]:
    """Cuts a sentence longer than max_chars at soft breaks (commas), packing clauses greedily.

    A comma between two digits (1,000) is not a break. With no usable break, Latin text is cut at
    the last space and CJK text hard at max_chars, so a piece never exceeds the limit by much.
    """
    if len(text) <= max_chars:
        return [text]
    clauses: list[str] = []
    start = 0
    for i, c in enumerate(text):
        if c in _SOFT_BREAKS:
            if c == "," and 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit():
                continue
            clauses.append(text[start : i + 1])
            start = i + 1
    if start < len(text):
        clauses.append(text[start:])
    pieces: list[str] = []
    cur = ""
    for clause in clauses:
        if cur and len(cur) + len(clause) > max_chars:
            pieces.append(cur)
            cur = ""
        cur += clause
        while len(cur) > max_chars:
            cut = cur.rfind(" ", 0, max_chars + 1)
            if cut <= 0:
                cut = max_chars
            pieces.append(cur[:cut])
            cur = cur[cut:].lstrip()
    if cur:
        pieces.append(cur)
    return [p for p in (s.strip() for s in pieces) if p]


class SentenceSplitter:
    """Streaming sentence splitter: feed() token texts, get back the sentences they completed.

    A sentence is only emitted once the character after its terminator is known, so trailing
    quotes stay attached and "199." followed by "9" is kept as a decimal. flush() returns what is
    left at the end of the stream. Sentences longer than max_chars are cut at commas.
    """

    def __init__(self, max_chars: int = 60, *, eager: bool = False) -> None:
        if max_chars < 4:
            raise ValueError("max_chars must be at least 4")
        self.max_chars = max_chars
        # eager: a sentence ending in 。！？!?；; at the end of what has arrived is emitted at once,
        # without waiting for the next token to rule out a closing quote (which then is dropped as
        # punctuation-only). Saves one token of latency when speech waits on a slow model.
        self.eager = eager
        self._buf = ""
        self._scan = 0  # first index of _buf not yet examined for terminators

    def feed(self, text: str) -> list[str]:
        if not text:
            return []
        self._buf += text
        return self._drain(final=False)

    @property
    def pending(self) -> str:
        """What has arrived of the sentence not yet complete."""
        return self._buf

    def flush(self) -> list[str]:
        """Ends the stream: returns the remaining sentences (possibly none); the splitter is reusable."""
        out = self._drain(final=True)
        rest = self._buf
        self._buf, self._scan = "", 0
        out.extend(self._emit(rest))
        return out

    # -- internals -----------------------------------------------------------------------------------

    def _emit(self, raw: str) -> list[str]:
        text = _clean(raw)
        if not text or not _SPEAKABLE.search(text):
            return []  # punctuation-only leftovers ("。", "”") are not worth a TTS call
        return _split_long(text, self.max_chars)

    def _drain(self, final: bool) -> list[str]:
        out: list[str] = []
        buf = self._buf
        i = self._scan
        start = 0
        n = len(buf)
        while i < n:
            c = buf[i]
            if c in _TERMINATORS or c == ".":
                end = self._sentence_end(buf, start, i, final)
                if end is None:  # need to see more text before deciding
                    break
                if end < 0:  # not a sentence end ('.' in 199.9, e.g., example.com)
                    i += 1
                    continue
                out.extend(self._emit(buf[start:end]))
                start = end
                i = end
                continue
            i += 1
        # An overly long pending sentence is cut at a comma now, so speech can start early.
        pending = buf[start:i]
        if len(pending) > self.max_chars and not final:
            pieces = _split_long(pending, self.max_chars)
            if len(pieces) > 1:
                keep = pieces[-1]
                consumed = pending.rfind(keep)
                if consumed > 0:
                    for p in pieces[:-1]:
                        out.extend(self._emit(p))
                    start += consumed
        self._buf = buf[start:]
        self._scan = max(0, i - start)
        return out

    def _sentence_end(self, buf: str, start: int, i: int, final: bool) -> int | None:
        """Index just past the sentence ending at buf[i], -1 if buf[i] ends nothing, None if unknown yet."""
        n = len(buf)
        c = buf[i]
        if c == ".":
            j = i
            while j < n and buf[j] == ".":
                j += 1
            dots = j - i
            if j == n and not final:
                return None
            nxt = buf[j] if j < n else ""
            if dots == 1:
                prev = buf[i - 1] if i > 0 else ""
                if prev.isdigit() and nxt.isdigit():
                    return -1  # decimal 199.9
                if nxt and not (nxt.isspace() or _is_cjk(nxt) or nxt in _CLOSERS or nxt in _TERMINATORS):
                    return -1  # example.com, p.m, v1.2
                word = re.split(r"\s", buf[start:i])[-1].lower()
                if word in _ABBREVIATIONS or "." in word or (len(word) == 1 and word.isalpha()):
                    return -1  # e.g. / U.S. / initials "J."
                if buf[start:i].strip().isdigit():
                    return -1  # a list number "1. "
        else:
            j = i + 1
            while j < n and (buf[j] in _TERMINATORS and buf[j] != "\n"):
                j += 1
        while j < n and buf[j] in _CLOSERS:
            j += 1
        if j == n and not final and not (self.eager and c in _EAGER):
            return None  # a closing quote or another '!' may still come
        return j


def split_sentences(text: str, max_chars: int = 60) -> list[str]:
    """Splits a whole text into speakable sentences (same rules as the streaming splitter)."""
    splitter = SentenceSplitter(max_chars=max_chars)
    return splitter.feed(text) + splitter.flush()
