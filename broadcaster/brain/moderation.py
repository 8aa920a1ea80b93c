"""Word-list moderation that undoes the ways viewers dodge a filter.

Every listed word (the room's, plus the built-in lists of broadcaster/brain/wordlists.py unless
`use_global: false`) is matched through these views of a text, each reported as the rule that fired:
- `text`: the dense view (NFKC, traditional → simplified, lower case, only letters and CJK), so
  "傻 * 逼", "傻1逼", "加🌹微🌹信" and "ｗｘ" read like what they hide. A two-sided check with the
  word segmenter keeps real words that merely contain a listed word across their boundary
  ("颜色情况" ≠ 色情, "参加群众" ≠ 加群);
- `alias`: a listed word with an app or contact nickname in place of its key (加微信 → 加薇信, 加vx,
  企鹅号, 拼夕夕 …; wordlists.ALIASES);
- `pinyin`: the dense view in toneless pinyin, so homophones ("沙比", "尼玛死了"), latin spellings
  ("sha bi", "jiaweixin") and, for words of three syllables or more, blurred initials/finals (zh/z,
  ch/c, sh/s, -ng/-n) match at syllable
  edges. A homophone that is itself a common word ("出生" for 畜生) is not an evasion;
- `initial`: one latin letter standing for a syllable ("W信", "d品", "nao残");
- `abbreviation`: pinyin initials as a whole latin token ("nmsl", "cnm", "wx", "pdd"; the initials
  of every listed word of three syllables or more are added automatically);
- `latin`: latin words with leetspeak undone and spaced letters joined ("f u c k", "sh1t");
- `contact`: phone numbers, web addresses and contact ids ("qq 12345678"), read in a view of the text
  where numerals of every system are digits (壹叁捌, 一三八, 8八8八, ①③⑧, ❶, keycaps), separators
  between digits and between single letters are gone ("139 0000 2222", "k.o.u.k.o.u"), sentence
  punctuation is gone (a contact split by a sentence cut, "加我微。信tea888"), and app names are
  read by sound (蔻蔻/抠抠 → 扣扣, 威鑫/为新 → 微信, qun → 群);
- `pattern`: phrases that only mean a listed word in use, with a gap allowed ("代开各种发票",
  "恭喜中奖请联系客服", "咸鱼上买", "1688"; wordlists.PATTERNS), families of frames (a vice term with a sale
  cue, another seller's place with a price or promo, an insult noun in an insult slot);
- `contact` also: a channel (any app, a doubled-character nickname 丘丘/钉钉, a short latin token) + search/add
  + a handle; a bare number of five digits or more in any script with a contact/trade cue (seven alone),
  never a date, price, order number or a platform's default user name;
- insult slots by sound: the two characters after an address ("主播纸张吧"), before 主播, or opening the
  comment as a vocative, read as pinyin against the two-syllable insults (or an insult noun as written);
- after heldout9, more `pattern` families (threats and doxxing, counterfeits, VPN, weapons, debt settlement, porn
  collections, everyday words as drug slang with a sale cue, gambling rebates, follow-for-follow, "look at my name"),
  one-character WeChat stand-ins before an id (薇 + id) and 加 + a work-chat app (飞书, 钉钉) as contacts.
- after heldout10, families as frames rather than phrases: a threat marker or a target with a harm verb (等着被砸,
  去你店门口泼油漆), doxxing in plain words (你家住哪个小区我都知道), appearance/intelligence insults (照照镜子, 智商欠费),
  a pejorative head after an address (你真是个窝囊废), curses (怎么还没死), a body word with a size/look/touch cue and a
  night's price (harassment), offers with no channel (有偿陪聊, 全国可飞, 原味丝袜, 口子多, 出售万粉老号, 带你炒币, 小药丸同城发),
  another seller's price by the kind of place or brand (茶叶市场批发二十块一斤, 旗舰店69就有) and the viewer selling the same
  thing (一斤才三十，要的找我); platform nicknames (围脖, 小红薯, 斗音, 小破站) in the search-a-handle rule, where a handle is a
  shop or person's name (茶小二的店, 茶叶阿强), not a topic (这个茶的测评); an id after 号是; an insult noun said as a clause of
  its own (…，诈骗犯), ordinary nouns (猴子, 垃圾) left out; characters read as people read them (伽 is jiā: 伽薇 = 加微).
- after heldout11: another live room or anchor (隔壁X直播间, 另一个号, a known anchor by name) with an offer, talking
  viewers out of buying with a cheaper place (别买/智商税 + 超市散装的一样), running the room down then sending viewers
  elsewhere, drug slang asked for with a use cue (有冰吗，溜一下), where the host lives named as a threat, funeral rites
  and mourning emoji (🕯 is read as 蜡烛) aimed at the host, number insults (二百五, 三八, 十三点, s13) in any address
  or comparison frame but never as a quantity (250克) or a time (十三点开播), and insult initials glued to more
  initials ("rnmtq"). A platform's payment product (京东白条, 抖音月付) is an allowed phrase, and a unit after a number
  ("250g") is no one-letter syllable stand-in.
- after heldout12: a contact app described by its look (那个绿色的聊天软件) with "find me", an id "in my avatar/signature",
  cheaper-than-here with "ask me", 友商/竞品 praised, 别买 then "go to the market", refund/claims agents asking for a bank
  card, fake certificates "checkable online", appearance beyond saving, dialect curses (册那, 干恁娘, 靠北), hotel-room
  invitations and body innuendo, doxxing boasts, veiled threats (认识你们…的人 + 走着瞧); and a sentence ending in a common
  word whose last character begins a listed word of three or more (比拼 | 多多 → 拼多多) waits for the next sentence's start.
Before any rule, emoji that stand for a syllable (🐴 马, 🍑 桃, 🐧 企鹅; wordlists.EMOJI_STANDINS),
latin look-alikes from other scripts (Cyrillic х, Greek ο; wordlists.LOOKALIKES) and characters written as
two components (亻言 信; wordlists.COMPONENT_PAIRS) are read as what they stand for. A homophone that is only
part of a longer dictionary word (打麻将 holds 打麻 ~ 大麻) is speech. An allow list removes known-good phrases first; a competitor platform in it (a room selling
on 淘宝) is taken off the built-in list with its nicknames.
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

from broadcaster.brain.intent import is_question
from broadcaster.brain.textnorm import _EMOJI, _t2s, dense, display, is_cjk_char, normalize
from broadcaster.brain.wordlists import (
    ABBREVIATIONS,
    ALIASES,
    BUILTIN_ALLOW,
    COMMON_ABBREVIATIONS,
    COMPETITORS,
    COMPONENT_PAIRS,
    CONTEXT_ALIASES,
    CONTEXT_EXCUSES,
    EMOJI_STANDINS,
    EVERYDAY_WORDS,
    FOND_NOUNS,
    GLOBAL_WORDS,
    INSULT_NOUNS,
    INSULTS,
    LOOKALIKES,
    NEUTRAL_NOUNS,
    PATTERNS,
    PRICE_ELSEWHERE_DEICTIC,
    PRICE_ELSEWHERE_PLACES,
    PRICE_FRAME,
    PRICE_FRAME_PLATFORM,
    RADICAL_FORMS,
    READINGS,
)

__all__ = ["GLOBAL_WORDS", "OK", "Moderator", "Verdict", "build_moderator", "load_words", "moderator_from_config"]

_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i"})
_REPEATED_LETTER = re.compile(r"([a-z])\1+")
_V_FOR_U = str.maketrans({"v": "u"})  # "fvck": only for latin words, never for abbreviations ("vx")
# Short latin pieces split by spaces or dots ("p dd", "n.m.s.l"), joined for the abbreviation rule.
_SHORT_PIECES = re.compile(r"(?<![a-z])[a-z]{1,2}(?:[\s.·_\-]{1,2}[a-z]{1,2}(?![a-z]))+")
# A letter masked by a symbol ("f*ck", "sh#t") or "+"/"➕" for 加 ("+v", "➕微信").
_MASK = "[*#_.x\\-]"
_PLUS = str.maketrans({"+": "加", "➕": "加", "＋": "加"})
_SPACED_LETTERS = re.compile(r"(?<![a-z])[a-z](?![a-z])(?:[^a-z0-9]{1,3}[a-z](?![a-z]))+")
_BREAK = "|"
_HAS_LATIN = re.compile(r"[a-z]")
_TOKENS = re.compile(r"[a-z0-9]+")
# A unit after a number (250g) and a clothing size before 码/号 (S码, XL号, 大M码): letters that are no syllables.
_UNIT_AFTER_NUMBER = re.compile(r"(?<=\d)\s?(?:kg|mg|ml|g|l|cm|mm|km|m|oz|lb)(?![a-z])"
                                r"|(?<![a-z])(?:x{0,3}[sml]|[2-5]xl)(?=\s?(?:码|号|的码|码数|尺码))")
_NOT_DENSE_OR_BREAK = re.compile(r"[^a-z\u3400-\u9fff\uf900-\ufaff|]+")
_NO_VOWEL = re.compile(r"[b-df-hj-np-tv-z]+")  # a run of initials (no a e i o u): no English word
# Characters so common after a word that a homophone ending in one is speech, not an evasion.
_FUNCTION_CHARS = frozenset("好的了是吗呢在有不很也都就和呀啊吧哦")
# A two-character homophone whose last character is a question/mood particle is speech ("差别大吗" is not 大麻).
_PARTICLES = frozenset("吗呢吧啊呀嘛么哦")
_SENTENCE_FINAL = frozenset("你他她它的了吗呢吧啊呀哦嘛么哈啦噢")  # a sentence ending in one is not a fragment
_DENSE_CHAR = re.compile(r"[a-z\u3400-\u9fff\uf900-\ufaff]")
# A homophone or a crossing match that is a word this common (jieba dictionary frequency) is a real word.
COMMON_WORD_FREQ = 100
# The slot after an address that an insult fills ("主播纸张吧", "你就是个X！"): two characters, then a particle or the end.
_ADDRESS_SLOT = re.compile(r"(?:^|[^\u4e00-\u9fff])(?:(?:你|主播|你们|这主播|这人)(?:就是|真是|真的是|简直是|就|真|是|纯|个)*"
                           r"([\u4e00-\u9fff]{2})(?=[吧啊呀嘛哦]?(?:$|[\s，,。.!！?？~]))|([\u4e00-\u9fff]{2})主播)"
                           # a comment opening with a word on its own, then a pause: a vocative ("铸币 说的什么")
                           r"|^([\u4e00-\u9fff]{2,3})(?=[\s，,。!！~])")
# An insult noun said on its own as a clause: the whole comment, or a clause closing it ("坐等倒闭，诈骗犯", "黑心商家",
# "骗子公司，别买"). Matched as written only (a two-character comment that merely sounds like an insult is speech).
_NOUN_CLAUSE = re.compile(r"(?:^|(?<=[\s，,。!！?？~吧啊呀]))([\u4e00-\u9fff]{2,6})(?=[\s，,。!！?？~]|$)")
_CLAUSE_PARTICLES = "吧啊呀哦"
# Contact rules, over contact views of a text (see _contact_views): digits, ids and app names as read.
_APP = (r"(?:qq|扣扣|koukou|企鹅|qie|微信|weixin|wechat|vx|wx|v信|微x|绿泡泡|泡泡|lvpaopao|群|qun|纸飞机|飞机号|tg|telegram|"
        r"whatsapp|抖音号|快手号|dy号|小红书号|微博号|绿色(?:聊天)?(?:软件|app)|绿软|聊天软件|飞书|钉钉|陌陌)")
_ID = r"(?=[a-z0-9_\-]*(?:\d|_))[a-z][a-z0-9_\-]{4,}(?![a-z0-9_])"  # an id: letters with digits or _
_APP_CORE = r"(?:qq|扣扣|koukou|企鹅|微信|weixin|wechat|vx|wx|v信|微x|绿泡泡|薇信|威信)"  # apps that are never other words
_CONTACT = re.compile(
    r"(?<!\d)1[3-9]\d{9}(?!\d)"  # a mainland mobile number
    # an app (or a one-letter/one-character nickname) and a number: "qq 12345678", "qun号 123456789"
    rf"|(?<![a-z])(?:{_APP}|q|v|扣|微|薇|威)(?:号码|号|群号|群|id|账号|帐号|是|搜索|搜|:|@){{0,3}}\d{{5,}}"
    # an app and an id of letters and digits: "微信tea888", "vx搜yunwu666", "微x:abc123"
    rf"|(?<![a-z]){_APP}(?:号码|号|id|账号|帐号|是|搜索|搜|:|@){{0,3}}(?=[a-z0-9_-]*\d)[a-z][a-z0-9_-]{{3,}}"
    r"|(?<![a-z])(?:v|q|微|薇|威|扣):[a-z0-9_-]{4,}"  # "v:tea888"
    rf"|(?:薇|威|蔻|寇)(?:号|:)?{_ID}"  # a one-character WeChat/QQ stand-in right before an id ("薇❤ lsgt2025")
    rf"|(?<![a-z]){_APP}(?:号码|号|id|账号|帐号)?[:@]{{1,2}}[a-z][a-z0-9_-]{{3,}}"  # "微信：tea-shop", "telegram: @ x_y"
    # a phone number asked for by name: "电话：壹叁捌…", "tel 139 0000 2222"
    r"|(?:电话|手机号|手机|tel|phone|dianhua|shouji|联系方式|联系我|联系|call|打|拨打)(?:号码|号|是|:){0,2}\d{7,}"
    # a long number with a contact verb: "12345678 找我"
    r"|(?<!\d)\d{6,}(?!\d)(?:找我|加我|联系|私我|私聊|进来|进群|来撩|滴滴|call)"
    rf"|(?<!参)[加私](?:我|个|一下|1下|下)?(?:v|vx|wx|q|qq|扣扣|微信|企鹅|绿泡泡|koukou|weixin)(?![a-z])"  # "加个v"
    # "add me on X" for work/chat apps that are no other word (加飞书, 加钉钉)
    r"|(?<!参)加(?:我|个|一下|下)?(?:飞书|钉钉|陌陌|探探|电报|纸飞机|telegram|whatsapp|line|soul)(?![a-z])"
    r"|主页.{0,3}(?:联系|加我|私我|v|微)"  # "主页有联系方式"
    r"|(?<!参)加我?:?(?=[a-z0-9_-]*\d)[a-z][a-z0-9_-]{3,}(?![a-z0-9])"  # "加我tea888"
    r"|搜(?:索)?:?(?:(?=[a-z0-9_-]*\d)[a-z][a-z0-9_-]{4,}|\d{6,})"  # "搜 yunwu666"
    r"|[a-z0-9-]{3,}(?:点|dot)(?:com|cn|net|top|xyz|vip|shop|cc)(?![a-z0-9])"  # "tea888点com"
    rf"|{_APP_CORE}(?:号码?)?(?:是|发|给)?(?:联系|私聊|私我|私|找我|加我|搜|发我|多少|一下|1下|我)"
    # an id (letters with digits or an underscore) next to a contact cue, whatever the app word: "✈️:@lvcha_vip",
    # "ins:tea_2468", "tea_2468 加我"; an @handle with a contact verb
    rf"|(?:飞机|电报|tg|ins|推特|twitter|line|微博|小红书|xhs|抖音|dy|快手|b站|私聊|私信|主页|账号|帐号|(?<![型编批货单序色学车房])号|id)"
    rf"(?:是|为|叫)?:?@?{_ID}"
    rf"|@{_ID}(?:.{{0,4}}(?:私聊|私我|私信|加我|找我|联系|更便宜|优惠))",
)
# An id followed by a contact verb ("tea_2468 加我"): tried only when a verb is there (the id's look-ahead
# at every latin position would cost a scan each).
_CONTACT_VERB = re.compile(r"加我|私聊|私我|私信|找我|联系|滴滴")
_ID_THEN_VERB = re.compile(rf"(?<![a-z0-9_]){_ID}(?:加我|私聊|私我|私信|找我|联系|滴滴)")
# A channel named by any app, a nickname of two repeated characters (丘丘, 钉钉, 陌陌) or a short latin token (tg, ks),
# then "search/add/follow", then a handle: latin (any ≥ 5 letters: "tg搜cheapgreentea") or, with a trade cue
# anywhere in the text, a CJK name ("钉钉搜茶叶批发王拿出厂价"). "小红书搜这个茶的测评" has no trade cue.
_PLATFORM = (r"(?:qq|扣扣|企鹅|微信|vx|wx|v信|绿泡泡|泡泡|tg|telegram|纸飞机|飞机|电报|whatsapp|line|ins|instagram|facebook|"
             r"推特|twitter|钉钉|陌陌|探探|soul|脉脉|飞书|企业微信|企微|微博|小红书|抖音|快手|b站|豆瓣|贴吧|知乎|视频号|公众号|"
             # nicknames (after heldout10): 围脖 微博, 小红薯/红书 小红书, 斗音 抖音, 小破站 b站, 海鲜市场 闲鱼, 某X
             r"围脖|围勃|小红薯|红薯|红书|小红叔|某书|某红书|斗音|抖阴|某音|某博|某手|块手|筷手|小破站|哔站|逼站|哔哩哔哩|bilibili|"
             r"闲鱼|咸鱼|海鲜市场|油管|"
             r"([\u4e00-\u9fff])\1|(?<![a-z0-9])[a-z]{2,3})")
# A CJK handle is a name, not what is looked up (小红书搜一下这个茶的测评, 搜了攻略 are topics).
_HANDLE = re.compile(rf"{_PLATFORM}(?:号|上|里|app)?(?:搜索?|关注|加|找|id|号|@)[:@]?"
                     r"(?:(?P<latin>[a-z][a-z0-9_\-]{4,})"
                     r"|(?!了|过|到|一下|下|这|那|看|的|得|不|什么|啥|怎么|有没有|相关|测评|评价|攻略|教程|你|主播)(?P<cjk>[\u4e00-\u9fff]{3,10}))")
_TRADE_CUE = re.compile(r"批发|货源|合作|加盟|供货|代发|拿货|出厂|厂价|代理|一手|渠道|低价|进货|内部价|底价|拿样|私聊|私我|私信|关注我|同名|搜我|发你|找我|"
                        # what a searched shop or account promises (after heldout10)
                        r"福利|攻略都|有礼|优惠|样品|领|便宜|同款|有惊喜|都在|全在|的店|小店|茶仓|茶庄|工作室|秒杀|链接|直播|主页|天天|每天")
# A CJK handle that names a person or a shop (茶叶阿强, 茶山小王, 老茶客阿福, 云雾茶舍): an account, not a topic.
_PERSON_HANDLE = re.compile(r"阿[\u4e00-\u9fff]|[\u4e00-\u9fff](?:哥|姐|叔|妹|嫂|仔)$|小[王李张刘陈杨黄赵周吴]|老[王李张刘陈杨黄赵周吴]"
                            r"|同学|老师|茶舍|茶馆|茶铺|茶行|官方|旗舰")
_TOPIC = re.compile(r"测评|评价|评测|教程|攻略|视频|怎么|推荐|好不好|真假|是不是")
# An id given as a CJK name after "id" (绿色软件上找我 ID 茶农阿强), with a contact verb anywhere.
_CJK_ID = re.compile(r"(?<![a-z])id:?[\u4e00-\u9fff]{2,8}")
# A number of five digits or more (any script, after the numeral view) that is no date, price, order or tracking
# number: a contact id when it is long (≥ 7) or anything in the text asks to get in touch or trade.
_LONG_NUMBER = re.compile(r"(?<![0-9¥$])[a-z_\-]*(\d{5,})(?![0-9])")  # with the letters of its token (订单号abc12345)
_NUMBER_CONTEXT = re.compile(r"(?:订单|单号|运单|快递|物流|编号|批号|批次|日期|尾号|型号|货号|条码|编码|生产|序列|工号|房号|邮编|车牌|"
                             r"价格|售价|价|原价|到手|销量|库存|粉丝|点赞|播放|观看|人数|第|用户|网友|游客|会员|观众)[是:为]?$")
# Platforms' default user names (bili_39218774, user12345678): the letters of the number's own token.
_DEFAULT_NAME = frozenset({"bili", "bili_", "user", "user_", "uid", "mid", "u_", "用户"})
_NUMBER_UNIT = re.compile(r"(?:元|块|rmb|人|次|个|件|罐|克|g|ml|毫升|斤|年|月|日|天|号|万|千|百|分|秒|小时|米|度|%)")
_DATE = re.compile(r"(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01])")
_CONTACT_CUE = re.compile(r"私|加|联系|找我|滴|搜|批发|货源|拿货|代理|一手|渠道|出厂|厂价|进货|咨询|扣|群|微|薇|威|企鹅|电话|手机|"
                          r"tel|call|dd|号|(?<![a-z])[qv](?![a-z])")
_PAIR = re.compile(r"([\u4e00-\u9fff])(?<!\1\1)\1(?!\1)")  # exactly two (冲冲冲 is emphasis, not a name)


def _nickname_pair(text: str) -> bool:
    """Two repeated characters that are no everyday word (丘丘, 钉钉, 陌陌; not 哈哈, 看看, 多多): an app's nickname."""
    return any((_segmenter().dt.FREQ.get(m.group(0)) or 0) < COMMON_WORD_FREQ for m in _PAIR.finditer(text))


def _long_number(view: str) -> str:
    """A contact id hidden as a bare number (see _LONG_NUMBER), or ''."""
    for m in _LONG_NUMBER.finditer(view):
        digits = m.group(1)
        if m.group(0)[: -len(digits)] in _DEFAULT_NAME:
            continue
        if len(set(digits)) < 3 or (len(digits) == 8 and _DATE.fullmatch(digits)):
            continue  # 666666, 2333333, a date: chat, not an id
        if _NUMBER_CONTEXT.search(view[max(0, m.start() - 4) : m.start()]) or _NUMBER_UNIT.match(view, m.end()):
            continue
        if len(digits) >= 7 or _CONTACT_CUE.search(view) or _nickname_pair(view):
            return digits
    return ""


def _handle(view: str) -> str:
    """A channel + search/add + handle (see _HANDLE), or ''."""
    if _CJK_ID.search(view) and _CONTACT_VERB.search(view):
        return _CJK_ID.search(view).group(0)  # type: ignore[union-attr]
    for m in _HANDLE.finditer(view):
        if m.group(1) and not _nickname_pair(m.group(0)[:2]):
            continue  # 多多上搜…, 看看搜…: an everyday doubled word, not an app
        if m.group("latin") or _TRADE_CUE.search(view):
            return m.group(0)
        # A person's or shop's name with nothing else to sell is an account, unless a review is what is looked up
        # (抖音搜老王茶叶测评).
        if _PERSON_HANDLE.search(m.group("cjk")) and not _TOPIC.search(m.group("cjk")):
            return m.group(0)
    return ""


# Numerals of every system → digits (for the contact views only: "八" is a digit there, not a word).
_NUMERALS = str.maketrans({
    **dict(zip("零〇幺一二三四五六七八九", "001123456789", strict=True)),
    **dict(zip("壹贰貳叁參肆伍陆陸柒捌玖", "122334566789", strict=True)),
    **{chr(0x2776 + i): str(i + 1) for i in range(9)}, **{chr(0x278A + i): str(i + 1) for i in range(9)},
    **{chr(0x24F5 + i): str(i + 1) for i in range(9)}, "⓿": "0", "\u20e3": "", "\ufe0f": "",
})
# App names in leet (w31x1n, k0uk0u): a token of letters and digits that reads as an app once digits are letters.
_LEET_TOKEN = re.compile(r"(?<![a-z0-9])(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{2,8}(?![a-z0-9])")
_LETTER_DIGIT = re.compile(r"[a-z]\d|\d[a-z]")
_LEET_APPS = frozenset({"weixin", "wechat", "vx", "wx", "qq", "koukou", "qun", "dianhua", "shouji", "weibo", "tg", "telegram"})


def _leet_app(m: re.Match[str]) -> str:
    t = m.group(0).translate(_LEET)
    return t if t in _LEET_APPS else m.group(0)


_JOIN_DIGITS = re.compile(r"(?<=\d)[\s\-.·_,，、/|~]+(?=\d)")
_JOIN_LETTERS = re.compile(r"(?<![a-z])[a-z](?:[\s.·_\-*,，、|/]+[a-z](?![a-z]))+")
_DIGITISH = re.compile(r"[0-9olisz]{7,}")  # "138oooo1234", "33o72i5s9": look-alike letters inside a long number
_NOT_COMPACT = re.compile(r"[^0-9a-z\u3400-\u9fff\uf900-\ufaff:¥$@_\-]+")
_DIGIT_LETTERS = str.maketrans("olisz", "01152")
_WEB = re.compile(r"https?://|www\.|[a-z0-9-]+\.(?:com|cn|net|top|xyz|vip|shop|cc)(?![a-z0-9])|[a-z0-9-]+(?:\.|点|dot)(?:me|io|app|link|ly|to|gg)/")
# App names read by sound: a pair of characters with these readings is the app, whatever they are.
_SOUND_PAIRS = {("kou", "kou"): "扣扣", ("wei", "xin"): "微信", ("qi", "e"): "企鹅"}
_SOUND_ONE = {"qun": "群"}
_SOUND_SYLLABLES = frozenset({"kou", "wei", "qi", "qun"})
# 死 after a verb or adjective is a degree complement ("笑死我了", "累死了"), not a stand-in for 私/司.
_COMPLEMENT = frozenset("死")
# Emoji read as the syllable/word they stand for, look-alike letters as latin (before every rule).
_FOLD = str.maketrans({**EMOJI_STANDINS, **LOOKALIKES, **{k.upper(): v for k, v in LOOKALIKES.items() if k.upper() != k}})


_ENCLOSED = str.maketrans({
    **{chr(0x1F150 + i): chr(0x61 + i) for i in range(26)},  # 🅐 negative circled
    **{chr(0x1F170 + i): chr(0x61 + i) for i in range(26)},  # 🅰 negative squared
    **{chr(0x1F1E6 + i): chr(0x61 + i) for i in range(26)},  # 🇦 regional indicators
    "×": "x", "✘": "x", "✗": "x",
})
_RADICALS = str.maketrans(RADICAL_FORMS)
_COMPONENT_FIRST = frozenset(k[0] for k in COMPONENT_PAIRS) | frozenset(RADICAL_FORMS)
_COMPONENTS = re.compile("|".join(map(re.escape, COMPONENT_PAIRS)))
_ACCENTED = re.compile(r"[\u00c0-\u024f\u1e00-\u1eff\u0300-\u036f]")  # latin with diacritics, combining marks
_COMBINING = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u20d0-\u20dc\u20de-\u20ff]")  # not the keycap U+20E3


def fold(text: str) -> str:
    """Emoji stand-ins (🐴 → 马, 🍑 → 桃), look-alike letters of other scripts (Cyrillic х → x), enclosed
    letters (🅥 → v), diacritics (wēi xìn → wei xin) and characters split into their components (亻言 → 信)
    read as meant."""
    text = text.translate(_FOLD).translate(_ENCLOSED)
    if not _COMPONENT_FIRST.isdisjoint(text):
        text = _COMPONENTS.sub(lambda m: COMPONENT_PAIRS[m.group(0)], text.translate(_RADICALS))
    if _ACCENTED.search(text):
        text = _COMBINING.sub("", unicodedata.normalize("NFD", text))
        text = unicodedata.normalize("NFC", text)
    return text


@functools.lru_cache(maxsize=16384)
def _contact_views(text: str) -> tuple[str, ...]:
    """The text as the contact and pattern rules read it: compact (no spaces or punctuation), single
    letters joined ("k.o.u" → kou), digits joined; once as typed, once with every numeral a digit
    (_sound_views adds both with app names read by sound)."""
    t = _EMOJI.sub("", unicodedata.normalize("NFKC", text))
    t = _t2s(t).lower().replace("：", ":")
    plain: list[str] = []
    for v in (t, t.translate(_NUMERALS)):
        v = _JOIN_DIGITS.sub("", v)
        v = _JOIN_LETTERS.sub(lambda m: re.sub(r"[^a-z]", "", m.group(0)), v)
        v = _DIGITISH.sub(lambda m: m.group(0).translate(_DIGIT_LETTERS)
                          if sum(c.isdigit() for c in m.group(0)) >= 5 else m.group(0), v)
        if _LETTER_DIGIT.search(v):
            v = _LEET_TOKEN.sub(_leet_app, v)
        v = _NOT_COMPACT.sub("", v)
        if v not in plain:
            plain.append(v)
    return tuple(plain)


@functools.lru_cache(maxsize=16384)
def _sound_views(views: tuple[str, ...]) -> tuple[str, ...]:
    """The contact views with app names read by sound, where that changes anything."""
    return tuple(x for x in map(_by_sound, views) if x not in views)


@functools.lru_cache(maxsize=65536)
def _sound_class(c: str) -> str:
    return char_pinyin(c) if is_cjk_char(c) else ""


def _by_sound(v: str) -> str:
    chars = list(v)
    syl = [_sound_class(c) for c in chars]
    if not _SOUND_SYLLABLES.intersection(syl):
        return v
    i = 0
    while i < len(chars):
        pair = _SOUND_PAIRS.get((syl[i], syl[i + 1])) if i + 1 < len(chars) else None
        if pair is not None:
            chars[i], chars[i + 1] = pair[0], pair[1]
            i += 2
            continue
        one = _SOUND_ONE.get(syl[i])
        if one is not None:
            chars[i] = one
        i += 1
    return "".join(chars)


@functools.lru_cache(maxsize=65536)
def char_pinyin(c: str) -> str:
    """Toneless pinyin of one CJK character (its most common reading), or '' if unknown."""
    if c in READINGS:
        return READINGS[c]
    reading = pinyin_dict.get(ord(c))
    if not reading:
        return ""
    first = reading.split(",")[0].replace("ü", "v")
    return "".join(ch for ch in unicodedata.normalize("NFD", first) if not unicodedata.combining(ch))


def variants(syl: str) -> frozenset[str]:
    """The syllables a blurred reading stands for: sha → {sha, sa}, xing → {xing, xin}, zhang → 4."""
    heads = {syl[:2], syl[0]} if syl[:2] in ("zh", "ch", "sh") else {syl[0] + "h", syl[0]} if syl[0] in "zcs" and syl[1:2] != "h" else {""}
    body = syl[2:] if syl[:2] in ("zh", "ch", "sh") else syl[1:] if syl[0] in "zcs" else syl
    tails = {body, body[:-1]} if body.endswith("ng") else {body, body + "g"} if body.endswith("n") else {body}
    return frozenset(h + t for h in heads for t in tails) if heads != {""} else frozenset(tails)


@functools.cache
def _chars_by_syllable() -> dict[str, tuple[int, ...]]:
    """Every code point of the pinyin table grouped by its toneless reading (built once, ~0.2 s)."""
    groups: dict[str, list[int]] = {}
    for cp in pinyin_dict:
        syl = char_pinyin(chr(cp))
        if syl:
            groups.setdefault(syl, []).append(cp)
    return {k: tuple(v) for k, v in groups.items()}


@functools.lru_cache(maxsize=16384)
def _syllables(word: str) -> tuple[str, ...]:
    return tuple(s.replace("ü", "v").lower() for s in lazy_pinyin(word))


@functools.cache
def _segmenter():  # type: ignore[no-untyped-def]
    from broadcaster.brain.lexical import _jieba

    return _jieba()


@dataclass(frozen=True, slots=True)
class Verdict:
    ok: bool
    matched: tuple[str, ...] = ()  # the listed words that were hit
    how: tuple[str, ...] = ()  # per match, the rule: text | alias | pinyin | initial | abbreviation | latin | contact | split
    action: str = ""  # the configured action when not ok
    spans: tuple[str, ...] = ()  # per match, what in the text it was

    def describe(self) -> str:
        if self.ok:
            return "ok"
        hits = ", ".join(
            f"{w} ({h}{': ' + s if s and s != w else ''})"
            for w, h, s in zip(self.matched, self.how, self.spans or ("",) * len(self.matched), strict=True)
        )
        return f"blocked: {hits}; action={self.action}"


OK = Verdict(ok=True)

# A question naming another platform speaks of this shop (check_comment) …
_OWN_SHOP = re.compile(r"在这|这里|这边|直播间|你们|你家|这家|一家|同一家|本店|主播家|正品|真的假的|是不是假|是假的|假货吗|放心|官方|授权|"
                       r"旗舰店吗|一样吗|一个厂|同一个")
_ELSEWHERE = frozenset({"别家价格", "别处购买"})
# … or it diverts buyers there: go, search, buy there, cheaper there, not here.
_DIVERSION = re.compile(r"(?:去|到|上)\S{0,6}(?:买|搜|下单|拍|看看|领)|搜(?:同款|一下|索)|更便宜|更划算|才\d|只要\d|便宜\d|"
                        r"便宜(?:多了|很多|好多|不少|一半)|别(?:在这|在这里|买|拍)|不如去|不要在|加我|私我|私聊|链接|同款(?:只要|才)")


def load_words(path: Path) -> list[str]:
    """One word per line; blank lines and '#' comments ignored."""
    words: list[str] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            words.append(line)
    return words


def _masked(word: str) -> str:
    """A latin word, or the word with one of its letters after the first masked by a symbol."""
    alts = [re.escape(word)] + [re.escape(word[:i]) + _MASK + re.escape(word[i + 1 :]) for i in range(1, len(word))]
    if len(word) >= 4:  # "f**k", "sh**"
        alts += [re.escape(word[:i]) + _MASK + _MASK + re.escape(word[i + 2 :]) for i in range(1, len(word) - 1)]
    return "(?:" + "|".join(alts) + ")"


class Moderator:
    """Checks texts against the room + global word lists; thread-safe and allocation-light."""

    def __init__(self, words: Iterable[str], *, allow: Iterable[str] = (), pinyin: bool = True,
                 action: str = "replace", aliases: bool = True, initials: bool = True,
                 contacts: bool = True, patterns: dict[str, str] | None = None,
                 insult_words: Iterable[str] = ()) -> None:
        self.action = action
        # Two-syllable insults by sound, for the address slot ("主播纸张吧" is 智障): reading → the insult.
        self._insult_sounds = {_syllables(w): w for w in insult_words
                               if len(w) == 2 and all(is_cjk_char(c) for c in w)} if pinyin else {}
        self._insult_nouns = frozenset(w for w in insult_words if len(w) >= 2)
        self._clause_nouns = self._insult_nouns - NEUTRAL_NOUNS
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
                    abbr = "".join(s[0] for s in _syllables(d))
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
                            if d == key and (len(dense(nick)) < 2 or self._common(nick)):
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
        self._py_words = py_words
        self._form_re = re.compile("|".join(map(re.escape, sorted(forms, key=len, reverse=True)))) if forms else None
        self._latin_re = (
            re.compile(r"(?<![a-z])(" + "|".join(_masked(w) for w in sorted(latin, key=len, reverse=True)) + ")")
            if latin else None
        )
        self._latin_masked = {w: re.compile(_masked(w)) for w in latin}
        # Per word: its regex, per syllable the readings that may stand for it (blurred ones for words of
        # three syllables or more) and (readings, typed spelling) pairs; per reading, the words that have
        # it. A text is only matched against words it could spell (see _candidates): most try none.
        self._py_list: list[tuple[str, re.Pattern[str], tuple[frozenset[str], ...],
                                  tuple[tuple[frozenset[str], str], ...]]] = []
        for key in sorted(py_words, key=len, reverse=True):
            syls = _syllables(key)
            classes = tuple(variants(x) if len(syls) >= 3 else frozenset({x}) for x in syls)
            self._py_list.append((key, self._pinyin_pattern(key, initials), classes,
                                  tuple(zip(classes, (x.upper() for x in syls), strict=True))))
        self._by_spelling: dict[str, list[int]] = {}  # a syllable as typed (upper case) → words with it
        for i, (_, _, _, pairs) in enumerate(self._py_list):
            for _, u in pairs:
                self._by_spelling.setdefault(u, []).append(i)
        self._by_syllable: dict[str, list[int]] = {}
        for i, (_, _, classes, _) in enumerate(self._py_list):
            for reading in set().union(*classes):
                self._by_syllable.setdefault(reading, []).append(i)
        self._by_first: dict[str, list[int]] = {}  # a reading of a word's first syllable → words
        for i, (_, _, classes, _) in enumerate(self._py_list):
            for reading in classes[0]:
                self._by_first.setdefault(reading, []).append(i)
        self._py_re = bool(self._py_list)
        self._allow = sorted({dense(a) for a in allow if dense(a)}, key=len, reverse=True)
        # Characters that sound like a syllable of some listed word: a text with fewer than two of
        # them (and no latin letters) cannot match by pinyin, so the per-character walk is skipped.
        by_syllable = _chars_by_syllable() if py_words else {}
        self._sound_alike: dict[int, None] = {
            cp: None for syl in self._by_syllable for cp in by_syllable.get(syl, ())
        }
        if forms or py_words:
            _segmenter()  # load the dictionary now, not on the first comment
        # Floods repeat themselves: verdicts are immutable, so the last few thousand are kept (thread-safe).
        self._check_cached = functools.lru_cache(maxsize=8192)(self._check)
        self._platforms = frozenset(COMPETITORS) & frozenset(listed)

    @staticmethod
    def _pinyin_pattern(d: str, initials: bool) -> re.Pattern[str]:
        """A regex over the pinyin stream for one word: CJK syllables are lower case, typed latin upper.

        A syllable may be a CJK character's reading (blurred, for words of three syllables or more), the viewer's own spelling of it, or, with
        `initials`, one lone typed letter — but not every syllable of a word may be a lone letter
        (pure initials are the abbreviation rule's business, on whole tokens).
        """
        syls = _syllables(d)
        # Blurred initials/finals only for words of three syllables or more: for two, too many everyday
        # pairs blur into a listed word ("是吗" ~ 死妈).
        readings = [sorted(variants(s), key=len, reverse=True) if len(syls) >= 3 else [s] for s in syls]
        full = ["|".join([*map(re.escape, r), re.escape(s.upper())]) for r, s in zip(readings, syls, strict=True)]
        if initials:
            lone = [f"(?<![A-Z]){re.escape(s[0].upper())}(?![A-Z])" for s in syls]
            body = "|".join(
                "".join(f"(?:{full[j]})" if j == i else f"(?:{full[j]}|{lone[j]})" for j in range(len(syls)))
                for i in range(len(syls))
            )
        else:
            body = "".join(f"(?:{f})" for f in full)
        return re.compile(f"(?=({body}))")

    # -- checking ---------------------------------------------------------------------------------------

    def check(self, text: str) -> Verdict:
        """The verdict on a text (a comment, a user name, an answer); repeated texts are answered from a cache."""
        return self._check_cached(text)

    def check_comment(self, text: str) -> Verdict:
        """A viewer's comment: as `check`, except that another platform named in a question about this shop and its
        goods ("淘宝上那家跟直播间是一家吗", "拼多多上有个便宜很多的，是不是假的？想在这买个放心的") is a viewer asking,
        not a seller diverting: only the platform's name was hit, the text asks something, and it either speaks of
        this shop (这家, 你们, 直播间, 正品 …) or carries no diversion cue (go there, search there, cheaper there).
        An answer never names another platform: answers are checked with `check`."""
        v = self.check(text)
        if v.ok or not is_question(text):
            return v
        names = [w in self._platforms and h in ("text", "alias") for w, h in zip(v.matched, v.how, strict=True)]
        elsewhere = [w in _ELSEWHERE and h == "pattern" for w, h in zip(v.matched, v.how, strict=True)]
        if not any(names) or not all(a or b for a, b in zip(names, elsewhere, strict=True)):
            return v
        own = _OWN_SHOP.search(text) is not None
        # a price said of the other place needs the shop spoken of ("…便宜很多的，是不是假的？想在这买")
        return OK if own or (not any(elsewhere) and not _DIVERSION.search(text)) else v

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
            d = d.replace(a, _BREAK)
        if self._form_re is not None:
            for m in self._form_re.finditer(d):
                form = m.group(0)
                word, kind = self._forms[form]
                if word in matched or self._real_word_around(d, m.start(), m.end()):
                    continue
                if (form[0].isascii() or form[-1].isascii()) and self._runs_on(text, d, m.start(), m.end()):
                    continue
                hit(word, kind, form)
        if self._py_re and (
            len(d) - len(d.translate(self._sound_alike)) >= 2 or _HAS_LATIN.search(d)
        ):
            self._pinyin_hits(self._without_units(text, d), hit)
        if self._abbr or self._latin_re is not None:
            views = self._latin_views(text)
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
        if self._insult_nouns:
            for m in _ADDRESS_SLOT.finditer(normalize(text)):
                slot = m.group(1) or m.group(2) or m.group(3)
                word = slot if slot in self._insult_nouns else self._insult_sounds.get(_syllables(slot))
                if word is not None:
                    hit(word, "pinyin", slot)
            for m in _NOUN_CLAUSE.finditer(normalize(text)):
                noun = m.group(1).rstrip(_CLAUSE_PARTICLES)
                if noun in self._clause_nouns:
                    hit(noun, "text", noun)
        if self._context:
            n = normalize(text)
            for word, rx in self._context:
                m = rx.search(n)
                if m is not None:
                    hit(word, "alias", m.group(0))
        if self.contacts or self._patterns:
            views = _contact_views(text)  # digits as typed (normalize would squeeze "0000")
            if self._allow:
                views = tuple(self._without_allowed(v) for v in views)
            for word, rx in self._patterns:
                for view in views:
                    m = rx.search(view)
                    if m is not None:
                        hit(word, "pattern", m.group(0))
                        break
            if self.contacts:
                m = _WEB.search(unicodedata.normalize("NFKC", text).lower().replace(" ", ""))
                for view in views + _sound_views(views):
                    if m is not None:
                        break
                    m = _CONTACT.search(view)
                    if m is None and _CONTACT_VERB.search(view):
                        m = _ID_THEN_VERB.search(view)
                found = m.group(0) if m is not None else ""
                for view in views if not found else ():
                    found = _handle(view) or _long_number(view)
                    if found:
                        break
                if found:
                    hit("联系方式", "contact", found)
        if matched and self._excuses:
            self._excuse(d, matched, how, spans)
        if not matched:
            return OK
        return Verdict(ok=False, matched=tuple(matched), how=tuple(how), action=self.action, spans=tuple(spans))

    def _abbreviation(self, tok: str) -> str | None:
        """The listed word a latin token abbreviates: the whole token (digits after it dropped), or an insult's
        initials glued to more initials ("rnmtq" = rnm + 退钱; only a token with no vowel, so it cannot be an
        English word). s13 (13 looks like B) is left to the address frame (主播是s13): alone it is a game season."""
        w = self._abbr.get(tok) or self._abbr.get(tok.rstrip("0123456789"))
        if w is None and 3 <= len(tok) <= 10 and tok.isalpha() and _NO_VOWEL.fullmatch(tok) and tok not in COMMON_ABBREVIATIONS:
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
        last = _segmenter().lcut(d[-6:], HMM=False)[-1]
        if last in self._prefixes and (len(last) == 1 or not self._common(last)):
            return True
        return len(last) > 1 and last[-1] in self._long_starts

    def _excuse(self, d: str, matched: list[str], how: list[str], spans: list[str]) -> None:
        """Drops a word's text/pinyin hit when its context makes it another word (黄片 among tea leaves)."""
        for word, (context, unless) in self._excuses.items():
            if word in matched:
                i = matched.index(word)
                if how[i] in ("text", "pinyin") and re.search(context, d) and not re.search(unless, d):
                    del matched[i], how[i], spans[i]

    def _candidates(self, syllables: set[str], typed: str, lone: str) -> list[int]:
        """Words the text may spell: every syllable sounded by a CJK character, spelled out in latin
        letters, or (initials) given as one letter; without latin letters, only all-CJK ones."""
        if not typed:
            # Only CJK: a word must have every syllable sounded, its first one included (a smaller index).
            first: set[int] = set()
            for syl in syllables:
                first.update(self._by_first.get(syl, ()))
            return [i for i in first if all(not c.isdisjoint(syllables) for c in self._py_list[i][2][1:])]
        seen: set[int] = set()
        for syl in syllables:
            seen.update(self._by_syllable.get(syl, ()))
        out = [i for i in seen if all(not c.isdisjoint(syllables) for c in self._py_list[i][2])]
        if typed:
            full = set(out)
            spelled = {i for u, idx in self._by_spelling.items() if u in typed for i in idx}
            for i in (seen | spelled) - full:
                pairs = self._py_list[i][3]
                if all(
                        not c.isdisjoint(syllables) or u in typed or (self._initials and u[0] in lone)
                        for c, u in pairs):
                    out.append(i)
        return out

    def _pinyin_hits(self, d: str, hit) -> None:  # type: ignore[no-untyped-def]
        stream, bounds, origin, syllables, typed = self._pinyin_stream(d)
        # Letters standing alone (no latin neighbour): only these may stand for a syllable ("W信").
        lone = "".join(c.upper() for i, c in enumerate(d) if c.isascii() and c.isalpha()
                       and not (i > 0 and d[i - 1].isascii() and d[i - 1].isalpha())
                       and not (i + 1 < len(d) and d[i + 1].isascii() and d[i + 1].isalpha()))
        for i in self._candidates(syllables, typed, lone):
            key, rx, _, _ = self._py_list[i]
            for m in rx.finditer(stream):
                seg = m.group(1)
                start, end = m.start(1), m.end(1)
                if start not in bounds or end not in bounds:
                    continue
                src = d[origin[start] : origin[end - 1] + 1]
                word = self._py_words[key]
                if src == key:
                    continue  # the text rule's business (it knows when a word only straddles two)
                if seg.islower():
                    # Every syllable came from a CJK character: a homophone, unless it is a common word,
                    # straddles common words, or is the listed word's own start followed by an everyday
                    # function character ("企鹅好可爱" is not 企鹅号).
                    if (self._common(src) or self._real_word_around(d, origin[start], origin[end - 1] + 1)
                            or self._function_tail(key, src) or self._speech_homophone(d, key, src, origin[start])
                            or (len(key) == 2 and src[-1] != key[-1] and src[-1] in _PARTICLES)
                            or self._inside_word(d, origin[start], origin[end - 1] + 1)):
                        continue
                    kind = "pinyin"
                else:
                    kind = "initial" if re.search(r"(?<![A-Z])[A-Z](?![A-Z])", seg) and not seg.isupper() else "pinyin"
                hit(word, kind, src)
                break

    def _without_units(self, text: str, d: str) -> str:
        """The dense view with a unit after a number (250g, 500ml) made a break: a unit letter is no syllable
        stand-in ("250g和500g" is not 荷官)."""
        n = normalize(text)
        if not _UNIT_AFTER_NUMBER.search(n):
            return d
        return self._without_allowed(_NOT_DENSE_OR_BREAK.sub("", _UNIT_AFTER_NUMBER.sub(_BREAK, n)))

    def _without_allowed(self, view: str) -> str:
        for a in self._allow:
            view = view.replace(a, _BREAK)
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

    def _speech_homophone(self, d: str, key: str, src: str, start: int) -> bool:
        """A homophone that is ordinary speech: its first character 死 as a degree complement after a verb
        or adjective ("笑死我了" is not 私我), or its substituted characters one common word of their own
        and the rest the listed word's ("弟弟我也要" is not 滴滴我)."""
        if src[0] in _COMPLEMENT and src[0] != key[0] and start > 0 and is_cjk_char(d[start - 1]):
            return True
        diff = [i for i, (a, b) in enumerate(zip(key, src, strict=True)) if a != b]
        if not diff or len(diff) == len(src):
            return False
        pos = 0
        for tok in _segmenter().lcut(src, HMM=False):
            a, b = pos, pos + len(tok)
            pos = b
            if len(tok) >= 2 and diff == list(range(a, b)) and self._common(tok):
                return True  # the substituted characters are one common word, the rest the listed word's own
        # a dictionary word and a closing particle ("败家了" is not 百家乐): the sound of a listed word made of speech
        return (src[-1] in _FUNCTION_CHARS and len(src) >= 3 and src[:-1] != key[:-1] and self._known(src[:-1]))

    @classmethod
    def _function_tail(cls, key: str, src: str) -> bool:
        diff = [i for i, (a, b) in enumerate(zip(key, src, strict=True)) if a != b]
        return (len(diff) == 1 and diff[0] == len(key) - 1 and src[-1] in _FUNCTION_CHARS
                and len(key) >= 3 and cls._common(key[:-1]))

    @staticmethod
    def _common(word: str) -> bool:
        return word in EVERYDAY_WORDS or (_segmenter().dt.FREQ.get(word) or 0) >= COMMON_WORD_FREQ

    def _real_word_around(self, d: str, start: int, end: int) -> bool:
        """True when a two-character match only straddles common words ("颜色|情况" holds 色情; "参加|群众"
        holds 加群). Longer listed words are not excused: "加徽|信号" still holds 加徽信."""
        if end - start != 2 or not all(is_cjk_char(c) for c in d[start:end]):
            return False
        lo, hi = max(0, start - 4), min(len(d), end + 4)
        pos = lo
        crossing = False
        covering: list[str] = []
        for tok in _segmenter().lcut(d[lo:hi], HMM=False):
            t0, t1 = pos, pos + len(tok)
            pos = t1
            if t1 <= start or t0 >= end:
                continue
            if t0 <= start and t1 >= end:
                # One word holds the whole match: "色情网站", "办证" — unless the word only holds it across
                # a word of its own that starts before it ("南京东路" = 南京 + 东路, not 京东).
                return t0 < start and self._common(tok[: start - t0]) and self._known(tok[end - t0 :])
            covering.append(tok)
            if t0 < start < t1 or t0 < end < t1:
                crossing = True
        # Crossed words must be common; a longer word just has to be in the dictionary ("北京|东城区"), and so does the
        # word after a common one ("参加|群舞": a rarer dictionary word is still a word, not an evasion).
        words = [t for t in covering if len(t) > 1]
        return crossing and (all(self._common(t) or (len(t) >= 3 and self._known(t)) for t in words)
                             or (len(words) == 2 and self._common(words[0]) and self._known(words[1])))

    def _inside_word(self, d: str, start: int, end: int) -> bool:
        """True when a homophone is only part of a longer dictionary word ("打麻将" holds 打麻 ~ 大麻)."""
        lo, hi = max(0, start - 4), min(len(d), end + 4)
        pos = lo
        for tok in _segmenter().lcut(d[lo:hi], HMM=False):
            t0, t1 = pos, pos + len(tok)
            pos = t1
            if t0 <= start and t1 >= end:
                # any dictionary word the segmenter chose (打麻将 is rare in its counts, but a word)
                return t1 - t0 > end - start and (_segmenter().dt.FREQ.get(tok) or 0) > 0
        return False

    @staticmethod
    def _known(word: str) -> bool:
        return len(word) <= 1 or (_segmenter().dt.FREQ.get(word) or 0) >= 10 or word in EVERYDAY_WORDS

    @staticmethod
    def _pinyin_stream(d: str) -> tuple[str, set[int], list[int], set[str], str]:
        """The dense text as pinyin (CJK → lower-case toneless syllables, typed latin → upper case).

        Returns the stream, the offsets a syllable may start or end at (around a CJK character only
        its syllable's edges; inside typed latin any offset), per stream offset the index of the
        dense character it came from, the CJK syllables and the typed latin letters (upper case).
        """
        parts: list[str] = []
        syllables: set[str] = set()
        typed: list[str] = []
        origin: list[int] = []
        bounds: set[int] = {0}
        pos = 0
        for i, c in enumerate(d):
            if is_cjk_char(c):
                syl = char_pinyin(c)
                syl = syl or _BREAK
                syllables.add(syl)
                parts.append(syl)
                origin.extend([i] * len(syl))
                bounds.add(pos)
                pos += len(syl)
                bounds.add(pos)
            else:
                parts.append(c.upper() if c != _BREAK else c)
                if c != _BREAK:
                    typed.append(c.upper())
                origin.append(i)
                if c != _BREAK:
                    bounds.add(pos)
                    bounds.add(pos + 1)
                pos += 1
        return "".join(parts), bounds, origin, syllables, "".join(typed)

    @staticmethod
    def _latin_views(text: str) -> list[str]:
        """Latin views of a text; the last one (v read as u) is for latin words only."""
        n = normalize(text)
        if not _HAS_LATIN.search(n):
            return []
        views = [n, n.translate(_LEET)]
        # Spaced-out letters ("f u c k", "f.u.c.k") joined into one word.
        joined = _SPACED_LETTERS.sub(lambda m: re.sub(r"[^a-z]", "", m.group(0)), n.translate(_LEET))
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


def build_moderator(words: Iterable[str], *, use_global: bool, words_file: Path | None, allow: Iterable[str],
                    pinyin: bool, action: str, aliases: bool = True, initials: bool = True,
                    contacts: bool = True) -> Moderator:
    all_words = list(words)
    allow = list(allow)
    patterns: dict[str, str] = {}
    if use_global:
        # A competitor platform in the allow list is the room's own: off the built-in list, nicknames too.
        own = {normalize(a) for a in allow} & {normalize(c) for c in COMPETITORS}
        all_words.extend(w for w in GLOBAL_WORDS if normalize(w) not in own)
        patterns = {w: rx for w, rx in PATTERNS.items() if normalize(w) not in own}
        # A place (another platform or store) in a price frame, the room's own platform left out.
        own_dense = {dense(a) for a in allow}
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
            go = f"(?<![我俺常])(?<!平时)(?<!经常)(?<!之前)(?<!以前)(?<!上次)(?<!我们)(?<!一般)(?:去|到|上)(?:{'|'.join(map(re.escape, places))})(?:超市|店|旗舰店|官方店|app)?(?:买(?!菜|东西|点|日用|生活)|下单|拍|搜|看看|囤)"
            patterns["别处购买"] = "|".join([patterns.get("别处购买", "(?!)"), go])
        allow.extend(BUILTIN_ALLOW)
    if words_file is not None:
        all_words.extend(load_words(words_file))
    return Moderator(all_words, allow=allow, pinyin=pinyin, action=action, aliases=aliases, initials=initials,
                     contacts=contacts, patterns=patterns,
                     insult_words=tuple(w for w in (*INSULTS, *INSULT_NOUNS) if w not in FOND_NOUNS) if use_global else ())


def moderator_from_config(cfg: object) -> Moderator:
    """A Moderator from a ModerationConfig (its words_file is already resolved against the config file)."""
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
    )


# -- names read out --------------------------------------------------------------------------------------------

ANON = "这位朋友"  # read out and shown instead of a name that is empty or fails

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
        r"加群", r"进群", r"电报", r"纸飞机", r"飞机(?:号|群)", r"qq(?:号|群)", r"扣扣", r"http", r"www", r"\.com", r"\.cn", r"\.me",
        r"(?<![a-z])(?:vx|wx|tg|dy)(?![a-z])",  # not qq alone: QQ糖, QQ星 are a candy and a milk
    ]),
    re.I,
)


def speakable_name(moderator: Moderator, raw: str, maxlen: int = 16) -> str:
    """A viewer's name as the anchor may read it out or show it (thanks, the "answering" banner, subtitles): as
    written (emoji and control characters removed, case kept), at most `maxlen` characters; ANON when it is
    empty, fails moderation, or reads as an offer rather than a name."""
    name = display(raw)[:maxlen]
    if not name or _NAME_OFFER.search(dense(raw)) or _NAME_OFFER.search(name):
        return ANON
    return name if moderator.check(raw).ok and moderator.check(name).ok else ANON
