"""Word-list moderation that resists evasion: spacing/symbols, full-width, traditional, pinyin, homophones.

Every text is looked at in three views:
- `dense`: normalized (NFKC, traditional → simplified, lower) with everything but letters and CJK
  removed, so "傻 * 逼", "傻1逼" and "傻逼" (full-width or traditional) read the same;
- `pinyin`: the dense view with each CJK character replaced by its toneless pinyin, so same-sound
  substitutes ("沙比") and latin spellings ("sha bi") of a listed word match at syllable boundaries;
- `latin`: words of the normalized text with leetspeak undone and spaced-out letters joined
  ("f u c k", "f.u.c.k", "sh1t"), matched on word starts so "class" does not hit "ass".
An allow list removes known-good phrases first. Pinyin matching needs two syllables or more.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pypinyin import lazy_pinyin
from pypinyin.pinyin_dict import pinyin_dict

from broadcaster.brain.textnorm import dense, is_cjk_char, normalize

# A small global list every room gets unless `use_global: false` (insults, fraud/gambling/drug ads,
# sexual services). Rooms add their own words.
GLOBAL_WORDS: tuple[str, ...] = (
    "傻逼", "操你妈", "草泥马", "你妈的", "他妈的", "狗日的", "去死吧", "脑残", "智障",
    "赌博", "博彩", "网赌", "六合彩", "毒品", "冰毒", "海洛因", "摇头丸",
    "约炮", "裸聊", "色情", "嫖娼", "代孕", "办证", "刷单返利", "加微信", "私加微信",
    "fuck", "shit", "bitch", "asshole",
)

_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i"})
_SPACED_LETTERS = re.compile(r"(?<![a-z])[a-z](?![a-z])(?:[^a-z0-9]{1,3}[a-z](?![a-z]))+")
_BREAK = "|"
_HAS_LATIN = re.compile(r"[a-z]")


@functools.lru_cache(maxsize=65536)
def char_pinyin(c: str) -> str:
    """Toneless pinyin of one CJK character (its most common reading), or '' if unknown."""
    reading = pinyin_dict.get(ord(c))
    if not reading:
        return ""
    first = reading.split(",")[0].replace("ü", "v")
    return "".join(ch for ch in unicodedata.normalize("NFD", first) if not unicodedata.combining(ch))


@functools.cache
def _chars_by_syllable() -> dict[str, tuple[int, ...]]:
    """Every code point of the pinyin table grouped by its toneless reading (built once, ~0.2 s)."""
    groups: dict[str, list[int]] = {}
    for cp in pinyin_dict:
        groups.setdefault(char_pinyin(chr(cp)), []).append(cp)
    return {k: tuple(v) for k, v in groups.items()}


def _word_pinyin(word: str) -> str:
    return "".join(lazy_pinyin(word)).replace("ü", "v").lower()


@dataclass(frozen=True, slots=True)
class Verdict:
    ok: bool
    matched: tuple[str, ...] = ()  # the listed words that were hit
    how: tuple[str, ...] = ()  # per match: "text" | "pinyin" | "latin"
    action: str = ""  # the configured action when not ok

    def describe(self) -> str:
        if self.ok:
            return "ok"
        hits = ", ".join(f"{w} ({h})" for w, h in zip(self.matched, self.how, strict=True))
        return f"blocked: {hits}; action={self.action}"


OK = Verdict(ok=True)


def load_words(path: Path) -> list[str]:
    """One word per line; blank lines and '#' comments ignored."""
    words: list[str] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            words.append(line)
    return words


class Moderator:
    """Checks texts against the room + global word lists; thread-safe and allocation-light."""

    def __init__(self, words: Iterable[str], *, allow: Iterable[str] = (), pinyin: bool = True,
                 action: str = "replace") -> None:
        self.action = action
        self.use_pinyin = pinyin
        cjk: dict[str, str] = {}
        py: dict[str, str] = {}
        py_words: list[str] = []
        latin: dict[str, str] = {}
        for word in words:
            d = dense(word)
            if not d:
                continue
            if any(is_cjk_char(c) for c in d):
                cjk[d] = word
                if pinyin and sum(is_cjk_char(c) for c in d) >= 2:
                    py.setdefault(_word_pinyin(d), word)
                    py_words.append(d)
            else:
                latin[d] = word
        self.words = sorted({*cjk.values(), *latin.values()})
        self._cjk = cjk
        self._py = py
        self._latin = latin
        self._cjk_re = self._alternation(cjk)
        self._py_re = self._alternation(py, overlapping=True)
        self._latin_re = re.compile(r"(?<![a-z])(" + "|".join(map(re.escape, sorted(latin, key=len, reverse=True))) + ")") if latin else None
        self._allow = sorted({dense(a) for a in allow if dense(a)}, key=len, reverse=True)
        # Characters that sound like a syllable of some listed word: a text with fewer than two of
        # them (and no latin letters) cannot match by pinyin, so the per-character walk is skipped.
        by_syllable = _chars_by_syllable() if py else {}
        self._sound_alike: dict[int, None] = {
            cp: None for syl in {s for w in py_words for s in lazy_pinyin(w)} for cp in by_syllable.get(syl, ())
        }

    @staticmethod
    def _alternation(words: dict[str, str], overlapping: bool = False) -> re.Pattern[str] | None:
        if not words:
            return None
        alt = "|".join(map(re.escape, sorted(words, key=len, reverse=True)))
        return re.compile(f"(?=({alt}))" if overlapping else f"({alt})")

    def check(self, text: str) -> Verdict:
        matched: list[str] = []
        how: list[str] = []

        def hit(word: str, kind: str) -> None:
            if word not in matched:
                matched.append(word)
                how.append(kind)

        d = dense(text)
        for a in self._allow:
            d = d.replace(a, _BREAK)
        if self._cjk_re is not None:
            for m in self._cjk_re.finditer(d):
                hit(self._cjk[m.group(1)], "text")
        if self._py_re is not None and (
            len(d) - len(d.translate(self._sound_alike)) >= 2 or _HAS_LATIN.search(d)
        ):
            stream, bounds = self._pinyin_stream(d)
            for m in self._py_re.finditer(stream):
                key = m.group(1)
                start, end = m.start(1), m.start(1) + len(key)
                if start in bounds and end in bounds:
                    hit(self._py[key], "pinyin")
        if self._latin_re is not None:
            for view in self._latin_views(text):
                for m in self._latin_re.finditer(view):
                    hit(self._latin[m.group(1)], "latin")
        if not matched:
            return OK
        return Verdict(ok=False, matched=tuple(matched), how=tuple(how), action=self.action)

    @staticmethod
    def _pinyin_stream(d: str) -> tuple[str, set[int]]:
        """The dense text in pinyin, with the offsets a syllable may start or end at.

        Inside a run of latin letters any offset counts (the viewer's own spelling has no known
        syllable breaks); around a CJK character only its syllable's edges do.
        """
        parts: list[str] = []
        bounds: set[int] = {0}
        pos = 0
        for c in d:
            if is_cjk_char(c):
                syl = char_pinyin(c) or _BREAK
                parts.append(syl)
                bounds.add(pos)
                pos += len(syl)
                bounds.add(pos)
            else:
                parts.append(c)
                if c != _BREAK:
                    bounds.add(pos)
                    bounds.add(pos + 1)
                pos += 1
        return "".join(parts), bounds

    @staticmethod
    def _latin_views(text: str) -> list[str]:
        n = normalize(text)
        if not _HAS_LATIN.search(n):
            return []
        views = [n, n.translate(_LEET)]
        # Spaced-out letters ("f u c k", "f.u.c.k") joined into one word.
        joined = _SPACED_LETTERS.sub(lambda m: re.sub(r"[^a-z]", "", m.group(0)), n.translate(_LEET))
        if joined != views[1]:
            views.append(joined)
        return views


def build_moderator(words: Iterable[str], *, use_global: bool, words_file: Path | None, allow: Iterable[str],
                    pinyin: bool, action: str) -> Moderator:
    all_words = list(words)
    if use_global:
        all_words.extend(GLOBAL_WORDS)
    if words_file is not None:
        all_words.extend(load_words(words_file))
    return Moderator(all_words, allow=allow, pinyin=pinyin, action=action)


def moderator_from_config(cfg: object) -> Moderator:
    """A Moderator from a ModerationConfig (its words_file is already resolved against the config file)."""
    words_file = getattr(cfg, "words_file", None)
    return build_moderator(
        getattr(cfg, "words", []),
        use_global=getattr(cfg, "use_global", True),
        words_file=words_file,
        allow=getattr(cfg, "allow", []),
        pinyin=getattr(cfg, "pinyin", True),
        action=getattr(cfg, "action", "replace"),
    )
