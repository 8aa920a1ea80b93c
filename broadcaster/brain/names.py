"""A viewer's name as the anchor may read it out or show it: as written, or 这位朋友 when it fails moderation or reads
as an offer rather than a name."""

from __future__ import annotations

import re
from typing import Any, Protocol

from broadcaster.brain.textnorm import dense, display


class _Checks(Protocol):
    def check(self, text: str) -> Any: ...  # moderation.Moderator

ANON = "这位朋友"  # read out and shown instead of a name that is empty or fails
ANON_EN = "friend"  # …in an English room (a moderator of language en)

# A name is read out only when it reads as a name. These words are ordinary in a comment ("找我妈一起看", "群里说"),
# so comment moderation lets them be; in a user name they make it an offer ("低息贷款找我", "约吗同城秒回",
# "出原味丝袜", "去dy搜茶叔老王"). The cost is asymmetric: a clean name hidden is read as 这位朋友, an ad read out
# is the anchor advertising it, so names get this stricter test on top of moderation.
_NAME_OFFER = re.compile(
    "|".join([
        r"找我", r"加我", r"私我", r"私信", r"私聊", r"联系", r"搜", r"扫码", r"主页", r"简介", r"头像", r"看我",
        r"关注我", r"互粉", r"同城", r"秒回", r"约吗", r"约炮", r"上门", r"陪聊", r"外围", r"原味", r"福利",
        r"贷", r"借钱", r"下款", r"口子", r"套现", r"代办", r"代开", r"下卡", r"办卡", r"信用卡", r"刷单", r"兼职",
        r"日结", r"返利", r"返水", r"返现", r"博彩", r"菠菜", r"彩票", r"娱乐城", r"出售", r"回收", r"批发",
        r"厂家", r"代理", r"招募", r"招人", r"赚钱", r"日入", r"月入", r"微信", r"群号",
        r"加群", r"进群", r"假货", r"别买", r"骗子", r"电报", r"纸飞机", r"飞机(?:号|群)", r"qq(?:号|群)", r"扣扣", r"http", r"www", r"\.com", r"\.cn", r"\.me",
        r"(?<![a-z])(?:vx|wx|tg|dy)(?![a-z])",  # not qq alone: QQ糖, QQ星 are a candy and a milk
    ]),
    re.I,
)
# …and an English room's names that offer something ("DM4promo", "buy_followers_cheap", "onlyfans_lily", "tg_cryptoking").
_NAME_OFFER_EN = re.compile(r"onlyfans|fansly|nudes|telegram|whatsapp|discord|snapchat|cashapp|venmo|paypal|crypto|forex|"
                            r"casino|sub4sub|follow(?:me|4|back)|followers|viewers|giveaway|\.(?:com|net|gg|me|io)\b|"
                            r"(?<![a-z])(?:dm|tg|promo|linkinbio|link_in_bio|bet|free|cheap|invest)(?:me|4|for|[^a-z]|$)")


def speakable_name(moderator: _Checks, raw: str, maxlen: int = 16) -> str:
    """A viewer's name as the anchor may read it out or show it (thanks, the "answering" banner, subtitles): as
    written (emoji and control characters removed, case kept), at most `maxlen` characters; ANON (ANON_EN in an
    English room) when it is empty, fails moderation, or reads as an offer rather than a name."""
    english = getattr(moderator, "language", "zh") == "en"
    anon = ANON_EN if english else ANON
    name = display(raw)[:maxlen]
    if not name or _NAME_OFFER.search(dense(raw)) or _NAME_OFFER.search(name):
        return anon
    if english and _NAME_OFFER_EN.search(raw.lower()):
        return anon
    if english and (not moderator.check(name_words(raw)).ok or _JEER_EN.search(name_words(raw).lower())):
        return anon  # UglyFatHostLOL, k1ll_urself_host: the words a handle runs together
    return name if moderator.check(raw).ok and moderator.check(name).ok else anon


# A handle that jeers at the host or a viewer: a target and a jeer anywhere in its words (digits as the letters they
# stand for: k1ll, h8).
_JEER_EN = re.compile(r"(?=.*\b(?:host|streamer|anchor|you|u|ur|urself|yourself|ya)\b)"
                      r"(?=.*\b(?:ugly|fat|stupid|dumb|trash|loser|kill|k[1i!]ll|die|hate|h8|suck|sucks)\b)")


def name_words(raw: str) -> str:
    """A latin handle's words apart: camelCase, underscores, dots and digits between letters ("UglyFatHost" → "Ugly
    Fat Host", "k1ll_urself" → "k1ll urself": a digit inside a word is kept, it may be a letter in disguise)."""
    spaced = re.sub(r"[_.\-]+", " ", raw)
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", spaced)
    return spaced
