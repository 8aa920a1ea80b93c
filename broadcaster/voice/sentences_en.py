"""Splits English text into speakable sentences: a period ends a sentence unless it belongs to an abbreviation.

"Dr. Lee said the U.S. price is $5.99. It ships Mon." is two sentences, not five. Rules, in order, for a '.'
(other ends: ! ? ; … and a newline always end one):
- inside a number (5.99), a domain or a dotted word (example.com, U.S.A, e.g.) followed by more letters: no end;
- after a title that always stands before a name (Mr, Mrs, Ms, Dr, Prof, St, Mt, Sgt, Capt, Gen, Rev, Hon, Fr):
  no end;
- after an abbreviation that is never last (vs, approx, cf, i.e, e.g, incl, esp, no before a digit): no end;
- after another known abbreviation (etc, inc, ltd, co, a.m, p.m, jan…dec, min, hr, oz, lb, ft…) or a dotted
  abbreviation (U.S.): an end only when the next word starts with a capital letter;
- after a single capital letter next to another initial or after a title (J. R. R. Tolkien, Mr. T. Smith): no
  end. Otherwise a single letter ends the sentence (sizes: "Size M. It fits.");
- an ellipsis (...) ends it only before a capital letter.
A sentence longer than max_chars is cut at a comma, semicolon, colon or dash (never inside 1,000), else at a space.
"""

from __future__ import annotations

import re

_ENDS = frozenset("!?;…\n")
_CLOSERS = frozenset("\"')]}”’»")
_TITLES = frozenset(["mr", "mrs", "ms", "mx", "dr", "prof", "st", "mt", "sgt", "capt", "gen", "rev", "hon", "fr", "sr", "jr", "lt", "col"])
_NEVER_LAST = frozenset(["vs", "approx", "cf", "i.e", "e.g", "incl", "esp", "viz", "ca"])
_ABBREVIATIONS = frozenset(
    ["etc", "inc", "ltd", "co", "corp", "dept", "est", "no", "nos", "vol", "fig", "ed", "pp", "pt", "qt", "gal", "lb", "lbs", "oz", "ft", "yd", "mi", "hr", "hrs", "min", "mins", "sec", "secs", "a.m", "p.m", "u.s", "u.k", "u.s.a", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun", "ave", "blvd", "rd", "ste", "apt"])
_SOFT = re.compile(r"(?<=[,;:])\s+|\s+(?=[—–-]\s)")
_SPEAKABLE = re.compile(r"[0-9A-Za-z\u00c0-\u024f]")
_MARKUP = re.compile(r"^(?:[-*•#>]+\s*)+")
_EMPHASIS = re.compile(r"\*\*|__|`")


def _word_before(text: str, i: int) -> str:
    """The word ending just before text[i] (a '.'), lower case, without surrounding quotes or brackets."""
    j = i
    while j > 0 and not text[j - 1].isspace():
        j -= 1
    return text[j:i].lstrip("\"'([{“‘").lower()


def _next_word(text: str, i: int) -> str:
    j = i
    while j < len(text) and (text[j].isspace() or text[j] in _CLOSERS):
        j += 1
    k = j
    while k < len(text) and not text[k].isspace():
        k += 1
    return text[j:k]


def _period_ends(text: str, i: int) -> bool:
    """Whether the '.' at text[i] ends a sentence (see the module doc)."""
    after = text[i + 1] if i + 1 < len(text) else ""
    if after and not (after.isspace() or after in _CLOSERS or after in "!?."):
        return False  # 5.99, example.com, U.S.A
    word = _word_before(text, i)
    nxt = _next_word(text, i + 1)
    starts_upper = bool(nxt) and nxt[0].isupper()
    if not word:
        return True
    if word in _TITLES:
        return False
    if word in _NEVER_LAST:
        return not nxt
    if word == "no" and nxt[:1].isdigit():
        return False
    if word in _ABBREVIATIONS or ("." in word and word.replace(".", "").isalpha()):
        return not nxt or starts_upper
    if len(word) == 1 and word.isalpha() and text[i - 1].isupper():
        # J. R. R. Tolkien: an initial before another, or after one or a title; a size alone ends (Size M.)
        before = _word_before(text, i - 2) if i >= 2 and text[i - 2].isspace() else ""
        return not (re.match(r"[A-Z]\.", nxt) or re.fullmatch(r"[a-z]\.", before) or before.rstrip(".") in _TITLES)
    return True


def _cut(sentence: str, max_chars: int) -> list[str]:
    """A long sentence in pieces of at most about max_chars, cut at soft breaks, else at spaces."""
    if len(sentence) <= max_chars:
        return [sentence]
    pieces: list[str] = []
    cur = ""
    for clause in _SOFT.split(sentence):
        if cur and len(cur) + 1 + len(clause) > max_chars:
            pieces.append(cur)
            cur = ""
        cur = f"{cur} {clause}" if cur else clause
        while len(cur) > max_chars:
            at = cur.rfind(" ", 0, max_chars + 1)
            at = at if at > 0 else max_chars
            pieces.append(cur[:at])
            cur = cur[at:].lstrip()
    if cur:
        pieces.append(cur)
    return pieces


def _clean(piece: str) -> str:
    piece = _EMPHASIS.sub("", piece.strip())
    return _MARKUP.sub("", piece).strip()


def split_sentences_en(text: str, max_chars: int = 160) -> list[str]:
    """English text → its sentences (each at most about max_chars), with nothing unspeakable left alone."""
    out: list[str] = []
    start = i = 0
    n = len(text)
    while i < n:
        c = text[i]
        end = -1
        if c in _ENDS:
            end = i + 1
            while end < n and text[end] in _ENDS and text[end] != "\n":
                end += 1
        elif c == ".":
            j = i
            while j < n and text[j] == ".":
                j += 1
            if j - i >= 2:  # an ellipsis: a pause, an end only before a capital
                nxt = _next_word(text, j)
                end = j if not nxt or nxt[0].isupper() else -1
                i = j - 1 if end < 0 else i
            elif _period_ends(text, i):
                end = i + 1
        if end > 0:
            while end < n and text[end] in _CLOSERS:
                end += 1
            out += _cut(_clean(text[start:end]), max_chars)
            start = i = end
            continue
        i += 1
    out += _cut(_clean(text[start:]), max_chars)
    return [s for s in out if _SPEAKABLE.search(s)]
