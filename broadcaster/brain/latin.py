"""Latin words through their disguises: leetspeak (sh1t), masked letters (f*ck), spaced letters (f u c k), short
pieces (p dd, n.m.s.l), repeated letters (fuuuck), v for u (fvck)."""

from __future__ import annotations

import re

from broadcaster.brain.spelling import LEET
from broadcaster.brain.textnorm import normalize

HAS_LATIN = re.compile(r"[a-z]")
NO_VOWEL = re.compile(r"[b-df-hj-np-tv-z]+")  # a run of initials (no a e i o u): no English word
_REPEATED_LETTER = re.compile(r"([a-z])\1+")
_V_FOR_U = str.maketrans({"v": "u"})  # "fvck": only for latin words, never for abbreviations ("vx")
# Short latin pieces split by spaces or dots ("p dd", "n.m.s.l"), joined for the abbreviation rule.
_SHORT_PIECES = re.compile(r"(?<![a-z])[a-z]{1,2}(?:[\s.·_\-]{1,2}[a-z]{1,2}(?![a-z]))+")
# A letter masked by a symbol ("f*ck", "sh#t").
_MASK = "[*#_.x\\-]"
_SPACED_LETTERS = re.compile(r"(?<![a-z])[a-z](?![a-z])(?:[^a-z0-9]{1,3}[a-z](?![a-z]))+")


def masked(word: str) -> str:
    """A latin word, or the word with one of its letters after the first masked by a symbol."""
    alts = [re.escape(word)] + [re.escape(word[:i]) + _MASK + re.escape(word[i + 1 :]) for i in range(1, len(word))]
    if len(word) >= 4:  # "f**k", "sh**"
        alts += [re.escape(word[:i]) + _MASK + _MASK + re.escape(word[i + 2 :]) for i in range(1, len(word) - 1)]
    return "(?:" + "|".join(alts) + ")"


def latin_views(text: str) -> list[str]:
    """Latin views of a text; the last one (v read as u) is for latin words only."""
    n = normalize(text)
    if not HAS_LATIN.search(n):
        return []
    views = [n, n.translate(LEET)]
    # Spaced-out letters ("f u c k", "f.u.c.k") joined into one word.
    joined = _SPACED_LETTERS.sub(lambda m: re.sub(r"[^a-z]", "", m.group(0)), n.translate(LEET))
    if joined != views[1]:
        views.append(joined)
    pieces = _SHORT_PIECES.sub(lambda m: re.sub(r"[^a-z]", "", m.group(0)), n)
    if pieces not in views:
        views.append(pieces)
    squeezed = _REPEATED_LETTER.sub(r"\1", views[1])  # "fuuuck", "shiiit"
    if squeezed not in views:
        views.append(squeezed)
    views.append(views[-1].translate(_V_FOR_U))
    return views
