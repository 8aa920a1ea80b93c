"""Built-in word lists and patterns, read from data/wordlists.toml: what every room blocks (unless
`moderation.use_global: false`) and what an answer may not claim.

The lists, their provenance and licence (written by hand for this project, no third-party list copied) are in the
data file; here they are read once, typed, and the patterns' placeholders filled in (insult nouns, anchors' names,
drug slang), so that a list is written once and every pattern that needs it reads it from there.
"""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from typing import Any

from broadcaster.brain.political import POLITICAL_PATTERNS
from broadcaster.brain.textnorm import dense, normalize


def _load() -> dict[str, Any]:
    with resources.files("broadcaster.brain").joinpath("data/wordlists.toml").open("rb") as f:
        return tomllib.load(f)


_DATA = _load()
_L: dict[str, Any] = _DATA["lists"]


def _rx(v: str | list[str]) -> str:
    """A regex, written in the data file whole or as the pieces it is the concatenation of."""
    return "".join(v) if isinstance(v, list) else v


def _pairs(name: str) -> tuple[tuple[str, str], ...]:
    return tuple((label, _rx(rx)) for label, rx in _L[name])


# -- moderation -----------------------------------------------------------------------------------------------------

INSULTS: tuple[str, ...] = tuple(_L["INSULTS"])
ADS_AND_FRAUD: tuple[str, ...] = tuple(_L["ADS_AND_FRAUD"])
GAMBLING_DRUGS_SEX: tuple[str, ...] = tuple(_L["GAMBLING_DRUGS_SEX"])
COMPETITORS: tuple[str, ...] = tuple(_L["COMPETITORS"])
BUILTIN_ALLOW: tuple[str, ...] = tuple(_L["BUILTIN_ALLOW"])
CONTEXT_EXCUSES: dict[str, tuple[str, str]] = {w: (_rx(a), _rx(b)) for w, (a, b) in _DATA["CONTEXT_EXCUSES"].items()}
GLOBAL_WORDS: tuple[str, ...] = INSULTS + ADS_AND_FRAUD + GAMBLING_DRUGS_SEX + COMPETITORS

# Phrases that only mean a listed word in use (a gap of a few characters allowed), families of frames: regexes over
# the dense text, each reported as its listed word; the platform-banned topics of political.py join them.
PATTERNS: dict[str, str] = {w: _rx(rx) for w, rx in _DATA["PATTERNS"].items()}
PATTERNS.update(POLITICAL_PATTERNS)

INSULT_NOUNS: tuple[str, ...] = tuple(_L["INSULT_NOUNS"])
INSULT_INITIALS: tuple[str, ...] = tuple(_L["INSULT_INITIALS"])
FOND_NOUNS: frozenset[str] = frozenset(_L["FOND_NOUNS"])
NEUTRAL_NOUNS: frozenset[str] = frozenset(_L["NEUTRAL_NOUNS"])
ANCHORS: tuple[str, ...] = tuple(_L["ANCHORS"])
DRUG_SLANG: str = _rx(_L["DRUG_SLANG"])


def _alternatives(words: object) -> str:
    return "|".join(sorted(words, key=len, reverse=True))  # type: ignore[call-overload]


_LONG = {n for n in INSULT_NOUNS if len(n) >= 2} - FOND_NOUNS
PATTERNS["别家直播间"] = PATTERNS["别家直播间"].replace("ANCHORS", _alternatives(ANCHORS))
PATTERNS["毒品求购"] = PATTERNS["毒品求购"].replace("DRUG_SLANG", DRUG_SLANG)
PATTERNS["人身攻击"] = PATTERNS["人身攻击"].replace("INSULT_NOUNS", _alternatives(_LONG))
PATTERNS["侮辱"] = (PATTERNS["侮辱"].replace("LONG_NOUNS", _alternatives(_LONG))
                  .replace("INSULT_NOUNS", _alternatives(set(INSULT_NOUNS)))
                  .replace("INSULT_INITIALS", "|".join(INSULT_INITIALS)))

# Platforms and store kinds that, in a price frame, are another seller (build_moderator leaves the room's own out).
PRICE_ELSEWHERE_PLACES: tuple[str, ...] = tuple(_L["PRICE_ELSEWHERE_PLACES"])
PRICE_ELSEWHERE_DEICTIC: tuple[str, ...] = tuple(_L["PRICE_ELSEWHERE_DEICTIC"])
PRICE_FRAME: str = _rx(_L["PRICE_FRAME"])
PRICE_FRAME_PLATFORM: str = _rx(_L["PRICE_FRAME_PLATFORM"]).replace("<NUM>", _L["_NUM"])


def room_patterns(own: set[str], own_dense: set[str]) -> dict[str, str]:
    """The patterns for a room whose own platforms (normalized: the competitors in its allow list) are `own`: theirs
    left out, and another place (a platform or a store, not the room's) in a price frame or sent to buy there."""
    patterns = {w: rx for w, rx in PATTERNS.items() if normalize(w) not in own}
    places = [p for p in PRICE_ELSEWHERE_PLACES if dense(p) not in own_dense]
    deictic = [p for p in PRICE_ELSEWHERE_DEICTIC if dense(p) not in own_dense]
    # "比超市便宜" compares this room with the place, in its favour: not another seller's offer.
    frames = [f"(?<!比)(?:{'|'.join(map(re.escape, ps))}){frame}" for ps, frame in
              ((places, PRICE_FRAME_PLATFORM), (deictic, PRICE_FRAME)) if ps]
    if frames:
        patterns["别家价格"] = "|".join([patterns.get("别家价格", "(?!)"), *frames])
    if places:
        # sent there to buy, price or not ("去山姆买真牛肉", "还是去天猫下单吧")
        # (the viewer's own habit is no diversion: 我平时去山姆买菜)
        go = (f"(?<![我俺常])(?<!平时)(?<!经常)(?<!之前)(?<!以前)(?<!上次)(?<!我们)(?<!一般)(?:去|到|上)"
              f"(?:{'|'.join(map(re.escape, places))})(?:超市|店|旗舰店|官方店|app)?(?:买(?!菜|东西|点|日用|生活)|下单|拍|搜|看看|囤)")
        patterns["别处购买"] = "|".join([patterns.get("别处购买", "(?!)"), go])
    return patterns

# How a text is read before any rule: emoji and look-alike letters, characters written as components, readings.
EMOJI_STANDINS: dict[str, str] = dict(_DATA["EMOJI_STANDINS"])
COMPONENT_PAIRS: dict[str, str] = dict(_DATA["COMPONENT_PAIRS"])
RADICAL_FORMS: dict[str, str] = dict(_DATA["RADICAL_FORMS"])
LOOKALIKES: dict[str, str] = dict(_DATA["LOOKALIKES"])
READINGS: dict[str, str] = dict(_DATA["READINGS"])
EVERYDAY_WORDS: frozenset[str] = frozenset(_L["EVERYDAY_WORDS"])
COMMON_ABBREVIATIONS: frozenset[str] = frozenset(_L["COMMON_ABBREVIATIONS"])
ALIASES: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in _DATA["ALIASES"].items()}
CONTEXT_ALIASES: dict[str, str] = {k: _rx(v) for k, v in _DATA["CONTEXT_ALIASES"].items()}
ABBREVIATIONS: dict[str, str] = dict(_DATA["ABBREVIATIONS"])

# -- answers --------------------------------------------------------------------------------------------------------

ABSOLUTE_CLAIMS: tuple[str, ...] = tuple(_rx(x) for x in _L["ABSOLUTE_CLAIMS"])
EXACT_PROMISES: frozenset[str] = frozenset(_L["EXACT_PROMISES"])
RETURN_WORDS: str = _rx(_L["RETURN_WORDS"])
RETURN_CONDITIONS: tuple[tuple[str, str], ...] = _pairs("RETURN_CONDITIONS")
RETURN_RESTRICTIONS: str = _rx(_L["RETURN_RESTRICTIONS"])
PROMISES: tuple[tuple[str, str], ...] = _pairs("PROMISES")
