"""Word-list moderation that undoes the ways viewers dodge a filter.

Every listed word (the room's, plus the built-in lists of data/wordlists.toml unless `use_global: false`) is matched
through these views of a text, each reported as the rule that fired:
- `text`: the dense view (NFKC, traditional → simplified, lower case, only letters and CJK: "傻 * 逼", "加🌹微🌹信"),
  with the word segmenter keeping real words that merely contain a listed word across their boundary ("颜色情况");
- `alias`: an app or contact nickname in place of a listed word's key (加微信 → 加薇信, 加vx, 企鹅号; wordlists ALIASES);
- `pinyin` and `initial` (sounds.py): homophones, latin spellings, one letter for a syllable ("沙比", "W信"), blurred
  initials for words of three syllables or more; a homophone that is a common word or part of one is speech;
- `abbreviation` and `latin` (latin.py): initials as a whole token ("nmsl", "wx"), leetspeak, masked, spaced letters;
- `contact` (contacts.py): phone numbers, web addresses, an app and an id, a channel and a handle, long numbers with a
  contact cue, read in views where numerals of every system are digits and app names are read by sound;
- `pattern`: phrases and frames that only mean a listed word in use (wordlists PATTERNS, political.py), and insult
  nouns in an insult slot (after an address, before 主播, as a vocative or a clause of their own).
Before any rule, emoji stand-ins, look-alike letters and characters written as components are read as meant
(spelling.fold). An allow list removes known-good phrases first; a competitor platform in it (a room selling on 淘宝)
is taken off the built-in list with its nicknames. What the rules do not name is left to the posture of silence
(understand.py), the embeddings' probe (risk.py) and the judge (judge.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

from broadcaster.brain.contacts import find_contact
from broadcaster.brain.english import EnglishRules, english_comment_ok, english_verdict
from broadcaster.brain.excuses import excused
from broadcaster.brain.latin import HAS_LATIN, NO_VOWEL, latin_views, masked
from broadcaster.brain.names import ANON, speakable_name
from broadcaster.brain.sounds import InsultSlots, SoundIndex, common, real_word_around
from broadcaster.brain.spelling import (
    BREAK,
    char_pinyin,
    contact_views,
    fold,
    segmenter,
    word_syllables,
)
from broadcaster.brain.textnorm import dense, is_cjk_char, normalize
from broadcaster.brain.verdict import OK, Verdict
from broadcaster.brain.wordlists import (
    ABBREVIATIONS,
    ALIASES,
    BUILTIN_ALLOW,
    COMMON_ABBREVIATIONS,
    COMPETITORS,
    CONTEXT_ALIASES,
    CONTEXT_EXCUSES,
    FOND_NOUNS,
    GLOBAL_WORDS,
    INSULT_NOUNS,
    INSULTS,
    room_patterns,
)

# ANON, speakable_name, char_pinyin and fold are read by the director, the brain and tests through this module.
__all__ = ["ANON", "GLOBAL_WORDS", "OK", "Moderator", "Verdict", "build_moderator", "char_pinyin", "fold", "load_words",
           "moderator_from_config", "speakable_name"]

# "+"/"➕" for 加 ("+v", "➕微信").
_PLUS = str.maketrans({"+": "加", "➕": "加", "＋": "加"})
_TOKENS = re.compile(r"[a-z0-9]+")
# A unit after a number (250g) and a clothing size before 码/号 (S码, XL号, 大M码): letters that are no syllables.
_UNIT_AFTER_NUMBER = re.compile(r"(?<=\d)\s?(?:kg|mg|ml|g|l|cm|mm|km|m|oz|lb)(?![a-z])"
                                # a Chinese unit after a figure is no syllable either (30度，千万别 is no 赌钱)
                                r"|(?<=\d)(?:度|元|块|克|斤|米|厘米|毫米|千克|公斤|分钟|小时|秒|天|岁|瓦|升|毫升)"
                                r"|(?<![a-z])(?:x{0,3}[sml]|[2-5]xl)(?=\s?(?:码|号|的码|码数|尺码))"
                                # …nor a Chinese numeral before a measure word (团购十台 is no 狗屎)
                                r"|[一二两三四五六七八九十百千万]+(?=[台个件只套箱盒罐包支瓶条双张把份次遍斤])")
_NOT_DENSE_OR_BREAK = re.compile(r"[^a-z\u3400-\u9fff\uf900-\ufaff|]+")
_SENTENCE_FINAL = frozenset("你他她它的了吗呢吧啊呀哦嘛么哈啦噢")  # a sentence ending in one is not a fragment
_DENSE_CHAR = re.compile(r"[a-z\u3400-\u9fff\uf900-\ufaff]")


def load_words(path: Path) -> list[str]:
    """One word per line; blank lines and '#' comments ignored."""
    words: list[str] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            words.append(line)
    return words


class Moderator:
    """Checks texts against the room + global word lists; thread-safe and allocation-light. `language` en: the English
    rules (english.py) too, `own_words` the room's own words they read as whole words."""

    def __init__(self, words: Iterable[str], *, allow: Iterable[str] = (), pinyin: bool = True,
                 action: str = "replace", aliases: bool = True, initials: bool = True,
                 contacts: bool = True, patterns: dict[str, str] | None = None,
                 insult_words: Iterable[str] = (), language: str = "zh", own_words: Iterable[str] = ()) -> None:
        self.action = action
        self.language = language
        self._english = EnglishRules(allow, own_words) if language == "en" else None
        self._slots = InsultSlots(insult_words, by_sound=pinyin)
        self._patterns = [(w, re.compile(rx)) for w, rx in (patterns or {}).items()]
        self.use_pinyin = pinyin
        self.contacts = contacts
        self._initials = initials
        # dense form → (listed word, rule)
        forms: dict[str, tuple[str, str]] = {}
        latin: dict[str, str] = {}
        abbreviations: dict[str, str] = {}
        py_words: dict[str, str] = {}
        listed: list[str] = []
        for word in words:
            d = dense(word)
            if not d:
                continue
            listed.append(word)
            if any(is_cjk_char(c) for c in d):
                forms.setdefault(d, (word, "text"))
                if pinyin and all(is_cjk_char(c) for c in d) and len(d) >= 2:
                    py_words.setdefault(d, word)
                if initials and all(is_cjk_char(c) for c in d) and len(d) >= 3:
                    abbr = "".join(s[0] for s in word_syllables(d))
                    if abbr not in COMMON_ABBREVIATIONS:
                        abbreviations.setdefault(abbr, word)
            elif len(d) <= 3 and d in ABBREVIATIONS:
                abbreviations.setdefault(d, word)
            else:
                latin[d] = word
        if aliases:
            for word in listed:
                d = dense(word)
                for key, nicks in ALIASES.items():
                    if key in d:
                        for nick in nicks:
                            if d == key and (len(dense(nick)) < 2 or common(nick)):
                                continue  # 微信 itself listed: 威信 and 卫星 are words, "v" is a letter
                            variant = dense(d.replace(key, nick))
                            if any(is_cjk_char(c) for c in variant):
                                forms.setdefault(variant, (word, "alias"))
                            elif variant:
                                abbreviations.setdefault(variant, word)
        listed_dense = {dense(w) for w in listed}
        # A competitor's name with its last characters masked by x ("拼xx", "唯品x", "淘x"): the first stays.
        competitors = {dense(c) for c in COMPETITORS} & listed_dense
        for c in competitors:
            if len(c) >= 2 and all(is_cjk_char(ch) for ch in c) and (len(c) >= 3 or c == "淘宝"):
                for k in range(1, len(c)):
                    forms.setdefault(c[:k] + "x" * (len(c) - k), (c, "text"))
        # Proper beginnings of the CJK forms (淘 of 淘宝, 拼多 of 拼多多), for dangling().
        self._prefixes = frozenset(f[:k] for f in forms if len(f) >= 2 and all(is_cjk_char(c) for c in f)
                                   for k in range(1, min(len(f), 4)))
        # First characters of CJK forms of three characters or more (拼 of 拼多多): a common word ending in one
        # ("比拼。多多上…", after heldout12) may still be a listed word split across the sentence cut.
        self._long_starts = frozenset(f[0] for f in forms if len(f) >= 3 and all(is_cjk_char(c) for c in f))
        self._excuses = {w: ctx for w, ctx in CONTEXT_EXCUSES.items() if w in listed_dense}
        self._context = [(word, re.compile(rx)) for word, rx in CONTEXT_ALIASES.items() if aliases and word in listed_dense]
        if initials:
            for abbr, meaning in ABBREVIATIONS.items():
                if meaning in listed_dense or any(meaning in x for x in listed_dense):
                    abbreviations.setdefault(abbr, meaning)
        self.words = sorted({w for w, _ in forms.values()} | set(latin.values()) | set(abbreviations.values()))
        self._forms = forms
        self._latin = latin
        self._abbr = abbreviations
        # Initials of insults (three letters or more), found glued inside a longer run of initials ("rnmtq").
        insults = frozenset(dense(w) for w in INSULTS)
        self._insult_abbr = tuple(a for a, w in abbreviations.items() if len(a) >= 3 and a.isalpha() and dense(w) in insults)
        self._form_re = re.compile("|".join(map(re.escape, sorted(forms, key=len, reverse=True)))) if forms else None
        self._latin_re = (
            re.compile(r"(?<![a-z])(" + "|".join(masked(w) for w in sorted(latin, key=len, reverse=True)) + ")")
            if latin else None
        )
        self._latin_masked = {w: re.compile(masked(w)) for w in latin}
        self._sounds = SoundIndex(py_words, initials=initials)
        self._allow = sorted({dense(a) for a in allow if dense(a)}, key=len, reverse=True)
        if forms or py_words:
            segmenter()  # load the dictionary now, not on the first comment
        # Floods repeat themselves: verdicts are immutable, so the last few thousand are kept (thread-safe).
        self._check_cached = functools.lru_cache(maxsize=8192)(self._check if self._english is None else self._check_en)
        self._platforms = frozenset(COMPETITORS) & frozenset(listed)

    # -- checking ---------------------------------------------------------------------------------------

    def check(self, text: str) -> Verdict:
        """The verdict on a text (a comment, a user name, an answer); repeated texts are answered from a cache."""
        return self._check_cached(text)

    def check_comment(self, text: str) -> Verdict:
        """A viewer's comment: as `check`, except where it names a listed word without doing what the word stands for
        (brain/excuses.py: another platform in a question about this shop, a past purchase there, a spammer reported).
        An answer never names another platform: answers are checked with `check`."""
        v = self.check(text)
        if self._english is not None and english_comment_ok(v, text):
            return OK
        return OK if not v.ok and excused(v, text, self._platforms) else v

    def _check(self, text: str) -> Verdict:
        matched: list[str] = []
        how: list[str] = []
        spans: list[str] = []

        def hit(word: str, kind: str, span: str = "") -> None:
            if word not in matched:
                matched.append(word)
                how.append(kind)
                spans.append(span)

        text = fold(text).translate(_PLUS)
        d = dense(text)
        for a in self._allow:
            d = d.replace(a, BREAK)
        if self._form_re is not None:
            for m in self._form_re.finditer(d):
                form = m.group(0)
                word, kind = self._forms[form]
                if word in matched or real_word_around(d, m.start(), m.end()):
                    continue
                if (form[0].isascii() or form[-1].isascii()) and self._runs_on(text, d, m.start(), m.end()):
                    continue
                hit(word, kind, form)
        if self._sounds and (len(d) - len(d.translate(self._sounds.sound_alike)) >= 2 or HAS_LATIN.search(d)):
            self._sounds.hits(self._without_units(text, d), hit)
        if self._abbr or self._latin_re is not None:
            views = latin_views(self._without_allowed(text.lower()) if self._allow else text)
            for k, view in enumerate(views):
                if self._abbr and k < len(views) - 1:
                    for tok in _TOKENS.findall(view):
                        w = self._abbreviation(tok)
                        if w is not None:
                            hit(w, "abbreviation", tok)
                if self._latin_re is not None:
                    for m in self._latin_re.finditer(view):
                        word = self._latin.get(m.group(1)) or next(
                            (self._latin[w] for w, rx in self._latin_masked.items() if rx.fullmatch(m.group(1))), "")
                        if word:
                            hit(word, "latin", m.group(1))
        if self._slots:
            self._slots.hits(normalize(text), hit)
        if self._context:
            n = normalize(text)
            for word, rx in self._context:
                m = rx.search(n)
                if m is not None:
                    hit(word, "alias", m.group(0))
        if self.contacts or self._patterns:
            views = contact_views(text)  # digits as typed (normalize would squeeze "0000")
            if self._allow:
                views = tuple(self._without_allowed(v) for v in views)
            for word, rx in self._patterns:
                for view in views:
                    m = rx.search(view)
                    if m is not None:
                        hit(word, "pattern", m.group(0))
                        break
            found = find_contact(text, views) if self.contacts else ""
            if found:
                hit("联系方式", "contact", found)
        if matched and self._excuses:
            self._excuse(d, matched, how, spans)
        if not matched:
            return OK
        return Verdict(ok=False, matched=tuple(matched), how=tuple(how), action=self.action, spans=tuple(spans))

    def _check_en(self, text: str) -> Verdict:
        assert self._english is not None
        return english_verdict(self._english, text, self._check, contacts=self.contacts, action=self.action)

    def _abbreviation(self, tok: str) -> str | None:
        """The listed word a latin token abbreviates: the whole token (digits after it dropped), or an insult's
        initials glued to more initials ("rnmtq" = rnm + 退钱; only a token with no vowel, so it cannot be an
        English word). s13 (13 looks like B) is left to the address frame (主播是s13): alone it is a game season."""
        w = self._abbr.get(tok) or self._abbr.get(tok.rstrip("0123456789"))
        if w is None and 3 <= len(tok) <= 10 and tok.isalpha() and NO_VOWEL.fullmatch(tok) and tok not in COMMON_ABBREVIATIONS:
            w = next((self._abbr[a] for a in self._insult_abbr if a in tok and len(tok) > len(a)), None)
            if w is None and len(tok) >= 4 and (tok.startswith("sb") or tok.endswith("sb")):  # not sbs (a TV network)
                w = self._abbr.get("sb")
        return w

    def tail_begins(self, text: str) -> bool:
        """True when the text's last two or three characters begin a listed CJK form, even when they are a word of
        their own (玩百家 → 百家乐, 适合学生 → 学生贷): stricter than dangling(), for a sentence the next may complete."""
        d = dense(fold(text))
        return any(len(d) >= k and d[-k:] in self._prefixes for k in (2, 3))

    def runs_on(self, before: str, after: str) -> bool:
        """True when a listed word begun at the end of `before` may still run on into what has come of `after`:
        one of `before`'s last three characters and the start of `after` are a listed form's proper beginning."""
        b, a = dense(fold(before)), dense(fold(after))
        return any(b[-k:] + a[:m] in self._prefixes for k in (1, 2, 3) if len(b) >= k
                   for m in range(1, min(len(a), 3) + 1))

    def dangling(self, text: str) -> bool:
        """True when the text's end may be the start of a listed word ("可以去淘。" → 淘宝, "来加。" → 加群):
        the answer's next sentence decides (see Brain's one-sentence look-ahead)."""
        d = dense(fold(text))
        if not d or not is_cjk_char(d[-1]) or d[-1] in _SENTENCE_FINAL:
            return False
        # Only a fragment: the text's last word is the start of a listed word, and not a common word of its
        # own ("…适合学生。" is not 学生贷 begun; "可以去淘。" is 淘宝 begun).
        last = segmenter().lcut(d[-6:], HMM=False)[-1]
        if last in self._prefixes and (len(last) == 1 or not common(last)):
            return True
        return len(last) > 1 and last[-1] in self._long_starts

    def _excuse(self, d: str, matched: list[str], how: list[str], spans: list[str]) -> None:
        """Drops a word's text/pinyin hit when its context makes it another word (黄片 among tea leaves)."""
        for word, (context, unless) in self._excuses.items():
            if word in matched:
                i = matched.index(word)
                if how[i] in ("text", "pinyin") and re.search(context, d) and not re.search(unless, d):
                    del matched[i], how[i], spans[i]

    def _without_units(self, text: str, d: str) -> str:
        """The dense view with a unit after a number (250g, 500ml) made a break: a unit letter is no syllable
        stand-in ("250g和500g" is not 荷官)."""
        n = normalize(text)
        if not _UNIT_AFTER_NUMBER.search(n):
            return d
        return self._without_allowed(_NOT_DENSE_OR_BREAK.sub("", _UNIT_AFTER_NUMBER.sub(BREAK, n)))

    def _without_allowed(self, view: str) -> str:
        for a in self._allow:
            view = view.replace(a, BREAK)
        return view

    @staticmethod
    def _runs_on(text: str, d: str, start: int, end: int) -> bool:
        """True when a form's latin edge runs on into more latin letters in the text ("加v" in "加vip")."""
        n = normalize(text)
        keep = [i for i, c in enumerate(n) if _DENSE_CHAR.match(c)]
        if len(keep) != len(d):
            return False
        before = n[keep[start] - 1] if keep[start] > 0 else ""
        after = n[keep[end - 1] + 1] if keep[end - 1] + 1 < len(n) else ""
        return bool((d[start].isascii() and before.isascii() and before.isalpha())
                    or (d[end - 1].isascii() and after.isascii() and after.isalpha()))


def build_moderator(words: Iterable[str], *, use_global: bool, words_file: Path | None, allow: Iterable[str],
                    pinyin: bool, action: str, aliases: bool = True, initials: bool = True,
                    contacts: bool = True, language: str = "zh") -> Moderator:
    all_words = list(words)
    room_words, allow = list(all_words), list(allow)
    patterns: dict[str, str] = {}
    if use_global:
        # A competitor platform in the allow list is the room's own: off the built-in list, nicknames too.
        own = {normalize(a) for a in allow} & {normalize(c) for c in COMPETITORS}
        all_words.extend(w for w in GLOBAL_WORDS if normalize(w) not in own)
        patterns = room_patterns(own, {dense(a) for a in allow})
        allow.extend(BUILTIN_ALLOW)
    if words_file is not None:
        all_words.extend(load_words(words_file))
    own_words = room_words + (load_words(words_file) if words_file is not None and language == "en" else [])
    return Moderator(all_words, allow=allow, pinyin=pinyin, action=action, aliases=aliases, initials=initials,
                     contacts=contacts, patterns=patterns,
                     insult_words=tuple(w for w in (*INSULTS, *INSULT_NOUNS) if w not in FOND_NOUNS) if use_global else (),
                     language=language, own_words=own_words)


def moderator_from_config(cfg: object, language: str = "zh") -> Moderator:
    """A Moderator from a ModerationConfig (its words_file already resolved) for a room speaking `language` (zh|en)."""
    return build_moderator(
        getattr(cfg, "words", []),
        use_global=getattr(cfg, "use_global", True),
        words_file=getattr(cfg, "words_file", None),
        allow=getattr(cfg, "allow", []),
        pinyin=getattr(cfg, "pinyin", True),
        action=getattr(cfg, "action", "replace"),
        aliases=getattr(cfg, "aliases", True),
        initials=getattr(cfg, "initials", True),
        contacts=getattr(cfg, "contacts", True),
        language=language,
    )
