"""Whether a comment the shop has no answer for reads as friendly: a greeting, praise, thanks or a purchase.

A comment that asks nothing the knowledge base answers gets a chit-chat line ("谢谢xx的支持！") only when it
reads as friendly (`brain.chit_chat: friendly`, the default); anything else scrolls by unanswered. Thanking a
comment the room did not understand is how an ad or an insult that slipped past moderation gets thanked on air,
and a complaint gets a cheerful "thanks for your support"; a real anchor answers questions, greets and thanks
the friendly, and lets the rest pass. A friendly word right after a negation (不喜欢, 没意思) does not count,
and words ads use as bait (便宜, 惊喜, 福利, 上车, 私聊, 链接 …) are deliberately not friendly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from broadcaster.brain.lang_en import FAREWELLS, GREETINGS, PRAISE, PURCHASES, THANKS, THREATS

_WORDS = (
    # greetings, arriving and leaving
    "你好", "您好", "主播好", "大家好", "早上好", "中午好", "下午好", "晚上好", "早安", "午安", "晚安", "早呀", "早啊",
    "我来了", "我来啦", "又来了", "又来啦", "来了来了", "终于来了", "我回来了", "刚来", "刚到", "来逛逛", "逛一逛", "我又来", "报到", "报个到", "打卡", "打个卡", "签到", "第一次", "进直播间", "欢迎", "路过", "新人", "老粉",
    "雷猴", "侬好", "刚进来", "进来了", "还播", "明天播", "几点播", "几点开播", "又见面", "见面啦", "天天来", "每天来", "每天都来", "来蹲", "天天蹲",
    "先撤", "撤了", "先走", "溜了", "下线了", "双击", "点赞", "坐等", "蹲一个", "蹲蹲", "小心心", "刷礼物",
    "hello", "hi", "hey", "嗨", "哈喽", "哈啰", "拜拜", "再见", "明天再来", "明天见", "回见", "下次见", "改天见", "下次再来", "晚点再来", "先走了", "下播",
    "关照", "生日", "快乐", "新年", "节日",
    # praise of the anchor, the show or the product
    "支持", "加油", "喜欢", "爱了", "爱你", "爱喝", "爱吃", "爱用", "好爱", "好看", "漂亮", "美美", "好美", "真美", "帅",
    "可爱", "好听", "厉害", "棒", "赞", "牛", "优秀", "专业", "用心", "靠谱", "良心", "讲得", "讲的", "说得好",
    "说的好", "说得对", "说的对", "太会", "会讲", "学到", "涨知识", "长知识", "原来如此", "懂了", "记下了",
    "不错", "挺好", "真好", "太好", "很好", "说好", "都说好", "这个好", "绝了", "绝绝子", "yyds", "xswl", "u1s1",
    "nice", "good", "great", "love", "cool", "666", "888", "999", "2333", "来了来了", "真香", "种草", "安利", "心动", "动心", "好有耐心", "真有耐心", "太有耐心", "很有耐心", "超有耐心", "挺有耐心", "蠢蠢欲动", "忍不住", "捂不住",
    "好评", "满意", "舒服", "一直用", "一直在用", "一直买", "稀罕你", "嘎嘎好", "老好了", "贼好", "高级", "上档次", "有档次", "质感", "精致", "治愈", "温柔", "有趣", "有意思", "好玩", "开心", "宝藏", "大气",
    "新鲜", "清香", "好香", "回甘", "放松", "解压", "提神", "好润", "很润", "顺润", "润喉", "滋润", "上瘾", "上头", "佩服",
    # the product and buying it
    "好喝", "好用", "好吃", "推荐", "想要", "想买", "要了", "买了", "买一罐", "来一罐", "带一罐", "加一罐", "再来",
    "下单", "拍了", "已拍", "拍下", "先拍", "入手", "回购", "回头客", "老顾客", "收到了", "到货", "囤",
    "加购", "购物车", "付款", "抢到", "来抢", "想喝", "馋", "期待", "试试", "犒劳", "送我", "给我妈", "给我爸",
    "走一波", "关注了", "点点关注", "点关注", "不迷路", "闭眼入", "闭眼买", "闭眼冲", "无脑入", "值得入", "粉丝团", "灯牌", "慕名", "找过来", "上链接", "淘到", "不踩雷", "物超所值", "超值", "值了",
    "冲鸭", "冲冲", "们冲", "来嗦粉", "嗦粉", "下班来", "来看你", "来看看", "谁懂", "香味", "茶香", "就香", "香多了", "这个香",
    # thanks and laughter
    "谢谢", "感谢", "多谢", "辛苦", "点赞", "哈哈", "嘿嘿", "笑死", "hhh",
    # heat for the room and surprise at the rush (来给主播加个热度, 帮主播冲一波, 好家伙 秒没)
    "热度", "助力", "上热门", "冲榜", "冲一波", "好家伙", "秒没", "手慢无", "抢疯了", "秒光",
)
_EMOJI = "👍👏🎉❤💕💖💗💓😍🥰😘🌹🌸💐✨🙏😄😁😊☺😆🤩🫶💪🍵🔥💯😂🤣🌶🌟⭐🥳🎊😋"
# 别 negates (别买) except inside a word (特别, 区别, 分别, 性别, 级别 …).
_NEGATED = r"(?<![不没非勿莫])(?<!(?<![特区分性级告类个差识])别)"


_ASKED = re.compile(r"\s*(?:吗|么|嘛|不|没)\s*[?？]*\s*$")
_GREETINGS_OF_GOOD = frozenset({"你好", "您好", "主播好", "大家好"})
# Praise characters that begin everyday nouns (牛排, 牛奶, 棒骨): praise only when no such noun goes on.
_PRAISE_NOT_NOUN = {"牛": r"(?![排奶肉仔皮角油筋腩骨蛙头尾舌肚杂丸粪])", "棒": r"(?![骨球子槌针])"}
_GREETING_END = r"(?:[啊呀哦呢吖哇鸭～~!！，,。\s]|$|(?![\u4e00-\u9fff])|(?=主播|大家|各位|宝|老板|小姐姐|美女|姐妹|家人|朋友|我))"


def _pattern(words: Iterable[str]) -> re.Pattern[str]:
    # Latin words stand alone ("hi" is not in "shit"); Chinese ones may not follow a negation. Matched on the text
    # as typed and without its spaces ("主 播 讲 得 好").
    words = {w.lower() for w in words if w}
    latin = "|".join(re.escape(w) for w in sorted((w for w in words if w.isascii()), key=len, reverse=True))
    # (a greeting ending in 好 greets only at its end or with a particle: 你好丑, 主播好胖 say "so ugly", not hello)
    cjk = "|".join(re.escape(w) + (_GREETING_END if w in _GREETINGS_OF_GOOD else _PRAISE_NOT_NOUN.get(w, ""))
                   for w in sorted((w for w in words if not w.isascii()), key=len, reverse=True))
    return re.compile(rf"{_NEGATED}(?:{cjk})|(?<![a-z0-9])(?:{latin})(?![a-z])|[{_EMOJI}]")


_FRIENDLY = _pattern(_WORDS)
# Praise of the goods in use by what they do for the viewer (上次买的已经用上了，真暖和; 穿着好舒适): an intensifier and a
# quality, said, not asked (暖和吗 is a question), never after a negation (不是很暖和).
_QUALITY = re.compile(r"(?<![不没])(?<!不是)(?<!没有)(?<!不够)(?:真|好|很|挺|特别|非常|贼|巨|蛮|超级?|太)(?:的)?"
                      r"(?:暖和|暖乎|舒适|保暖|实用|方便|轻便|结实|耐用|合身|好穿|好睡|透气|柔软|软乎|顺滑|清爽|省心|省事|自然(?![风光])|可以(?![用买拍吗么不]))"
                      r"(?![吗么嘛不没])(?!.{0,3}[吗么？?])")
# Looks praised (颜值也太高了吧, 颜值在线) and an arrival or a greeting addressed to the room (来啦宝子们, 家人们晚上好):
# said, not asked, and never after a negation (颜值不高, 还没来).
_LOOKS = re.compile(r"颜值(?:[也真好太很超巨贼蛮挺是]|真的|超级|绝对)*(?:高|在线|能打|天花板|爆表|绝了|顶)(?![吗么嘛不没])(?!.{0,3}[吗么？?])")
_ROOM = r"(?:宝子|宝宝|宝贝|家人|姐妹|兄弟|集美|老铁|朋友|铁子|亲)们?"
# A good wish for the host or the shop (祝主播大卖, 祝你们生意兴隆): a wish of harm names none of these.
_WISH = re.compile(r"祝(?:主播|你|你们|老板|店铺|小店|大家|直播间)?[\u4e00-\u9fff]{0,2}?(?:大卖|爆单|长红|发财|顺利|兴隆|红火|越来越好|开心|健康|好运|暴富|火爆|大火)|"
                   # (care for the host: 主播别熬夜，身体要紧; 早点休息; 注意身体)
                   r"别熬夜|早点休息|早点睡|注意身体|身体要紧|保重身体|多喝水|注意休息")
_ARRIVAL = re.compile(rf"(?<![没不])来(?:啦|喽|咯)|{_ROOM}(?:好|早|晚上好|下午好|我来了|我来啦|来了)|(?<![没不])来了{_ROOM}")
# A purchase decided aloud (决定了，买！, 就它了, 买买买): a bare 买 said, not asked, never after a negation.
_DECIDED = re.compile(r"(?:^|[，,。！!\s])(?<![不没别])买[!！~～]+$|^买[!！~～]*$|买买买|就它了|就是它了|就这个了|就要这个了")
_SPACES = re.compile(r"\s+")


# A praise word inside a threat, a jeer or a warning to others is no praise: 让你好看, 走着瞧, 你完了, 就这, 别买 veto
# a friendly reading.
_VETO = re.compile(r"倒闭|跑路|凉凉|完蛋|关门|封号|"
                   r"(?:楼下|门口|下面|外面|家门口|小区|酒店|公司)(?:等你|等着你|堵你)|下播(?:等|别走|等着|见)|一个人(?:回家|住|在家)|"
                   r"[让给要有叫]你好看|[让给要有叫]你们好看|等着瞧|走着瞧|给我等着|你等着|你们等着|你完了|小心点|别让我|"
                   r"呵呵(?!哈)|笑死人|可笑|丢人|恶心|就这|也配|还好意思|别买|不要买|劝退|避雷|智商税|割韭菜|韭菜")


# An English room's friendly words (lang_en.py) as whole words; one right after a negation ("not nice", "don't love
# it") does not count, and a threat or a jeer around the praise vetoes it ("nice scam", "cute, watch your back").
_EN_WORDS = (*GREETINGS, *PRAISE, *THANKS, *PURCHASES, *FAREWELLS)
_EN_NEGATION = re.compile(r"(?:^|\s)(?:not|never|no|don'?t|doesn'?t|didn'?t|isn'?t|wasn'?t|ain'?t|hardly|nothing)"
                          r"(?:\s+(?:so|very|really|that|too|even|at all))?\s*$")
_EN_VETO = re.compile(r"(?<![a-z])(?:" + "|".join(re.escape(w) for w in THREATS) + r"|scam|fake|rip ?off|waste of money|"
                      r"don'?t buy|not worth|yeah right|as if|sure buddy|lol no|trash|garbage|worst)(?![a-z])")


def _pattern_en(words: Iterable[str]) -> re.Pattern[str]:
    alts = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted({w.lower() for w in words if w}, key=len, reverse=True))
    return re.compile(rf"(?<![a-z0-9'])(?:{alts})(?![a-z0-9])|[{_EMOJI}]")


_FRIENDLY_EN = _pattern_en(_EN_WORDS)


class Friendly:
    """friendly(text) → whether a comment is a greeting, praise, thanks or a purchase; `extra` are the room's own
    words (its fans' slang, its product's nickname); `language` en reads them with the English lists."""

    def __init__(self, extra: Iterable[str] = (), *, language: str = "zh") -> None:
        extra = [w for w in extra if w]
        self.language = language
        if language == "en":
            self._re = _pattern_en((*_EN_WORDS, *extra)) if extra else _FRIENDLY_EN
        else:
            self._re = _pattern((*_WORDS, *extra)) if extra else _FRIENDLY

    def vetoed(self, text: str) -> bool:
        """A threat, a jeer or a warning to others around whatever praise the text holds."""
        if self.language == "en" and _EN_VETO.search(" ".join(text.lower().split())):
            return True
        return _VETO.search(_SPACES.sub("", text.lower())) is not None

    def __call__(self, text: str) -> bool:
        if self.language == "en":
            return self._english(text)
        low = text.lower()
        dense = _SPACES.sub("", low)
        if _VETO.search(dense):
            return False
        return self._praises(low) or (dense != low and self._praises(dense)) \
            or _QUALITY.search(dense) is not None or any(rx.search(dense) for rx in (_LOOKS, _ARRIVAL, _WISH, _DECIDED)) \
            or _GOODBYE.fullmatch(dense) is not None  # (88, 撤了撤了: a goodbye and nothing else)

    def asked(self, text: str) -> bool:
        """Whether the text asks a friendly word (靠谱吗, 好用不) rather than says one."""
        low = _SPACES.sub("", text.lower())
        return self.language != "en" and any(_ASKED.match(low, m.end()) for m in self._re.finditer(low))

    def _praises(self, text: str) -> bool:
        """A friendly word said, not asked: 靠谱吗, 好用么 ask whether the praise holds (a question about the goods)."""
        return any(_ASKED.match(text, m.end()) is None for m in self._re.finditer(text))

    def _english(self, text: str) -> bool:
        low = " ".join(text.lower().split())
        if self.vetoed(low):
            return False
        return any(not _EN_NEGATION.search(low[: m.start()]) for m in self._re.finditer(low))


# A viewer with a problem (the stream stalls, an order has not come, a tin arrived dented) is not thanked and not
# ignored: the room's fallback line ("这个问题我先记下来…") says it was heard, quoting nothing.
_PROBLEM = re.compile(
    r"卡了|卡住|卡死|好卡|很卡|不动了|掉线|黑屏|花屏|没声音|没有声音|声音小|听不清|没听清|看不清|看不到|刷不出|找不到|进不去|"
    r"没收到|还没收到|没发货|还没发|还没到|没到货|物流不动|不更新|不回|没人回|没回复|联系不上|"
    r"坏了|瘪了|破了|漏了|碎了|裂了|受潮|发霉|少发|漏发|发错|错发|少了一|扣款了|扣了钱|付不了|付款失败|拍不了|下不了单|"
    r"失望|不满意|投诉|差评|退不了|没退|急死|着急"
)


# …and in English: the stream stalls, no sound, an order not here, something arrived broken.
_PROBLEM_EN = re.compile(
    r"(?<![a-z])(?:lag(?:gy|ging)?|buffering|frozen|froze|stuck|no sound|no audio|can'?t hear|cannot hear|can'?t see|"
    r"black screen|not loading|won'?t load|(?:hasn'?t|has not|haven'?t|have not|never|still not|didn'?t|did not)\s+"
    r"(?:arrived|come|got|gotten|received|shipped)|not (?:arrived|received|delivered) yet|still waiting|where is my order|"
    r"arrived (?:broken|damaged|cracked|dented)|(?:is|was|came|arrived) (?:broken|damaged|cracked|dented|defective|missing)|"
    r"wrong (?:size|color|colour|item)|missing (?:part|piece|item)|charged twice|payment failed|can'?t (?:pay|check ?out|order)|"
    r"no reply|no one answers|disappointed)(?![a-z])")


def cheer(text: str, language: str = "zh") -> bool:
    """A comment of friendly emoji alone ("❤️❤️❤️", "👍", "🌹🌹"): chit-chat, though no word is left in it; in English
    also a cheer of its own ("gg", "W", "pog", "let's go")."""
    body = re.sub(r"[\s\ufe0f\u200d]+", "", text)
    if language == "en" and _FRIENDLY_EN.fullmatch(" ".join(text.lower().split()).strip(" !.")):
        return True
    if _CHEER_DIGITS.fullmatch(body) or _GOODBYE.fullmatch(body):
        return True  # 666666, 8888, 2333: a cheer, never a contact number; 撤了撤了88: a goodbye and nothing else
    return bool(body) and all(c in _EMOJI for c in body)


_CHEER_DIGITS = re.compile(r"(?:6{3,}|8{3,}|9{3,}|23{3,}|1{4,})[!！~～。.]*")
_GOODBYE = re.compile(r"(?:(?:撤了|先撤|溜了|先溜|拜拜|再见|晚安|下次见|明天见|回见|先走了|走了|88|886|bye)[!！~～。.,，]*)+", re.I)


def problem(text: str, language: str = "zh") -> bool:
    """Whether a remark reports a problem the room should acknowledge (see _PROBLEM, _PROBLEM_EN)."""
    if language == "en" and _PROBLEM_EN.search(" ".join(text.lower().split())):
        return True
    return _PROBLEM.search(_SPACES.sub("", text)) is not None
