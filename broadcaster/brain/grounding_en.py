"""What an English answer sentence may state against the facts: its figures, what the facts deny or limit, names.

The Chinese guard reads figures with their units and claims by frames (figures.py, claims.py); an English sentence is
read by words instead. A sentence is unsupported when it
- states a number the facts do not state next to the same word ("two-year warranty" where they say 1-year);
- says without a negation what a fact denies ("it crushes whole ice cubes" against "cannot crush whole ice cubes"),
  or says for everyone or everywhere what a fact limits or refuses ("every order gets the cup", "ships everywhere");
- names something the facts never name (a carrier, a country, a brand: "FedEx", "the UK");
- is mostly words the facts never use (the model's own story: "blend hot coffee straight from the pot").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

_WORD = re.compile(r"[A-Za-z][A-Za-z']*|\d+(?:[.,]\d+)*")
_NUMBER_WORDS = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"])} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
                                                     "hundred": 100, "thousand": 1000, "dozen": 12, "half": 0.5}
_NEGATION = frozenset(["not", "no", "never", "cannot", "can't", "won't", "isn't", "aren't", "doesn't", "don't", "didn't", "wasn't", "nor", "without", "neither", "nothing", "none"])
_UNIVERSAL = re.compile(r"\b(?:every(?:one|body|where| single)?|all (?:orders?|of you|states|countries|over)|always|"
                        r"no limit|unlimited|any(?:one|where| order)|for (?:life|ever)|forever|lifetime)\b", re.I)
_LIMITING = re.compile(r"\b(?:first \d+|limited|only|up to|while (?:supplies|stocks?) last|per order|not|no|never|"
                       r"cannot|outside)\b", re.I)
# Function words and the words of speech an anchor adds to any fact (none of them states a fact).
_STOP = frozenset(["a", "an", "the", "and", "or", "but", "so", "if", "then", "than", "that", "this", "these", "those", "there", "here", "it", "its", "it's", "they", "them", "their", "you", "your", "you're", "we", "we're", "our", "us", "i", "i'm", "me", "my", "he", "she", "his", "her", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done", "have", "has", "had", "having", "will", "would", "can", "could", "should", "may", "might", "must", "shall", "to", "of", "in", "on", "at", "by", "for", "with", "from", "into", "onto", "over", "under", "about", "as", "up", "down", "out", "off", "just", "also", "even", "too", "very", "really", "quite", "pretty", "super", "totally", "absolutely", "definitely", "honestly", "sure", "yes", "yeah", "yep", "okay", "ok", "oh", "hey", "hi", "great", "good", "nice", "love", "awesome", "amazing", "perfect", "fine", "well", "like", "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "all", "any", "some", "more", "most", "much", "many", "each", "both", "few", "other", "another", "such", "own", "same", "just", "now", "today", "right", "get", "gets", "got", "go", "goes", "going", "make", "makes", "made", "one", "thing", "things", "stuff", "lot", "lots", "way", "ways", "bit", "little", "kind", "sort", "let", "let's", "don't", "doesn't", "isn't", "aren't", "can't", "won't", "not", "no", "never", "please", "thanks", "thank", "welcome", "guys", "everyone", "folks", "friend", "friends", "question", "questions", "ask", "asking", "asked", "answer", "great", "news", "tell", "told", "say", "said", "see", "look", "looks", "want", "wants", "need", "needs", "use", "uses", "used", "using", "work", "works", "fine", "problem", "problems", "worry", "worries", "glad", "happy", "sorry", "ahead", "course", "actually", "basically", "literally", "simply", "simple", "easy", "easily", "quick", "quickly", "fast", "within", "after", "before", "until", "while", "per", "every", "single", "off"])
_CAP = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][A-Za-z]+|\b[A-Z]{2,}\b")


def _stem(word: str) -> str:
    w = word.lower().strip("'")
    for suffix in ("'s", "ies", "ing", "ed", "es", "s", "ly"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    return w[:6]


def _tokens(text: str) -> list[str]:
    """Lower-case words with numbers as digits (number words read: 'two-year' → 2, year)."""
    out: list[str] = []
    for t in _WORD.findall(text.replace("-", " ")):
        low = t.lower()
        if low in _NUMBER_WORDS:
            out.append(str(_NUMBER_WORDS[low]))
        else:
            out.append(low.replace(",", ""))
    return out


def _is_number(tok: str) -> bool:
    return tok[:1].isdigit()


def _content(tokens: Iterable[str]) -> list[str]:
    return [_stem(t) for t in tokens if not _is_number(t) and t not in _STOP and len(t) > 1]


def _neighbours(tokens: list[str], i: int, reach: int = 3) -> set[str]:
    around = tokens[max(0, i - reach) : i] + tokens[i + 1 : i + 1 + reach]
    return set(_content(around))


_NOT_A_NEGATION = re.compile(r"\bno (?:problem|worries|doubt|question)\b|\bno limit\b|\bnot only\b", re.I)


def _negated(clause: str) -> bool:
    return bool(_NEGATION & set(_tokens(_NOT_A_NEGATION.sub(" ", clause))))


def _clauses(text: str) -> list[str]:
    return [c for c in re.split(r"[.;!?\n]+|,\s*(?:but|so|and)\s+|\bbut\b", text) if c.strip()]


class EnglishFacts:
    """The facts read once per answer (or per knowledge base) for checking English sentences."""

    def __init__(self, texts: Iterable[str]) -> None:
        text = "\n".join(texts)
        tokens = _tokens(text)
        self.stems = set(_content(tokens))
        self.names = {m.group(0).lower() for m in re.finditer(r"\b[A-Za-z][A-Za-z]+\b", text)}
        self.numbers: dict[str, set[str]] = {}
        for i, t in enumerate(tokens):
            if _is_number(t):
                self.numbers.setdefault(t, set()).update(_neighbours(tokens, i))
        # the content words of each clause the facts negate, and of each they limit
        self.denials: list[frozenset[str]] = []
        self.limits: list[frozenset[str]] = []
        for clause in _clauses(text):
            toks = _tokens(clause)
            words = frozenset(_content(toks))
            if not words:
                continue
            if _negated(clause):
                self.denials.append(words)
            if _LIMITING.search(clause):
                self.limits.append(words)

    def unsupported(self, sentence: str) -> str:
        """Why the facts do not support this sentence, or ''."""
        tokens = _tokens(sentence)
        for i, t in enumerate(tokens):
            if not _is_number(t):
                continue
            near = _neighbours(tokens, i)
            stated = self.numbers.get(t)
            if stated is None or (near and not near & stated):
                return f"ungrounded number {t}" + (f" ({', '.join(sorted(near))})" if near else "")
        for clause in _clauses(sentence):
            toks = _tokens(clause)
            words = set(_content(toks))
            negated = _negated(clause)
            if not negated:
                for d in self.denials:
                    shared = d & words
                    if len(shared) >= min(2, len(d)) and len(shared) >= 1 and len(d) <= 6:
                        return f"against the facts: {' '.join(sorted(shared))} (the facts deny it)"
            universal = _UNIVERSAL.search(clause)
            if universal:
                for d in (*self.limits, *self.denials):
                    if d & words:
                        return f"said for everyone where the facts limit it: {universal.group(0)}"
            if not negated:
                for m in _CAP.finditer(clause.strip()):
                    name = m.group(0).lower()
                    if name not in self.names and name not in _STOP and len(name) > 1:
                        return f"names what the facts never name: {m.group(0)}"
        # what a sentence refuses ("we don't ship to Germany") tells no story of its own
        words = [w for c in _clauses(sentence) if not _negated(c) for w in _content(_tokens(c))]
        novel = [w for w in words if w not in self.stems]
        if len(novel) >= 2 and len(novel) >= 0.4 * len(words):
            return f"words the facts never use: {', '.join(novel)}"
        return ""


_LEAK = re.compile(r"\b(?:according to my|(?:my|the) (?:knowledge base|kb|system prompt|prompt|instructions?|script|"
                   r"guidelines|notes|briefing|docs?)\b|i(?:'m| am| was) (?:told|instructed|programmed|set up|configured|"
                   r"not allowed|supposed) to|my (?:rules|operators?|programming|developers?) (?:say|tell|told|want))",
                   re.I)


def leak_en(sentence: str) -> str:
    """What the model was given or told, said on air ("according to my knowledge base", "I'm told to …")."""
    m = _LEAK.search(sentence)
    return f"prompt leak: {m.group(0)}" if m else ""


@functools.lru_cache(maxsize=16)
def english_facts(text: str) -> EnglishFacts:
    """The facts of a knowledge base read once, not once per answer."""
    return EnglishFacts([text])


def is_english(sentence: str) -> bool:
    return re.search(r"[\u3400-\u9fff]", sentence) is None and re.search(r"[A-Za-z]{2}", sentence) is not None
