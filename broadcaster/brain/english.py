"""An English room's moderation: lang_en.py's lists compiled into rules beside the language-neutral ones.

moderation.Moderator(language="en") reads every text with (english_verdict):
- `word`: PROFANITY, SLURS, THREATS, the hard INSULTS and the banned-trade lists (traffic diversion, competitors,
  scams, gambling, drugs, sexual solicitation) and POLITICAL (political.py) as whole words or phrases, in the text
  lower-cased with its runs of spaces squeezed;
- `aimed`: the soft insults ('bot', 'trash', 'ugly', 'fraud' …) only when aimed at the host, the shop or a viewer
  ("you're ugly", "this stream is trash", "clown") — "the old one was garbage" insults no one;
- `latin`: EVASION_STEMS spelled with LEET look-alikes and SEPARATOR between their letters ("f.u.c.k", "sh1t",
  "f u c k"); an app's name (discord, instagram …) only when disguised — "is it on instagram?" names a platform;
- `pattern`: PROFANITY_PATTERNS and CONTACT_PATTERNS;
- the Chinese rules (moderation.Moderator, contacts.find_contact among them) on a text with CJK in it; a text without
  reads the same kinds of contact (phone numbers, web addresses, an app and an id, handles) in CONTACT_PATTERNS,
  with spaces kept (find_contact reads a text without them, where "wide and 18 cm" is an id after "id").
ALLOWED_INSIDE (and the room's allow list) are the innocent words a listed word or a loose pattern hides in
("Scunthorpe", "class", "assess", "cocktail"): a match inside one of them is no match. A question that names a
competitor's store without sending anyone there ("is it cheaper on amazon?") is a viewer asking (english_comment_ok).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

from broadcaster.brain.intent_en import is_question_en
from broadcaster.brain.lang_en import (
    ALLOWED_INSIDE,
    COMPETITOR_DIVERSION,
    CONTACT_PATTERNS,
    DRUGS,
    EVASION_STEMS,
    GAMBLING,
    INSULTS,
    LEET,
    PROFANITY,
    PROFANITY_PATTERNS,
    SCAM,
    SEPARATOR,
    SEX_SOLICITATION,
    SLURS,
    THREATS,
    TRAFFIC_DIVERSION,
)
from broadcaster.brain.political import political_en
from broadcaster.brain.verdict import OK, Verdict
from broadcaster.brain.wordlists import LOOKALIKES

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# Insults that are ordinary words too: they insult only when aimed (see _aimed).
SOFT_INSULTS = frozenset({
    "stupid", "dumb", "loser", "losers", "pathetic", "ugly", "pig", "trash", "garbage", "clown", "cringe", "worthless",
    "useless", "scammer", "fraud", "liar", "creep", "weirdo", "freak", "bot", "robot voice", "simp",
})
_TARGET = (r"(?:you|u|you're|youre|you are|u r|ya|(?:your|ur) (?:voice|face|looks|stream|channel|show|shop|store|accent|"
           r"english|makeup|hair|content)|this (?:shop|store|stream|channel|host|streamer|guy|girl|lady|seller|brand|"
           r"company)|the (?:host|streamer|anchor|seller|shop|store|stream)|host|streamer|anchor|she|he|she's|he's|shes|"
           r"hes|what a|such a|ur a|you're a|youre a)(?![a-z0-9'])")
# Listed words that are everyday English too ("a crack in the buckle", "lean on it", "do you take bitcoin", "time
# slots"): they count only with a sale, a contact or a payout cue in the comment.
_NEEDS_CUE = frozenset({"crack", "lean", "molly", "oxy", "ket", "fent", "weed", "edibles", "bitcoin", "btc", "usdt",
                        "ethereum", "airdrop", "slots", "jackpot"})
_CUE = re.compile(r"\b(?:buy|buying|sell|selling|sale|dm|pm|plug|cheap|hmu|text me|deliver(?:ed|y)?|grams?|g|oz|"
                  r"invest(?:ment)?|double|profit|free|win|won|deposit|casino|bet|send|link|code|cash ?app|"
                  r"discreet|tonight|pills?|carts?)\b", re.IGNORECASE)
# The worst words, matched inside a longer word too ("shitlord", "fuckboy", "xXbitchXx"), outside ALLOWED_INSIDE.
_INSIDE_STEMS = ("fuck", "shit", "bitch", "cunt", "nigger", "nigga", "faggot", "asshole", "whore")
_APPS = frozenset({"telegram", "whatsapp", "discord", "instagram", "snapchat", "wechat"})
# Only what the viewer's words mean: a question that names a store does not send anyone there unless it says so.
_SENDS_AWAY = re.compile(r"\b(?:buy|get|order|go|went|check|visit|dm|message|my (?:store|shop)|don'?t|dont|instead|"
                         r"link|search)\b", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
# A Chinese app and an id in latin letters ("qq 12345678", "wx tea888"): contacts.find_contact's rule, for a text
# without CJK (find_contact reads text without spaces, where "wide and 18 cm" is an id after "id").
_APP_ID = (r"\b(?:qq|wx|vx|weixin|wechat|telegram|tg|whatsapp|kik|snap|line|signal)\s*(?:id|number|no\.?)?\s*[:=@#]?\s*"
           r"(?=[a-z0-9_.\-]*\d)[a-z0-9_.\-]{5,}")
# An order, tracking or model number is no phone number ("order 1234567 hasn't arrived").
_ORDER_NO = re.compile(r"\b(?:order|tracking|parcel|package|item|sku|model|invoice|ref(?:erence)?)\s*(?:no\.?|number|num|"
                       r"#|id|code)?\s*[:#]?\s*[a-z]{0,3}\d{4,}", re.IGNORECASE)


def _lower(text: str) -> str:
    return _SPACES.sub(" ", _LOOKS.sub(_latin, unicodedata.normalize("NFKC", text)).lower()).strip()


# A word of latin letters with Cyrillic or Greek look-alikes among them ("tеlеgrаm" with Cyrillic е and а) is read in
# latin letters; a word wholly in another script is left as written.
_FOLD_LOOKS = str.maketrans({**LOOKALIKES, **{k.upper(): v for k, v in LOOKALIKES.items() if k.upper() != k}})
_LOOKS = re.compile(r"\S*[A-Za-z]\S*")


def _latin(m: re.Match[str]) -> str:
    return m.group(0).translate(_FOLD_LOOKS)


def _phrases(words: Iterable[str]) -> str:
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(set(words), key=len, reverse=True))


def _whole(words: Iterable[str]) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9])(?:{_phrases(words)})(?![a-z0-9])")


def _evasion(stem: str) -> str:
    """A stem's letters, each as itself or a LEET look-alike, with SEPARATOR between them (spaces inside the stem's
    own phrase count as a separator too)."""
    letters = [c for c in stem if c != " "]
    parts = ["[" + re.escape("".join(dict.fromkeys(c + LEET.get(c, "")))) + "]+" for c in letters]
    return SEPARATOR.join(parts)


class EnglishRules:
    """The English lists as compiled rules: hits(text) → (listed word, rule, what in the text it was)."""

    def __init__(self, allow: Iterable[str] = (), own_words: Iterable[str] = ()) -> None:
        hard_insults = [w for w in INSULTS if w not in SOFT_INSULTS]
        self._words = {
            "profanity": _whole(PROFANITY), "slur": _whole(SLURS), "insult": _whole(hard_insults),
            "threat": _whole(THREATS), "traffic diversion": _whole(TRAFFIC_DIVERSION),
            "competitor": _whole(COMPETITOR_DIVERSION), "scam": _whole(SCAM), "gambling": _whole(GAMBLING),
            "drugs": _whole(DRUGS), "sexual solicitation": _whole(SEX_SOLICITATION),
        }
        soft = _phrases(SOFT_INSULTS)
        self._aimed = re.compile(
            rf"(?<![a-z0-9]){_TARGET}(?:\s+\S+){{0,3}}?\s+(?:is\s+|are\s+|so\s+|such\s+|a\s+|an\s+|just\s+|literally\s+|"
            rf"the\s+|sound\s+like\s+|look\s+|looks\s+|voice\s+is\s+)*(?:{soft})(?![a-z0-9])"
            rf"|(?<![a-z0-9])(?:{soft})\s+(?:host|streamer|anchor|stream|shop|store|seller|bot|lady|guy)(?![a-z0-9])"
            rf"|^(?:{soft})(?:\s+(?:lol|lmao|af|tbh))?[\s!.]*$")
        self._stems = [(stem, re.compile(rf"(?<![a-z0-9])(?:{_evasion(stem)})(?![a-z])")) for stem in EVASION_STEMS]
        self._patterns = [(rx, re.compile(rx, re.IGNORECASE)) for rx in PROFANITY_PATTERNS]
        self._contacts = [(rx, re.compile(rx, re.IGNORECASE)) for rx in (*CONTACT_PATTERNS, _APP_ID)]
        # the room's own listed words in latin letters, as whole words (a room that bans "vape")
        own = [w.lower() for w in own_words if w and w.isascii()]
        if own:
            self._words["room word"] = _whole(own)
        allowed = {a.lower() for a in (*ALLOWED_INSIDE, *allow) if a and a.isascii()}
        self._allow = re.compile(r"[a-z]*(?:" + _phrases(allowed) + r")[a-z]*") if allowed else None

    def _allowed_spans(self, low: str) -> list[tuple[int, int]]:
        return [m.span() for m in self._allow.finditer(low)] if self._allow is not None else []

    def hits(self, text: str, *, contacts: bool = True) -> list[tuple[str, str, str]]:
        low = _lower(text)
        spans = self._allowed_spans(low)

        def free(m: re.Match[str]) -> bool:  # not inside an allowed word
            return not any(a <= m.start() and m.end() <= b for a, b in spans)

        out: list[tuple[str, str, str]] = []
        cue = _CUE.search(low) is not None
        for kind, rx in self._words.items():
            for m in rx.finditer(low):
                if free(m) and (cue or m.group(0) not in _NEEDS_CUE):
                    out.append((kind, "word", m.group(0)))
                    break
        for stem in _INSIDE_STEMS:
            for m in re.finditer(stem, low):
                if free(m):
                    out.append((stem, "inside", m.group(0)))
                    break
        m = political_en(low)
        if m:
            out.append(("political", "word", m))
        m2 = self._aimed.search(low)
        if m2 is not None and free(m2):
            out.append(("insult", "aimed", m2.group(0)))
        for stem, rx in self._stems:
            for m in rx.finditer(low):
                disguised = m.group(0).replace(" ", "") != stem.replace(" ", "")
                if free(m) and (disguised or stem not in _APPS):
                    out.append((stem, "latin", m.group(0)))
                    break
        for kind, rules in (("profanity", self._patterns), ("contact", self._contacts if contacts else [])):
            for _, rx in rules:
                m = rx.search(low if kind == "profanity" else _ORDER_NO.sub(" ", low))
                if m is not None and free(m):
                    out.append((kind, "pattern", m.group(0)))
                    break
        return out


def english_verdict(rules: EnglishRules, text: str, chinese: Callable[[str], Verdict], *, contacts: bool,
                    action: str) -> Verdict:
    """An English room's verdict on a text: the English rules, the Chinese rules (`chinese`) on a text with CJK in it,
    the language-neutral contact rules on every other one."""
    hits = rules.hits(text, contacts=contacts)
    if _CJK.search(text):
        v = chinese(text)
        if not v.ok:
            hits.extend(zip(v.matched, v.how, v.spans or ("",) * len(v.matched), strict=True))
    if not hits:
        return OK
    seen: dict[str, tuple[str, str]] = {}
    for word, how, span in hits:
        seen.setdefault(word, (how, span))
    return Verdict(ok=False, matched=tuple(seen), how=tuple(h for h, _ in seen.values()), action=action,
                   spans=tuple(s for _, s in seen.values()))


def english_comment_ok(v: Verdict, text: str) -> bool:
    """A viewer asking, not diverting: an English question whose only hit is a competitor's store named, sending no
    one there ("is it cheaper on amazon?", "same as the one on temu?")."""
    return (not v.ok and not _CJK.search(text) and is_question_en(text) and all(w == "competitor" for w in v.matched)
            and not _SENDS_AWAY.search(text))
