"""How an English room's triage reads a chat line: emotes taken out, noise dropped, cheers kept, questions found.

- Emotes: a Twitch message's `emotes` tag (`25:0-4,12-16/1902:6-10`: emote id, then the code-point ranges it
  fills, when the connector passes it in `Event.extra["emotes"]`), YouTube's `:shortcode:` emoji, and the names
  of common Twitch, BTTV, FFZ and 7TV emotes (a message typed with no tag). A message of emotes alone is
  emote-only: dropped, counted.
- Noise: laughter (lol, lmao, haha, xD, KEKW), lone letters and marks (F, L, ?, ...), filler (ok, hmm, bruh):
  dropped as the Chinese room drops 啊啊啊.
- Cheers: gg, W, pog, hype, let's go — chit-chat the brain may acknowledge (ranked last), kept although short.
- Questions: a line that starts with a question form or ends with '?' or a question tail (lang_en's lists).
The word lists of this module were written by hand for this project.
"""

from __future__ import annotations

import re
from enum import StrEnum

from broadcaster.brain.lang_en import QUESTION_ENDS, QUESTION_STARTS

# Emote names (not words of English) a viewer types for the picture: Twitch globals and the third-party sets
# most channels run. Compared case-sensitively: "Kappa" is an emote, "kappa" may be a word.
EMOTE_NAMES = frozenset({
    "Kappa", "Keepo", "KappaPride", "KappaHD", "PogChamp", "Pog", "PogU", "POGGERS", "PogBones", "LUL", "LULW",
    "OMEGALUL", "KEKW", "KEK", "Kreygasm", "4Head", "5Head", "3Head", "BibleThump", "ResidentSleeper", "DansGame",
    "NotLikeThis", "SeemsGood", "VoHiYo", "HeyGuys", "CoolCat", "TriHard", "WutFace", "SwiftRage", "PJSalt",
    "Jebaited", "monkaS", "monkaW", "monkaHmm", "PepeHands", "Sadge", "Copium", "Pepega", "PepeLaugh", "catJAM",
    "EZ", "Clap", "HYPERS", "widepeepoHappy", "peepoHappy", "peepoSad", "FeelsGoodMan", "FeelsBadMan",
    "FeelsStrongMan", "FeelsOkayMan", "BabyRage", "FailFish", "CoolStoryBob", "TwitchUnity", "GivePLZ", "TakeNRG",
    "MingLee", "SMOrc", "BloodTrail", "HotPokket", "CurseLit", "TheIlluminati", "PunOko", "duDudu", "PowerUpL",
    "PowerUpR", "DoritosChip", "SabaPing", "HSWP", "Squid1", "Squid2", "Squid3", "Squid4", "TwitchConHYPE",
    "PopCorn", "GlitchCat", "StinkyCheese", "NotATK", "CarlSmile", "BOP", "RaccAttack", "PotFriend", "Kippa",
    "KomodoHype", "OhMyDog", "OSFrog", "SSSsss", "VirtualHug", "WholeWheat", "YouWHY", "BegWan", "MrDestructoid",
    "ANELE", "BrokeBack", "Poooound", "NinjaGrumpy", "KPOPheart", "Wowee", "AYAYA", "Pepege", "PepoG", "pepeD",
    "pepeJAM", "pepeLaugh", "Okayge", "Aware", "Clueless", "Stare", "Madge", "Bedge", "Susge", "WAYTOODANK",
    "forsenE", "gachiGASM", "gachiBASS", "monkaGIGA", "COPIUM", "HOLY", "ICANT", "Deadge", "xqcL", "peepoClap",
    "EZY", "GIGACHAD", "Chatting", "Jammies", "NODDERS", "NOPERS", "BASED", "WICKED", "OMEGADANCE", "KEKL",
})
_SHORTCODE = re.compile(r":[a-z0-9][a-z0-9_-]{1,40}:", re.I)  # YouTube emoji as text (:hand-pink-waving:)
_EMOTES_TAG = re.compile(r"^\w+:\d+-\d+(?:,\d+-\d+)*(?:/\w+:\d+-\d+(?:,\d+-\d+)*)*$")

_LAUGHTER = re.compile(
    r"^(?:l+o+l+[sz]?|l+u+l+[wz]?|lel|l+m+f*a+o+|l+m+a+o+f*|r+o+f+l+|(?:h+a+)+h*|(?:a*h+a+)+|(?:h+e+)+h*|(?:h+i+){2,}|"
    r"x+d+|k+e+k+[wl]?|o+m+e+g+a+l+u+l+|j+a+j+a+[ja]*|(?:ha|he|hi|jk)+)$")
_NOISE_WORDS = frozenset({
    "f", "l", "rip", "ok", "okay", "k", "kk", "kkk", "hm", "hmm", "hmmm", "uh", "um", "umm", "bruh", "bro", "huh",
    "oh", "ohh", "ah", "ahh", "mhm", "ye", "yea", "yeah", "ya", "nah", "no", "yes", "same", "true", "fr", "real",
    "ded", "dead", "sheesh", "oof", "yikes", "welp", "first", "1st", "1", "2", "+1", "-1", "+2", "x",
})
_CHEER_WORDS = frozenset({
    "w", "ww", "www", "dub", "gg", "ggs", "ggwp", "gj", "wp", "pog", "poggers", "pogchamp", "pogu", "hype", "hyped",
    "yay", "woo", "woohoo", "nice", "wow", "omg", "lets", "let's", "go", "lesgo", "lessgo", "letsgo", "clutch",
    "goat", "goated", "fire", "lit", "based", "king", "queen", "legend", "love", "<3", "cute", "ez", "clap",
    "10/10",
})
_CHEER_RE = re.compile(r"^(?:w+|g+o+|l+e+t+s+g+o+|y+e+s+|y+a+y+|w+o+o+|h+y+p+e+|n+i+c+e+|g+g+)$")
_TOKEN = re.compile(r"[a-z0-9'+/<-]+|[^\sa-z0-9]", re.I)
_QUESTION_START = re.compile(r"^(?:" + "|".join(re.escape(q) for q in sorted(QUESTION_STARTS, key=len, reverse=True))
                             + r")(?![a-z])", re.I)
_QUESTION_END = re.compile(r"(?:\?|(?<![a-z])(?:" + "|".join(re.escape(q) for q in QUESTION_ENDS if q != "?")
                           + r"))\W*$", re.I)


class Reading(StrEnum):
    NOISE = "noise"
    CHEER = "cheer"
    TEXT = "text"


def emote_spans(tag: str) -> list[tuple[int, int]]:
    """Twitch's `emotes` tag → (start, end) code-point spans, end exclusive; [] for a missing or odd tag."""
    if not tag or not _EMOTES_TAG.match(tag):
        return []
    spans = []
    for emote in tag.split("/"):
        for rng in emote.partition(":")[2].split(","):
            a, _, b = rng.partition("-")
            if int(a) <= int(b):
                spans.append((int(a), int(b) + 1))
    return sorted(spans)


def without_emotes(text: str, emotes_tag: str = "") -> str:
    """The message with its emotes taken out (the tag's spans, :shortcodes:, known emote names)."""
    spans = emote_spans(emotes_tag)
    if spans and spans[-1][1] <= len(text):
        kept, pos = [], 0
        for a, b in spans:
            if a >= pos:
                kept.append(text[pos:a])
                pos = b
        kept.append(text[pos:])
        text = " ".join(kept)
    text = _SHORTCODE.sub(" ", text)
    return " ".join(w for w in text.split() if w.strip(".,!?") not in EMOTE_NAMES)


def reading(text: str) -> Reading:
    """NOISE (nothing to answer or acknowledge), CHEER (friendly and short) or TEXT, for a line without emotes."""
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    words = [t for t in tokens if any(c.isalnum() for c in t) or t == "<3"]
    if not words:
        return Reading.NOISE  # marks alone: "???", "..."
    noise = [w in _NOISE_WORDS or bool(_LAUGHTER.match(w)) for w in words]
    if all(noise):
        return Reading.NOISE
    if len(words) <= 4 and all(n or w in _CHEER_WORDS or bool(_CHEER_RE.match(w)) for w, n in zip(words, noise,
                                                                                                    strict=True)):
        return Reading.CHEER
    return Reading.TEXT


def is_question(text: str) -> bool:
    """A question by its form: 'how much is shipping', 'does it come in red', 'ships to canada right?'."""
    t = " ".join(text.split())
    return bool(_QUESTION_START.match(t) or _QUESTION_END.search(t))
