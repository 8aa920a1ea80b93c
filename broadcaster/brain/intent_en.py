"""What an English question asks: its form (QUESTION_STARTS, QUESTION_ENDS), its slots (SLOT_WORDS) and the evidence
an English fact carries for a slot (lang_en.py's lists compiled; intent.py dispatches English text here).

A text is English when it has no CJK character and at least one latin word: intent.slots and intent.evidence read such a
text with these lists (a Chinese text is read exactly as before), so the facts of an English knowledge base answer an
English question ("how much is shipping to canada" → the fact that says shipping). Slot names follow intent.SLOTS where
the two languages share a slot (materials → material, how_to_use → howto), so the show's live answers (price, stock)
and the guard read one name.
"""

from __future__ import annotations

import functools
import re

from broadcaster.brain.lang_en import AMOUNT_PATTERNS, QUESTION_ENDS, QUESTION_STARTS, SLOT_WORDS

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[a-z]{2,}", re.IGNORECASE)
_NAMES = {"materials": "material", "how_to_use": "howto"}

# Words of SLOT_WORDS too common in English to name a slot on their own in a question ("how long is shipping" is not a
# size question, "any left" is stock but "left" alone is a side, "each"/"total"/"code" are not a price unless asked).
_TOO_COMMON = frozenset({"long", "small", "medium", "large", "left", "each", "total", "post", "clear", "hold", "holds",
                         "care", "support", "natural", "contains", "plug", "original", "official", "offer", "code",
                         "tall", "wide", "deal", "sale", "limited", "gold", "silver", "clean", "charge", "fit", "fits"})
# Evidence words a fact uses for a slot beyond the question's words (a fact says "ships", "business days", "$39").
_EVIDENCE_EXTRA: dict[str, str] = {
    "price": "|".join(AMOUNT_PATTERNS) + r"|\bpriced?\b|\bcosts?\b|\bfree\b",
    "shipping": r"\bship(?:s|ped|ping)?\b|\bdeliver(?:y|ed|s)?\b|business days?|\bcarriers?\b|\bdispatch(?:ed)?\b",
    "returns": r"\breturns?\b|\brefunds?\b|\bexchanges?\b|\bunused\b",
    "warranty": r"\bwarrant(?:y|ies)\b|\brepairs?\b|\breplace(?:ment|d)?\b",
    "size": r"\bsizes?\b|\b(?:xs|s|m|l|xl|xxl)\b|\bcm\b|\binch(?:es)?\b|\bmm\b|\bwide\b|\btall\b|\blong\b",
    "howto": r"\bwash(?:ed|ing)?\b|\bclean(?:ed|ing)?\b|\bdishwasher\b|\bcharg(?:e|es|ed|ing)\b|\bhand wash\b",
    "stock": r"\bin stock\b|\bunits?\b|\bleft\b|\brestock(?:ed|ing)?\b|\bsold out\b",
    "color": r"\bcolou?rs?\b|\b(?:black|white|red|blue|green|pink|grey|gray|navy|beige|olive|sand)\b",
    "capacity": r"\b\d+\s?(?:ml|l|liters?|litres?|oz)\b|\bholds?\b|\bcapacity\b",
    "material": r"\bmade (?:of|from)\b|\b(?:nylon|polyester|cotton|steel|aluminium|aluminum|leather|plastic)\b",
    "origin": r"\bmade in\b|\bbrand\b|\bdesigned in\b",
}


def english(text: str) -> bool:
    """A text read with the English lists: no CJK character, and a latin word in it."""
    return _CJK.search(text) is None and _WORD.search(text) is not None


def _phrases(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(set(words), key=len, reverse=True))


def _whole(alternation: str) -> re.Pattern[str]:
    # a listed word as a whole word, with the plural or verb 's' a viewer adds ("ship" in "ships")
    return re.compile(rf"(?<![a-z0-9])(?:{alternation})(?:e?s)?(?![a-z0-9])", re.IGNORECASE)


# Slots lang_en.SLOT_WORDS has no words for: what it weighs (intent.SLOTS' weight) and what comes with it.
_MORE_SLOTS: dict[str, tuple[str, ...]] = {
    "weight": ("weight", "weigh", "weighs", "how heavy", "heavy", "lightweight", "how light"),
    "contents": ("in the box", "comes with", "come with", "included", "include", "includes", "what's included",
                 "whats included", "accessories"),
}
_MORE_EVIDENCE = {"weight": r"\bweighs?\b|\d\s?(?:kg|g|grams?|lbs?|pounds?|oz)\b",
                  "contents": r"\bships with\b|\bcomes? with\b|\bincludes?\b|\bincluded\b|\bin the box\b"}
_WORDS = {**SLOT_WORDS, **_MORE_SLOTS}
_SLOT_Q = {_NAMES.get(s, s): _whole(_phrases(tuple(w for w in ws if w not in _TOO_COMMON)))
           for s, ws in _WORDS.items()}
# "how many are left", "any left in black": stock, though "left" alone is a side
_SLOT_Q["stock"] = re.compile(_SLOT_Q["stock"].pattern + r"|\bhow many\b.{0,20}\bleft\b|\bany\b.{0,12}\bleft\b",
                              re.IGNORECASE)
_SLOT_Q["price"] = re.compile(_SLOT_Q["price"].pattern + "|" + "|".join(AMOUNT_PATTERNS), re.IGNORECASE)
_EVIDENCE = {_NAMES.get(s, s): re.compile(_whole(_phrases(ws)).pattern
                                          + ("|" + _EVIDENCE_EXTRA[_NAMES.get(s, s)] if _NAMES.get(s, s) in _EVIDENCE_EXTRA
                                             else ""), re.IGNORECASE)
             for s, ws in SLOT_WORDS.items()}
_EVIDENCE.update({s: re.compile(_whole(_phrases(ws)).pattern + "|" + _MORE_EVIDENCE[s], re.IGNORECASE)
                  for s, ws in _MORE_SLOTS.items()})
# Words added to an English question for retrieval, as intent.SLOT_TERMS does (only those the KB uses are added).
SLOT_TERMS_EN: dict[str, str] = {
    "price": "price costs", "shipping": "ships shipping delivery", "size": "size sizes", "returns": "returns refund",
    "warranty": "warranty repair", "material": "made material", "howto": "wash clean use", "stock": "stock left",
    "color": "colors colours", "capacity": "capacity holds", "compatibility": "compatible works",
    "origin": "made brand", "weight": "weighs", "contents": "ships with",
}

_STARTS = re.compile(rf"^(?:{_phrases(tuple(s for s in QUESTION_STARTS if s[-1].isalnum()))})(?![a-z0-9])"
                     rf"|^(?:{_phrases(tuple(s for s in QUESTION_STARTS if not s[-1].isalnum()))})", re.IGNORECASE)
_ENDS = re.compile(rf"(?:(?<![a-z0-9])(?:{_phrases(tuple(e for e in QUESTION_ENDS if e.isalnum() or ' ' in e))})"
                   r"|\?)[\s.!~]*$", re.IGNORECASE)
# A yes-no question said inside the comment after a greeting or a name ("hey, is it waterproof", "ok so does it …").
_INSIDE = re.compile(r"(?:^|[,.!;:]\s*|\b(?:so|and|but|also|hey|hi|ok|okay|btw)\s+)(?:is|are|does|do|can|will|would|could|"
                     r"how|what|when|where|which|who|why|r u|do u|does it|did)\s+\w", re.IGNORECASE)


@functools.lru_cache(maxsize=8192)
def slots_en(text: str) -> frozenset[str]:
    """The slots an English question asks for."""
    low = " ".join(text.lower().split())
    return frozenset(s for s, rx in _SLOT_Q.items() if rx.search(low))


def evidence_en(slot: str, sentence: str) -> bool:
    """Whether an English sentence carries what the slot asks (the slot's words, a price's amount …)."""
    rx = _EVIDENCE.get(slot)
    return bool(rx is not None and rx.search(sentence))


def is_question_en(text: str) -> bool:
    """An English question by its form: a question start (how much, is it, r u …), a question tail (?, right, or not)
    or a question said after a greeting."""
    t = " ".join(text.strip().lower().split())
    return bool(t) and (_STARTS.search(t) is not None or _ENDS.search(t) is not None or _INSIDE.search(t) is not None)
